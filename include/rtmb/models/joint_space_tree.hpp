// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Kinematic trees in joint space (minimal coordinates, issue 19): q is the vector of joint
// coordinates (a revolute joint's angle, a prismatic joint's displacement, a planar joint's
// (x, y, angle), a floating joint's translation and Euler parameters), v = q', so n_q == n_v and
// every integrator and stabilizer runs unchanged. A floating joint keeps its quaternion unit the
// way the spatial bodies do (rtmb/models/spatial_multibody.hpp, Haug 1989 ch. 6 and 11): one
// normalization row (e.e - 1)/2 = 0 per floating joint, which the stabilizers enforce like any
// other row. The mass matrix M(q) comes from
// the composite-rigid-body algorithm and the bias forces C(q, v) q' + g(q) from the recursive
// Newton-Euler algorithm (R. Featherstone, Rigid Body Dynamics Algorithms, Springer 2008,
// ch. 5 and 6), both written in world (base) coordinates (Featherstone §5.3 "base coordinates").
// What URDF files (engine/model_file/urdf_model_file.cpp) and `formulation: joint_space` compile
// to. Loop closures and mimic joints are constraint rows g(q) between named links
// (engine/multibody/joint_space_closures.cpp): point coincidence and axis alignment, with G from
// the link Jacobians and L from the links' velocity-product accelerations, so every integrator and
// stabilizer runs on a closed-loop mechanism in joint space unchanged (Chin 1995's setting).

#include <Eigen/Core>
#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rtmb/models/force_output_filter.hpp"
#include "rtmb/system.hpp"

