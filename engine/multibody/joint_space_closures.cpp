// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Constraint rows of a joint-space tree (rtmb/models/joint_space_tree.hpp): loop closures between
// two links and mimic joints, g(q) = 0 in the descriptor form of rtmb/system.hpp (Chin 1995
// eq. 2.2), so every integrator and stabilizer works on a closed-loop mechanism in joint space.
// Featherstone, Rigid Body Dynamics Algorithms (Springer 2008), is cited as "RBDA"; the spatial
// conventions are those of joint_space_tree.cpp (world Pluecker coordinates at the world origin).
//
// Rows. A closure joins a point x_a of link a to a point x_b of link b (world positions):
//   point rows     g = e . (x_b - x_a)  for e = the world x, y, z (spherical, revolute) or two
//                  unit vectors of the plane normal to `normal` (planar revolute: 2 rows, the
//                  planar loop's out-of-plane rows would vanish identically and make G singular);
//   axis rows      g = (R_a u) . (R_b b)  for u = two unit vectors normal to the axis a in link
//                  a's frame and b the unit axis of link b (revolute: the axes stay parallel);
//   mimic row      g = q_j - m q_i - offset.
// Derivatives. A link's spatial velocity is V = (w, v_O) = sum S_k q'_k over the coordinates k
// that move it (RBDA eq. 5.7), so a point x fixed in the link has x' = v_O + w x x and a
// direction d fixed in it d' = w x d: column k of their Jacobians is S_k,lin + S_k,ang x x and
// S_k,ang x d. Their second derivatives are x'' = a_O + alpha x x + w x x' and
// d'' = alpha x d + w x d' with (alpha, a_O) the spatial acceleration; at q'' = 0 it is the
// velocity-product acceleration of RNEA's forward pass (RBDA eq. 5.8), and that part of g'' is
// the curvature L of Chin §1.1 (d^2 g/dt^2 = G v' + L).
// d(G v)/dq (the S-full stabilizer's block, Chin §1.6): moving coordinate j (its joint's parent
// link p) turns every motion subspace beyond it, dS_k/dq_j = S_j x S_k (RBDA eq. 2.31's cross
// product; the subspaces are fixed in the links), so dV/dq_j = S_j x (V - V_p), and
//   d(x')/dq_j = W_lin + W_ang x x + w x dx/dq_j,   d(d')/dq_j = W_ang x d + w x dd/dq_j
// with W = S_j x (V - V_p). tests/engine/multibody/joint_space_closures_test.cpp checks G, L and
// d(G v)/dq against central differences of g and of G v. A planar or floating joint's subspace
// also moves with its own coordinates (joint_space_tree.cpp, c_J), which that formula does not
// see: closures may not involve the links such a joint moves (validate_closures refuses them).
// Normalization rows (one per floating joint, after the closures' rows, as the spatial bodies'
// rows of engine/multibody/spatial_multibody.cpp): g = (e.e - 1)/2, G = [0, e^T] on the joint's
// Euler-parameter columns, L = e'.e' (d^2 g/dt^2 = e.e'' + e'.e'), d(G v)/dq = [0, e'^T].

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "engine/multibody/spatial_vector_algebra.hpp"
#include "rtmb/models/joint_space_tree.hpp"

