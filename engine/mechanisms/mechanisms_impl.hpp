// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Built-in reference mechanisms (internal; users go through rtmb/models/mechanisms.hpp).
//
// Every class implements rtmb::System with the conventions written on that interface:
//   q' = v,  M(t,q) v' = f(t,q,v) - G^T lambda,  0 = g(t,q),  G = dg/dq,
//   L(t,q,v) = g_tt + 2 g_tq v + g_qq(v,v)  (d^2 g/dt^2 = G v' + L; Chin 1995 §1.1, routine GCNQQ,
//   reference/post-stabilization-chin1995.md),
//   velocity_constraint_jacobian = d(G v + g_t)/dq.
// The classes are declared here, rather than hidden in their .cpp files, so that tests can build
// variants that the registry does not expose (robot path frequency, chain length and loop).
//
// All evaluation methods write straight into the caller's storage and use only scalars and
// fixed-size Eigen types as scratch, so they never allocate.

#include <string_view>

#include "rtmb/state.hpp"
#include "rtmb/system.hpp"
#include "rtmb/types.hpp"

namespace rtmb::detail {

/// Cartesian point-mass pendulum: q = (x, y) [m], M = m I, f = (0, -m g),
/// one constraint g = x^2 + y^2 - l^2. Starts at rest 60 degrees from the downward vertical.
class Pendulum final : public System {
 public:
  Pendulum() noexcept : System(2, 2, 1) {}

  [[nodiscard]] std::string_view name() const noexcept override { return "pendulum"; }
  void initial_state(State& out) const override;
  void mass(double t, VecCRef q, MatRef out_M) const noexcept override;
  void forces(double t, VecCRef q, VecCRef v, InputValues u, VecRef out_f) const noexcept override;
  void constraints(double t, VecCRef q, VecRef out_g) const noexcept override;
  void jacobian(double t, VecCRef q, MatRef out_G) const noexcept override;
  void curvature(double t, VecCRef q, VecCRef v, VecRef out_L) const noexcept override;
  void velocity_constraint_jacobian(double t,
                                    VecCRef q,
                                    VecCRef v,
                                    MatRef out_Gv_q) const noexcept override;
  // analytic iteration-matrix blocks for engine/implicit (system.hpp)
  bool force_jacobians(
      double t, VecCRef q, VecCRef v, MatRef out_fq, MatRef out_fv) const noexcept override;
  bool constraint_force_jacobian(double t,
                                 VecCRef q,
                                 VecCRef lambda,
                                 MatRef out_H) const noexcept override;
  bool inertia_jacobian(double t, VecCRef q, VecCRef a, MatRef out_K) const noexcept override;
  [[nodiscard]] bool has_energy() const noexcept override { return true; }
  [[nodiscard]] double energy(double t,
                              VecCRef q,
                              VecCRef v,
                              InputValues u) const noexcept override;
};

/// Rigid double pendulum in redundant coordinates q = (x1, y1, theta1, x2, y2, theta2) with a
/// singular mass matrix diag(M1, M1, 0, M2, M2, 0) (Hoitink 2011 §4.1, after Géradin & Cardona;
/// reference/gsssss-hoitink2011.md).
class DoublePendulum final : public System {
 public:
  DoublePendulum() noexcept : System(6, 6, 4) {}

  [[nodiscard]] std::string_view name() const noexcept override { return "double_pendulum"; }
  void initial_state(State& out) const override;
  void mass(double t, VecCRef q, MatRef out_M) const noexcept override;
  void forces(double t, VecCRef q, VecCRef v, InputValues u, VecRef out_f) const noexcept override;
  void constraints(double t, VecCRef q, VecRef out_g) const noexcept override;
  void jacobian(double t, VecCRef q, MatRef out_G) const noexcept override;
  void curvature(double t, VecCRef q, VecCRef v, VecRef out_L) const noexcept override;
  void velocity_constraint_jacobian(double t,
                                    VecCRef q,
                                    VecCRef v,
                                    MatRef out_Gv_q) const noexcept override;
  // analytic iteration-matrix blocks for engine/implicit (system.hpp)
  bool force_jacobians(
      double t, VecCRef q, VecCRef v, MatRef out_fq, MatRef out_fv) const noexcept override;
  bool constraint_force_jacobian(double t,
                                 VecCRef q,
                                 VecCRef lambda,
                                 MatRef out_H) const noexcept override;
  bool inertia_jacobian(double t, VecCRef q, VecCRef a, MatRef out_K) const noexcept override;
  [[nodiscard]] bool has_energy() const noexcept override { return true; }
  [[nodiscard]] double energy(double t,
                              VecCRef q,
                              VecCRef v,
                              InputValues u) const noexcept override;
};

/// Slider-crank in absolute coordinates q = (theta, phi, x, y), constant M = diag(J1, J2, m, m)
/// (Wu, Chiou & Lin 2000 §9, eq. 35-37; reference/adams-moulton-pc-wu2000.md).
class SliderCrank final : public System {
 public:
  SliderCrank() noexcept : System(4, 4, 3) {}

