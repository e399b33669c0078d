// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Planar multibody models in absolute (body) coordinates, the System that model files with
// `bodies:` compile to (docs/model-format.md, "Bodies, joints and forces"; equations in
// docs/architecture.md). Each body has q_b = (x, y, theta): the world position of its centre of
// mass and its rotation angle, v_b = q_b'. The mass matrix is block diagonal, M = diag(m, m, J)
// per body, and every joint adds its constraint rows g(q) = 0. All joints are scleronomic
// (g_t = 0) except the drivers, which prescribe a joint coordinate as a function of time:
// g = coordinate(q) - f(t) (rtmb/models/time_function.hpp).
//
// Planar only: spatial bodies and joints are in rtmb/models/spatial_multibody.hpp. Named input
// channels (PlanarModelSpec::inputs) drive forces, torques, joint motors and the targets of virtual
// couplings; named outputs are in rtmb/models/planar_outputs.hpp.

#include <Eigen/Core>
#include <array>
#include <limits>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "rtmb/models/force_output_filter.hpp"
#include "rtmb/models/time_function.hpp"
#include "rtmb/system.hpp"
#include "rtmb/system_overrides.hpp"

namespace rtmb {

namespace planar_detail {
class PlanarBeamBodies;  // engine/multibody/planar_beam_body.hpp
}  // namespace planar_detail

/// Body index of the fixed ground (pose (0, 0, 0) for ever).
inline constexpr int kGround = -1;

enum class PlanarBodyKind {
  kRigid,  ///< (x, y, theta) of the centre of mass, M = diag(m, m, J)
  kBeam,   ///< a floating-frame Euler-Bernoulli beam (PlanarBeamSpec)
};

/// Boundary conditions of a beam body's elastic coordinates, which also fix its body frame
/// (Shabana's reference conditions, engine/multibody/floating_frame_beam.hpp).
enum class PlanarBeamSupport {
  kClamped,          ///< u = v = v' = 0 at x = 0: the frame is tangent to the axis at x = 0
  kSimplySupported,  ///< u = v = 0 at x = 0, v = 0 at x = L: the frame's x-axis is the chord
};

/// A planar floating-frame Euler-Bernoulli beam (Chin 1995 §3.12, reference
/// post-stabilization-chin1995.md): `elements` equal elements with axial linear and transverse
/// Hermite cubic shape functions, 3 elastic coordinates per element after the supports.
struct PlanarBeamSpec {
  double length = 0.0;          ///< L [m], > 0
  double youngs_modulus = 0.0;  ///< E [Pa], > 0
  double density = 0.0;         ///< rho [kg/m^3], > 0
  double area = 0.0;            ///< section area a [m^2], > 0
  double second_moment = 0.0;   ///< I of the section about its neutral axis [m^4], > 0
  int elements = 2;             ///< >= 1
  PlanarBeamSupport support = PlanarBeamSupport::kSimplySupported;

