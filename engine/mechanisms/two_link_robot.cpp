// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Two-link planar manipulator with a prescribed end-effector path: Chin 1995 Ex. 3.3 / §4.4.3,
// written out in reference/post-stabilization-chin1995.md §3.6. Two uniform rods, link 1 pinned at
// the origin, link 2 pinned to the end of link 1; q = (theta1, theta2) with theta1 measured from
// the horizontal and theta2 relative to link 1. With c1 = cos(theta1), c12 = cos(theta1 + theta2)
// (and s likewise) the tip is
//   x2 = l1 c1 + l2 c12,   y2 = l1 s1 + l2 s12,
//   dx2/dq = (-y2, -l2 s12),   dy2/dq = (x2, l2 c12).
// M and f are as printed in §3.6 (checked there, and in the tests, against the Lagrangian of two
// uniform rods). One constraint:
//   case I  (parabola): g = y2 - x2^2 + b,  b = 4 cos^2(70 deg) so that g(q0) = 0;
//   case II (sine):     g = y2 - sin^2(omega t),  g_t = -omega sin(2 omega t),
//                       g_tt = -2 omega^2 cos(2 omega t).
// With w = theta1' + theta2', the velocity-free parts of the tip accelerations are
//   x2'' - (dx2/dq) v' = -l1 c1 theta1'^2 - l2 c12 w^2,
//   y2'' - (dy2/dq) v' = -l1 s1 theta1'^2 - l2 s12 w^2,
// from which L follows by the chain rule (the printed §3.6 formulas agree; the tests verify all of
// G, g_t, L and d(Gv + g_t)/dq by finite differences).
//
// Masses: the thesis OCR reads "3Q kg" (30 or 36). With m1 = m2 the mass cancels from the motion
// and only scales the multiplier, so 30 kg is used (§6.2 item 12).

#include <cmath>
#include <numbers>

#include "engine/mechanisms/mechanisms_impl.hpp"