namespace rtmb {

class ArticulatedSolve;

/// A rigid link: its inertia about its centre of mass, in its own frame (the frame its parent
/// joint moves).
struct TreeLinkSpec {
  std::string name;
  double mass = 0.0;                                  ///< m [kg], >= 0
  Eigen::Vector3d com = Eigen::Vector3d::Zero();      ///< centre of mass, link frame [m]
  Eigen::Matrix3d inertia = Eigen::Matrix3d::Zero();  ///< about the centre of mass, link frame
                                                      ///< [kg m^2], symmetric pos. semi-definite
};

enum class TreeJointType {
  kRevolute,   ///< rotation q [rad] about `axis` (URDF revolute and continuous)
  kPrismatic,  ///< translation q [m] along `axis`
  kFixed,      ///< no coordinate: the child is welded to the parent
  kPlanar,     ///< 3 coordinates (x, y, angle): translation along two unit vectors u, w of the
               ///< plane normal to `axis` (u = the coordinate axis least aligned with it made
               ///< orthogonal, w = axis x u; axis z gives x, y), then rotation about `axis`
  kFloating,   ///< 7 coordinates: translation (x, y, z) in the joint frame, then the Euler
               ///< parameters (e0, e1, e2, e3) of the child's rotation relative to the joint
               ///< frame; q' = v, one normalization row (e.e - 1)/2 = 0 (URDF floating)
};

/// Coordinates of a joint type: 1, 1, 0, 3, 7.
[[nodiscard]] int tree_joint_coordinates(TreeJointType type) noexcept;

/// The joint that moves link `child` relative to link `parent` (-1: the world). At q = 0 the
/// child's frame is the joint frame, placed at `origin_xyz` and rotated by `origin_rotation` in
/// the parent's frame (URDF <joint><origin>); q rotates or translates it about/along `axis`,
/// given in the joint frame.
struct TreeJointSpec {
  std::string name;
  TreeJointType type = TreeJointType::kRevolute;
  int parent = -1;  ///< index into links, or -1 for the world
  int child = 0;    ///< index into links; every link is the child of at most one joint
  Eigen::Vector3d origin_xyz = Eigen::Vector3d::Zero();
  Eigen::Matrix3d origin_rotation = Eigen::Matrix3d::Identity();
  Eigen::Vector3d axis = Eigen::Vector3d::UnitZ();  ///< joint frame, non-zero (normalized)
  double damping = 0.0;           ///< viscous joint damper, torque -damping q' [N m s/rad | N s/m]
  double stiffness = 0.0;         ///< joint spring, torque -stiffness (q - rest_position), >= 0
  double rest_position = 0.0;     ///< the joint spring's unstretched q [rad | m]
  double effort = 0.0;            ///< constant generalized force on q (a drive torque) [N m | N]
  double initial_position = 0.0;  ///< q at t = 0 (planar, floating: must be 0; they start at
                                  ///< the joint frame with zero velocity)
  double initial_velocity = 0.0;  ///< q' at t = 0
};

enum class TreeClosureType {
  kPlanarRevolute,  ///< 2 rows: point_a and point_b coincide in the plane normal to `normal`
  kSpherical,       ///< 3 rows: point_a and point_b coincide
  kRevolute,        ///< 5 rows: the points coincide and axis_b stays parallel to axis_a
  kMimic,           ///< 1 row: q(joint) = multiplier q(mimicked) + offset (URDF <mimic>)
};

/// A constraint that is not a tree joint: a loop closure between two links (link -1: the world),
/// or a mimic joint. Points and axes are given in their link's frame (the world's for -1).
struct TreeClosureSpec {
  std::string name;
  TreeClosureType type = TreeClosureType::kSpherical;
  int link_a = -1;
  int link_b = -1;
  Eigen::Vector3d point_a = Eigen::Vector3d::Zero();
  Eigen::Vector3d point_b = Eigen::Vector3d::Zero();
  Eigen::Vector3d axis_a = Eigen::Vector3d::UnitZ();  ///< revolute: link a's frame, non-zero
  Eigen::Vector3d axis_b = Eigen::Vector3d::UnitZ();  ///< revolute: link b's frame, non-zero
  Eigen::Vector3d normal = Eigen::Vector3d::UnitZ();  ///< planar: world, non-zero
  int joint = -1;           ///< mimic: the following joint (index into joints)
  int mimicked = -1;        ///< mimic: the joint it follows
  double multiplier = 1.0;  ///< mimic
  double offset = 0.0;      ///< mimic [rad | m]
};

/// A linear spring between a point of link_a and a point of link_b (-1: the world), force
/// stiffness (l - rest_length) along the line, l the points' distance.
struct TreePointSpringSpec {
  std::string name;
  int link_a = -1;
  int link_b = -1;
  Eigen::Vector3d point_a = Eigen::Vector3d::Zero();
  Eigen::Vector3d point_b = Eigen::Vector3d::Zero();
  double stiffness = 0.0;    ///< [N/m], >= 0
  double rest_length = 0.0;  ///< [m], >= 0
};

/// Virtual coupling of a haptic device to a link point (issue 19 acceptance 6; the planar and
/// spatial models' `coupling`, issue 4): F = -k (p - p*) - c p' on the world point p of `link`
/// (engine/multibody/virtual_coupling.hpp), p* = `target` with each axis an input channel may drive
/// (TreeInputType::kCouplingX/Y/Z). Its generalized force is J_p(q)^T F.
struct TreeCouplingSpec {
  std::string name;
  int link = 0;                                      ///< index into links
  Eigen::Vector3d point = Eigen::Vector3d::Zero();   ///< link frame [m]
  double stiffness = 0.0;                            ///< k [N/m], >= 0
  double damping = 0.0;                              ///< c [N s/m], >= 0
  Eigen::Vector3d target = Eigen::Vector3d::Zero();  ///< p* of an undriven axis, world [m]
  ForceSafetyConfig safety;  ///< the filter of its haptic_force outputs (force_output_filter.hpp)
};

enum class TreeInputType {
  kJointForce,  ///< generalized force on a 1-coordinate joint (torque [N m] or force [N]),
                ///< clamped to +-limit when limit > 0
  kCouplingX,   ///< target x of coupling `element` [m]
  kCouplingY,   ///< target y [m]
  kCouplingZ,   ///< target z [m]
};

/// A named input channel of a tree (System::n_inputs()): with any, they replace the default
/// channels (one generalized force per coordinate through the applied force).
struct TreeInputSpec {
  std::string name;
  TreeInputType type = TreeInputType::kJointForce;
  int joint = -1;        ///< kJointForce: index into joints
  int element = -1;      ///< kCoupling*: index into couplings
  double limit = 0.0;    ///< kJointForce: clamp [N m | N]; 0: none
  double initial = 0.0;  ///< value before any input arrives
};

struct JointSpaceSpec {
  std::string name = "joint_space";
  std::vector<TreeLinkSpec> links;
  std::vector<TreeJointSpec> joints;
  std::vector<TreeClosureSpec> closures;
  std::vector<TreePointSpringSpec> springs;
  std::vector<TreeCouplingSpec> couplings;
  std::vector<TreeInputSpec> inputs;
  Eigen::Vector3d gravity{0.0, 0.0, -9.81};  ///< world [m/s^2]
};

/// The joint-space System of a tree. The coordinates are the non-fixed joints' in the order of
/// spec.joints (1, 3 or 7 each, tree_joint_coordinates). A link that is the child of no joint is
/// welded to the world at the origin. Constraint rows: each closure's, in the order of
/// spec.closures (2, 3, 5 or 1 rows by type), then one normalization row per floating joint in
/// the order of spec.joints. Damping, stiffness, effort and initial values are for 1-coordinate
/// joints (a planar or floating joint's must be 0), and closures and mimic rows may not involve
/// a link moved by a planar or floating joint (their d(G v)/dq assumes subspaces fixed in the
/// links).
/// Construction validates the spec (throws std::invalid_argument naming the link, joint or
/// closure).
class JointSpaceTree final : public System {
 public:
  explicit JointSpaceTree(JointSpaceSpec spec);