  /// True when s (body frame) is a material point of the undeformed axis, (x, 0) with
  /// 0 <= x <= length: where joints attach to a beam and where its point outputs may be.
  [[nodiscard]] bool on_axis(const Eigen::Vector2d& s) const noexcept {
    return s.y() == 0.0 && s.x() >= 0.0 && s.x() <= length;
  }
};

/// One body in the plane: rigid, or a beam (kind kBeam). A beam's coordinates are its body
/// frame's (R1, R2, theta), whose origin is the end x = 0 of its axis (not the centre of mass),
/// then its 3 * elements elastic coordinates (initially 0); pose and velocity give the frame's,
/// mass and inertia must be 0 (rho a L and the rest come from `beam`). Gravity acts on a beam,
/// and the force elements that act at points (force, spring_damper, coupling, wall) at points
/// (x, 0) of its axis, 0 <= x <= L, where revolute and fixed joints attach (a fixed joint holds
/// the cross-section's angle there, theta + w'(x)).
struct PlanarBodySpec {
  std::string name;
  double mass = 0.0;                                   ///< m [kg]
  double inertia = 0.0;                                ///< J about the centre of mass [kg m^2]
  Eigen::Vector3d pose = Eigen::Vector3d::Zero();      ///< (x, y, theta) [m, m, rad]
  Eigen::Vector3d velocity = Eigen::Vector3d::Zero();  ///< (x', y', theta') [m/s, m/s, rad/s]
  PlanarBodyKind kind = PlanarBodyKind::kRigid;
  PlanarBeamSpec beam;  ///< kBeam only
};

enum class PlanarJointType {
  kRevolute,
  kPrismatic,
  kFixed,
  kDistance,
  /// Driver of a revolute joint (1 row): theta_j - theta_i - f(t) = 0, f = `motion`.
  kRevoluteDriver,
  /// Driver of a prismatic joint (1 row): a_w . (p_j - p_i) - f(t) = 0 with a_w = A(theta_i) axis
  /// the world sliding direction: the displacement of point_j along the axis from point_i.
  kPrismaticDriver,
  // Nonholonomic and rolling rows (issue 16; System::n_holonomic(), rtmb/system.hpp). A spec
  // lists every kKnifeEdge and kRollingNoSlip entry after all the other joints (validated), so
  // their rows are the System's last, nonholonomic, rows A(q) v = 0 (a = 0: the ground is fixed).
  /// Knife edge (1 nonholonomic row, engine/multibody/planar_knife_edge.hpp): point_i of body_i
  /// (body_j: the ground) has no velocity across `axis`, the edge's direction in body_i's frame.
  kKnifeEdge,
  /// Rolling wheel, contact (1 holonomic row, engine/multibody/planar_rolling_wheel.hpp): the wheel
  /// centre point_j of body_j stays `radius` from the ground line through point_i along `axis`
  /// (body_i: the ground), on the line's left (the side of S axis).
  kRollingContact,
  /// Rolling wheel, no slip (1 nonholonomic row, same keys as kRollingContact): the wheel's
  /// material point at the contact has no velocity along the line, t . c' + radius theta_j' = 0.
  kRollingNoSlip,
};

/// A joint between body i and body j (either may be kGround) at points given in the body frames.
struct PlanarJointSpec {
  std::string name;
  PlanarJointType type = PlanarJointType::kRevolute;
  int body_i = kGround;
  int body_j = kGround;
  Eigen::Vector2d point_i = Eigen::Vector2d::Zero();  ///< s_i in body i's frame [m]
  Eigen::Vector2d point_j = Eigen::Vector2d::Zero();  ///< s_j in body j's frame [m]
  Eigen::Vector2d axis = Eigen::Vector2d::UnitX();    ///< prismatic: sliding axis in i's frame
  double angle = 0.0;   ///< prismatic, fixed: the kept relative angle theta_j - theta_i [rad]
  double length = 0.0;  ///< distance: |p_j - p_i| [m], > 0
  TimeFunction motion;  ///< drivers: the prescribed coordinate f(t) [rad or m]
  double radius = 0.0;  ///< kRollingContact, kRollingNoSlip: the wheel's radius r [m], > 0
};

enum class PlanarForceType {
  kGravity,           ///< vector on every body's centre of mass
  kSpringDamper,      ///< translational spring-damper-actuator between two body points
  kRotationalSpring,  ///< rotational spring-damper between the two bodies of a revolute joint
  kForce,             ///< constant world-frame force on a body point
  kTorque,            ///< constant torque on a body
  /// Translational spring-damper along a prismatic joint's axis: tension
  /// T = k (s - s0) + c s' on the displacement s = a_w . (p_j - p_i) of its points
  /// (`joint`, body_i/body_j/points/axis taken from that joint).
  kAxialSpring,
  /// Virtual coupling (issue 4): spring-damper from a body point p to a target position p*
  /// (`vector`, overridden per axis by kCouplingX/kCouplingY input channels),
  /// F = -k (p - p*) - c p' on the body; potential k |p - p*|^2 / 2 relative to the target.
  kCoupling,
  /// Unilateral wall (issue 7): a half-plane {x : n.(x - o) < 0} (`vector` = its outward unit
  /// normal n, `point_j` = a world point o on its surface) pushing a body point p (`point_i` on
  /// `body_i`) out. Penetration d = n.(o - p), d' = -n.p'; normal force
  /// F_n = max(0, k d + c d') when d > 0, else 0, along n; potential k max(0, d)^2 / 2. The
  /// max(0, .) keeps the damper from pulling the point into the wall (no stickiness).
  kWall,
};

struct PlanarForceSpec {
  std::string name;
  PlanarForceType type = PlanarForceType::kGravity;
  int body_i = kGround;
  int body_j = kGround;
  Eigen::Vector2d point_i = Eigen::Vector2d::Zero();  ///< body frame [m]
  Eigen::Vector2d point_j = Eigen::Vector2d::Zero();  ///< body frame [m]
  Eigen::Vector2d vector = Eigen::Vector2d::Zero();   ///< gravity [m/s^2] or force [N], world
  double stiffness = 0.0;                             ///< k [N/m] or [N m/rad]
  double damping = 0.0;                               ///< c [N s/m] or [N m s/rad]
  double rest =
      0.0;  ///< rest length [m], rest angle theta_j - theta_i [rad], rest displacement [m]
  double actuator = 0.0;  ///< constant actuator force along the spring [N] (> 0 pushes apart)
  double torque = 0.0;    ///< kTorque [N m]
  int joint = -1;         ///< kAxialSpring: index into joints (a prismatic joint)
  /// kCoupling: safety of the force streamed back to the device by `haptic_force` outputs
  /// (rtmb/models/force_output_filter.hpp, docs/model-format.md "Haptic safety"); all off by
  /// default.
  ForceSafetyConfig safety;
};

/// What a named input channel drives (issue 4); u is the channel's value.
enum class PlanarInputType {
  kForce,      ///< world force u * direction at `point` of `body` [N]
  kTorque,     ///< torque u on `body` [N m]
  kMotor,      ///< revolute `joint`: torque u on body_j, -u on body_i, clamped to +-limit [N m]
  kCouplingX,  ///< target x of the kCoupling force element `element` [m]
  kCouplingY,  ///< target y of the kCoupling force element `element` [m]
};

/// One named input channel of a body model: its binding and its value before the first sample.
struct PlanarInputSpec {
  std::string name;
  PlanarInputType type = PlanarInputType::kForce;
  int body = kGround;                                    ///< kForce, kTorque
  Eigen::Vector2d point = Eigen::Vector2d::Zero();       ///< kForce: body frame [m]
  Eigen::Vector2d direction = Eigen::Vector2d::UnitX();  ///< kForce: world, normalized on build
  int joint = -1;    ///< kMotor: index into joints (a revolute joint)
  int element = -1;  ///< kCouplingX/Y: index into forces (a kCoupling element)
  double limit = std::numeric_limits<double>::infinity();  ///< kMotor: |torque| bound, > 0
  double initial = 0.0;  ///< value before any input arrives (System::initial_input) [channel unit]
};

struct PlanarModelSpec {
  std::string name = "bodies";
  std::vector<PlanarBodySpec> bodies;
  std::vector<PlanarJointSpec> joints;
  std::vector<PlanarForceSpec> forces;
  std::vector<PlanarInputSpec> inputs;  ///< named input channels, in channel order
};

/// Number of constraint rows of a joint type: revolute 2, prismatic 2, fixed 3, distance 1,
/// drivers 1, knife edge and the two rolling wheel rows 1 each.
[[nodiscard]] int constraint_rows(PlanarJointType type) noexcept;
[[nodiscard]] std::string_view to_string(PlanarJointType type) noexcept;
/// True for the joint types whose rows are velocity constraints (kKnifeEdge, kRollingNoSlip).
[[nodiscard]] bool is_nonholonomic(PlanarJointType type) noexcept;

/// Initial conditions that cannot be made consistent; joints() names the joints whose
/// constraints stay violated.
class AssemblyError : public std::runtime_error {
 public:
  AssemblyError(const std::string& what, std::vector<std::string> joints)
      : std::runtime_error(what), joints_(std::move(joints)) {}
  [[nodiscard]] const std::vector<std::string>& joints() const noexcept { return joints_; }

