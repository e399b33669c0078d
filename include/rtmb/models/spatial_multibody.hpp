// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Spatial multibody models in absolute coordinates with Euler parameters (unit quaternions),
// the System that model files with `dimension: spatial` compile to (docs/model-format.md,
// "Spatial bodies"; equations in docs/architecture.md, "Spatial bodies"). Body b has
// q_b = (r_b, e_b) in R^7: the world position of its centre of mass and its Euler parameters
// e = (e0, e1, e2, e3), and v_b = q_b' = (r', e'), so n_q == n_v and every integrator and
// stabilizer runs unchanged. Each body adds one normalization row (e^T e - 1)/2 = 0 to g, and
// every joint adds its rows (scleronomic: g_t = 0). Reference: E. J. Haug, Computer-Aided
// Kinematics and Dynamics of Mechanical Systems, Vol. I (1989), ch. 6 and 11.

#include <Eigen/Core>
#include <array>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rtmb/models/planar_multibody.hpp"  // kGround, AssemblyError
#include "rtmb/system.hpp"
#include "rtmb/system_overrides.hpp"

namespace rtmb {

/// One rigid body in space.
struct SpatialBodySpec {
  std::string name;
  double mass = 0.0;                                   ///< m [kg], > 0
  Eigen::Matrix3d inertia = Eigen::Matrix3d::Zero();   ///< J' about the centre of mass, body
                                                       ///< frame [kg m^2], symmetric pos. def.
  Eigen::Vector3d position = Eigen::Vector3d::Zero();  ///< r, world [m]
  Eigen::Vector4d orientation{1.0, 0.0, 0.0, 0.0};     ///< e = (e0, e1, e2, e3) [-], non-zero;
                                                       ///< normalized by the System
  Eigen::Vector3d velocity = Eigen::Vector3d::Zero();  ///< r', world [m/s]
  Eigen::Vector3d angular_velocity = Eigen::Vector3d::Zero();  ///< omega, world [rad/s]
};

enum class SpatialJointType {
  kSpherical,    ///< points coincide: 3 rows
  kRevolute,     ///< spherical + axes parallel: 5 rows
  kUniversal,    ///< spherical + axis_i perpendicular to axis_j: 4 rows
  kCylindrical,  ///< axes parallel, point j on the axis line of i: 4 rows
  kPrismatic,    ///< cylindrical + no twist about the axis: 5 rows
  kFixed,        ///< spherical + relative orientation kept: 6 rows
  kDistance,     ///< |p_j - p_i| = length: 1 row
  kPlanar,       ///< point j in the plane through p_i normal to axis_i, axes parallel: 3 rows
  // A thin disc rolling without slip on a fixed plane (issue 16; engine/multibody/
  // spatial_rolling_disc.hpp; model files' `rolling_disc`): body_i = kGround, the plane through
  // point_i (world) with unit normal axis_i (world); body_j the disc, its centre at the body's
  // origin, its symmetry axis axis_j (body frame, required), its radius `radius`.
  /// Rolling disc, contact (1 row): the disc's lowest rim point stays on the plane.
  kDiscContact,
  /// Rolling disc, no slip (2 nonholonomic rows, same keys): the disc's material point at the
  /// contact has no velocity along the plane. A spec lists every kDiscNoSlip entry after all the
  /// other joints (validated), so its rows are the System's last (System::n_holonomic()).
  kDiscNoSlip,
};

/// A joint between body i and body j (either may be kGround) at points and body-fixed axes.
/// A zero axis_j or ref vector means "derive it from the initial poses": axis_j = A_j^T A_i
/// axis_i, ref_j = A_j^T A_i ref_i (the same world directions at t = 0); a zero ref_i is any unit
/// vector perpendicular to axis_i.
struct SpatialJointSpec {
  std::string name;
  SpatialJointType type = SpatialJointType::kSpherical;
  int body_i = kGround;
  int body_j = kGround;
  Eigen::Vector3d point_i = Eigen::Vector3d::Zero();  ///< s_i in body i's frame [m]
  Eigen::Vector3d point_j = Eigen::Vector3d::Zero();  ///< s_j in body j's frame [m]
  Eigen::Vector3d axis_i = Eigen::Vector3d::UnitZ();  ///< joint axis in i's frame [-], non-zero
  Eigen::Vector3d axis_j = Eigen::Vector3d::Zero();   ///< in j's frame; universal: required
  Eigen::Vector3d ref_i = Eigen::Vector3d::Zero();    ///< reference normal to axis_i, i's frame
  Eigen::Vector3d ref_j = Eigen::Vector3d::Zero();    ///< reference normal to axis_j, j's frame
  double length = 0.0;                                ///< distance: |p_j - p_i| [m], > 0
  double radius = 0.0;  ///< kDiscContact, kDiscNoSlip: the disc's radius r [m], > 0
};

enum class SpatialForceType {
  kGravity,           ///< acceleration vector on every body's centre of mass
  kSpringDamper,      ///< translational spring-damper-actuator (TSDA) between two body points
  kForce,             ///< constant force on a body point (world or body frame)
  kTorque,            ///< constant torque on a body (world or body frame)
  kRotationalSpring,  ///< rotational spring-damper about the axis of a revolute joint
  /// Virtual coupling (issue 4): spring-damper from point_i of body_i to a world target p*
  /// (`vector`, overridden per axis by kCouplingX/Y/Z input channels),
  /// F = -k (p - p*) - c p' on the body; potential k |p - p*|^2 / 2 relative to the target.
  kCoupling,
};

struct SpatialForceSpec {
  std::string name;
  SpatialForceType type = SpatialForceType::kGravity;
  int body_i = kGround;
  int body_j = kGround;
  Eigen::Vector3d point_i = Eigen::Vector3d::Zero();  ///< body frame [m]
  Eigen::Vector3d point_j = Eigen::Vector3d::Zero();  ///< body frame [m]
  Eigen::Vector3d vector = Eigen::Vector3d::Zero();   ///< gravity [m/s^2], force [N], torque [N m]
  bool body_frame = false;  ///< kForce, kTorque: `vector` is in the body frame (follows it)
  double stiffness = 0.0;   ///< k [N/m] or [N m/rad]
  double damping = 0.0;     ///< c [N s/m] or [N m s/rad]
  double rest = 0.0;        ///< rest length [m] or rest angle [rad]
  double actuator = 0.0;    ///< TSDA: constant actuator force along the spring [N] (> 0 pushes)
  int joint = -1;           ///< kRotationalSpring: index of a revolute joint
};

/// What a named input channel of a spatial model drives (issue 4); u is the channel's value.
enum class SpatialInputType {
  kForce,      ///< world force u * direction at `point` of `body` [N]
  kTorque,     ///< world torque u * direction on `body` [N m]
  kMotor,      ///< revolute `joint`: torque u a on body_j, -u a on body_i (a: the joint axis,
               ///< world), u clamped to +-limit [N m]
  kCouplingX,  ///< target x of the kCoupling force element `element` [m]
  kCouplingY,  ///< target y [m]
  kCouplingZ,  ///< target z [m]
};

/// One named input channel of a spatial model: its binding and its value before the first sample.
struct SpatialInputSpec {
  std::string name;
  SpatialInputType type = SpatialInputType::kForce;
  int body = kGround;                                    ///< kForce, kTorque
  Eigen::Vector3d point = Eigen::Vector3d::Zero();       ///< kForce: body frame [m]
  Eigen::Vector3d direction = Eigen::Vector3d::UnitX();  ///< kForce, kTorque: world, normalized
  int joint = -1;    ///< kMotor: index into joints (a revolute joint)
  int element = -1;  ///< kCouplingX/Y/Z: index into forces (a kCoupling element)
  double limit = std::numeric_limits<double>::infinity();  ///< kMotor: |torque| bound, > 0
  double initial = 0.0;  ///< value before any input arrives (System::initial_input) [channel unit]
};

struct SpatialModelSpec {
  std::string name = "spatial";
  std::vector<SpatialBodySpec> bodies;
  std::vector<SpatialJointSpec> joints;
  std::vector<SpatialForceSpec> forces;
  std::vector<SpatialInputSpec> inputs;  ///< named input channels, in channel order
};

/// Rows of a joint type (see SpatialJointType).
[[nodiscard]] int constraint_rows(SpatialJointType type) noexcept;
[[nodiscard]] std::string_view to_string(SpatialJointType type) noexcept;
/// True for the joint types whose rows are velocity constraints (kDiscNoSlip).
[[nodiscard]] bool is_nonholonomic(SpatialJointType type) noexcept;

/// Euler-parameter matrices (Haug 1989, ch. 6): E(e) = [-eps, eps~ + e0 I],
/// L(e) = [-eps, -eps~ + e0 I] (3 x 4), with omega = 2 E e' (world) and omega' = 2 L e' (body);
/// A(e) = E L^T = (e0^2 - eps.eps) I + 2 eps eps^T + 2 e0 eps~ (homogeneous of degree 2, the
/// rotation matrix for unit e). RT-safe.
[[nodiscard]] Eigen::Matrix<double, 3, 4> euler_e(const Eigen::Vector4d& e) noexcept;
[[nodiscard]] Eigen::Matrix<double, 3, 4> euler_l(const Eigen::Vector4d& e) noexcept;
[[nodiscard]] Eigen::Matrix3d rotation(const Eigen::Vector4d& e) noexcept;

/// Makes the initial poses and velocities of `spec` consistent, as assemble() does for planar
/// models: Newton on g(q) = 0 (joints and normalization) with the minimum-norm step, then v onto
/// G v = 0; the result is written back (orientation normalized, angular_velocity = 2 E e').
/// Returns notes; throws AssemblyError naming the joints still violated. Setup-only.
std::vector<std::string> assemble(SpatialModelSpec& spec,
                                  double tolerance = 1e-10,
                                  int max_iterations = 30);

/// The absolute-coordinate System of a spatial model. Construction validates the spec (throws
/// std::invalid_argument), derives the joint frames and preallocates; every evaluation is
/// allocation-free. Rows: one normalization row per body (row b), then the joints' rows in order;
/// the rows of kDiscNoSlip entries (the spec's last joints) are nonholonomic (rtmb/system.hpp).
class SpatialMultibody final : public System {
 public:
  explicit SpatialMultibody(SpatialModelSpec spec);