namespace rtmb {
namespace {

using Vec3 = Eigen::Vector3d;
using spatial::cross_motion;
using spatial::plane_basis;
using spatial::Vec6;

constexpr double kClosedTolerance = 1e-14;  // |g| below which initial_state leaves q alone
constexpr double kAcceptTolerance = 1e-10;  // |g| initial_state must reach, or it refuses q0
constexpr int kAssemblyIterations = 30;

int rows_of(TreeClosureType type) noexcept {
  switch (type) {
    case TreeClosureType::kPlanarRevolute:
      return 2;
    case TreeClosureType::kSpherical:
      return 3;
    case TreeClosureType::kRevolute:
      return 5;
    case TreeClosureType::kMimic:
      return 1;
  }
  return 0;
}

[[noreturn]] void refuse_closure(const std::string& what) {
  throw std::invalid_argument("joint-space tree: " + what);
}

}  // namespace

int joint_space_constraint_rows(const JointSpaceSpec& spec) noexcept {
  int m = 0;
  for (const TreeClosureSpec& c : spec.closures) m += rows_of(c.type);
  for (const TreeJointSpec& j : spec.joints) m += j.type == TreeJointType::kFloating ? 1 : 0;
  return m;
}

void JointSpaceTree::validate_closures() {
  const int n_links = static_cast<int>(spec_.links.size());
  const int n_joints = static_cast<int>(spec_.joints.size());
  // true for a link that a planar or floating joint moves (one among its ancestors' joints)
  const auto under_multi_dof = [this](int link) {
    for (int l = link; l >= 0; l = parent_link_[static_cast<std::size_t>(l)]) {
      const int j = parent_joint_[static_cast<std::size_t>(l)];
      if (j >= 0 && tree_joint_coordinates(spec_.joints[static_cast<std::size_t>(j)].type) > 1) {
        return true;
      }
    }
    return false;
  };
  const std::string multi_dof =
      "closures and mimic rows on links moved by a planar or floating joint are not supported";
  int row = 0;
  for (TreeClosureSpec& c : spec_.closures) {
    const std::string who = "closure '" + c.name + "': ";
    std::array<Vec3, 3> basis{Vec3::UnitX(), Vec3::UnitY(), Vec3::UnitZ()};
    if (c.type == TreeClosureType::kMimic) {
      if (c.joint < 0 || c.joint >= n_joints || c.mimicked < 0 || c.mimicked >= n_joints) {
        refuse_closure(who + "joint out of range");
      }
      if (coordinate_[static_cast<std::size_t>(c.joint)] < 0 ||
          coordinate_[static_cast<std::size_t>(c.mimicked)] < 0) {
        refuse_closure(who + "a mimic joint and the joint it follows must both move (not fixed)");
      }
      if (c.joint == c.mimicked) refuse_closure(who + "a joint cannot mimic itself");
      if (under_multi_dof(spec_.joints[static_cast<std::size_t>(c.joint)].child) ||
          under_multi_dof(spec_.joints[static_cast<std::size_t>(c.mimicked)].child)) {
        refuse_closure(who + multi_dof);
      }
      if (!std::isfinite(c.multiplier) || !std::isfinite(c.offset)) {
        refuse_closure(who + "multiplier and offset must be finite");
      }
    } else {
      if (c.link_a < -1 || c.link_a >= n_links || c.link_b < -1 || c.link_b >= n_links) {
        refuse_closure(who + "link out of range");
      }
      if (c.link_a == c.link_b) refuse_closure(who + "joins a link to itself");
      if (under_multi_dof(c.link_a) || under_multi_dof(c.link_b)) refuse_closure(who + multi_dof);
      if (!c.point_a.allFinite() || !c.point_b.allFinite() || !c.axis_a.allFinite() ||
          !c.axis_b.allFinite() || !c.normal.allFinite()) {
        refuse_closure(who + "points, axes and normal must be finite");
      }
      if (c.type == TreeClosureType::kPlanarRevolute) {
        if (!(c.normal.norm() > 0.0)) refuse_closure(who + "normal must be non-zero");
        basis = plane_basis(c.normal.normalized());
      } else if (c.type == TreeClosureType::kRevolute) {
        if (!(c.axis_a.norm() > 0.0) || !(c.axis_b.norm() > 0.0)) {
          refuse_closure(who + "axes must be non-zero");
        }
        const std::array<Vec3, 3> normal_to_a = plane_basis(c.axis_a.normalized());
        basis = {normal_to_a[0], normal_to_a[1], c.axis_b.normalized()};
      }
    }
    closure_row_.push_back(row);
    closure_basis_.push_back(basis);
    row += rows_of(c.type);
  }
  closure_rows_ = row;
}

Vec3 JointSpaceTree::point_world(int link, const Vec3& point) const noexcept {
  if (link < 0) return point;
  const LinkState& s = state_[static_cast<std::size_t>(link)];
  return s.origin + s.rotation * point;
}

Vec3 JointSpaceTree::point_position(VecCRef q, int link, const Vec3& point) const noexcept {
  kinematics(q);
  return point_world(link, point);
}

Vec3 JointSpaceTree::point_velocity(VecCRef q,
                                    VecCRef v,
                                    int link,
                                    const Vec3& point) const noexcept {
  kinematics(q);
  link_velocities(v);
  return point_attachment(link, point).rate;
}

void JointSpaceTree::link_velocities(VecCRef v) const noexcept {
  forward_pass(v, nullptr, Vec6::Zero());
}

JointSpaceTree::Attachment JointSpaceTree::point_attachment(int link,
                                                            const Vec3& point) const noexcept {
  Attachment at{point_world(link, point), Vec3::Zero(), Vec3::Zero()};
  if (link < 0) return at;
  const LinkState& s = state_[static_cast<std::size_t>(link)];
  const Vec3 w = s.velocity.head<3>();
  at.rate = s.velocity.tail<3>() + w.cross(at.value);
  at.bias = s.acceleration.tail<3>() + s.acceleration.head<3>().cross(at.value) + w.cross(at.rate);
  return at;
}

JointSpaceTree::Attachment JointSpaceTree::direction_attachment(
    int link, const Vec3& direction) const noexcept {
  if (link < 0) return {direction, Vec3::Zero(), Vec3::Zero()};
  const LinkState& s = state_[static_cast<std::size_t>(link)];
  Attachment at{s.rotation * direction, Vec3::Zero(), Vec3::Zero()};
  const Vec3 w = s.velocity.head<3>();
  at.rate = w.cross(at.value);
  at.bias = s.acceleration.head<3>().cross(at.value) + w.cross(at.rate);
  return at;
}

void JointSpaceTree::add_point_jacobian(int link,
                                        const Vec3& point,
                                        const Vec3& weight,
                                        RowRef out) const noexcept {
  for (int l = link; l >= 0; l = parent_link_[static_cast<std::size_t>(l)]) {
    const int k = link_coordinate_[static_cast<std::size_t>(l)];
    const LinkState& ls = state_[static_cast<std::size_t>(l)];
    for (int c = 0; c < ls.dofs; ++c) {
      const Vec6 s = ls.motion_subspace.col(c);
      out(k + c) += weight.dot(s.tail<3>() + s.head<3>().cross(point));
    }
  }
}

void JointSpaceTree::add_direction_jacobian(int link,
                                            const Vec3& direction,
                                            const Vec3& weight,
                                            RowRef out) const noexcept {
  for (int l = link; l >= 0; l = parent_link_[static_cast<std::size_t>(l)]) {
    const int k = link_coordinate_[static_cast<std::size_t>(l)];
    const LinkState& ls = state_[static_cast<std::size_t>(l)];
    for (int c = 0; c < ls.dofs; ++c) {
      out(k + c) += weight.dot(ls.motion_subspace.col(c).head<3>().cross(direction));
    }
  }
}

void JointSpaceTree::add_rate_jacobian(
    int link, const Attachment& at, bool is_point, const Vec3& weight, RowRef out) const noexcept {
  if (link < 0) return;
  const Vec6& velocity = state_[static_cast<std::size_t>(link)].velocity;
  const Vec3 w = velocity.head<3>();
  for (int l = link; l >= 0; l = parent_link_[static_cast<std::size_t>(l)]) {
    const int k = link_coordinate_[static_cast<std::size_t>(l)];
    if (k < 0) continue;
    // one column: validate_closures keeps planar and floating joints out of closures
    const Vec6 s = state_[static_cast<std::size_t>(l)].motion_subspace.col(0);
    const int p = parent_link_[static_cast<std::size_t>(l)];
    const Vec6 relative =
        p >= 0 ? Vec6(velocity - state_[static_cast<std::size_t>(p)].velocity) : velocity;
    const Vec6 turn = cross_motion(s, relative);  // dV/dq_k
    Vec3 d_rate;
    if (is_point) {
      const Vec3 d_value = s.tail<3>() + s.head<3>().cross(at.value);
      d_rate = turn.tail<3>() + turn.head<3>().cross(at.value) + w.cross(d_value);
    } else {
      const Vec3 d_value = s.head<3>().cross(at.value);
      d_rate = turn.head<3>().cross(at.value) + w.cross(d_value);
    }
    out(k) += weight.dot(d_rate);
  }
}

void JointSpaceTree::normalization_rows(VecCRef q, VecRef out_g) const noexcept {
  int r = closure_rows_;
  for (int k : floating_coordinate_) out_g(r++) = 0.5 * (q.segment<4>(k + 3).squaredNorm() - 1.0);
}

void JointSpaceTree::normalization_jacobian(VecCRef q, MatRef out_G) const noexcept {
  int r = closure_rows_;
  for (int k : floating_coordinate_)
    out_G.block<1, 4>(r++, k + 3) = q.segment<4>(k + 3).transpose();
}

void JointSpaceTree::normalization_curvature(VecCRef v, VecRef out_L) const noexcept {
  int r = closure_rows_;
  for (int k : floating_coordinate_) out_L(r++) = v.segment<4>(k + 3).squaredNorm();
}

void JointSpaceTree::normalization_rate_jacobian(VecCRef v, MatRef out_Gv_q) const noexcept {
  int r = closure_rows_;
  for (int k : floating_coordinate_) {
    out_Gv_q.block<1, 4>(r++, k + 3) = v.segment<4>(k + 3).transpose();
  }
}

void JointSpaceTree::constraints(double /*t*/, VecCRef q, VecRef out_g) const noexcept {
  if (n_lambda() == 0) return;
  normalization_rows(q, out_g);
  if (closure_rows_ == 0) return;
  kinematics(q);
  for (std::size_t c = 0; c < spec_.closures.size(); ++c) {
    const TreeClosureSpec& cl = spec_.closures[c];
    const auto& basis = closure_basis_[c];
    const int r = closure_row_[c];
    if (cl.type == TreeClosureType::kMimic) {
      out_g(r) = q(coordinate_[static_cast<std::size_t>(cl.joint)]) -
                 cl.multiplier * q(coordinate_[static_cast<std::size_t>(cl.mimicked)]) - cl.offset;
      continue;
    }
    const Vec3 gap = point_world(cl.link_b, cl.point_b) - point_world(cl.link_a, cl.point_a);
    const int point_rows = cl.type == TreeClosureType::kPlanarRevolute ? 2 : 3;
    const bool world_axes = cl.type == TreeClosureType::kRevolute;
    for (int i = 0; i < point_rows; ++i) {
      out_g(r + i) = world_axes ? gap(i) : basis[static_cast<std::size_t>(i)].dot(gap);
    }
    if (cl.type == TreeClosureType::kRevolute) {
      const Vec3 b = direction_attachment(cl.link_b, basis[2]).value;
      for (int i = 0; i < 2; ++i) {
        out_g(r + 3 + i) =
            direction_attachment(cl.link_a, basis[static_cast<std::size_t>(i)]).value.dot(b);
      }
    }
  }
}

void JointSpaceTree::jacobian(double /*t*/, VecCRef q, MatRef out_G) const noexcept {
  if (n_lambda() == 0) return;
  out_G.setZero();
  normalization_jacobian(q, out_G);
  if (closure_rows_ == 0) return;
  kinematics(q);
  for (std::size_t c = 0; c < spec_.closures.size(); ++c) {
    const TreeClosureSpec& cl = spec_.closures[c];
    const auto& basis = closure_basis_[c];
    const int r = closure_row_[c];
    if (cl.type == TreeClosureType::kMimic) {
      out_G(r, coordinate_[static_cast<std::size_t>(cl.joint)]) += 1.0;
      out_G(r, coordinate_[static_cast<std::size_t>(cl.mimicked)]) -= cl.multiplier;
      continue;
    }
    const Vec3 xa = point_world(cl.link_a, cl.point_a);
    const Vec3 xb = point_world(cl.link_b, cl.point_b);
    const int point_rows = cl.type == TreeClosureType::kPlanarRevolute ? 2 : 3;
    const bool world_axes = cl.type == TreeClosureType::kRevolute;
    for (int i = 0; i < point_rows; ++i) {
      const Vec3 e = world_axes ? Vec3::Unit(i) : basis[static_cast<std::size_t>(i)];
      add_point_jacobian(cl.link_b, xb, e, out_G.row(r + i));
      add_point_jacobian(cl.link_a, xa, -e, out_G.row(r + i));
    }
    if (cl.type == TreeClosureType::kRevolute) {
      const Vec3 b = direction_attachment(cl.link_b, basis[2]).value;
      for (int i = 0; i < 2; ++i) {
        const Vec3 a = direction_attachment(cl.link_a, basis[static_cast<std::size_t>(i)]).value;
        add_direction_jacobian(cl.link_a, a, b, out_G.row(r + 3 + i));
        add_direction_jacobian(cl.link_b, b, a, out_G.row(r + 3 + i));
      }
    }
  }
}

void JointSpaceTree::curvature(double /*t*/, VecCRef q, VecCRef v, VecRef out_L) const noexcept {
  if (n_lambda() == 0) return;
  normalization_curvature(v, out_L);
  if (closure_rows_ == 0) return;
  kinematics(q);
  link_velocities(v);
  for (std::size_t c = 0; c < spec_.closures.size(); ++c) {
    const TreeClosureSpec& cl = spec_.closures[c];
    const auto& basis = closure_basis_[c];
    const int r = closure_row_[c];
    if (cl.type == TreeClosureType::kMimic) {
      out_L(r) = 0.0;  // g is linear in q
      continue;
    }
    const Vec3 bias =
        point_attachment(cl.link_b, cl.point_b).bias - point_attachment(cl.link_a, cl.point_a).bias;
    const int point_rows = cl.type == TreeClosureType::kPlanarRevolute ? 2 : 3;
    const bool world_axes = cl.type == TreeClosureType::kRevolute;
    for (int i = 0; i < point_rows; ++i) {
      out_L(r + i) = world_axes ? bias(i) : basis[static_cast<std::size_t>(i)].dot(bias);
    }
    if (cl.type == TreeClosureType::kRevolute) {
      const Attachment b = direction_attachment(cl.link_b, basis[2]);
      for (int i = 0; i < 2; ++i) {
        const Attachment a = direction_attachment(cl.link_a, basis[static_cast<std::size_t>(i)]);
        // (a . b)'' = a'' . b + 2 a' . b' + a . b''
        out_L(r + 3 + i) = a.bias.dot(b.value) + 2.0 * a.rate.dot(b.rate) + a.value.dot(b.bias);
      }
    }
  }
}

void JointSpaceTree::velocity_constraint_jacobian(double /*t*/,
                                                  VecCRef q,
                                                  VecCRef v,
                                                  MatRef out_Gv_q) const noexcept {
  if (n_lambda() == 0) return;
  out_Gv_q.setZero();
  normalization_rate_jacobian(v, out_Gv_q);
  if (closure_rows_ == 0) return;
  kinematics(q);
  link_velocities(v);
  for (std::size_t c = 0; c < spec_.closures.size(); ++c) {
    const TreeClosureSpec& cl = spec_.closures[c];
    const auto& basis = closure_basis_[c];
    const int r = closure_row_[c];
    if (cl.type == TreeClosureType::kMimic) continue;  // G v is constant in q
    const Attachment xa = point_attachment(cl.link_a, cl.point_a);
    const Attachment xb = point_attachment(cl.link_b, cl.point_b);
    const int point_rows = cl.type == TreeClosureType::kPlanarRevolute ? 2 : 3;
    const bool world_axes = cl.type == TreeClosureType::kRevolute;
    for (int i = 0; i < point_rows; ++i) {
      const Vec3 e = world_axes ? Vec3::Unit(i) : basis[static_cast<std::size_t>(i)];
      add_rate_jacobian(cl.link_b, xb, true, e, out_Gv_q.row(r + i));
      add_rate_jacobian(cl.link_a, xa, true, -e, out_Gv_q.row(r + i));
    }
    if (cl.type == TreeClosureType::kRevolute) {
      const Attachment b = direction_attachment(cl.link_b, basis[2]);
      for (int i = 0; i < 2; ++i) {
        const Attachment a = direction_attachment(cl.link_a, basis[static_cast<std::size_t>(i)]);
        // G v = a' . b + a . b'
        auto row = out_Gv_q.row(r + 3 + i);
        add_rate_jacobian(cl.link_a, a, false, b.value, row);
        add_direction_jacobian(cl.link_b, b.value, a.rate, row);
        add_direction_jacobian(cl.link_a, a.value, b.rate, row);
        add_rate_jacobian(cl.link_b, b, false, a.value, row);
      }
    }
  }
}

void JointSpaceTree::add_spring_forces(VecRef out_f) const noexcept {
  // the force on x_b is -k (l - l0) (x_b - x_a) / l and its opposite acts on x_a; their
  // generalized force is J_b^T f - J_a^T f (virtual work). Coincident points have no line.
  for (const TreePointSpringSpec& sp : spec_.springs) {
    const Vec3 xa = point_world(sp.link_a, sp.point_a);
    const Vec3 xb = point_world(sp.link_b, sp.point_b);
    const Vec3 d = xb - xa;
    const double l = d.norm();
    if (!(l > 0.0)) continue;
    const Vec3 f = -sp.stiffness * (l - sp.rest_length) / l * d;
    add_point_jacobian(sp.link_b, xb, f, out_f.transpose());
    add_point_jacobian(sp.link_a, xa, -f, out_f.transpose());
  }
}

void JointSpaceTree::initial_state(State& out) const {
  out = State(n_q(), n_v());
  for (std::size_t j = 0; j < spec_.joints.size(); ++j) {
    if (coordinate_[j] < 0) continue;
    out.q(coordinate_[j]) = spec_.joints[j].initial_position;
    out.v(coordinate_[j]) = spec_.joints[j].initial_velocity;
  }
  for (int k : floating_coordinate_) out.q(k + 3) = 1.0;  // e = (1, 0, 0, 0): no turn
  if (n_lambda() == 0) return;
  // Assembly (setup-only): Gauss-Newton steps q -= G^+ g of minimum norm (the pseudo-inverse of a
  // complete orthogonal decomposition, so redundant rows are harmless), then v -= G^+ G v.
  Vec g(n_lambda());
  Mat G(n_lambda(), n_v());
  for (int it = 0; it < kAssemblyIterations; ++it) {
    constraints(0.0, out.q, g);
    if (g.cwiseAbs().maxCoeff() <= kClosedTolerance) break;
    jacobian(0.0, out.q, G);
    out.q -= G.completeOrthogonalDecomposition().solve(g);
  }
  constraints(0.0, out.q, g);
  Eigen::Index worst = 0;
  if (!(g.cwiseAbs().maxCoeff(&worst) <= kAcceptTolerance)) {
    std::string name;
    for (std::size_t c = 0; c < spec_.closures.size(); ++c) {
      if (closure_row_[c] <= worst) name = spec_.closures[c].name;
    }
    throw std::invalid_argument("joint-space tree: closure '" + name +
                                "' cannot be closed from the initial positions (residual " +
                                std::to_string(std::abs(g(worst))) + ")");
  }
  jacobian(0.0, out.q, G);
  const Vec gv = G * out.v;
  if (gv.cwiseAbs().maxCoeff() > 0.0) out.v -= G.completeOrthogonalDecomposition().solve(gv);
}

}  // namespace rtmb
