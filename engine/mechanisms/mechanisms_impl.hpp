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
// fixed-size Eigen types as scratch, so they never allocate. The override lists come from
// rtmb/system_overrides.hpp (one spelling of the System signatures for every class).

#include <array>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "rtmb/models/joint_points.hpp"
#include "rtmb/state.hpp"
#include "rtmb/system.hpp"
#include "rtmb/system_overrides.hpp"
#include "rtmb/types.hpp"

namespace rtmb::detail {

/// Base of the mechanisms whose mass matrix is constant and whose applied force is gravity alone:
/// f depends on neither q nor v and M not on q, so df/dq = df/dv = 0 and d(M a)/dq = 0, and the
/// Newton matrix of the implicit methods (Hoitink 2011 eq. 3.22) keeps only M and the constraint
/// blocks. One definition of those zero blocks for every such mechanism.
class ConstantMassAndForceSystem : public System {
 public:
  using System::System;

  /// f is constant (gravity only).
  bool force_jacobians(double /*t*/,
                       VecCRef /*q*/,
                       VecCRef /*v*/,
                       MatRef out_fq,
                       MatRef out_fv) const noexcept final {
    out_fq.setZero();
    out_fv.setZero();
    return true;
  }
  /// M is constant.
  bool inertia_jacobian(double /*t*/,
                        VecCRef /*q*/,
                        VecCRef /*a*/,
                        MatRef out_K) const noexcept final {
    out_K.setZero();
    return true;
  }
};

/// What a ConstantMassAndForceSystem mechanism defines in its .cpp: the evaluations,
/// d(G^T lambda)/dq (its one iteration-matrix block that is not zero) and the energy T + V.
#define RTMB_GRAVITY_MECHANISM_OVERRIDES                                            \
  RTMB_SYSTEM_EVALUATION_OVERRIDES;                                                 \
  bool constraint_force_jacobian(double t, VecCRef q, VecCRef lambda, MatRef out_H) \
      const noexcept override;                                                      \
  RTMB_SYSTEM_ENERGY_OVERRIDES

/// The JointPoints overrides (rtmb/models/joint_points.hpp): every mechanism defines them in its
/// .cpp, next to the kinematics they reuse.
#define RTMB_JOINT_POINTS_OVERRIDES                                               \
  [[nodiscard]] int n_joint_points() const noexcept override;                     \
  [[nodiscard]] std::span<const JointLink> joint_links() const noexcept override; \
  [[nodiscard]] std::span<const int> ground_points() const noexcept override;     \
  void joint_points(double t, VecCRef q, std::span<Eigen::Vector3d> out) const noexcept override

/// Declares Class, a ConstantMassAndForceSystem mechanism without parameters: sizes (nq, nv, nl),
/// name() `id`, and RTMB_GRAVITY_MECHANISM_OVERRIDES defined in its .cpp. Why a macro: the
/// parameterless mechanisms differ only in these values, so one line each says all there is.
#define RTMB_GRAVITY_MECHANISM(Class, id, nq, nv, nl)                            \
  class Class final : public ConstantMassAndForceSystem, public JointPoints {    \
   public:                                                                       \
    Class() noexcept : ConstantMassAndForceSystem(nq, nv, nl) {}                 \
    [[nodiscard]] std::string_view name() const noexcept override { return id; } \
    RTMB_GRAVITY_MECHANISM_OVERRIDES;                                            \
    RTMB_JOINT_POINTS_OVERRIDES;                                                 \
  }

/// Cartesian point-mass pendulum: q = (x, y) [m], M = m I, f = (0, -m g),
/// one constraint g = x^2 + y^2 - l^2. Starts at rest 60 degrees from the downward vertical.
RTMB_GRAVITY_MECHANISM(Pendulum, "pendulum", 2, 2, 1);

/// Rigid double pendulum in redundant coordinates q = (x1, y1, theta1, x2, y2, theta2) with a
/// singular mass matrix diag(M1, M1, 0, M2, M2, 0) (Hoitink 2011 §4.1, after Géradin & Cardona;
/// reference/gsssss-hoitink2011.md).
RTMB_GRAVITY_MECHANISM(DoublePendulum, "double_pendulum", 6, 6, 4);

/// Slider-crank in absolute coordinates q = (theta, phi, x, y), constant M = diag(J1, J2, m, m)
/// (Wu, Chiou & Lin 2000 §9, eq. 35-37; reference/adams-moulton-pc-wu2000.md).
RTMB_GRAVITY_MECHANISM(SliderCrank, "slider_crank", 4, 4, 3);

/// Andrews' squeezing mechanism, Hairer-Wanner data: q = (beta, Theta, gamma, Phi, delta, Omega,
/// epsilon) [rad], 6 loop-closure constraints, q-dependent M, spring and drive torque
/// (Chin 1995 §3.7; reference/post-stabilization-chin1995.md). Energy: kinetic 1/2 v^T M v +
/// spring potential 1/2 c0 (l - l0)^2 - mom * beta [J].
class Andrews final : public System, public JointPoints {
 public:
  Andrews() noexcept;
  ~Andrews() override;
  Andrews(const Andrews&) = delete;
  Andrews& operator=(const Andrews&) = delete;