  [[nodiscard]] std::string_view name() const noexcept override { return "slider_crank"; }
  void initial_state(State& out) const override;
  void mass(double t, VecCRef q, MatRef out_M) const noexcept override;
  void forces(double t, VecCRef q, VecCRef v, InputValues u, VecRef out_f) const noexcept override;
  void constraints(double t, VecCRef q, VecRef out_g) const noexcept override;
  void jacobian(double t, VecCRef q, MatRef out_G) const noexcept override;
  void curvature(double t, VecCRef q, VecCRef v, VecRef out_L) const noexcept override;
  void velocity_constraint_jacobian(double t,
                                    VecCRef q,
                                    VecCRef v,
                                    MatRef out_Gv_q) const noexcept override;
  // analytic iteration-matrix blocks for engine/implicit (system.hpp)
  bool force_jacobians(
      double t, VecCRef q, VecCRef v, MatRef out_fq, MatRef out_fv) const noexcept override;
  bool constraint_force_jacobian(double t,
                                 VecCRef q,
                                 VecCRef lambda,
                                 MatRef out_H) const noexcept override;
  bool inertia_jacobian(double t, VecCRef q, VecCRef a, MatRef out_K) const noexcept override;
  [[nodiscard]] bool has_energy() const noexcept override { return true; }
  [[nodiscard]] double energy(double t,
                              VecCRef q,
                              VecCRef v,
                              InputValues u) const noexcept override;
};

/// Andrews' squeezing mechanism, Hairer-Wanner data: q = (beta, Theta, gamma, Phi, delta, Omega,
/// epsilon) [rad], 6 loop-closure constraints, q-dependent M, spring and drive torque
/// (Chin 1995 §3.7; reference/post-stabilization-chin1995.md).
class Andrews final : public System {
 public:
  Andrews() noexcept : System(7, 7, 6) {}

  [[nodiscard]] std::string_view name() const noexcept override { return "andrews"; }
  void initial_state(State& out) const override;
  void mass(double t, VecCRef q, MatRef out_M) const noexcept override;
  void forces(double t, VecCRef q, VecCRef v, InputValues u, VecRef out_f) const noexcept override;
  void constraints(double t, VecCRef q, VecRef out_g) const noexcept override;
  void jacobian(double t, VecCRef q, MatRef out_G) const noexcept override;
  void curvature(double t, VecCRef q, VecCRef v, VecRef out_L) const noexcept override;
  void velocity_constraint_jacobian(double t,
                                    VecCRef q,
                                    VecCRef v,
                                    MatRef out_Gv_q) const noexcept override;
  // analytic iteration-matrix blocks for engine/implicit (system.hpp)
  bool force_jacobians(
      double t, VecCRef q, VecCRef v, MatRef out_fq, MatRef out_fv) const noexcept override;
  bool constraint_force_jacobian(double t,
                                 VecCRef q,
                                 VecCRef lambda,
                                 MatRef out_H) const noexcept override;
  bool inertia_jacobian(double t, VecCRef q, VecCRef a, MatRef out_K) const noexcept override;
  [[nodiscard]] bool has_energy() const noexcept override { return true; }
  /// Kinetic energy 1/2 v^T M v + spring potential 1/2 c0 (l - l0)^2 - mom * beta [J].
  [[nodiscard]] double energy(double t,
                              VecCRef q,
                              VecCRef v,
                              InputValues u) const noexcept override;
};

/// Which end-effector path the two-link robot follows (Chin 1995 §3.6).
enum class RobotPath {
  kParabola,  ///< case I: y2 = x2^2 - beta, scleronomic
  kSine,      ///< case II: y2 = sin^2(omega t), rheonomic
};

/// Two-link planar manipulator (two uniform rods) whose tip is constrained to a prescribed path;
/// q = (theta1, theta2) [rad], theta2 relative to link 1 (Chin 1995 §3.6, Ex. 3.3;
/// reference/post-stabilization-chin1995.md).
class TwoLinkRobot final : public System {
 public:
  /// omega: path frequency [rad/s] of case II (ignored for the parabola).
  explicit TwoLinkRobot(RobotPath path, double omega = 1.0) noexcept
      : System(2, 2, 1), path_(path), omega_(omega) {}