  [[nodiscard]] std::string_view name() const noexcept override { return spec_.name; }
  [[nodiscard]] const JointSpaceSpec& spec() const noexcept { return spec_; }
  /// First coordinate index of joint j (index into spec().joints); -1 for a fixed joint.
  [[nodiscard]] int coordinate(int joint) const noexcept { return coordinate_[joint]; }

  /// The joints' initial values; with closures, q projected onto g(q) = 0 by Gauss-Newton steps
  /// of minimum norm and then v onto G v = 0 (the given values where they are consistent).
  void initial_state(State& out) const override;
  /// M(q) by the composite-rigid-body algorithm (Featherstone Table 6.2). RT-safe.
  void mass(double t, VecCRef q, MatRef out_M) const noexcept override;
  /// f = -(C(q, v) v + g(q)) - D v - K (q - q_rest) + effort + springs + J_p^T F of the
  /// couplings + the joint-force channels (bias by recursive Newton-Euler, Featherstone
  /// Table 5.1; D the joint dampers, K the joint springs). RT-safe.
  void forces(double t, VecCRef q, VecCRef v, InputValues u, VecRef out_f) const noexcept override;
  void constraints(double t, VecCRef q, VecRef out_g) const noexcept override;
  void jacobian(double t, VecCRef q, MatRef out_G) const noexcept override;
  void curvature(double t, VecCRef q, VecCRef v, VecRef out_L) const noexcept override;
  void velocity_constraint_jacobian(double t,
                                    VecCRef q,
                                    VecCRef v,
                                    MatRef out_Gv_q) const noexcept override;

  /// Inverse dynamics tau = M(q) a + C(q, v) v + g(q) by recursive Newton-Euler (Featherstone
  /// Table 5.1), dampers excluded: a = 0 gives the bias forces. RT-safe.
  void inverse_dynamics(VecCRef q, VecCRef v, VecCRef a, VecRef out_tau) const noexcept;