 private:
  std::vector<std::string> joints_;
};

/// First coordinate of each body of `spec` in q and v, then n_q: spec.bodies.size() + 1 entries,
/// the offsets PlanarMultibody::coordinate_offset() gives, without compiling the model (the live
/// view's scene). Throws std::invalid_argument naming the body when a beam's values are invalid.
/// Setup-only (allocates).
[[nodiscard]] std::vector<int> planar_coordinate_offsets(const PlanarModelSpec& spec);

/// A point of a beam body's axis with its shape functions, for drawing the deformed beam: the
/// material point at abscissa x sits, in the body frame, at (x, 0) + sum_k shape[k] q_f(index[k]),
/// q_f the body's elastic coordinates (its coordinates from coordinate_offset + 3 on). index and
/// shape hold the columns of S(x) (axial, transverse) that are not zero, in element order.
struct PlanarBeamStation {
  double x = 0.0;  ///< abscissa on the undeformed axis, in [0, L] [m]
  std::vector<int> index;
  std::vector<Eigen::Vector2d> shape;
};

/// Stations along a beam's axis, by increasing x, for drawing it: every node and element midpoint
/// when there are at most `max_stations` of them (2 elements + 1), else `max_stations` evenly
/// spaced (a 1000-element beam is still drawn with few segments), and each abscissa of `extra`
/// (e.g. where its joints attach; clamped to [0, L]) not already among them. The shape values are
/// the engine's own (FloatingFrameBeam::station). Throws std::invalid_argument when the beam's
/// values are invalid or max_stations < 2. Setup-only (allocates).
[[nodiscard]] std::vector<PlanarBeamStation> beam_stations(const PlanarBeamSpec& beam,
                                                           std::span<const double> extra = {},
                                                           int max_stations = 64);

/// Makes the initial poses and velocities of `spec` consistent at t = 0: Newton projection of q
/// onto g(0, q) = 0 with the minimum-norm correction dq = -G^+ g (at most `max_iterations`), then
/// the velocities onto G v + g_t = 0 (v -= G^+ (G v + g_t); g_t = -f'(0) on driver rows). Returns a
/// note for each correction made (empty when the given state was consistent to `tolerance`). Throws
/// AssemblyError when |g|_inf stays above `tolerance`. Setup-only.
std::vector<std::string> assemble(PlanarModelSpec& spec,
                                  double tolerance = 1e-10,
                                  int max_iterations = 20);

/// The body-coordinate System of a planar model. Construction validates the spec (throws
/// std::invalid_argument) and preallocates; every evaluation is allocation-free. initial_state()
/// returns the spec's poses and velocities as given (call assemble() first).
class PlanarMultibody final : public System {
 public:
  explicit PlanarMultibody(PlanarModelSpec spec);