  [[nodiscard]] std::string_view name() const noexcept override;
  void initial_state(State& out) const override;
  void mass(double t, VecCRef q, MatRef out_M) const noexcept override;
  void forces(double t, VecCRef q, VecCRef v, InputValues u, VecRef out_f) const noexcept override;
  void constraints(double t, VecCRef q, VecRef out_g) const noexcept override;
  void jacobian(double t, VecCRef q, MatRef out_G) const noexcept override;
  void constraint_rate(double t, VecCRef q, VecRef out_gt) const noexcept override;
  void curvature(double t, VecCRef q, VecCRef v, VecRef out_L) const noexcept override;
  void velocity_constraint_jacobian(double t,
                                    VecCRef q,
                                    VecCRef v,
                                    MatRef out_Gv_q) const noexcept override;
  // analytic iteration-matrix blocks for engine/implicit (system.hpp)
  bool force_jacobians(
      double t, VecCRef q, VecCRef v, MatRef out_fq, MatRef out_fv) const noexcept override;
  bool constraint_force_jacobian(double t,
                                 VecCRef q,
                                 VecCRef lambda,
                                 MatRef out_H) const noexcept override;
  bool inertia_jacobian(double t, VecCRef q, VecCRef a, MatRef out_K) const noexcept override;
  [[nodiscard]] bool has_energy() const noexcept override { return true; }
  /// T + V with gravity; not conserved for the rheonomic case II (the path does work).
  [[nodiscard]] double energy(double t,
                              VecCRef q,
                              VecCRef v,
                              InputValues u) const noexcept override;

 private:
  RobotPath path_;
  double omega_;  ///< path frequency of case II [rad/s]
};

/// N-link planar pendulum of unit point masses in Cartesian coordinates q = (x1, y1, ..., xN, yN)
/// [m]; link i joins p_{i-1} and p_i (p_0 = origin) with g_i = 1/2 (|p_i - p_{i-1}|^2 - l^2).
/// With `loop`, two more rows pin the tip p_N at its initial position (a closed loop).
class Chain final : public System {
 public:
  /// Throws std::invalid_argument when links is outside [1, 100000], or links < 3 with loop (a
  /// loop of fewer links has no degree of freedom left). Setup-only.
  Chain(int links, bool loop);

  [[nodiscard]] std::string_view name() const noexcept override { return "chain"; }
  [[nodiscard]] int links() const noexcept { return links_; }
  [[nodiscard]] bool loop() const noexcept { return loop_; }
  void initial_state(State& out) const override;
  void mass(double t, VecCRef q, MatRef out_M) const noexcept override;
  void forces(double t, VecCRef q, VecCRef v, InputValues u, VecRef out_f) const noexcept override;
  void constraints(double t, VecCRef q, VecRef out_g) const noexcept override;
  void jacobian(double t, VecCRef q, MatRef out_G) const noexcept override;
  void curvature(double t, VecCRef q, VecCRef v, VecRef out_L) const noexcept override;
  void velocity_constraint_jacobian(double t,
                                    VecCRef q,
                                    VecCRef v,
                                    MatRef out_Gv_q) const noexcept override;
  // analytic iteration-matrix blocks for engine/implicit (system.hpp)
  bool force_jacobians(
      double t, VecCRef q, VecCRef v, MatRef out_fq, MatRef out_fv) const noexcept override;
  bool constraint_force_jacobian(double t,
                                 VecCRef q,
                                 VecCRef lambda,
                                 MatRef out_H) const noexcept override;
  bool inertia_jacobian(double t, VecCRef q, VecCRef a, MatRef out_K) const noexcept override;
  [[nodiscard]] bool has_energy() const noexcept override { return true; }
  [[nodiscard]] double energy(double t,
                              VecCRef q,
                              VecCRef v,
                              InputValues u) const noexcept override;

 private:
  int links_;
  bool loop_;
  double tip_x_;  ///< pinned tip position in the loop variant [m]
  double tip_y_;  ///< pinned tip position in the loop variant [m]
};

/// Planar four-bar of Zhang et al. 2023 Example 1 in relative (spanning-tree) coordinates
/// q = (crank angle, coupler angle relative to the crank, rocker angle) [rad], one pin cut joint
/// (2 rows), q-dependent M, gravity (reference/direct-correction-energy-2023.md §8). ground: the
/// distance between the ground pivots [m]; 1 (the paper's "identical link dimensions", a rhombus
/// with change points at q1 = 0, pi) by default.
class FourBar final : public System {
 public:
  explicit FourBar(double ground = 1.0);

  [[nodiscard]] std::string_view name() const noexcept override { return "four_bar"; }
  void initial_state(State& out) const override;
  void mass(double t, VecCRef q, MatRef out_M) const noexcept override;
  void forces(double t, VecCRef q, VecCRef v, InputValues u, VecRef out_f) const noexcept override;
  void constraints(double t, VecCRef q, VecRef out_g) const noexcept override;
  void jacobian(double t, VecCRef q, MatRef out_G) const noexcept override;
  void curvature(double t, VecCRef q, VecCRef v, VecRef out_L) const noexcept override;
  void velocity_constraint_jacobian(double t,
                                    VecCRef q,
                                    VecCRef v,
                                    MatRef out_Gv_q) const noexcept override;
  [[nodiscard]] bool has_energy() const noexcept override { return true; }
  [[nodiscard]] double energy(double t,
                              VecCRef q,
                              VecCRef v,
                              InputValues u) const noexcept override;

 private:
  double ground_;  ///< ground-link length [m]
};

}  // namespace rtmb::detail
