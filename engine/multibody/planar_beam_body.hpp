// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Internal: the beam bodies of a PlanarMultibody (PlanarBodyKind::kBeam,
// include/rtmb/models/planar_multibody.hpp) and the joints that reach them. A beam body is a
// FloatingFrameBeam (engine/multibody/floating_frame_beam.hpp; Chin 1995 §3.12, reference
// post-stabilization-chin1995.md): coordinates (R1, R2, theta, q_f), the reference coordinates
// first, so the rigid parts of the System (outputs of the pose, the layout of planar_detail::
// BodyLayout) read the same three numbers as on a rigid body. What differs, and lives here:
//   * its block of M is M_b(q_b) (dense, configuration-dependent), not diag(m, m, J);
//   * its forces hold the quadratic-velocity vector Q_v, the elastic force -K_ff q_f and the
//     gravity field's generalized force;
//   * a joint on it attaches at a material point x of its axis, r = R + A (u0(x) + S(x) q_f),
//     whose Jacobian [I, A I~ u, A S] reaches the elastic columns through the shape functions.
// Revolute and fixed joints may attach to a beam (validated in planar_model_spec.cpp):
// g = p_i - p_j with each side's point kinematics (p, J = dp/dq_b, H = d(J v)/dq_b, J' v), the
// rigid side's as in planar_multibody.cpp; a fixed joint adds g_3 = phi_j - phi_i - angle with
// phi = theta on a rigid body and theta + w'(x) on a beam (its cross-section's angle, the slope
// of its deflection added to the frame's: linear in q, so that row's H and J' v are 0). Not
// installed.

#include <Eigen/Core>
#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include "engine/multibody/floating_frame_beam.hpp"
#include "rtmb/models/planar_multibody.hpp"

namespace rtmb::planar_detail {

/// The FloatingFrameBeamSpec of a beam body's PlanarBeamSpec.
[[nodiscard]] FloatingFrameBeamSpec beam_spec(const PlanarBeamSpec& b) noexcept;

/// True for the force elements that may act on a beam body besides gravity: those applied at a
/// material point of its axis (force, spring_damper, coupling, wall), through J^T F. A torque or
/// a rotational spring would act on its frame angle, which is no material line's.
[[nodiscard]] constexpr bool acts_at_beam_points(PlanarForceType t) noexcept {
  return t == PlanarForceType::kForce || t == PlanarForceType::kSpringDamper ||
         t == PlanarForceType::kCoupling || t == PlanarForceType::kWall;
}

class PlanarBeamBodies {
 public:
  /// Setup (allocates): one FloatingFrameBeam per beam body of the validated `spec`, each
  /// joint's attachment stations. `offsets`: planar_detail::coordinate_offsets(spec).
  PlanarBeamBodies(const PlanarModelSpec& spec, const std::vector<int>& offsets);

  /// True when joint k touches a beam body (a revolute or fixed joint, evaluated here).
  [[nodiscard]] bool on_beam(std::size_t k) const noexcept { return on_beam_[k] != 0; }
  /// The beam of body b, nullptr for a rigid body or the ground.
  [[nodiscard]] const FloatingFrameBeam* beam(int body) const noexcept;

  // ---- the joints on a beam (revolute: 2 rows g = p_i - p_j; fixed: and phi_j - phi_i - angle)
  /// g rows of joint k into out_g[0..rows - 1].
  void constraint_rows(std::size_t k, VecCRef q, double* out_g) const noexcept;
  /// L rows J_i' v_i - J_j' v_j (and a fixed joint's 0) into out_L[0..rows - 1].
  void curvature_rows(std::size_t k, VecCRef q, VecCRef v, double* out_L) const noexcept;
  /// G's rows of joint k into the dense out_G from row `row` (its bodies' columns only).
  void jacobian_rows(std::size_t k, VecCRef q, int row, MatRef out_G) const noexcept;
  /// d(G v)/dq's rows of joint k into the dense out_Gv_q from row `row`.
  void velocity_jacobian_rows(
      std::size_t k, VecCRef q, VecCRef v, int row, MatRef out_Gv_q) const noexcept;
  /// G's values of joint k into the CSC values of sparse_structure(): `slots` are the joint's six
  /// slots (PlanarMultibody::jacobian_slots_), column c of a side at slots[0] + c (slots[1] -
  /// slots[0]) (every column of a body holds the same rows).
  void jacobian_values(std::size_t k, VecCRef q, const int* slots, double* values) const noexcept;

