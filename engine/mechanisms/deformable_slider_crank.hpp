// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Chin 1995 ch. 5's deformable slider-crank (reference post-stabilization-chin1995.md §3.12 and
// Table 5.1): a rigid crank of inertia J about the origin O, a flexible connecting rod AB (a
// simply supported floating-frame beam, engine/multibody/floating_frame_beam.hpp) pinned to the
// crank at A = its frame origin, and a massless slider at B = the rod's far end on the x-axis.
// Coordinates q = (R1, R2, theta, q_f, phi) (§3.12: 10 with Chin's two elements): the rod frame's
// origin and angle, its elastic coordinates, the crank angle. Constraints (5.10), with the slider
// row written through the rod's deformed end point r_B = R + A(theta) (u0(L) + S(L) q_f) (the
// printed third row's indices are ambiguous, reference §3.12; this is the row it describes):
//     g1 = R1 - r cos(phi),  g2 = R2 - r sin(phi),  g3 = (r_B)_y.
// EOM (5.13): M(q) q'' + (0, 0, 0, K_ff q_f, 0) + G^T lambda = Q, Q holding gravity (on the rod;
// the crank is balanced about O), the torque tau = sin(t) - phi' on the crank (§3.12) and the
// rod's quadratic-velocity terms.
//
// Not stated by the thesis, chosen here (also in the test's header):
//   * gravity 386.4 in/s^2 along -y (§3.12: "included in Q, its value not stated"; g in in/s^2);
//   * phi(0) = 0 (the crank along +x, the rod along the x-axis, theta(0) = 0), the rod undeformed
//     and without elastic velocity at t = 0 (the usual start of this benchmark, Song & Haug);
//     then the velocity constraints give R'(0) = r phi'(0) (-sin phi, cos phi) and
//     theta'(0) = -r phi'(0) cos(phi) / (l cos(theta)).
//   * units: inch, lb_f, second (Table 5.1's E in lb/in^2 and rho in lb s^2/in^4); J = 1.0 lb s^2
//   in.

#include <array>
#include <span>
#include <string_view>

#include "engine/multibody/floating_frame_beam.hpp"
#include "rtmb/models/joint_points.hpp"
#include "rtmb/system.hpp"
#include "rtmb/system_overrides.hpp"

namespace rtmb::detail {

struct DeformableSliderCrankSpec {
  double crank = 6.0;            ///< r [in] (Table 5.1)
  double rod_length = 12.0;      ///< l [in] (Table 5.1)
  double rod_diameter = 0.25;    ///< D [in] (Table 5.1); a = pi D^2 / 4, I = pi D^4 / 64
  double youngs_modulus = 30e6;  ///< E [lb/in^2] (Table 5.1)
  double density = 0.0007331;    ///< rho [lb s^2/in^4] (Table 5.1)
  double crank_inertia = 1.0;    ///< J [lb s^2 in] (Table 5.1)
  int elements = 2;              ///< Chin's two equal elements (§3.12)
  double gravity = 386.4;        ///< [in/s^2] along -y (not stated; see above)
  double crank_speed = 180.0;    ///< phi'(0) [rad/s]: 180, 120 or 60 in Chin's runs
  /// false: no torque on the crank, so T + U + V is conserved (the energy test)
  bool driven = true;
};

class DeformableSliderCrank final : public System, public JointPoints {
 public:
  explicit DeformableSliderCrank(const DeformableSliderCrankSpec& spec);

  [[nodiscard]] std::string_view name() const noexcept override {
    return "deformable_slider_crank";
  }
  [[nodiscard]] const FloatingFrameBeam& rod() const noexcept { return rod_; }
  /// Index of phi in q.
  [[nodiscard]] int crank_index() const noexcept { return rod_.n_coordinates(); }
  /// The rod's transverse deflection v(l/2) in its frame (Figs 5.5-5.7) [in].
  [[nodiscard]] double midspan_deflection(VecCRef q) const noexcept;

  RTMB_SYSTEM_EVALUATION_OVERRIDES;
  /// d(M a)/dq: the rod's block (FloatingFrameBeam::inertia_jacobian); the crank's J is constant.
  bool inertia_jacobian(double t, VecCRef q, VecCRef a, MatRef out_K) const noexcept override;
  // energy: T of the rod and crank + U + the rod's gravity potential (the torque's work is
  // external, so it is not conserved)
  RTMB_SYSTEM_ENERGY_OVERRIDES;

  // drawing geometry: O, then the rod's deformed centre line at kDrawStations stations from A
  // to B (the live view draws the bending as the model computes it, unscaled)
  static constexpr int kDrawStations = 9;
  [[nodiscard]] int n_joint_points() const noexcept override { return 1 + kDrawStations; }
  [[nodiscard]] std::span<const JointLink> joint_links() const noexcept override;
  [[nodiscard]] std::span<const int> ground_points() const noexcept override;
  void joint_points(double t, VecCRef q, std::span<Eigen::Vector3d> out) const noexcept override;

 private:
  DeformableSliderCrankSpec spec_;
  FloatingFrameBeam rod_;
  BeamStation slider_;                           // x = l
  BeamStation mid_;                              // x = l / 2
  std::array<BeamStation, kDrawStations> draw_;  // x = k l / (kDrawStations - 1)
};

}  // namespace rtmb::detail