namespace rtmb::detail {
namespace {

constexpr double kMass1 = 30.0;                                       // m1 [kg], "3Q" in the OCR
constexpr double kMass2 = 30.0;                                       // m2 [kg]
constexpr double kLength1 = 1.0;                                      // l1 [m]
constexpr double kLength2 = 1.0;                                      // l2 [m]
constexpr double kGravity = 9.81;                                     // g [m/s^2]
constexpr double kTheta1Initial = 70.0 * std::numbers::pi / 180.0;    // [rad]
constexpr double kTheta2Initial = -140.0 * std::numbers::pi / 180.0;  // [rad]

// Trigonometry and tip kinematics of one configuration.
struct Kinematics {
  double s1, c1, s12, c12;
  double x2, y2;  // tip position [m]
  double xd, yd;  // tip velocity [m/s]
  double w1, w;   // theta1', theta1' + theta2' [rad/s]
};

[[nodiscard]] Kinematics kinematics(const VecCRef& q, const VecCRef& v) noexcept {
  Kinematics k{};
  k.s1 = std::sin(q(0));
  k.c1 = std::cos(q(0));
  k.s12 = std::sin(q(0) + q(1));
  k.c12 = std::cos(q(0) + q(1));
  k.x2 = kLength1 * k.c1 + kLength2 * k.c12;
  k.y2 = kLength1 * k.s1 + kLength2 * k.s12;
  k.w1 = v(0);
  k.w = v(0) + v(1);
  k.xd = -kLength1 * k.s1 * k.w1 - kLength2 * k.s12 * k.w;
  k.yd = kLength1 * k.c1 * k.w1 + kLength2 * k.c12 * k.w;
  return k;
}

// Velocity-free parts of the tip accelerations (see the file comment).
[[nodiscard]] double tip_x_remainder(const Kinematics& k) noexcept {
  return -kLength1 * k.c1 * k.w1 * k.w1 - kLength2 * k.c12 * k.w * k.w;
}
[[nodiscard]] double tip_y_remainder(const Kinematics& k) noexcept {
  return -kLength1 * k.s1 * k.w1 * k.w1 - kLength2 * k.s12 * k.w * k.w;
}

// Entries of the symmetric 2x2 mass matrix, which depends on theta2 only (Chin §3.6).
struct RobotMass {
  double m11, m12, m22;
};

[[nodiscard]] RobotMass robot_mass(double theta2) noexcept {
  const double c2 = std::cos(theta2);
  const double l1 = kLength1;
  const double l2 = kLength2;
  return {kMass1 * l1 * l1 / 3.0 + kMass2 * (l1 * l1 + l2 * l2 / 3.0 + l1 * l2 * c2),
          kMass2 * (l2 * l2 / 3.0 + l1 * l2 * c2 / 2.0), kMass2 * l2 * l2 / 3.0};
}

// b of case I: the parabola y2 = x2^2 - b passes through the initial tip (2 cos 70 deg, 0).
[[nodiscard]] double parabola_offset() noexcept {
  const double c = std::cos(kTheta1Initial);
  return 4.0 * c * c;
}

}  // namespace

std::string_view TwoLinkRobot::name() const noexcept {
  return path_ == RobotPath::kParabola ? "robot_parabola" : "robot_sine";
}

void TwoLinkRobot::initial_state(State& out) const {
  // tip at (2 cos 70 deg, 0): on the parabola by choice of b, and on y2 = sin^2(0) = 0
  out = State(n_q(), n_v());
  out.q << kTheta1Initial, kTheta2Initial;
}

void TwoLinkRobot::mass(double /*t*/, VecCRef q, MatRef out_M) const noexcept {
  const RobotMass m = robot_mass(q(1));
  out_M(0, 0) = m.m11;
  out_M(0, 1) = m.m12;
  out_M(1, 0) = m.m12;
  out_M(1, 1) = m.m22;
}

void TwoLinkRobot::forces(
    double /*t*/, VecCRef q, VecCRef v, InputValues /*u*/, VecRef out_f) const noexcept {
  const double c1 = std::cos(q(0));
  const double c12 = std::cos(q(0) + q(1));
  const double s2 = std::sin(q(1));
  const double w1 = v(0);
  const double w2 = v(1);
  // gravity on the rod centres plus the Coriolis/centrifugal terms of Chin §3.6
  const double coriolis = kMass2 * kLength1 * kLength2 * s2 / 2.0;
  out_f(0) = -kMass1 * kGravity * kLength1 * c1 / 2.0 -
             kMass2 * kGravity * (kLength1 * c1 + kLength2 * c12 / 2.0) +
             coriolis * (2.0 * w1 * w2 + w2 * w2);
  out_f(1) = -kMass2 * kGravity * kLength2 * c12 / 2.0 - coriolis * w1 * w1;
}

void TwoLinkRobot::constraints(double t, VecCRef q, VecRef out_g) const noexcept {
  const double x2 = kLength1 * std::cos(q(0)) + kLength2 * std::cos(q(0) + q(1));
  const double y2 = kLength1 * std::sin(q(0)) + kLength2 * std::sin(q(0) + q(1));
  if (path_ == RobotPath::kParabola) {
    out_g(0) = y2 - x2 * x2 + parabola_offset();
  } else {
    const double s = std::sin(omega_ * t);
    out_g(0) = y2 - s * s;
  }
}

void TwoLinkRobot::jacobian(double /*t*/, VecCRef q, MatRef out_G) const noexcept {
  const double x2 = kLength1 * std::cos(q(0)) + kLength2 * std::cos(q(0) + q(1));
  const double y2 = kLength1 * std::sin(q(0)) + kLength2 * std::sin(q(0) + q(1));
  const double l2s12 = kLength2 * std::sin(q(0) + q(1));
  const double l2c12 = kLength2 * std::cos(q(0) + q(1));
  // dy2/dq = (x2, l2 c12); the parabola adds -2 x2 dx2/dq = 2 x2 (y2, l2 s12)
  out_G(0, 0) = x2;
  out_G(0, 1) = l2c12;
  if (path_ == RobotPath::kParabola) {
    out_G(0, 0) += 2.0 * x2 * y2;
    out_G(0, 1) += 2.0 * x2 * l2s12;
  }
}

void TwoLinkRobot::constraint_rate(double t, VecCRef /*q*/, VecRef out_gt) const noexcept {
  out_gt(0) = path_ == RobotPath::kParabola ? 0.0 : -omega_ * std::sin(2.0 * omega_ * t);
}

void TwoLinkRobot::curvature(double t, VecCRef q, VecCRef v, VecRef out_L) const noexcept {
  const Kinematics k = kinematics(q, v);
  if (path_ == RobotPath::kParabola) {
    // d^2/dt^2 (y2 - x2^2) = y2'' - 2 x2'^2 - 2 x2 x2''
    out_L(0) = tip_y_remainder(k) - 2.0 * k.xd * k.xd - 2.0 * k.x2 * tip_x_remainder(k);
  } else {
    // g_tt of -sin^2(omega t); g_tq = 0
    out_L(0) = tip_y_remainder(k) - 2.0 * omega_ * omega_ * std::cos(2.0 * omega_ * t);
  }
}

void TwoLinkRobot::velocity_constraint_jacobian(double /*t*/,
                                                VecCRef q,
                                                VecCRef v,
                                                MatRef out_Gv_q) const noexcept {
  const Kinematics k = kinematics(q, v);
  // d(y2')/dq
  const double dyd_dq1 = -kLength1 * k.s1 * k.w1 - kLength2 * k.s12 * k.w;
  const double dyd_dq2 = -kLength2 * k.s12 * k.w;
  out_Gv_q(0, 0) = dyd_dq1;
  out_Gv_q(0, 1) = dyd_dq2;
  if (path_ == RobotPath::kParabola) {
    // d(2 x2 x2')/dq = 2 (dx2/dq x2' + x2 d(x2')/dq)
    const double dxd_dq1 = -kLength1 * k.c1 * k.w1 - kLength2 * k.c12 * k.w;
    const double dxd_dq2 = -kLength2 * k.c12 * k.w;
    out_Gv_q(0, 0) -= 2.0 * (-k.y2 * k.xd + k.x2 * dxd_dq1);
    out_Gv_q(0, 1) -= 2.0 * (-kLength2 * k.s12 * k.xd + k.x2 * dxd_dq2);
  }
}

double TwoLinkRobot::energy(double /*t*/, VecCRef q, VecCRef v, InputValues /*u*/) const noexcept {
  const RobotMass m = robot_mass(q(1));
  const double kinetic =
      0.5 * (m.m11 * v(0) * v(0) + 2.0 * m.m12 * v(0) * v(1) + m.m22 * v(1) * v(1));
  // rod centres at height l1 s1 / 2 and l1 s1 + l2 s12 / 2
  const double s1 = std::sin(q(0));
  const double s12 = std::sin(q(0) + q(1));
  const double potential =
      kGravity * (kMass1 * kLength1 * s1 / 2.0 + kMass2 * (kLength1 * s1 + kLength2 * s12 / 2.0));
  return kinetic + potential;
}

// ---- iteration-matrix blocks for the implicit methods (system.hpp) --------------------------

bool TwoLinkRobot::force_jacobians(
    double /*t*/, VecCRef q, VecCRef v, MatRef out_fq, MatRef out_fv) const noexcept {
  // derivatives of forces(): gravity terms in theta1, theta1 + theta2; Coriolis coefficient
  // C = m2 l1 l2 sin(theta2) / 2
  const double s1 = std::sin(q(0));
  const double s12 = std::sin(q(0) + q(1));
  const double coriolis = kMass2 * kLength1 * kLength2 * std::sin(q(1)) / 2.0;
  const double coriolis_q = kMass2 * kLength1 * kLength2 * std::cos(q(1)) / 2.0;
  const double w1 = v(0);
  const double w2 = v(1);
  const double g12 = kMass2 * kGravity * kLength2 * s12 / 2.0;
  out_fq(0, 0) = kMass1 * kGravity * kLength1 * s1 / 2.0 + kMass2 * kGravity * kLength1 * s1 + g12;
  out_fq(0, 1) = g12 + coriolis_q * (2.0 * w1 * w2 + w2 * w2);
  out_fq(1, 0) = g12;
  out_fq(1, 1) = g12 - coriolis_q * w1 * w1;
  out_fv(0, 0) = 2.0 * coriolis * w2;
  out_fv(0, 1) = 2.0 * coriolis * (w1 + w2);
  out_fv(1, 0) = -2.0 * coriolis * w1;
  out_fv(1, 1) = 0.0;
  return true;
}

bool TwoLinkRobot::constraint_force_jacobian(double /*t*/,
                                             VecCRef q,
                                             VecCRef lambda,
                                             MatRef out_H) const noexcept {
  // G = (x2, l2 c12) [+ 2 x2 (y2, l2 s12) for the parabola]; with dx2/dq = (-y2, -l2 s12),
  // dy2/dq = (x2, l2 c12), d(l2 c12)/dq = -l2 s12 (1, 1), d(l2 s12)/dq = l2 c12 (1, 1)
  const double x2 = kLength1 * std::cos(q(0)) + kLength2 * std::cos(q(0) + q(1));
  const double y2 = kLength1 * std::sin(q(0)) + kLength2 * std::sin(q(0) + q(1));
  const double l2s12 = kLength2 * std::sin(q(0) + q(1));
  const double l2c12 = kLength2 * std::cos(q(0) + q(1));
  double h00 = -y2;
  double h01 = -l2s12;
  double h10 = -l2s12;
  double h11 = -l2s12;
  if (path_ == RobotPath::kParabola) {
    h00 += 2.0 * (x2 * x2 - y2 * y2);
    h01 += 2.0 * (x2 * l2c12 - l2s12 * y2);
    h10 += 2.0 * (x2 * l2c12 - y2 * l2s12);
    h11 += 2.0 * (x2 * l2c12 - l2s12 * l2s12);
  }
  const double l = lambda(0);
  out_H(0, 0) = l * h00;
  out_H(0, 1) = l * h01;
  out_H(1, 0) = l * h10;
  out_H(1, 1) = l * h11;
  return true;
}

bool TwoLinkRobot::inertia_jacobian(double /*t*/,
                                    VecCRef q,
                                    VecCRef a,
                                    MatRef out_K) const noexcept {
  // M depends on theta2 through m11 and m12 (robot_mass)
  const double s2 = std::sin(q(1));
  const double m11_q = -kMass2 * kLength1 * kLength2 * s2;
  const double m12_q = -kMass2 * kLength1 * kLength2 * s2 / 2.0;
  out_K(0, 0) = 0.0;
  out_K(1, 0) = 0.0;
  out_K(0, 1) = m11_q * a(0) + m12_q * a(1);
  out_K(1, 1) = m12_q * a(0);
  return true;
}

// ---- drawing geometry (rtmb/models/joint_points.hpp) -----------------------------------------
// Points: the shoulder at the origin, the elbow l1 (c1, s1) and the tip (x2, y2) of the file
// comment; bars: the two links.
namespace {
constexpr std::array<JointLink, 2> kRobotBars{{{0, 1}, {1, 2}}};
constexpr std::array<int, 1> kRobotGround{0};
}  // namespace

int TwoLinkRobot::n_joint_points() const noexcept {
  return 3;
}
std::span<const JointLink> TwoLinkRobot::joint_links() const noexcept {
  return kRobotBars;
}
std::span<const int> TwoLinkRobot::ground_points() const noexcept {
  return kRobotGround;
}
void TwoLinkRobot::joint_points(double /*t*/,
                                VecCRef q,
                                std::span<Eigen::Vector3d> out) const noexcept {
  const double a1 = q(0);
  const double a12 = q(0) + q(1);
  out[0].setZero();
  out[1] = {kLength1 * std::cos(a1), kLength1 * std::sin(a1), 0.0};
  out[2] = out[1] + Eigen::Vector3d(kLength2 * std::cos(a12), kLength2 * std::sin(a12), 0.0);
}

}  // namespace rtmb::detail
