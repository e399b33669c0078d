// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Cartesian point-mass pendulum: the smallest system with a nonlinear holonomic constraint.
// q = (x, y) [m], M = m I, f = (0, -m g), g(q) = x^2 + y^2 - l^2 (descriptor form of Chin 1995
// eq. 2.2, reference/post-stabilization-chin1995.md §1.1). Differentiating the constraint:
//   G = (2x, 2y),  G v = 2 (x vx + y vy),  L = g_qq(v,v) = 2 (vx^2 + vy^2),
//   d(G v)/dq = 2 (vx, vy).
// Energy T + V = 1/2 m |v|^2 + m g y, so E0 = m g y0 = -m g l cos(theta0).

#include <cmath>
#include <numbers>

#include "engine/mechanisms/mechanisms_impl.hpp"

namespace rtmb::detail {
namespace {

constexpr double kMass = 1.0;                             // [kg]
constexpr double kLength = 1.0;                           // [m]
constexpr double kGravity = 9.81;                         // [m/s^2]
constexpr double kInitialAngle = std::numbers::pi / 3.0;  // from the downward vertical [rad]

}  // namespace

void Pendulum::initial_state(State& out) const {
  out = State(n_q(), n_v());
  out.q << kLength * std::sin(kInitialAngle), -kLength * std::cos(kInitialAngle);
}

void Pendulum::mass(double /*t*/, VecCRef /*q*/, MatRef out_M) const noexcept {
  out_M.setZero();
  out_M(0, 0) = kMass;
  out_M(1, 1) = kMass;
}

void Pendulum::forces(
    double /*t*/, VecCRef /*q*/, VecCRef /*v*/, InputValues /*u*/, VecRef out_f) const noexcept {
  out_f(0) = 0.0;
  out_f(1) = -kMass * kGravity;
}

void Pendulum::constraints(double /*t*/, VecCRef q, VecRef out_g) const noexcept {
  out_g(0) = q(0) * q(0) + q(1) * q(1) - kLength * kLength;
}

void Pendulum::jacobian(double /*t*/, VecCRef q, MatRef out_G) const noexcept {
  out_G(0, 0) = 2.0 * q(0);
  out_G(0, 1) = 2.0 * q(1);
}

void Pendulum::curvature(double /*t*/, VecCRef /*q*/, VecCRef v, VecRef out_L) const noexcept {
  out_L(0) = 2.0 * (v(0) * v(0) + v(1) * v(1));
}

void Pendulum::velocity_constraint_jacobian(double /*t*/,
                                            VecCRef /*q*/,
                                            VecCRef v,
                                            MatRef out_Gv_q) const noexcept {
  out_Gv_q(0, 0) = 2.0 * v(0);
  out_Gv_q(0, 1) = 2.0 * v(1);
}

double Pendulum::energy(double /*t*/, VecCRef q, VecCRef v, InputValues /*u*/) const noexcept {
  return 0.5 * kMass * (v(0) * v(0) + v(1) * v(1)) + kMass * kGravity * q(1);
}

bool Pendulum::constraint_force_jacobian(double /*t*/,
                                         VecCRef /*q*/,
                                         VecCRef lambda,
                                         MatRef out_H) const noexcept {
  // G^T lambda = 2 lambda (x, y)
  out_H.setZero();
  out_H(0, 0) = 2.0 * lambda(0);
  out_H(1, 1) = 2.0 * lambda(0);
  return true;
}

// ---- drawing geometry (rtmb/models/joint_points.hpp) -----------------------------------------
// Points: the pivot at the origin and the mass at q; one bar, the massless rod of length l.
namespace {
constexpr std::array<JointLink, 1> kPendulumBars{{{0, 1}}};
constexpr std::array<int, 1> kPendulumGround{0};
}  // namespace

int Pendulum::n_joint_points() const noexcept {
  return 2;
}
std::span<const JointLink> Pendulum::joint_links() const noexcept {
  return kPendulumBars;
}
std::span<const int> Pendulum::ground_points() const noexcept {
  return kPendulumGround;
}
void Pendulum::joint_points(double /*t*/,
                            VecCRef q,
                            std::span<Eigen::Vector3d> out) const noexcept {
  out[0].setZero();
  out[1] = {q(0), q(1), 0.0};
}

}  // namespace rtmb::detail