  // ---- the bodies --------------------------------------------------------------------------
  /// Each beam's block M_b(q_b) into the dense out_M (the other entries untouched).
  void mass_blocks(VecCRef q, MatRef out_M) const noexcept;
  /// Each beam's block of d(M(q) a)/dq into the dense out_K (the other entries untouched).
  void inertia_blocks(VecCRef q, VecCRef a, MatRef out_K) const noexcept;
  /// Number of entries of the lower triangle of body b's M block (n (n + 1) / 2).
  [[nodiscard]] int mass_lower_count(int body) const noexcept;
  /// Body b's lower triangle of M_b(q_b), column by column (the CSC order of its pattern).
  void mass_lower_values(int body, VecCRef q, double* out) const noexcept;
  /// Writes each beam's Q_v - (0, K_ff q_f) + the field g's generalized force into its segment
  /// of out_f (the other entries untouched).
  void set_forces(VecCRef q, VecCRef v, const Eigen::Vector2d& g, VecRef out_f) const noexcept;
  /// T + U + the field g's potential of every beam.
  [[nodiscard]] double energy(VecCRef q, VecCRef v, const Eigen::Vector2d& g) const noexcept;

 private:
  struct Body {
    int body = kGround;
    int offset = 0;
    FloatingFrameBeam beam;
  };
  /// One side of a joint on a beam: a beam station or a rigid body point.
  struct Side {
    int body = kGround;
    int offset = -1;
    int beam = -1;  ///< index into bodies_, -1: a rigid body (or the ground)
    Eigen::Vector2d point = Eigen::Vector2d::Zero();  ///< rigid: s in its frame
    BeamStation station;                              ///< beam: the attachment
  };
  [[nodiscard]] int coordinates(const Side& s) const noexcept;
  [[nodiscard]] Eigen::Vector2d position(const Side& s, VecCRef q) const noexcept;
  void point_jacobian(const Side& s, VecCRef q, MatRef out) const noexcept;
  void point_velocity_jacobian(const Side& s, VecCRef q, VecCRef v, MatRef out) const noexcept;
  [[nodiscard]] Eigen::Vector2d point_curvature(const Side& s, VecCRef q, VecCRef v) const noexcept;
  /// phi: the angle of the body's material line at the side's point (the ground's 0).
  [[nodiscard]] double angle(const Side& s, VecCRef q) const noexcept;
  /// d(phi)/dq_b into the row out (its body's columns): 1 on theta, a beam's w'(x) coefficients.
  void angle_row(const Side& s, MatRef out) const noexcept;
  /// the rows of side's body in joint k's block of G (2 or 3 rows x its coordinates)
  void side_jacobian(std::size_t k, std::size_t side, VecCRef q, MatRef out) const noexcept;

  std::vector<Body> bodies_;
  std::vector<int> beam_of_;                // per body: index into bodies_, -1 rigid
  std::vector<unsigned char> on_beam_;      // per joint
  std::vector<std::array<Side, 2>> sides_;  // per joint (i, j); meaningful where on_beam_
  std::vector<int> rows_;                   // per joint on a beam: 2 (revolute) or 3 (fixed)
  std::vector<double> angle_;               // per joint on a beam: a fixed joint's angle [rad]
};

}  // namespace rtmb::planar_detail
