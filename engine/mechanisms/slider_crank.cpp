// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Slider-crank of Wu, Chiou & Lin 2000 §9, eq. 35-37 (reference/adams-moulton-pc-wu2000.md).
// q = (theta, phi, x, y): crank angle, connecting-rod angle and rod centre of mass [rad, rad, m,
// m]. The crank is a pure rotational inertia J1; the rod has mass m and inertia J2; the slider at
// the far end of the rod is massless. M = diag(J1, J2, m, m) is constant, so f has no velocity
// terms: f = (0, 0, 0, -m g). Constraints (eq. 35):
//   g1 = r cos(theta) - (x - l1 cos(phi))    crank pin = rod point l1 behind the CM, x
//   g2 = r sin(theta) - (y - l1 sin(phi))    same, y
//   g3 = (l - l1) sin(phi) + y               slider stays on y = 0
// The paper's 4-decimal initial values violate g by 4e-5, so the exact values they round are used
// (reference §9, "consistent values to use"): phi0 = -pi/6, y0 = 0.1, theta0 = asin(5/6),
// x0 = r cos(theta0) + l1 cos(phi0). Energy T + m g y, E0 = m g y0 = 0.981 J.

#include <cmath>
#include <numbers>

#include "engine/mechanisms/mechanisms_impl.hpp"