  [[nodiscard]] std::string_view name() const noexcept override { return spec_.name; }
  /// The validated spec, with axis_j, ref_i, ref_j derived and every axis normalized.
  [[nodiscard]] const SpatialModelSpec& spec() const noexcept { return spec_; }
  /// First constraint row of joint k (the normalization rows come first).
  [[nodiscard]] int joint_row(std::size_t k) const noexcept { return rows_[k]; }
  /// The c of the added term c e e^T in body b's mass block [kg m^2].
  [[nodiscard]] double normalization_inertia(std::size_t b) const noexcept { return c_[b]; }

  RTMB_SYSTEM_EVALUATION_OVERRIDES;
  // The fused evaluations make one evaluate_joint per joint for G and L (or g); bit-identical to
  // the separate calls.
  RTMB_SYSTEM_SPARSE_OVERRIDES;
  // energy: T + V: kinetic energy (m r'.r' + omega'.J' omega')/2 and the potentials of gravity,
  // springs and world-frame point forces; torques and body-frame forces have none (not
  // conservative).
  RTMB_SYSTEM_ENERGY_OVERRIDES;

  // Named input channels (issue 4): spec().inputs, their values per simulation (System::forces).
  RTMB_SYSTEM_INPUT_CHANNELS(spec_.inputs);
  /// Target p* of the kCoupling force element k at the channel values u [m, world]. RT-safe.
  [[nodiscard]] Eigen::Vector3d coupling_target(std::size_t k, InputValues u) const noexcept;
  /// Force F = -k (p - p*) - c p' the kCoupling element k exerts on its body [N, world]. RT-safe.
  [[nodiscard]] Eigen::Vector3d coupling_force(std::size_t k,
                                               VecCRef q,
                                               VecCRef v,
                                               InputValues u) const noexcept;
  /// World position and velocity of body point s of body b (b may be kGround). RT-safe.
  [[nodiscard]] Eigen::Vector3d point_position(int b,
                                               const Eigen::Vector3d& s,
                                               VecCRef q) const noexcept;
  [[nodiscard]] Eigen::Vector3d point_velocity(int b,
                                               const Eigen::Vector3d& s,
                                               VecCRef q,
                                               VecCRef v) const noexcept;
  /// Angle phi = atan2(h_i.f_j, f_i.f_j) of revolute joint k about its axis (f: the reference
  /// vectors, h_i = a_i x f_i, world) and its rate a_i.(omega_j - omega_i). RT-safe.
  [[nodiscard]] std::array<double, 2> revolute_coordinate(std::size_t k,
                                                          VecCRef q,
                                                          VecCRef v) const noexcept;

  /// The mass block of body b without the c e e^T term: diag(m I, 4 L^T J' L). RT-safe.
  void physical_mass_block(std::size_t b,
                           VecCRef q,
                           Eigen::Ref<Eigen::Matrix<double, 7, 7>> out) const noexcept;

 private:
  void mass_block(std::size_t b, VecCRef q, Eigen::Matrix<double, 7, 7>& out) const noexcept;
  /// The first n_bodies rows of g: each body's normalization residual. RT-safe.
  void normalization_residuals(VecCRef q, VecRef out_g) const noexcept;

  SpatialModelSpec spec_;
  std::vector<int> rows_;  // first constraint row per joint
  std::vector<double> c_;  // normalization inertia per body
  SparsePattern mass_pattern_;
  SparsePattern jacobian_pattern_;
  std::vector<int> joint_slots_;  // per joint, rows x 14 slots into the G values (-1: ground)
  std::vector<int> joint_slot_base_;
  std::vector<int> norm_slots_;  // 4 per body
  // per force element: the input channels of its target x, y, z (-1: `vector` holds)
  std::vector<std::array<int, 3>> target_channels_;
};

}  // namespace rtmb
