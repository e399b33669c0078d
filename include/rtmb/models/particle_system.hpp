// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Point-mass models with rigid rods and nonlinear internal-force elements (issue 17): Hoitink
// 2011's four-mass system (§4.2.1: point masses, rigid bars, Green-strain trusses) and thin-beam
// coupler (§4.2.2: axial and three-point bending elements), reference gsssss-hoitink2011.md §4.2,
// §4.3. Each particle has the coordinates (x, y) or (x, y, z) of its position and no rotation;
// M = diag(m I) is constant. Rods keep two particles (or a particle and a fixed point) at a
// distance l with the quadratic row g = (|d|^2 - l^2) / (2 l), d = x_j - x_i: |d| - l to first
// order, and, being quadratic, exactly energy-consistent under the midpoint rule (the row's
// B(u_{n+1/2}) du = g(u_{n+1}) - g(u_n), reference §3). The elements' forces are analytic with
// their Jacobians (force_jacobians), and the midpoint-family implicit methods get them as discrete
// gradients (DiscreteGradientForces, rtmb/discrete_gradient.hpp), so V0(1,1,0) conserves T + V to
// round-off. The explicit methods can take the sparse path (sparse_structure: M is diagonal, each
// rod row touches one or two particles, engine/multibody/particle_sparse.cpp), O(N) per step.

#include <Eigen/Core>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rtmb/discrete_gradient.hpp"
#include "rtmb/models/joint_points.hpp"
#include "rtmb/models/strain_measure.hpp"
#include "rtmb/system.hpp"
#include "rtmb/system_overrides.hpp"

namespace rtmb {

/// Particle index that means "a fixed point" (a rod's anchor).
inline constexpr int kFixedPoint = -1;

struct ParticleSpec {
  std::string name;
  double mass = 0.0;                                   ///< m [kg], > 0
  Eigen::Vector3d position = Eigen::Vector3d::Zero();  ///< [m]; z = 0 in a planar model
  Eigen::Vector3d velocity = Eigen::Vector3d::Zero();  ///< [m/s]
};

/// Rigid rod: |x_j - x_i| = length, with x_i the fixed `anchor` when i = kFixedPoint.
struct ParticleRodSpec {
  std::string name;
  int i = kFixedPoint;
  int j = 0;
  Eigen::Vector3d anchor = Eigen::Vector3d::Zero();  ///< i = kFixedPoint: the fixed end [m]
  double length = 1.0;                               ///< [m], > 0
};

/// Axial element of energy EA l0 eps^2 / 2 between particles i and j.
struct TrussSpec {
  std::string name;
  int i = 0;
  int j = 0;
  double stiffness = 0.0;  ///< EA [N], >= 0
  double rest = 1.0;       ///< l0 [m], > 0
  StrainMeasure strain = StrainMeasure::kGreen;
};

/// Bending element of energy C_b (nu + psi) / (nu - psi) / 2 over particles a, b and the vertex c
/// (psi = r1 . r2, nu = |r1| |r2|, r1 = x_a - x_c, r2 = x_b - x_c; Hoitink §4.2.2).
struct BendingSpec {
  std::string name;
  int a = 0;
  int b = 0;
  int c = 0;
  double stiffness = 0.0;  ///< C_b [J], >= 0
};

/// Triangular force pulse on particle `particle` (engine/multibody/pulse_element.hpp): zero at
/// `start`, `peak` at start + duration/2, zero again from start + duration on (Hoitink §4.2.2's
/// "triangular force pulse applied over the first 0.5 seconds").
struct PulseSpec {
  std::string name;
  int particle = 0;
  Eigen::Vector3d peak = Eigen::Vector3d::Zero();  ///< [N]; z = 0 in a planar model
  double start = 0.0;                              ///< [s], >= 0
  double duration = 1.0;                           ///< [s], > 0
};

struct ParticleModelSpec {
  std::string name = "particles";
  int dimension = 3;  ///< 2 (x, y) or 3 (x, y, z) coordinates per particle
  std::vector<ParticleSpec> particles;
  std::vector<ParticleRodSpec> rods;
  std::vector<TrussSpec> trusses;
  std::vector<BendingSpec> bendings;
  std::vector<PulseSpec> pulses;
  Eigen::Vector3d gravity = Eigen::Vector3d::Zero();  ///< [m/s^2]
};

/// The System of a ParticleModelSpec. Construction validates the spec (throws
/// std::invalid_argument naming the element) and preallocates nothing further: every evaluation
/// is allocation-free. initial_state() returns the spec's positions and velocities as given.
/// Drawn by the live view through JointPoints: the particles, then each rod's fixed anchor (a
/// ground point); the rods, trusses and the two arms of each bending element as links.
class ParticleSystem final : public System, public JointPoints, public DiscreteGradientForces {
 public:
  explicit ParticleSystem(ParticleModelSpec spec);

