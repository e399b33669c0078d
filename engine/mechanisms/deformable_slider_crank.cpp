// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Deformable slider-crank of Chin 1995 ch. 5 (engine/mechanisms/deformable_slider_crank.hpp;
// reference post-stabilization-chin1995.md §3.12, Table 5.1). The rod's blocks come from
// FloatingFrameBeam; this file adds the crank, the torque, gravity and the constraints (5.10).
#include "engine/mechanisms/deformable_slider_crank.hpp"

#include <cmath>
#include <numbers>

#include "rtmb/state.hpp"

namespace rtmb::detail {

namespace {

FloatingFrameBeamSpec rod_spec(const DeformableSliderCrankSpec& s) {
  FloatingFrameBeamSpec b;
  b.length = s.rod_length;
  b.youngs_modulus = s.youngs_modulus;
  b.density = s.density;
  // circular section of diameter D (Table 5.1: I = pi D^4 / 64, a = pi D^2 / 4)
  b.area = std::numbers::pi * s.rod_diameter * s.rod_diameter / 4.0;
  b.second_moment = std::numbers::pi * std::pow(s.rod_diameter, 4) / 64.0;
  b.elements = s.elements;
  b.support = BeamSupport::kSimplySupported;
  return b;
}

constexpr int kRows = 3;

}  // namespace

DeformableSliderCrank::DeformableSliderCrank(const DeformableSliderCrankSpec& spec)
    : System(FloatingFrameBeam(rod_spec(spec)).n_coordinates() + 1,
             FloatingFrameBeam(rod_spec(spec)).n_coordinates() + 1,
             kRows),
      spec_(spec),
      rod_(rod_spec(spec)),
      slider_(rod_.station(spec.rod_length)),
      mid_(rod_.station(0.5 * spec.rod_length)) {
  for (int k = 0; k < kDrawStations; ++k) {
    draw_[static_cast<std::size_t>(k)] = rod_.station(spec.rod_length * k / (kDrawStations - 1));
  }
}

double DeformableSliderCrank::midspan_deflection(VecCRef q) const noexcept {
  return rod_.displacement(mid_, q.segment(3, rod_.n_elastic())).y();
}

void DeformableSliderCrank::initial_state(State& out) const {
  out = State(n_q(), n_v());
  const int p = crank_index();
  const double r = spec_.crank;
  const double w = spec_.crank_speed;
  // phi = 0, theta = 0: A = (r, 0), the rod along the x-axis to the slider at (r + l, 0)
  out.q.setZero();
  out.q(0) = r;
  out.v.setZero();
  out.v(1) = r * w;                      // R' = r phi' (-sin phi, cos phi) at phi = 0
  out.v(2) = -r * w / spec_.rod_length;  // (r_B)_y' = R2' + l theta' = 0 at theta = 0
  out.v(p) = w;
}

void DeformableSliderCrank::mass(double /*t*/, VecCRef q, MatRef out_M) const noexcept {
  const int n = rod_.n_coordinates();
  out_M.setZero();
  rod_.mass_matrix(q.head(n), out_M.topLeftCorner(n, n));
  out_M(n, n) = spec_.crank_inertia;
}

bool DeformableSliderCrank::inertia_jacobian(double /*t*/,
                                             VecCRef q,
                                             VecCRef a,
                                             MatRef out_K) const noexcept {
  const int n = rod_.n_coordinates();
  out_K.setZero();
  rod_.inertia_jacobian(q.head(n), a.head(n), out_K.topLeftCorner(n, n));
  return true;
}

void DeformableSliderCrank::forces(
    double t, VecCRef q, VecCRef v, InputValues /*u*/, VecRef out_f) const noexcept {
  const int n = rod_.n_coordinates();
  // Q of (5.13) for the rod: quadratic-velocity terms, gravity, -K_ff q_f
  rod_.generalized_forces(q.head(n), v.head(n), Eigen::Vector2d(0.0, -spec_.gravity),
                          out_f.head(n));
  // tau = sin(t) - phi' on the crank (§3.12)
  out_f(n) = spec_.driven ? std::sin(t) - v(n) : 0.0;
}

void DeformableSliderCrank::constraints(double /*t*/, VecCRef q, VecRef out_g) const noexcept {
  const int n = rod_.n_coordinates();
  const double phi = q(n);
  out_g(0) = q(0) - spec_.crank * std::cos(phi);
  out_g(1) = q(1) - spec_.crank * std::sin(phi);
  out_g(2) = rod_.point_position(q.head(n), slider_).y();
}

void DeformableSliderCrank::jacobian(double /*t*/, VecCRef q, MatRef out_G) const noexcept {
  const int n = rod_.n_coordinates();
  const double phi = q(n);
  out_G.setZero();
  // the slider row is the y row of the rod end's point Jacobian: write the 2 x n block into rows
  // 1..2 (no scratch), then row 1 gets the crank pin's y row
  rod_.point_jacobian(q.head(n), slider_, out_G.block(1, 0, 2, n));
  out_G.row(1).setZero();
  out_G(0, 0) = 1.0;
  out_G(0, n) = spec_.crank * std::sin(phi);
  out_G(1, 1) = 1.0;
  out_G(1, n) = -spec_.crank * std::cos(phi);
}

void DeformableSliderCrank::curvature(double /*t*/,
                                      VecCRef q,
                                      VecCRef v,
                                      VecRef out_L) const noexcept {
  const int n = rod_.n_coordinates();
  const double phi = q(n);
  const double w2 = v(n) * v(n);
  out_L(0) = spec_.crank * std::cos(phi) * w2;
  out_L(1) = spec_.crank * std::sin(phi) * w2;
  out_L(2) = rod_.point_curvature(q.head(n), v.head(n), slider_).y();
}

void DeformableSliderCrank::velocity_constraint_jacobian(double /*t*/,
                                                         VecCRef q,
                                                         VecCRef v,
                                                         MatRef out_Gv_q) const noexcept {
  const int n = rod_.n_coordinates();
  const double phi = q(n);
  out_Gv_q.setZero();
  // the slider row as in jacobian(): the y row of the 2 x n block written into rows 1..2
  rod_.point_velocity_jacobian(q.head(n), v.head(n), slider_, out_Gv_q.block(1, 0, 2, n));
  out_Gv_q.row(1).setZero();
  // rows 1-2: d/dphi (r sin(phi) phi', -r cos(phi) phi')
  out_Gv_q(0, n) = spec_.crank * std::cos(phi) * v(n);
  out_Gv_q(1, n) = spec_.crank * std::sin(phi) * v(n);
}

double DeformableSliderCrank::energy(double /*t*/,
                                     VecCRef q,
                                     VecCRef v,
                                     InputValues /*u*/) const noexcept {
  const int n = rod_.n_coordinates();
  return rod_.kinetic_energy(q.head(n), v.head(n)) + 0.5 * spec_.crank_inertia * v(n) * v(n) +
         rod_.strain_energy(q.head(n)) +
         rod_.field_potential(q.head(n), Eigen::Vector2d(0.0, -spec_.gravity));
}

// ---- drawing geometry (rtmb/models/joint_points.hpp) -----------------------------------------
// Points: 0 the crank's pivot O (ground), 1..kDrawStations the rod's centre line from A (on the
// crank) to B (the slider); bars: the crank O-A and the rod's segments.
namespace {
constexpr std::array<JointLink, DeformableSliderCrank::kDrawStations> kRodBars = [] {
  std::array<JointLink, DeformableSliderCrank::kDrawStations> bars{};
  bars[0] = {0, 1};
  for (int k = 1; k < DeformableSliderCrank::kDrawStations; ++k) {
    bars[static_cast<std::size_t>(k)] = {k, k + 1};
  }
  return bars;
}();
constexpr std::array<int, 1> kCrankGround{0};
}  // namespace

std::span<const JointLink> DeformableSliderCrank::joint_links() const noexcept {
  return kRodBars;
}
std::span<const int> DeformableSliderCrank::ground_points() const noexcept {
  return kCrankGround;
}
void DeformableSliderCrank::joint_points(double /*t*/,
                                         VecCRef q,
                                         std::span<Eigen::Vector3d> out) const noexcept {
  out[0].setZero();
  const auto rod_q = q.head(rod_.n_coordinates());
  for (int k = 0; k < kDrawStations; ++k) {
    const Eigen::Vector2d p = rod_.point_position(rod_q, draw_[static_cast<std::size_t>(k)]);
    out[static_cast<std::size_t>(1 + k)] = {p.x(), p.y(), 0.0};
  }
}

}  // namespace rtmb::detail
