// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Planar four-bar of Zhang, Rui, Zhang, Gu & Zhang 2023, Example 1 (seed 004_24ffa321444869ee.txt;
// reference/direct-correction-energy-2023.md §8, parallelogram reading): three moving links of
// length L = 1 m, mass 1 kg, uniform rods J = m L^2 / 12 (not given by the paper), g = 9.81 m/s^2
// along -y (not given either), ground pivots A = (0, 0) and D = (d, 0), d = 1 m by default
// ("identical link dimensions"). Relative (spanning-tree) coordinates after cutting the third
// joint: q1 crank angle at A (absolute), q2 coupler angle relative to the crank, q3 rocker angle
// at D (absolute); absolute link angles phi = (q1, q1 + q2, q3), rates w = (v1, v1 + v2, v3).
// The cut pin joins the coupler tip M and the rocker tip B: g = r_M - r_B (eq. 5), so
//   g = L e(phi1) + L e(phi2) - (d, 0) - L e(phi3),   e(phi) = (cos phi, sin phi).
// With n(phi) = D e(phi) = (-sin, cos) (D of eq. 14), the Jacobian columns are D r_TjM, -D r_TjB
// (eq. 15-17): G = [L n1 + L n2, L n2, -L n3]; the curvature L(q,v) = g_qq(v,v) =
// -L e1 w1^2 - L e2 w2^2 + L e3 w3^2; d(G v)/dq = [-L e1 w1 - L e2 w2, -L e2 w2, L e3 w3].
// Dynamics in joint space (reference §3): M = sum_i m J_vi^T J_vi + J J_wi^T J_wi and
// f = sum_i m J_vi^T (g - Jdot_vi v) with the body-CoM Jacobians
//   C1 = L/2 e1:         J_v1 = [L/2 n1, 0, 0],             Jdot_v1 v = -L/2 e1 w1^2
//   C2 = L e1 + L/2 e2:  J_v2 = [L n1 + L/2 n2, L/2 n2, 0], Jdot_v2 v = -L e1 w1^2 - L/2 e2 w2^2
//   C3 = (d,0) + L/2 e3: J_v3 = [0, 0, L/2 n3],             Jdot_v3 v = -L/2 e3 w3^2
// and J_w1 = [1,0,0], J_w2 = [1,1,0], J_w3 = [0,0,1]. Initial state q = (pi/3, -pi/3, pi/3),
// v = 0 (the OCR's "pi/3, pi/3, pi/3" with the lost minus restored, reference §8): the
// parallelogram, coupler horizontal, both tips at (1.5, 0.866).
//
// With d = L (a rhombus) the linkage has change points at q1 = 0 and pi where G loses rank
// (reference §8 "Hazard"); FourBar(d) with another d (e.g. 0.8, the Grashof drag-link of §10)
// avoids them.

#include <Eigen/LU>
#include <cmath>
#include <numbers>

#include "engine/mechanisms/mechanisms_impl.hpp"

