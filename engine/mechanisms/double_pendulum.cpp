// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Rigid double pendulum of Géradin & Cardona as used by Hoitink 2011 §4.1
// (reference/gsssss-hoitink2011.md). Two massless bars with point masses at their ends, pinned at
// the origin, in redundant coordinates
//   q = (x1, y1, theta1, x2, y2, theta2)   [m, m, rad, m, m, rad]
// with four constraints
//   g1 = x1 - L1 sin(theta1),        g2 = y1 + L1 cos(theta1),
//   g3 = x2 - x1 - L2 sin(theta2),   g4 = y2 - y1 + L2 cos(theta2).
// The angles only exist to avoid atan calls, so they carry no mass: M = diag(M1, M1, 0, M2, M2, 0)
// is singular but positive definite on ker G (Chin 1995 Lemma 4.1), which is why the engine must
// solve the KKT system and never invert M (Hoitink §7.1 P14).
//
// Differentiating, with w1 = theta1', w2 = theta2':
//   d/dt g1 = x1' - L1 cos(theta1) w1,  so  L_1 = L1 sin(theta1) w1^2 and
//   d(Gv)_1/dtheta1 = L1 sin(theta1) w1;  the other rows follow the same pattern.
// Energy (Hoitink §4.1): 1/2 M1 (x1'^2 + y1'^2) + 1/2 M2 (x2'^2 + y2'^2) + M1 g y1 + M2 g y2,
// E0 = -10 for u0 = (1, 0, pi/2, 1, -1, 0), v0 = 0.

#include <cmath>
#include <numbers>

#include "engine/mechanisms/mechanisms_impl.hpp"