  [[nodiscard]] std::string_view name() const noexcept override { return spec_.name; }
  [[nodiscard]] const PlanarModelSpec& spec() const noexcept { return spec_; }
  /// First constraint row of joint k.
  [[nodiscard]] int joint_row(std::size_t k) const noexcept { return rows_[k]; }
  /// First coordinate of body b in q and v (b != kGround): its (x, y, theta) are coordinates
  /// offset .. offset + 2. Use this, not 3 b: bodies need not all have three coordinates.
  [[nodiscard]] int coordinate_offset(int body) const noexcept {
    return offsets_[static_cast<std::size_t>(body)];
  }
  /// Number of coordinates of body b (3 for a rigid body).
  [[nodiscard]] int coordinate_count(int body) const noexcept {
    const auto b = static_cast<std::size_t>(body);
    return offsets_[b + 1] - offsets_[b];
  }
  /// World position p = r + A(theta) s of body point s (body frame) at q; the ground's points are
  /// world points. On a beam body, s = (x, 0) names the material point at abscissa x of its axis
  /// (clamped to [0, L]; s.y() is not used) and p = R + A (u0(x) + S(x) q_f), which moves with the
  /// deformation (Chin 1995 eq. 3.57). RT-safe.
  [[nodiscard]] Eigen::Vector2d point_position(VecCRef q,
                                               int body,
                                               const Eigen::Vector2d& s) const noexcept;
  /// Its velocity p' = r' + theta' S A(theta) s; on a beam R' + theta' S A u + A S(x) q_f'.
  /// RT-safe.
  [[nodiscard]] Eigen::Vector2d point_velocity(VecCRef q,
                                               VecCRef v,
                                               int body,
                                               const Eigen::Vector2d& s) const noexcept;
  /// out_f += the generalized force of a world force F at body point s (as point_position names
  /// it): (F, (A s) x F) on a rigid body's (x, y, theta), J^T F on a beam's coordinates, nothing
  /// on the ground. RT-safe.
  void add_point_force(VecCRef q,
                       int body,
                       const Eigen::Vector2d& s,
                       const Eigen::Vector2d& force,
                       VecRef out_f) const noexcept;
  /// True when body b is a beam (PlanarBodyKind::kBeam).
  [[nodiscard]] bool is_beam(int body) const noexcept {
    return body != kGround &&
           spec_.bodies[static_cast<std::size_t>(body)].kind == PlanarBodyKind::kBeam;
  }
  /// A beam body's elastic displacement S(x) q_f at abscissa x of its axis (clamped to [0, L]),
  /// in its body frame: (axial, transverse) [m]; zero for a rigid body. RT-safe.
  [[nodiscard]] Eigen::Vector2d beam_deflection(VecCRef q, int body, double x) const noexcept;