  /// World pose of link l's frame at q: rotation and origin. RT-safe.
  void link_pose(VecCRef q,
                 int link,
                 Eigen::Matrix3d& rotation,
                 Eigen::Vector3d& origin) const noexcept;

  /// World position of a point given in link l's frame (l = -1: the world) at q. RT-safe.
  [[nodiscard]] Eigen::Vector3d point_position(VecCRef q,
                                               int link,
                                               const Eigen::Vector3d& point) const noexcept;
  /// World velocity of that point at (q, v). RT-safe.
  [[nodiscard]] Eigen::Vector3d point_velocity(VecCRef q,
                                               VecCRef v,
                                               int link,
                                               const Eigen::Vector3d& point) const noexcept;

  /// Total spatial momentum sum_i I_i v_i at (q, v) (Featherstone eq. 2.67's I v, summed over
  /// links): (angular momentum about the world origin, linear momentum), world. RT-safe.
  [[nodiscard]] Eigen::Matrix<double, 6, 1> spatial_momentum(VecCRef q, VecCRef v) const noexcept;
  /// Total mass and world centre of mass at q. RT-safe.
  [[nodiscard]] Eigen::Vector3d centre_of_mass(VecCRef q, double& total_mass) const noexcept;

  [[nodiscard]] bool has_energy() const noexcept override { return true; }
  /// T + V: sum over links of v_i^T I_i v_i / 2 (Featherstone eq. 2.67), -m_i g . c_i, and the
  /// joint and point springs', the couplings' springs' (k |p - p*|^2 / 2 at the targets of u)
  /// and the efforts' potentials. RT-safe.
  [[nodiscard]] double energy(double t,
                              VecCRef q,
                              VecCRef v,
                              InputValues u) const noexcept override;

  /// Kinematics and the recursions write scratch of their own: each simulation gets a copy.
  [[nodiscard]] std::unique_ptr<const System> for_simulation() const override;

  /// An articulated-body factorization of M(q) for this tree's topology
  /// (engine/multibody/articulated_solve.hpp): O(n) per factor and per solve of M^-1 tau, where
  /// mass() is O(n d) and a dense factorization O(n^3). Fill it with articulated_inputs(q, ...),
  /// then factor() and solve(). Setup-only.
  [[nodiscard]] std::unique_ptr<ArticulatedSolve> articulated_solve() const;
  /// Writes the links' spatial inertias, motion subspaces and joint-space inertias at q into
  /// `out` (made by articulated_solve() of this tree). RT-safe.
  void articulated_inputs(VecCRef q, ArticulatedSolve& out) const noexcept;
  /// The articulated factorization as the System's MassFactor, for the tree KKT backend
  /// (engine/kkt/tree_kkt.hpp). Setup-only.
  [[nodiscard]] std::unique_ptr<MassFactor> mass_factor() const override;

  // ---- named inputs and couplings (engine/multibody/joint_space_coupling.cpp) ----------------
  [[nodiscard]] int n_inputs() const noexcept override {
    return static_cast<int>(spec_.inputs.size());
  }
  [[nodiscard]] double initial_input(int i) const noexcept override {
    return spec_.inputs[static_cast<std::size_t>(i)].initial;
  }
  /// Target p* of coupling k at the channel values u [m, world]. RT-safe.
  [[nodiscard]] Eigen::Vector3d coupling_target(std::size_t k, InputValues u) const noexcept;
  /// Force F = -k (p - p*) - c p' coupling k exerts on its link [N, world]. RT-safe.
  [[nodiscard]] Eigen::Vector3d coupling_force(std::size_t k,
                                               VecCRef q,
                                               VecCRef v,
                                               InputValues u) const noexcept;
  /// The translational Jacobian J_p = dp/dq (3 x n_v) of coupling k's point at q, column k
  /// S_k,lin + S_k,ang x p over the coordinates that move its link (RBDA eq. 5.7). RT-safe.
  void coupling_jacobian(std::size_t k, VecCRef q, MatRef out_J) const noexcept;