  [[nodiscard]] std::string_view name() const noexcept override { return "andrews"; }
  RTMB_SYSTEM_EVALUATION_OVERRIDES;
  // analytic iteration-matrix blocks for engine/implicit (system.hpp)
  RTMB_SYSTEM_ITERATION_BLOCK_OVERRIDES;
  RTMB_SYSTEM_ENERGY_OVERRIDES;
  RTMB_JOINT_POINTS_OVERRIDES;
  /// An instance that remembers the sines and cosines of the last q it saw (TrigMemo), so that
  /// M, f, G, L and g at one q share one set of sincos calls; bit-identical results.
  [[nodiscard]] std::unique_ptr<const System> for_simulation() const override;

  /// Sines and cosines at the last q (defined in andrews.cpp).
  struct TrigMemo;

 private:
  /// Null on the Model's shared instance, which therefore writes nothing while it evaluates;
  /// owned by the one Workspace of a for_simulation() instance (system.hpp, issue 13). The
  /// pointer is const, the memo it points to is scratch written by the const evaluations.
  std::unique_ptr<TrigMemo> memo_;
};

/// Which end-effector path the two-link robot follows (Chin 1995 §3.6).
enum class RobotPath {
  kParabola,  ///< case I: y2 = x2^2 - beta, scleronomic
  kSine,      ///< case II: y2 = sin^2(omega t), rheonomic
};

/// Two-link planar manipulator (two uniform rods) whose tip is constrained to a prescribed path;
/// q = (theta1, theta2) [rad], theta2 relative to link 1 (Chin 1995 §3.6, Ex. 3.3;
/// reference/post-stabilization-chin1995.md). Energy: T + V with gravity; not conserved for the
/// rheonomic case II (the path does work).
class TwoLinkRobot final : public System, public JointPoints {
 public:
  /// omega: path frequency [rad/s] of case II (ignored for the parabola).
  explicit TwoLinkRobot(RobotPath path, double omega = 1.0) noexcept
      : System(2, 2, 1), path_(path), omega_(omega) {}

  [[nodiscard]] std::string_view name() const noexcept override;
  RTMB_SYSTEM_EVALUATION_OVERRIDES;
  void constraint_rate(double t, VecCRef q, VecRef out_gt) const noexcept override;
  // analytic iteration-matrix blocks for engine/implicit (system.hpp)
  RTMB_SYSTEM_ITERATION_BLOCK_OVERRIDES;
  RTMB_SYSTEM_ENERGY_OVERRIDES;
  RTMB_JOINT_POINTS_OVERRIDES;

 private:
  RobotPath path_;
  double omega_;  ///< path frequency of case II [rad/s]
};

/// N-link planar pendulum of unit point masses in Cartesian coordinates q = (x1, y1, ..., xN, yN)
/// [m]; link i joins p_{i-1} and p_i (p_0 = origin) with g_i = 1/2 (|p_i - p_{i-1}|^2 - l^2).
/// With `loop`, two more rows pin the tip p_N at its initial position (a closed loop).
class Chain final : public ConstantMassAndForceSystem, public JointPoints {
 public:
  /// Throws std::invalid_argument when links is outside [1, 100000], or links < 3 with loop (a
  /// loop of fewer links has no degree of freedom left). Setup-only.
  Chain(int links, bool loop);