namespace rtmb::detail {
namespace {

constexpr double kLength = 1.0;                                // L [m]
constexpr double kMass = 1.0;                                  // m [kg]
constexpr double kInertia = kMass * kLength * kLength / 12.0;  // J [kg m^2]
constexpr double kGravity = 9.81;                              // [m/s^2]

struct Kin {
  Eigen::Vector2d e1, e2, e3, n1, n2, n3;
  double w1, w2, w3;
};

// link directions at q; the rates are zero
Kin kinematics(VecCRef q) noexcept {
  Kin k;
  const double p1 = q(0);
  const double p2 = q(0) + q(1);
  const double p3 = q(2);
  k.e1 << std::cos(p1), std::sin(p1);
  k.e2 << std::cos(p2), std::sin(p2);
  k.e3 << std::cos(p3), std::sin(p3);
  k.n1 << -k.e1.y(), k.e1.x();
  k.n2 << -k.e2.y(), k.e2.x();
  k.n3 << -k.e3.y(), k.e3.x();
  k.w1 = 0.0;
  k.w2 = 0.0;
  k.w3 = 0.0;
  return k;
}

// link directions at q and absolute link rates w = (v1, v1 + v2, v3)
Kin kinematics(VecCRef q, VecCRef v) noexcept {
  Kin k = kinematics(q);
  k.w1 = v(0);
  k.w2 = v(0) + v(1);
  k.w3 = v(2);
  return k;
}

}  // namespace

FourBar::FourBar(double ground) : System(3, 3, 2), ground_(ground) {}

void FourBar::initial_state(State& out) const {
  out = State(n_q(), n_v());
  if (ground_ == kLength) {
    out.q << std::numbers::pi / 3.0, -std::numbers::pi / 3.0, std::numbers::pi / 3.0;
    return;
  }
  // other grounds: crank at pi/3, close the loop by Newton on (q2, q3) (reference §10 variant)
  out.q << std::numbers::pi / 3.0, -1.2, 0.8;
  Vec g(2);
  Mat G(2, 3);
  for (int it = 0; it < 50; ++it) {
    constraints(0.0, out.q, g);
    jacobian(0.0, out.q, G);
    const Eigen::Matrix2d J = G.rightCols<2>();
    out.q.tail<2>() -= J.inverse() * g;
  }
}

void FourBar::mass(double /*t*/, VecCRef q, MatRef out_M) const noexcept {
  const Kin k = kinematics(q);
  constexpr double h = 0.5 * kLength;
  // J_v columns
  const Eigen::Vector2d a1 = h * k.n1;                   // body 1, q1
  const Eigen::Vector2d b1 = kLength * k.n1 + h * k.n2;  // body 2, q1
  const Eigen::Vector2d b2 = h * k.n2;                   // body 2, q2
  const Eigen::Vector2d c3 = h * k.n3;                   // body 3, q3
  out_M.setZero();
  out_M(0, 0) = kMass * (a1.squaredNorm() + b1.squaredNorm()) + 2.0 * kInertia;
  out_M(0, 1) = kMass * b1.dot(b2) + kInertia;
  out_M(1, 0) = out_M(0, 1);
  out_M(1, 1) = kMass * b2.squaredNorm() + kInertia;
  out_M(2, 2) = kMass * c3.squaredNorm() + kInertia;
}

void FourBar::forces(
    double /*t*/, VecCRef q, VecCRef v, InputValues /*u*/, VecRef out_f) const noexcept {
  const Kin k = kinematics(q, v);
  constexpr double h = 0.5 * kLength;
  const Eigen::Vector2d grav(0.0, -kGravity);
  // m (g - Jdot_v v) per body
  const Eigen::Vector2d r1 = kMass * (grav + h * k.e1 * k.w1 * k.w1);
  const Eigen::Vector2d r2 = kMass * (grav + kLength * k.e1 * k.w1 * k.w1 + h * k.e2 * k.w2 * k.w2);
  const Eigen::Vector2d r3 = kMass * (grav + h * k.e3 * k.w3 * k.w3);
  out_f(0) = (h * k.n1).dot(r1) + (kLength * k.n1 + h * k.n2).dot(r2);
  out_f(1) = (h * k.n2).dot(r2);
  out_f(2) = (h * k.n3).dot(r3);
}

void FourBar::constraints(double /*t*/, VecCRef q, VecRef out_g) const noexcept {
  const Kin k = kinematics(q);
  const Eigen::Vector2d c = kLength * (k.e1 + k.e2 - k.e3) - Eigen::Vector2d(ground_, 0.0);
  out_g = c;
}

void FourBar::jacobian(double /*t*/, VecCRef q, MatRef out_G) const noexcept {
  const Kin k = kinematics(q);
  out_G.col(0) = kLength * (k.n1 + k.n2);
  out_G.col(1) = kLength * k.n2;
  out_G.col(2) = -kLength * k.n3;
}

void FourBar::curvature(double /*t*/, VecCRef q, VecCRef v, VecRef out_L) const noexcept {
  const Kin k = kinematics(q, v);
  out_L = kLength * (-k.e1 * k.w1 * k.w1 - k.e2 * k.w2 * k.w2 + k.e3 * k.w3 * k.w3);
}

void FourBar::velocity_constraint_jacobian(double /*t*/,
                                           VecCRef q,
                                           VecCRef v,
                                           MatRef out_Gv_q) const noexcept {
  // column j = D (rdot_P - rdot_Tj) with the sign of the marker (reference §5.2 compact form)
  const Kin k = kinematics(q, v);
  out_Gv_q.col(0) = -kLength * (k.e1 * k.w1 + k.e2 * k.w2);
  out_Gv_q.col(1) = -kLength * k.e2 * k.w2;
  out_Gv_q.col(2) = kLength * k.e3 * k.w3;
}

double FourBar::energy(double /*t*/, VecCRef q, VecCRef v, InputValues /*u*/) const noexcept {
  const Kin k = kinematics(q, v);
  constexpr double h = 0.5 * kLength;
  const Eigen::Vector2d c1 = h * k.e1;
  const Eigen::Vector2d c2 = kLength * k.e1 + h * k.e2;
  const Eigen::Vector2d c3 = Eigen::Vector2d(ground_, 0.0) + h * k.e3;
  const Eigen::Vector2d v1 = h * k.n1 * k.w1;
  const Eigen::Vector2d v2 = kLength * k.n1 * k.w1 + h * k.n2 * k.w2;
  const Eigen::Vector2d v3 = h * k.n3 * k.w3;
  const double kinetic = 0.5 * kMass * (v1.squaredNorm() + v2.squaredNorm() + v3.squaredNorm()) +
                         0.5 * kInertia * (k.w1 * k.w1 + k.w2 * k.w2 + k.w3 * k.w3);
  const double potential = kMass * kGravity * (c1.y() + c2.y() + c3.y());
  return kinetic + potential;
}

// ---- drawing geometry (rtmb/models/joint_points.hpp) -----------------------------------------
// Points: 0 the pivot A = (0, 0), 1 the crank tip L e1, 2 the coupler tip M = L e1 + L e2,
// 3 the pivot D = (d, 0), 4 the rocker tip B = D + L e3. The cut pin is g = M - B (eq. 5), so
// points 2 and 4 coincide on the constraint manifold. Bars: crank 0-1, coupler 1-2, rocker 3-4.
namespace {
constexpr std::array<JointLink, 3> kFourBarBars{{{0, 1}, {1, 2}, {3, 4}}};
constexpr std::array<int, 2> kFourBarGround{0, 3};
}  // namespace

int FourBar::n_joint_points() const noexcept {
  return 5;
}
std::span<const JointLink> FourBar::joint_links() const noexcept {
  return kFourBarBars;
}
std::span<const int> FourBar::ground_points() const noexcept {
  return kFourBarGround;
}
void FourBar::joint_points(double /*t*/, VecCRef q, std::span<Eigen::Vector3d> out) const noexcept {
  const Kin k = kinematics(q);
  const auto lift = [](const Eigen::Vector2d& p) { return Eigen::Vector3d(p.x(), p.y(), 0.0); };
  out[0].setZero();
  out[1] = lift(kLength * k.e1);
  out[2] = lift(kLength * (k.e1 + k.e2));
  out[3] = {ground_, 0.0, 0.0};
  out[4] = lift(Eigen::Vector2d(ground_, 0.0) + kLength * k.e3);
}

}  // namespace rtmb::detail