 private:
  using Vec6 = Eigen::Matrix<double, 6, 1>;
  using Mat6 = Eigen::Matrix<double, 6, 6>;

  // Per-link values at the current q, in world Pluecker coordinates at the world origin: motion
  // vectors (omega, v_O), force vectors (n_O, f) (Featherstone §2.3-2.4).
  struct LinkState {
    Eigen::Matrix3d rotation;  // R_i, link frame -> world
    Eigen::Vector3d origin;    // p_i, world [m]
    Eigen::Vector3d com;       // c_i, world [m]
    // S_i of the parent joint, one column per coordinate (RBDA §4.4): the translation columns
    // first, then the rotation columns
    Eigen::Matrix<double, 6, 7> motion_subspace;
    int dofs = 0;                // columns used (0 for fixed or none)
    int translations = 0;        // planar 2, floating 3, else 0 (c_J below)
    bool floating = false;       // the rotation columns are Euler-parameter rates
    Eigen::Vector4d quaternion;  // floating: e (not normalized), for c_J and the rows
    Mat6 inertia;                // I_i, spatial inertia at the world origin
    Mat6 composite;              // I^c_i (CRBA)
    Vec6 velocity;               // v_i (RNEA)
    Vec6 acceleration;           // a_i (RNEA)
    Vec6 force;                  // f_i (RNEA)
  };

  // A point or a direction fixed in a link, in world coordinates, with its time derivative and the
  // velocity-product part of its second derivative (what is left at q'' = 0).
  struct Attachment {
    Eigen::Vector3d value;
    Eigen::Vector3d rate;
    Eigen::Vector3d bias;
  };

  void kinematics(VecCRef q) const noexcept;
  // after kinematics(q): RNEA's forward pass (RBDA eqs. 5.7-5.8), each link's spatial velocity
  // v_i = v_p + S_i q'_i and acceleration a_i = a_p + S_i q''_i + v_i x S_i q'_i from the base's
  // (0, base_acceleration); a == nullptr: q'' = 0
  void forward_pass(VecCRef v, const VecCRef* a, const Vec6& base_acceleration) const noexcept;
  // forward_pass at q'' = 0 without gravity: the velocities and velocity-product accelerations
  void link_velocities(VecCRef v) const noexcept;
  [[nodiscard]] Attachment point_attachment(int link, const Eigen::Vector3d& point) const noexcept;
  [[nodiscard]] Attachment direction_attachment(int link,
                                                const Eigen::Vector3d& direction) const noexcept;
  // a row of G or of d(G v)/dq, or f^T: out(k) += weight . d(value)/dq_k for every coordinate k
  // that moves the link
  using RowRef = Eigen::Ref<Eigen::RowVectorXd, 0, Eigen::InnerStride<>>;
  [[nodiscard]] Eigen::Vector3d point_world(int link, const Eigen::Vector3d& point) const noexcept;
  void add_point_jacobian(int link,
                          const Eigen::Vector3d& point_world,
                          const Eigen::Vector3d& weight,
                          RowRef out) const noexcept;
  void add_direction_jacobian(int link,
                              const Eigen::Vector3d& direction_world,
                              const Eigen::Vector3d& weight,
                              RowRef out) const noexcept;
  // out(k) += weight . d(value')/dq_k at fixed v, value the attachment's point or direction
  void add_rate_jacobian(int link,
                         const Attachment& at,
                         bool is_point,
                         const Eigen::Vector3d& weight,
                         RowRef out) const noexcept;
  void add_spring_forces(VecRef out_f) const noexcept;
  // after forces()' RNEA (kinematics and link velocities at (q, v)): J_p^T F of every coupling
  // and the named joint-force channels
  void add_input_forces(InputValues u, VecRef out_f) const noexcept;
  // the couplings' springs' k |p - p*|^2 / 2, after kinematics(q)
  [[nodiscard]] double coupling_potential(InputValues u) const noexcept;
  [[nodiscard]] double input(InputValues u, std::size_t i) const noexcept {
    return i < u.size() ? u[i] : spec_.inputs[i].initial;
  }
  void validate_inputs();
  // the velocity-product term c_J of a planar or floating joint (RBDA eq. 5.8), after S is set
  // recursive Newton-Euler (RBDA Table 5.1): the joint forces for q'' = *a, or q'' = 0 when a
  // is null (the bias forces C v + g); out_tau may be *a (the forward pass reads it first)
  void newton_euler(VecCRef q, VecCRef v, const VecCRef* a, VecRef out_tau) const noexcept;
  [[nodiscard]] Vec6 joint_bias(const LinkState& s, VecCRef v, int k) const noexcept;
  // the floating joints' normalization rows (after the closures' rows): g, G, L, d(G v)/dq
  void normalization_rows(VecCRef q, VecRef out_g) const noexcept;
  void normalization_jacobian(VecCRef q, MatRef out_G) const noexcept;
  void normalization_curvature(VecCRef v, VecRef out_L) const noexcept;
  void normalization_rate_jacobian(VecCRef v, MatRef out_Gv_q) const noexcept;
  void validate_closures();