  [[nodiscard]] std::string_view name() const noexcept override { return spec_.name; }
  [[nodiscard]] const ParticleModelSpec& spec() const noexcept { return spec_; }
  [[nodiscard]] int dimension() const noexcept { return spec_.dimension; }

  RTMB_SYSTEM_EVALUATION_OVERRIDES;
  RTMB_SYSTEM_ITERATION_BLOCK_OVERRIDES;

  // M (diagonal) and G (a rod row: d^T / l on particle j, -d^T / l on particle i) in CSC form
  // for the sparse path; the fused evaluations keep System's defaults (two calls). Setup: the
  // patterns; values RT-safe.
  bool sparse_structure(SparsePattern& mass_lower, SparsePattern& jacobian) const override;
  void mass_values(double t, VecCRef q, std::span<double> out) const noexcept override;
  void jacobian_values(double t, VecCRef q, std::span<double> out) const noexcept override;
  /// Gravity at the midpoint (its potential is linear: the midpoint force is its exact discrete
  /// gradient), the pulses at t, trusses and bending elements by their discrete gradients between
  /// q0 and q1.
  void discrete_gradient_forces(double t,
                                VecCRef q0,
                                VecCRef q1,
                                VecCRef v,
                                InputValues u,
                                VecRef out_f) const noexcept override;
  // energy: T + the trusses' and bending elements' energies - m g . x
  RTMB_SYSTEM_ENERGY_OVERRIDES;

  /// Potential energy V(q) of the elements and gravity [J]. RT-safe.
  [[nodiscard]] double potential(VecCRef q) const noexcept;
  /// Total linear momentum sum m_i x_i' [kg m/s] (z = 0 in a planar model). RT-safe.
  [[nodiscard]] Eigen::Vector3d linear_momentum(VecCRef v) const noexcept;

  [[nodiscard]] int n_joint_points() const noexcept override {
    return static_cast<int>(spec_.particles.size() + ground_.size());
  }
  [[nodiscard]] std::span<const JointLink> joint_links() const noexcept override { return links_; }
  [[nodiscard]] std::span<const int> ground_points() const noexcept override { return ground_; }
  void joint_points(double t, VecCRef q, std::span<Eigen::Vector3d> out) const noexcept override;

 private:
  [[nodiscard]] Eigen::Vector3d position(VecCRef q, int particle) const noexcept;
  void add(VecRef f, int particle, const Eigen::Vector3d& force) const noexcept;
  void build_jacobian_slots();  // setup: jacobian_slots_, jacobian_outer_
  // gravity and the pulses at time t
  void add_external(double t, VecRef f) const noexcept;
  void add_block(MatRef K, int pi, int pj, const Eigen::Matrix3d& block) const noexcept;

  ParticleModelSpec spec_;
  std::vector<JointLink> links_;  // drawing: rods, trusses, bending arms
  std::vector<int> ground_;       // drawing: the anchor points, after the particles
  // one stored entry of G in CSC order: rod row `rod`, coordinate `axis` of its particle, and
  // the sign of d there (+1 on particle j, -1 on particle i)
  struct JacobianSlot {
    int rod = 0;
    int axis = 0;
    double sign = 1.0;
  };
  std::vector<JacobianSlot> jacobian_slots_;
  std::vector<int> jacobian_outer_;  // the CSC column starts of G
};

}  // namespace rtmb