  // curvature: L = g_qq(v, v) + g_tt with g_tt = -f''(t) on the driver rows (g_tq = 0).
  RTMB_SYSTEM_EVALUATION_OVERRIDES;
  /// g_t: -f'(t) on every driver row, 0 elsewhere.
  void constraint_rate(double t, VecCRef q, VecRef out_gt) const noexcept override;
  /// d(M a)/dq: zero but for the beams' blocks (their M_b depends on theta and q_f).
  bool inertia_jacobian(double t, VecCRef q, VecCRef a, MatRef out_K) const noexcept override;
  // energy: T + V of the model's elements, the coupling springs' k |p - p*|^2 / 2 relative to
  // their current targets included; the work of input forces, torques and motors is external.
  RTMB_SYSTEM_ENERGY_OVERRIDES;

  // named input channels: spec().inputs, their values per simulation (System::forces)
  RTMB_SYSTEM_INPUT_CHANNELS(spec_.inputs);

  /// Target p* of the kCoupling force element k at the channel values u [m, world]. RT-safe.
  [[nodiscard]] Eigen::Vector2d coupling_target(std::size_t k, InputValues u) const noexcept;
  /// Force F = -k (p - p*) - c p' the kCoupling element k exerts on its body [N, world]. RT-safe.
  [[nodiscard]] Eigen::Vector2d coupling_force(std::size_t k,
                                               VecCRef q,
                                               VecCRef v,
                                               InputValues u) const noexcept;
  /// Force the kWall element k exerts on its body point [N, world] (kWall above). RT-safe.
  [[nodiscard]] Eigen::Vector2d wall_force(std::size_t k, VecCRef q, VecCRef v) const noexcept;

  // Sparse structure (engine/multibody/planar_sparse.cpp): M = diag(m, m, J) per body, and per
  // joint a rows x 3 block of G for each of its (non-ground) bodies. sparse_structure() is false
  // when a body has zero mass or inertia: the sparse KKT cannot factor a massless coordinate
  // (sparse_kkt.hpp). The fused evaluations make one pass over the joints, each body's cos/sin
  // once; bit-identical to the separate calls.
  RTMB_SYSTEM_SPARSE_OVERRIDES;

 private:
  void build_sparse_slots();  // planar_sparse.cpp

  PlanarModelSpec spec_;
  // first coordinate of each body, then n_q (planar_detail::coordinate_offsets)
  std::vector<int> offsets_;
  std::vector<int> rows_;  // first constraint row per joint
  // the beam bodies and the joints on them (nullptr: every body is rigid); shared because the
  // type is internal (a shared_ptr deletes an incomplete type)
  std::shared_ptr<const planar_detail::PlanarBeamBodies> beams_;
  Eigen::Vector2d gravity_ = Eigen::Vector2d::Zero();  // sum of the kGravity fields (beams)
  /// Per joint, the slot in jacobian_values() of G(first row, 3 b + c) for c = 0..2 of body_i
  /// (entries 0..2) and body_j (3..5); the joint's rows follow contiguously. -1 for the ground.
  std::vector<std::array<int, 6>> jacobian_slots_;
  void add_input_forces(VecCRef q, InputValues channels, VecRef out_f) const noexcept;
  // per force element: the input channels of its target x and y (-1: `vector` holds)
  std::vector<std::array<int, 2>> target_channels_;
};

/// World position p = r + A(theta) s of body point s (body frame) at q, for a model whose bodies
/// all have three coordinates (q_b at 3 b; otherwise use PlanarMultibody::point_position); the
/// ground's points are world points. RT-safe.
[[nodiscard]] Eigen::Vector2d point_position(VecCRef q,
                                             int body,
                                             const Eigen::Vector2d& s) noexcept;
/// Its velocity p' = r' + theta' S A(theta) s (the same layout). RT-safe.
[[nodiscard]] Eigen::Vector2d point_velocity(VecCRef q,
                                             VecCRef v,
                                             int body,
                                             const Eigen::Vector2d& s) noexcept;

}  // namespace rtmb