  [[nodiscard]] std::string_view name() const noexcept override { return "chain"; }
  [[nodiscard]] int links() const noexcept { return links_; }
  [[nodiscard]] bool loop() const noexcept { return loop_; }
  RTMB_GRAVITY_MECHANISM_OVERRIDES;
  /// Points: the origin, p_1 .. p_N, and with `loop` the pinned tip's anchor.
  RTMB_JOINT_POINTS_OVERRIDES;

 private:
  int links_;
  bool loop_;
  double tip_x_;                     ///< pinned tip position in the loop variant [m]
  double tip_y_;                     ///< pinned tip position in the loop variant [m]
  std::vector<JointLink> bars_;      ///< (p_{i-1}, p_i), i = 1..N
  std::array<int, 2> ground_{0, 0};  ///< the origin, and the anchor with `loop`
};

/// Planar four-bar of Zhang et al. 2023 Example 1 in relative (spanning-tree) coordinates
/// q = (crank angle, coupler angle relative to the crank, rocker angle) [rad], one pin cut joint
/// (2 rows), q-dependent M, gravity (reference/direct-correction-energy-2023.md §8). ground: the
/// distance between the ground pivots [m]; 1 (the paper's "identical link dimensions", a rhombus
/// with change points at q1 = 0, pi) by default. No analytic iteration-matrix blocks (the
/// implicit methods take finite differences).
class FourBar final : public System, public JointPoints {
 public:
  explicit FourBar(double ground = 1.0);

  [[nodiscard]] std::string_view name() const noexcept override { return "four_bar"; }
  RTMB_SYSTEM_EVALUATION_OVERRIDES;
  RTMB_SYSTEM_ENERGY_OVERRIDES;
  RTMB_JOINT_POINTS_OVERRIDES;

 private:
  double ground_;  ///< ground-link length [m]
};

/// Chin's rolling disc (Chin 1995 §4.6; reference/post-stabilization-chin1995.md §3.11): a thin
/// disc of radius r rolling without slip on the horizontal plane z = 0, q = (x, y, phi, theta,
/// psi) with (x, y) the contact point [m], phi the heading of the contact line, theta the tilt
/// from the vertical and psi the spin [rad]. No position constraint; two nonholonomic rows
/// (System's convention, rtmb/system.hpp): x' + r cos(phi) psi' = 0, y' + r sin(phi) psi' = 0
/// (eq. 4.29/4.31). q-dependent M from the Lagrangian (4.30), gravity. Energy T + m g r cos theta,
/// conserved (rolling without slip does no work). The spatial points of the drawing are the
/// contact point, the centre and eight rim points that turn with the spin.
class RollingDisc final : public System, public JointPoints {
 public:
  RollingDisc() noexcept : System(5, 5, 2, 0) {}

  // Chin gives r = 1 only through the initial data and Fig. 4.39; m, A, C and g are not given
  // (reference §3.11 and pitfall 11): the reference's suggested assumptions, a uniform thin disc.
  static constexpr double kRadius = 1.0;                                 ///< r [m]
  static constexpr double kMass = 1.0;                                   ///< m [kg]
  static constexpr double kDiametral = kMass * kRadius * kRadius / 4.0;  ///< A [kg m^2]
  static constexpr double kPolar = kMass * kRadius * kRadius / 2.0;      ///< C [kg m^2]
  static constexpr double kGravity = 9.81;                               ///< g [m/s^2]

  [[nodiscard]] std::string_view name() const noexcept override { return "rolling_disc"; }
  RTMB_SYSTEM_EVALUATION_OVERRIDES;
  RTMB_SYSTEM_ENERGY_OVERRIDES;
  RTMB_JOINT_POINTS_OVERRIDES;
};

}  // namespace rtmb::detail