namespace rtmb::detail {
namespace {

constexpr double kCrankInertia = 0.045;          // J1 [kg m^2]
constexpr double kRodInertia = 33.0 / 4800.0;    // J2 [kg m^2]
constexpr double kRodMass = 1.0;                 // m [kg]
constexpr double kCrank = 0.3;                   // r [m]
constexpr double kRod = 0.5;                     // l [m]
constexpr double kPinToCm = 0.3;                 // l1 [m]
constexpr double kCmToSlider = kRod - kPinToCm;  // l - l1 [m]
constexpr double kGravity = 9.81;  // g [m/s^2] (not given by the paper; reference §9)

constexpr int kTheta = 0;
constexpr int kPhi = 1;
constexpr int kX = 2;
constexpr int kY = 3;

// sin and cos of the crank angle theta and the rod angle phi, which G, d(G v)/dq and
// d(G^T lambda)/dq all take.
struct AngleTrig {
  double st;  // sin theta
  double ct;  // cos theta
  double sp;  // sin phi
  double cp;  // cos phi
};

[[nodiscard]] AngleTrig angle_trig(VecCRef q) noexcept {
  return {std::sin(q(kTheta)), std::cos(q(kTheta)), std::sin(q(kPhi)), std::cos(q(kPhi))};
}

}  // namespace

void SliderCrank::initial_state(State& out) const {
  out = State(n_q(), n_v());
  const double phi0 = -std::numbers::pi / 6.0;
  const double y0 = 0.1;
  // r sin(theta0) = y0 - l1 sin(phi0) = 0.25
  const double theta0 = std::asin((y0 - kPinToCm * std::sin(phi0)) / kCrank);
  const double x0 = kCrank * std::cos(theta0) + kPinToCm * std::cos(phi0);
  out.q << theta0, phi0, x0, y0;
}

void SliderCrank::mass(double /*t*/, VecCRef /*q*/, MatRef out_M) const noexcept {
  out_M.setZero();
  out_M.diagonal() << kCrankInertia, kRodInertia, kRodMass, kRodMass;
}

void SliderCrank::forces(
    double /*t*/, VecCRef /*q*/, VecCRef /*v*/, InputValues /*u*/, VecRef out_f) const noexcept {
  out_f.setZero();
  out_f(kY) = -kRodMass * kGravity;
}

void SliderCrank::constraints(double /*t*/, VecCRef q, VecRef out_g) const noexcept {
  out_g(0) = kCrank * std::cos(q(kTheta)) - (q(kX) - kPinToCm * std::cos(q(kPhi)));
  out_g(1) = kCrank * std::sin(q(kTheta)) - (q(kY) - kPinToCm * std::sin(q(kPhi)));
  out_g(2) = kCmToSlider * std::sin(q(kPhi)) + q(kY);
}

void SliderCrank::jacobian(double /*t*/, VecCRef q, MatRef out_G) const noexcept {
  // reference §9, "Jacobian B"
  const auto [st, ct, sp, cp] = angle_trig(q);
  out_G.setZero();
  out_G(0, kTheta) = -kCrank * st;
  out_G(0, kPhi) = -kPinToCm * sp;
  out_G(0, kX) = -1.0;
  out_G(1, kTheta) = kCrank * ct;
  out_G(1, kPhi) = kPinToCm * cp;
  out_G(1, kY) = -1.0;
  out_G(2, kPhi) = kCmToSlider * cp;
  out_G(2, kY) = 1.0;
}

void SliderCrank::curvature(double /*t*/, VecCRef q, VecCRef v, VecRef out_L) const noexcept {
  // g_qq(v,v); the paper's Baumgarte right-hand side gamma is -L
  const double wt_sq = v(kTheta) * v(kTheta);
  const double wp_sq = v(kPhi) * v(kPhi);
  out_L(0) = -kCrank * std::cos(q(kTheta)) * wt_sq - kPinToCm * std::cos(q(kPhi)) * wp_sq;
  out_L(1) = -kCrank * std::sin(q(kTheta)) * wt_sq - kPinToCm * std::sin(q(kPhi)) * wp_sq;
  out_L(2) = -kCmToSlider * std::sin(q(kPhi)) * wp_sq;
}

void SliderCrank::velocity_constraint_jacobian(double /*t*/,
                                               VecCRef q,
                                               VecCRef v,
                                               MatRef out_Gv_q) const noexcept {
  // G v depends on q only through the angles: column k is (dG/dq_k) v for k = theta, phi; the
  // x and y columns are zero
  const auto [st, ct, sp, cp] = angle_trig(q);
  out_Gv_q.col(kTheta) << -kCrank * ct * v(kTheta), -kCrank * st * v(kTheta), 0.0;
  out_Gv_q.col(kPhi) << -kPinToCm * cp * v(kPhi), -kPinToCm * sp * v(kPhi),
      -kCmToSlider * sp * v(kPhi);
  out_Gv_q.col(kX).setZero();
  out_Gv_q.col(kY).setZero();
}

double SliderCrank::energy(double /*t*/, VecCRef q, VecCRef v, InputValues /*u*/) const noexcept {
  const double kinetic =
      0.5 * (kCrankInertia * v(kTheta) * v(kTheta) + kRodInertia * v(kPhi) * v(kPhi) +
             kRodMass * (v(kX) * v(kX) + v(kY) * v(kY)));
  return kinetic + kRodMass * kGravity * q(kY);
}

bool SliderCrank::constraint_force_jacobian(double /*t*/,
                                            VecCRef q,
                                            VecCRef lambda,
                                            MatRef out_H) const noexcept {
  // (G^T lambda)_theta = r (-sin th l0 + cos th l1),
  // (G^T lambda)_phi = l1 (-sin ph l0 + cos ph l1) + (l - l1) cos ph l2; x, y rows are constant
  const auto [st, ct, sp, cp] = angle_trig(q);
  out_H.setZero();
  out_H(kTheta, kTheta) = -kCrank * (ct * lambda(0) + st * lambda(1));
  out_H(kPhi, kPhi) = -kPinToCm * (cp * lambda(0) + sp * lambda(1)) - kCmToSlider * sp * lambda(2);
  return true;
}

// ---- drawing geometry (rtmb/models/joint_points.hpp) -----------------------------------------
// Points: 0 the crank pivot (origin), 1 the crank pin r (cos theta, sin theta), 2 the rod's end
// at the pin, (x, y) - l1 (cos phi, sin phi), 3 the slider, (x, y) + (l - l1) (cos phi, sin phi)
// (eq. 35: g1, g2 = point 1 - point 2; g3 = the slider's y). Bars: the crank 0-1 and the rod 2-3.
namespace {
constexpr std::array<JointLink, 2> kSliderCrankBars{{{0, 1}, {2, 3}}};
constexpr std::array<int, 1> kSliderCrankGround{0};
}  // namespace

int SliderCrank::n_joint_points() const noexcept {
  return 4;
}
std::span<const JointLink> SliderCrank::joint_links() const noexcept {
  return kSliderCrankBars;
}
std::span<const int> SliderCrank::ground_points() const noexcept {
  return kSliderCrankGround;
}
void SliderCrank::joint_points(double /*t*/,
                               VecCRef q,
                               std::span<Eigen::Vector3d> out) const noexcept {
  const AngleTrig a = angle_trig(q);
  out[0].setZero();
  out[1] = {kCrank * a.ct, kCrank * a.st, 0.0};
  out[2] = {q(kX) - kPinToCm * a.cp, q(kY) - kPinToCm * a.sp, 0.0};
  out[3] = {q(kX) + kCmToSlider * a.cp, q(kY) + kCmToSlider * a.sp, 0.0};
}

}  // namespace rtmb::detail