  JointSpaceSpec spec_;
  std::vector<int> order_;                  // links, each after its parent
  std::vector<int> parent_link_;            // per link: parent link or -1
  std::vector<int> parent_joint_;           // per link: the joint whose child it is, or -1
  std::vector<int> coordinate_;             // per joint: coordinate index or -1
  std::vector<int> link_coordinate_;        // per link: its parent joint's coordinate, or -1
  std::vector<int> link_of_coordinate_;     // per coordinate: the joint's child link
  std::vector<Eigen::Vector3d> unit_axis_;  // per joint: axis / |axis|
  std::vector<std::array<Eigen::Vector3d, 2>> plane_axes_;  // per joint: planar u, w
  // Per joint, the fixed parts of its pose in its parent: the origin's rotation O and O a, and
  // for a joint that turns about a (revolute, planar) Rodrigues' terms O K and O K^2 with K the
  // cross-product matrix of a, so that O R(a, theta) = O + sin(theta) O K + (1 - cos(theta)) O K^2
  // (kinematics() builds each link's rotation from one sincos and two 3x3 updates)
  struct JointFrame {
    Eigen::Matrix3d rotation;  // O
    Eigen::Matrix3d turn_sin;  // O K
    Eigen::Matrix3d turn_cos;  // O K^2
    Eigen::Vector3d axis;      // O a: the axis in the parent link's frame
  };
  std::vector<JointFrame> joint_frame_;
  std::vector<int> floating_coordinate_;  // per floating joint: its first coordinate
  int closure_rows_ = 0;                  // rows before the normalization rows
  // per closure: its first row, and the world (point rows) or link-a (axis rows) unit vectors
  // its rows project on
  std::vector<int> closure_row_;
  std::vector<std::array<Eigen::Vector3d, 3>> closure_basis_;
  mutable std::vector<LinkState> state_;  // scratch (for_simulation gives each its own)
  // the q that state_'s poses, motion subspaces and inertias were computed at: a step asks for
  // M(q), the bias forces, G(q) and the energy at the same q, and kinematics() is half the
  // step's time on the WAM (perf, 2026-11-27), so it runs once per q
  mutable Vec kinematics_q_;
  mutable bool kinematics_valid_ = false;
  // per coupling: the input channel of its x, y, z target, or -1 (the spec's target)
  std::vector<std::array<int, 3>> target_channel_;
};

/// The number of coordinates of a spec (sum of tree_joint_coordinates over its joints).
[[nodiscard]] int joint_space_coordinates(const JointSpaceSpec& spec) noexcept;

/// The number of constraint rows of a spec: its closures' and one per floating joint.
[[nodiscard]] int joint_space_constraint_rows(const JointSpaceSpec& spec) noexcept;

}  // namespace rtmb