namespace rtmb::detail {
namespace {

constexpr double kMass1 = 1.0;     // M1 [kg]
constexpr double kMass2 = 1.0;     // M2 [kg]
constexpr double kLength1 = 1.0;   // L1 [m]
constexpr double kLength2 = 1.0;   // L2 [m]
constexpr double kGravity = 10.0;  // g [m/s^2], as in Hoitink §4.1

// coordinate indices, in the order of q
enum Coordinate : int { kX1, kY1, kTh1, kX2, kY2, kTh2 };

}  // namespace

void DoublePendulum::initial_state(State& out) const {
  // bar 1 horizontal, bar 2 hanging vertically (Hoitink §4.1)
  out = State(n_q(), n_v());
  out.q << 1.0, 0.0, std::numbers::pi / 2.0, 1.0, -1.0, 0.0;
}

void DoublePendulum::mass(double /*t*/, VecCRef /*q*/, MatRef out_M) const noexcept {
  out_M.setZero();
  out_M.diagonal() << kMass1, kMass1, 0.0, kMass2, kMass2, 0.0;
}

void DoublePendulum::forces(
    double /*t*/, VecCRef /*q*/, VecCRef /*v*/, InputValues /*u*/, VecRef out_f) const noexcept {
  out_f.setZero();
  out_f(kY1) = -kMass1 * kGravity;
  out_f(kY2) = -kMass2 * kGravity;
}

void DoublePendulum::constraints(double /*t*/, VecCRef q, VecRef out_g) const noexcept {
  out_g(0) = q(kX1) - kLength1 * std::sin(q(kTh1));
  out_g(1) = q(kY1) + kLength1 * std::cos(q(kTh1));
  out_g(2) = q(kX2) - q(kX1) - kLength2 * std::sin(q(kTh2));
  out_g(3) = q(kY2) - q(kY1) + kLength2 * std::cos(q(kTh2));
}

void DoublePendulum::jacobian(double /*t*/, VecCRef q, MatRef out_G) const noexcept {
  // Hoitink §4.1, matrix B
  out_G.setZero();
  out_G(0, kX1) = 1.0;
  out_G(0, kTh1) = -kLength1 * std::cos(q(kTh1));
  out_G(1, kY1) = 1.0;
  out_G(1, kTh1) = -kLength1 * std::sin(q(kTh1));
  out_G(2, kX1) = -1.0;
  out_G(2, kX2) = 1.0;
  out_G(2, kTh2) = -kLength2 * std::cos(q(kTh2));
  out_G(3, kY1) = -1.0;
  out_G(3, kY2) = 1.0;
  out_G(3, kTh2) = -kLength2 * std::sin(q(kTh2));
}

void DoublePendulum::curvature(double /*t*/, VecCRef q, VecCRef v, VecRef out_L) const noexcept {
  // only the sin/cos terms are nonlinear: d^2/dt^2 (a sin th) = a cos th th'' - a sin th th'^2
  const double w1_sq = v(kTh1) * v(kTh1);
  const double w2_sq = v(kTh2) * v(kTh2);
  out_L(0) = kLength1 * std::sin(q(kTh1)) * w1_sq;
  out_L(1) = -kLength1 * std::cos(q(kTh1)) * w1_sq;
  out_L(2) = kLength2 * std::sin(q(kTh2)) * w2_sq;
  out_L(3) = -kLength2 * std::cos(q(kTh2)) * w2_sq;
}

void DoublePendulum::velocity_constraint_jacobian(double /*t*/,
                                                  VecCRef q,
                                                  VecCRef v,
                                                  MatRef out_Gv_q) const noexcept {
  // G v depends on q only through the angle columns of G
  out_Gv_q.setZero();
  out_Gv_q(0, kTh1) = kLength1 * std::sin(q(kTh1)) * v(kTh1);
  out_Gv_q(1, kTh1) = -kLength1 * std::cos(q(kTh1)) * v(kTh1);
  out_Gv_q(2, kTh2) = kLength2 * std::sin(q(kTh2)) * v(kTh2);
  out_Gv_q(3, kTh2) = -kLength2 * std::cos(q(kTh2)) * v(kTh2);
}

double DoublePendulum::energy(double /*t*/,
                              VecCRef q,
                              VecCRef v,
                              InputValues /*u*/) const noexcept {
  const double kinetic = 0.5 * kMass1 * (v(kX1) * v(kX1) + v(kY1) * v(kY1)) +
                         0.5 * kMass2 * (v(kX2) * v(kX2) + v(kY2) * v(kY2));
  return kinetic + kMass1 * kGravity * q(kY1) + kMass2 * kGravity * q(kY2);
}

bool DoublePendulum::constraint_force_jacobian(double /*t*/,
                                               VecCRef q,
                                               VecCRef lambda,
                                               MatRef out_H) const noexcept {
  // only the angle rows of G^T lambda depend on q (Hoitink §4.1, J_B-lambda)
  out_H.setZero();
  out_H(kTh1, kTh1) = kLength1 * (std::sin(q(kTh1)) * lambda(0) - std::cos(q(kTh1)) * lambda(1));
  out_H(kTh2, kTh2) = kLength2 * (std::sin(q(kTh2)) * lambda(2) - std::cos(q(kTh2)) * lambda(3));
  return true;
}

// ---- drawing geometry (rtmb/models/joint_points.hpp) -----------------------------------------
// Points: the pivot at the origin and the two point masses (x1, y1), (x2, y2); the bars are the
// two massless bars of lengths L1, L2 (g1..g4 hold them at those lengths).
namespace {
constexpr std::array<JointLink, 2> kDoublePendulumBars{{{0, 1}, {1, 2}}};
constexpr std::array<int, 1> kDoublePendulumGround{0};
}  // namespace

int DoublePendulum::n_joint_points() const noexcept {
  return 3;
}
std::span<const JointLink> DoublePendulum::joint_links() const noexcept {
  return kDoublePendulumBars;
}
std::span<const int> DoublePendulum::ground_points() const noexcept {
  return kDoublePendulumGround;
}
void DoublePendulum::joint_points(double /*t*/,
                                  VecCRef q,
                                  std::span<Eigen::Vector3d> out) const noexcept {
  out[0].setZero();
  out[1] = {q(kX1), q(kY1), 0.0};
  out[2] = {q(kX2), q(kY2), 0.0};
}

}  // namespace rtmb::detail
