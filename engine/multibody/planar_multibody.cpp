// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Planar multibody System in absolute coordinates (include/rtmb/models/planar_multibody.hpp).
//
// Notation (docs/architecture.md, "Body-coordinate planar models"). Body b has q_b = (r_b, th_b),
// r_b in R^2, and rotation A(th). A point with body-frame coordinates s is at p = r + u with
// u = A(th) s. With S = [0 -1; 1 0] (a quarter turn), dA/dth = S A, so
//     dp/dq_b = [I, S u],   p' = r' + w S u,   d(p')/dq_b = [0, -w u]   (S S = -I),
// where w = th'. Every joint's geometric part c(q) is scleronomic, so its share of the remainder
// of d^2 g/dt^2 = G v' + L is c_qq(v, v) = d(G v)/dq v = H v, with H = d(G v)/dq the block
// velocity_constraint_jacobian() returns. Drivers are g = c(q) - f(t): G and H are those of c,
// g_t = -f'(t) and L gains g_tt = -f''(t) (g_tq = 0); evaluate_joint() computes c only and the
// System subtracts f, so the blocks do not depend on t. Each joint therefore evaluates, for its two
// bodies i and j, fixed-size blocks g (up to 3 rows), G_i, G_j, H_i, H_j (3 x 3); the System
// scatters them into the global rows of the joint and the columns of its bodies (the blocks:
// planar_joint_blocks.cpp; a body's columns start at its coordinate offset, PlanarMultibody::
// coordinate_offset, not at 3 b, so that bodies may have more coordinates). Nothing here
// allocates after construction: the blocks are Eigen fixed-size matrices on the stack.
#include "rtmb/models/planar_multibody.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cmath>
#include <span>
#include <utility>
#include <vector>

#include "engine/multibody/assembly.hpp"
#include "engine/multibody/planar_beam_body.hpp"
#include "engine/multibody/planar_joint_blocks.hpp"
#include "engine/multibody/virtual_coupling.hpp"
#include "rtmb/state.hpp"

namespace rtmb {

using planar_detail::BodyLayout;
using planar_detail::evaluate_joint;
using planar_detail::JointBlocks;
using planar_detail::perp;
using planar_detail::rotate;  // A(th) s from a known Rotation (the same products as rotate(th, s))
using planar_detail::Rotation;
using planar_detail::RotationCache;

namespace {

using Vec2 = Eigen::Vector2d;
using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;

Vec2 rotate(double th, const Vec2& s) noexcept {
  const double c = std::cos(th);
  const double sn = std::sin(th);
  return {c * s.x() - sn * s.y(), sn * s.x() + c * s.y()};
}

// A spring-damper's ends: u = A(th) s on each body and d = p_j - p_i between the points.
struct SpringEnds {
  Vec2 ui;
  Vec2 uj;
  Vec2 d;
};

SpringEnds spring_ends(const PlanarForceSpec& f, const Vec3& qi, const Vec3& qj) noexcept {
  SpringEnds e;
  e.ui = rotate(qi.z(), f.point_i);
  e.uj = rotate(qj.z(), f.point_j);
  e.d = qj.head<2>() + e.uj - qi.head<2>() - e.ui;
  return e;
}

// phi = th_j - th_i - rest of a rotational spring-damper
double spring_angle(const PlanarForceSpec& f, const BodyLayout& lay, VecCRef q) noexcept {
  return lay.block(q, f.body_j).z() - lay.block(q, f.body_i).z() - f.rest;
}

// The displacement s = a_w . (p_j - p_i) along a prismatic joint's axis, its rate and gradient
// (the blocks of the prismatic driver row): the coordinate of an axial spring-damper.
struct Axial {
  double s = 0.0;
  double ds = 0.0;  // s' = grad s . v
  Vec3 gi = Vec3::Zero();
  Vec3 gj = Vec3::Zero();
};

Axial axial(const PlanarJointSpec& jt, const BodyLayout& lay, VecCRef q, VecCRef v) noexcept {
  const Vec3 qi = lay.block(q, jt.body_i);
  const Vec3 qj = lay.block(q, jt.body_j);
  const Vec3 vi = lay.block(v, jt.body_i);
  const Vec3 vj = lay.block(v, jt.body_j);
  const Vec2 uj = rotate(qj.z(), jt.point_j);
  const Vec2 pi = qi.head<2>() + rotate(qi.z(), jt.point_i);
  const Vec2 pj = qj.head<2>() + uj;
  JointBlocks b;
  planar_detail::direction_row(jt.axis, 0, Rotation::of(qi.z()), qi, qj, vi, vj, uj, pi, pj, b);
  Axial a;
  a.s = b.g(0);
  a.gi = b.gi.row(0).transpose();
  a.gj = b.gj.row(0).transpose();
  a.ds = a.gi.dot(vi) + a.gj.dot(vj);
  return a;
}

bool is_driver(PlanarJointType type) noexcept {
  return type == PlanarJointType::kRevoluteDriver || type == PlanarJointType::kPrismaticDriver;
}

}  // namespace

PlanarMultibody::PlanarMultibody(PlanarModelSpec spec)
    : System(planar_detail::coordinate_count(spec),
             planar_detail::coordinate_count(spec),
             planar_detail::constraint_row_count(spec),
             planar_detail::holonomic_row_count(spec)),
      spec_(planar_detail::validated(std::move(spec))),
      offsets_(planar_detail::coordinate_offsets(spec_)) {
  for (const PlanarBodySpec& b : spec_.bodies) {
    if (b.kind == PlanarBodyKind::kBeam) {
      beams_ = std::make_shared<const planar_detail::PlanarBeamBodies>(spec_, offsets_);
      break;
    }
  }
  for (const PlanarForceSpec& f : spec_.forces) {
    if (f.type == PlanarForceType::kGravity) gravity_ += f.vector;
  }
  int row = 0;
  rows_.reserve(spec_.joints.size());
  for (const PlanarJointSpec& j : spec_.joints) {
    rows_.push_back(row);
    row += constraint_rows(j.type);
  }
  build_sparse_slots();
  target_channels_.assign(spec_.forces.size(), {-1, -1});
  for (std::size_t i = 0; i < spec_.inputs.size(); ++i) {
    const PlanarInputSpec& in = spec_.inputs[i];
    if (in.type == PlanarInputType::kCouplingX || in.type == PlanarInputType::kCouplingY) {
      const std::size_t axis = in.type == PlanarInputType::kCouplingX ? 0 : 1;
      target_channels_[static_cast<std::size_t>(in.element)][axis] = static_cast<int>(i);
    }
  }
}

Eigen::Vector2d PlanarMultibody::coupling_target(std::size_t k, InputValues u) const noexcept {
  Vec2 target = spec_.forces[k].vector;
  for (std::size_t axis = 0; axis < 2; ++axis) {
    const int c = target_channels_[k][axis];
    if (c >= 0) target(static_cast<Eigen::Index>(axis)) = input(u, static_cast<std::size_t>(c));
  }
  return target;
}

Eigen::Vector2d PlanarMultibody::coupling_force(std::size_t k,
                                                VecCRef q,
                                                VecCRef v,
                                                InputValues u) const noexcept {
  // F = -k (p - p*) - c p' (engine/multibody/virtual_coupling.hpp)
  const PlanarForceSpec& f = spec_.forces[k];
  const Vec2 p = point_position(q, f.body_i, f.point_i);
  const Vec2 dp = point_velocity(q, v, f.body_i, f.point_i);
  return detail::virtual_coupling_force<Vec2>(f.stiffness, f.damping, p, coupling_target(k, u), dp);
}

Eigen::Vector2d PlanarMultibody::wall_force(std::size_t k, VecCRef q, VecCRef v) const noexcept {
  // d = n.(o - p) > 0 inside; F = max(0, k d + c d') n with d' = -n.p' (kWall in multibody.hpp)
  const PlanarForceSpec& f = spec_.forces[k];
  const double d = f.vector.dot(f.point_j - point_position(q, f.body_i, f.point_i));
  if (!(d > 0.0)) return Vec2::Zero();
  const double dd = -f.vector.dot(point_velocity(q, v, f.body_i, f.point_i));
  return std::max(0.0, f.stiffness * d + f.damping * dd) * f.vector;
}

void PlanarMultibody::add_input_forces(VecCRef q,
                                       InputValues channels,
                                       VecRef out_f) const noexcept {
  // generalized force of the channel-driven loads, at the held channel values u:
  //   force:  F = u e at p = r + A s   ->  (F, (S A s).F) on the body (virtual work F.dp)
  //   torque: u on the body's angle;  motor: +u on theta_j, -u on theta_i (equal and opposite)
  for (std::size_t i = 0; i < spec_.inputs.size(); ++i) {
    const PlanarInputSpec& in = spec_.inputs[i];
    const double u = input(channels, i);
    switch (in.type) {
      case PlanarInputType::kForce: {
        const Vec2 force = u * in.direction;
        const int o = coordinate_offset(in.body);
        out_f.segment<2>(o) += force;
        out_f(o + 2) += perp(rotate(q(o + 2), in.point)).dot(force);
        break;
      }
      case PlanarInputType::kTorque:
        out_f(coordinate_offset(in.body) + 2) += u;
        break;
      case PlanarInputType::kMotor: {
        const PlanarJointSpec& jt = spec_.joints[static_cast<std::size_t>(in.joint)];
        const double tau = std::clamp(u, -in.limit, in.limit);
        if (jt.body_j != kGround) out_f(coordinate_offset(jt.body_j) + 2) += tau;
        if (jt.body_i != kGround) out_f(coordinate_offset(jt.body_i) + 2) -= tau;
        break;
      }
      case PlanarInputType::kCouplingX:
      case PlanarInputType::kCouplingY:
        break;  // read by the coupling element itself
    }
  }
}

Eigen::Vector2d point_position(VecCRef q, int body, const Eigen::Vector2d& s) noexcept {
  if (body == kGround) return s;
  const Vec3 qb = q.segment<3>(3 * body);
  return qb.head<2>() + rotate(qb.z(), s);
}

Eigen::Vector2d point_velocity(VecCRef q, VecCRef v, int body, const Eigen::Vector2d& s) noexcept {
  if (body == kGround) return Vec2::Zero();
  const Vec3 vb = v.segment<3>(3 * body);
  return vb.head<2>() + vb.z() * perp(rotate(q(3 * body + 2), s));
}

// the free functions' expressions at the body's own offset, so the same bits
Eigen::Vector2d PlanarMultibody::point_position(VecCRef q,
                                                int body,
                                                const Eigen::Vector2d& s) const noexcept {
  if (body == kGround) return s;
  const int o = coordinate_offset(body);
  if (const FloatingFrameBeam* beam = beams_ ? beams_->beam(body) : nullptr) {
    return beam->point_position(q.segment(o, coordinate_count(body)), beam->station(s.x()));
  }
  const Vec3 qb = q.segment<3>(o);
  return qb.head<2>() + rotate(qb.z(), s);
}

Eigen::Vector2d PlanarMultibody::point_velocity(VecCRef q,
                                                VecCRef v,
                                                int body,
                                                const Eigen::Vector2d& s) const noexcept {
  if (body == kGround) return Vec2::Zero();
  const int o = coordinate_offset(body);
  if (const FloatingFrameBeam* beam = beams_ ? beams_->beam(body) : nullptr) {
    const int n = coordinate_count(body);
    return beam->point_velocity(q.segment(o, n), v.segment(o, n), beam->station(s.x()));
  }
  const Vec3 vb = v.segment<3>(o);
  return vb.head<2>() + vb.z() * perp(rotate(q(o + 2), s));
}

void PlanarMultibody::add_point_force(VecCRef q,
                                      int body,
                                      const Eigen::Vector2d& s,
                                      const Eigen::Vector2d& force,
                                      VecRef out_f) const noexcept {
  if (body == kGround) return;
  const int o = coordinate_offset(body);
  // on a beam, at the material point (x, 0) through J^T F (FloatingFrameBeam::add_point_force,
  // Chin 1995 eq. 3.57's r = R + A (u0 + S q_f)); on a rigid body the force and its moment
  // (A s) x F about the centre of mass
  if (const FloatingFrameBeam* beam = beams_ ? beams_->beam(body) : nullptr) {
    const int n = coordinate_count(body);
    beam->add_point_force(q.segment(o, n), beam->station(s.x()), force, out_f.segment(o, n));
    return;
  }
  out_f.segment<2>(o) += force;
  out_f(o + 2) += perp(rotate(q(o + 2), s)).dot(force);
}

Eigen::Vector2d PlanarMultibody::beam_deflection(VecCRef q, int body, double x) const noexcept {
  const FloatingFrameBeam* beam = beams_ ? beams_->beam(body) : nullptr;
  if (beam == nullptr) return Vec2::Zero();
  return beam->displacement(beam->station(x),
                            q.segment(coordinate_offset(body) + 3, beam->n_elastic()));
}

void PlanarMultibody::initial_state(State& out) const {
  out = State(n_q(), n_v());
  for (std::size_t b = 0; b < spec_.bodies.size(); ++b) {
    out.q.segment<3>(offsets_[b]) = spec_.bodies[b].pose;
    out.v.segment<3>(offsets_[b]) = spec_.bodies[b].velocity;
  }
}

void PlanarMultibody::mass(double /*t*/, VecCRef q, MatRef out_M) const noexcept {
  // M = diag(m, m, J) per body: the Newton-Euler equations about the centre of mass
  out_M.setZero();
  for (std::size_t b = 0; b < spec_.bodies.size(); ++b) {
    const Eigen::Index k = offsets_[b];
    out_M(k, k) = spec_.bodies[b].mass;
    out_M(k + 1, k + 1) = spec_.bodies[b].mass;
    out_M(k + 2, k + 2) = spec_.bodies[b].inertia;
  }
  if (beams_) beams_->mass_blocks(q, out_M);  // a beam's mass and inertia are 0 above
}

void PlanarMultibody::forces(
    double /*t*/, VecCRef q, VecCRef v, InputValues channels, VecRef out_f) const noexcept {
  // Generalized force of a world force F at a point p = r + u of body b: (F, (S u).F), i.e. the
  // force and its moment u x F about the centre of mass.
  out_f.setZero();
  // a beam's Q_v - K_ff q_f + its gravity (its mass is 0 in the gravity loop below)
  if (beams_) beams_->set_forces(q, v, gravity_, out_f);
  const BodyLayout lay(offsets_.data());
  auto add = [&out_f, &lay](int b, const Vec2& force, const Vec2& u) {
    if (b == kGround) return;
    out_f.segment<2>(lay.offset(b)) += force;
    out_f(lay.offset(b) + 2) += perp(u).dot(force);
  };
  for (const PlanarForceSpec& f : spec_.forces) {
    switch (f.type) {
      case PlanarForceType::kGravity:
        for (std::size_t b = 0; b < spec_.bodies.size(); ++b) {
          out_f.segment<2>(offsets_[b]) += spec_.bodies[b].mass * f.vector;
        }
        break;
      case PlanarForceType::kSpringDamper: {
        // d = p_j - p_i, l = |d|, e = d/l, l' = e.d'. Tension T = k (l - l0) + c l' - F_act
        // pulls the points together: -T e on p_j, +T e on p_i. (At l = 0 the direction is
        // undefined and the element exerts nothing.)
        if (is_beam(f.body_i) || is_beam(f.body_j)) {  // the deformed material points
          const Vec2 d =
              point_position(q, f.body_j, f.point_j) - point_position(q, f.body_i, f.point_i);
          const double l = d.norm();
          if (!(l > 0.0)) break;
          const Vec2 e = d / l;
          const Vec2 dd =
              point_velocity(q, v, f.body_j, f.point_j) - point_velocity(q, v, f.body_i, f.point_i);
          const double tension = f.stiffness * (l - f.rest) + f.damping * e.dot(dd) - f.actuator;
          add_point_force(q, f.body_i, f.point_i, tension * e, out_f);
          add_point_force(q, f.body_j, f.point_j, -tension * e, out_f);
          break;
        }
        const Vec3 qi = lay.block(q, f.body_i);
        const Vec3 qj = lay.block(q, f.body_j);
        const Vec3 vi = lay.block(v, f.body_i);
        const Vec3 vj = lay.block(v, f.body_j);
        const auto [ui, uj, d] = spring_ends(f, qi, qj);
        const double l = d.norm();
        if (!(l > 0.0)) break;
        const Vec2 e = d / l;
        const Vec2 dd = vj.head<2>() + vj.z() * perp(uj) - vi.head<2>() - vi.z() * perp(ui);
        const double tension = f.stiffness * (l - f.rest) + f.damping * e.dot(dd) - f.actuator;
        add(f.body_i, tension * e, ui);
        add(f.body_j, -tension * e, uj);
        break;
      }
      case PlanarForceType::kRotationalSpring: {
        // phi = th_j - th_i - rest; torque tau = k phi + c phi' resists on j, reacts on i
        const double phi = spring_angle(f, lay, q);
        const double dphi = lay.block(v, f.body_j).z() - lay.block(v, f.body_i).z();
        const double tau = f.stiffness * phi + f.damping * dphi;
        if (f.body_i != kGround) out_f(lay.offset(f.body_i) + 2) += tau;
        if (f.body_j != kGround) out_f(lay.offset(f.body_j) + 2) -= tau;
        break;
      }
      case PlanarForceType::kForce:
        add_point_force(q, f.body_i, f.point_i, f.vector, out_f);
        break;
      case PlanarForceType::kTorque:
        out_f(lay.offset(f.body_i) + 2) += f.torque;
        break;
      case PlanarForceType::kAxialSpring: {
        // generalized force -T grad s of the tension T = k (s - s0) + c s' (potential
        // k (s - s0)^2 / 2, Rayleigh dissipation c s'^2 / 2)
        const Axial a = axial(spec_.joints[static_cast<std::size_t>(f.joint)], lay, q, v);
        const double tension = f.stiffness * (a.s - f.rest) + f.damping * a.ds;
        if (f.body_i != kGround) out_f.segment<3>(lay.offset(f.body_i)) -= tension * a.gi;
        if (f.body_j != kGround) out_f.segment<3>(lay.offset(f.body_j)) -= tension * a.gj;
        break;
      }
      case PlanarForceType::kCoupling: {
        // evaluated here, inside every force evaluation, because it depends on q and v and may
        // be stiff (implicit methods differentiate it with the rest of f)
        const auto k = static_cast<std::size_t>(&f - spec_.forces.data());
        add_point_force(q, f.body_i, f.point_i, coupling_force(k, q, v, channels), out_f);
        break;
      }
      case PlanarForceType::kWall: {
        const auto k = static_cast<std::size_t>(&f - spec_.forces.data());
        add_point_force(q, f.body_i, f.point_i, wall_force(k, q, v), out_f);
        break;
      }
    }
  }
  add_input_forces(q, channels, out_f);
}

namespace {

// The per-joint rows of g and L, shared by constraints(), curvature() and the fused evaluations
// below so that all of them compute the same expressions (bit-identical results). Each writes
// from the joint's first row, out = data() + row (VecRef has unit inner stride): a VecRef
// argument per joint kept GCC from inlining them (3.7 % of a chain step in one call).

// g rows of a revolute or fixed joint, u_i = A(th_i) s_i and u_j = A(th_j) s_j given:
// g = p_i - p_j (and th_j - th_i - angle), the g of evaluate_joint without its G and H
inline void revolute_constraint_rows(const PlanarJointSpec& jt,
                                     const Vec3& qi,
                                     const Vec3& qj,
                                     const Vec2& ui,
                                     const Vec2& uj,
                                     double* out_g) noexcept {
  const Vec2 g = (qi.head<2>() + ui) - (qj.head<2>() + uj);
  out_g[0] = g.x();
  out_g[1] = g.y();
  if (jt.type == PlanarJointType::kFixed) out_g[2] = qj.z() - qi.z() - jt.angle;
}

// g rows of any other joint from its evaluate_joint blocks; a driver's row is coordinate(q) - f(t)
inline void block_constraint_rows(const PlanarJointSpec& jt,
                                  const JointBlocks& b,
                                  double t,
                                  double* out_g) noexcept {
  for (int r = 0; r < constraint_rows(jt.type); ++r) out_g[r] = b.g[r];
  if (is_driver(jt.type)) out_g[0] -= jt.motion.evaluate(t).f;
}

// L rows of a revolute or fixed joint: H_i v_i + H_j v_j with H_i = [0, -w_i u_i],
// H_j = [0, w_j u_j] (evaluate_joint) and H = 0 on a fixed joint's angle row:
// L = -w_i^2 u_i + w_j^2 u_j, written as the products the 3 x 3 version reduces to
// ((-w_i u_i) w_i + (w_j u_j) w_j)
inline void revolute_curvature_rows(const PlanarJointSpec& jt,
                                    double wi,
                                    double wj,
                                    const Vec2& ui,
                                    const Vec2& uj,
                                    double* out_L) noexcept {
  const Vec2 l = (-wi * ui) * wi + (wj * uj) * wj;
  out_L[0] = l.x();
  out_L[1] = l.y();
  if (jt.type == PlanarJointType::kFixed) out_L[2] = 0.0;
}

// L rows of any other joint from its evaluate_joint blocks at (v_i, v_j); a driver adds
// g_tt = -f''(t)
inline void block_curvature_rows(const PlanarJointSpec& jt,
                                 const JointBlocks& b,
                                 const Vec3& vi,
                                 const Vec3& vj,
                                 double t,
                                 double* out_L) noexcept {
  const Vec3 l = b.hi * vi + b.hj * vj;
  for (int r = 0; r < constraint_rows(jt.type); ++r) out_L[r] = l[r];
  if (is_driver(jt.type)) out_L[0] -= jt.motion.evaluate(t).ddf;
}

bool is_revolute_or_fixed(PlanarJointType type) noexcept {
  return type == PlanarJointType::kRevolute || type == PlanarJointType::kFixed;
}

}  // namespace

void PlanarMultibody::constraints(double t, VecCRef q, VecRef out_g) const noexcept {
  JointBlocks b;
  const BodyLayout lay(offsets_.data());
  RotationCache rot(lay);
  const Vec3 zero = Vec3::Zero();
  for (std::size_t k = 0; k < spec_.joints.size(); ++k) {
    const PlanarJointSpec& jt = spec_.joints[k];
    if (beams_ && beams_->on_beam(k)) {
      beams_->constraint_rows(k, q, out_g.data() + rows_[k]);
      continue;
    }
    const Rotation ri = rot.get(q, jt.body_i);
    const Rotation rj = rot.get(q, jt.body_j);
    const Vec3 qi = lay.block(q, jt.body_i);
    const Vec3 qj = lay.block(q, jt.body_j);
    if (is_revolute_or_fixed(jt.type)) {
      // without the G and H evaluate_joint would build (3 evaluations per RK4 + PStab step)
      revolute_constraint_rows(jt, qi, qj, rotate(ri, jt.point_i), rotate(rj, jt.point_j),
                               out_g.data() + rows_[k]);
      continue;
    }
    evaluate_joint(jt, qi, qj, ri, rj, zero, zero, b);
    block_constraint_rows(jt, b, t, out_g.data() + rows_[k]);
  }
}

void PlanarMultibody::constraint_rate(double t, VecCRef /*q*/, VecRef out_gt) const noexcept {
  // g_t = -f'(t) on the driver rows; every other joint is scleronomic
  out_gt.setZero();
  for (std::size_t k = 0; k < spec_.joints.size(); ++k) {
    const PlanarJointSpec& jt = spec_.joints[k];
    if (is_driver(jt.type)) out_gt(rows_[k]) = -jt.motion.evaluate(t).df;
  }
}

void PlanarMultibody::jacobian(double /*t*/, VecCRef q, MatRef out_G) const noexcept {
  out_G.setZero();
  JointBlocks b;
  const BodyLayout lay(offsets_.data());
  RotationCache rot(lay);
  for (std::size_t k = 0; k < spec_.joints.size(); ++k) {
    const PlanarJointSpec& jt = spec_.joints[k];
    if (beams_ && beams_->on_beam(k)) {
      beams_->jacobian_rows(k, q, rows_[k], out_G);
      continue;
    }
    const int rows = constraint_rows(jt.type);
    const Rotation ri = rot.get(q, jt.body_i);
    const Rotation rj = rot.get(q, jt.body_j);
    planar_detail::joint_jacobian(jt, lay.block(q, jt.body_i), lay.block(q, jt.body_j), ri, rj, b);
    if (jt.body_i != kGround)
      out_G.block(rows_[k], lay.offset(jt.body_i), rows, 3) = b.gi.topRows(rows);
    if (jt.body_j != kGround)
      out_G.block(rows_[k], lay.offset(jt.body_j), rows, 3) = b.gj.topRows(rows);
  }
}

void PlanarMultibody::curvature(double t, VecCRef q, VecCRef v, VecRef out_L) const noexcept {
  // L = g_tt + 2 g_tq v + g_qq(v, v) (Chin §1.1): g_qq(v, v) = H_i v_i + H_j v_j per joint; a
  // driver's g_t = -f'(t) does not depend on q (g_tq = 0) and adds g_tt = -f''(t)
  JointBlocks b;
  const BodyLayout lay(offsets_.data());
  RotationCache rot(lay);
  for (std::size_t k = 0; k < spec_.joints.size(); ++k) {
    const PlanarJointSpec& jt = spec_.joints[k];
    if (beams_ && beams_->on_beam(k)) {
      beams_->curvature_rows(k, q, v, out_L.data() + rows_[k]);
      continue;
    }
    const Vec3 vi = lay.block(v, jt.body_i);
    const Vec3 vj = lay.block(v, jt.body_j);
    const Rotation ri = rot.get(q, jt.body_i);
    const Rotation rj = rot.get(q, jt.body_j);
    if (is_revolute_or_fixed(jt.type)) {
      revolute_curvature_rows(jt, vi.z(), vj.z(), rotate(ri, jt.point_i), rotate(rj, jt.point_j),
                              out_L.data() + rows_[k]);
      continue;
    }
    evaluate_joint(jt, lay.block(q, jt.body_i), lay.block(q, jt.body_j), ri, rj, vi, vj, b);
    block_curvature_rows(jt, b, vi, vj, t, out_L.data() + rows_[k]);
  }
}

// The fused evaluations (System::jacobian_values_and_curvature / _and_constraints): one pass over
// the joints that writes each joint's values of G (the scatter of jacobian_values(),
// planar_sparse.cpp) and its rows of L or g from one A(th_i), A(th_j) and, for revolute and fixed
// joints, one u_i = A_i s_i, u_j = A_j s_j. Every number comes from the same expressions as in
// the separate calls, so the results are bit-identical; a chain step evaluates cos/sin half as
// often. For the other joints one evaluate_joint gives both: its G blocks do not depend on v
// (the equations above), so they are the ones joint_jacobian() takes from its call at v = 0.

namespace {

// The joint loop both fused evaluations share: G's values through the scatter of
// jacobian_values(), and each joint's rows through `fast_rows(k, jt, qi, qj, vi, vj, ui, uj)`
// (revolute and fixed joints, from u_i = A_i s_i, u_j = A_j s_j) or `block_rows(k, jt, b, vi, vj)`
// (the other types, from evaluate_joint's blocks). v == nullptr evaluates at v = 0 (G does not
// depend on v).
template <class FastRows, class BlockRows, class BeamRows>
void fused_joint_pass(const PlanarModelSpec& spec,
                      const planar_detail::PlanarBeamBodies* beams,
                      const BodyLayout& lay,
                      const std::vector<std::array<int, 6>>& jacobian_slots,
                      VecCRef q,
                      const VecCRef* v,
                      std::span<double> out_jacobian,
                      FastRows fast_rows,
                      BlockRows block_rows,
                      BeamRows beam_rows) noexcept {
  JointBlocks b;
  RotationCache rot(lay);
  const planar_detail::JacobianScatter scatter(out_jacobian.data());
  const Vec3 zero = Vec3::Zero();
  for (std::size_t k = 0; k < spec.joints.size(); ++k) {
    const PlanarJointSpec& jt = spec.joints[k];
    const int* slots = jacobian_slots[k].data();
    if (beams != nullptr && beams->on_beam(k)) {
      beams->jacobian_values(k, q, slots, out_jacobian.data());
      beam_rows(k);
      continue;
    }
    const Vec3 qi = lay.block(q, jt.body_i);
    const Vec3 qj = lay.block(q, jt.body_j);
    const Vec3 vi = v != nullptr ? lay.block(*v, jt.body_i) : zero;
    const Vec3 vj = v != nullptr ? lay.block(*v, jt.body_j) : zero;
    const Rotation ri = rot.get(q, jt.body_i);
    const Rotation rj = rot.get(q, jt.body_j);
    if (is_revolute_or_fixed(jt.type)) {
      const Vec2 ui = rotate(ri, jt.point_i);
      const Vec2 uj = rotate(rj, jt.point_j);
      if (jt.type == PlanarJointType::kRevolute) {
        scatter.revolute(jt, ui, uj, slots);
      } else {
        planar_detail::joint_jacobian(jt, qi, qj, ri, rj, b);
        scatter.blocks(jt, b, slots);
      }
      fast_rows(k, jt, qi, qj, vi, vj, ui, uj);
      continue;
    }
    evaluate_joint(jt, qi, qj, ri, rj, vi, vj, b);
    scatter.blocks(jt, b, slots);
    block_rows(k, jt, b, vi, vj);
  }
}

}  // namespace

void PlanarMultibody::jacobian_values_and_curvature(
    double t, VecCRef q, VecCRef v, std::span<double> out_jacobian, VecRef out_L) const noexcept {
  double* L = out_L.data();
  fused_joint_pass(
      spec_, beams_.get(), BodyLayout(offsets_.data()), jacobian_slots_, q, &v, out_jacobian,
      [&](std::size_t k, const PlanarJointSpec& jt, const Vec3&, const Vec3&, const Vec3& vi,
          const Vec3& vj, const Vec2& ui,
          const Vec2& uj) { revolute_curvature_rows(jt, vi.z(), vj.z(), ui, uj, L + rows_[k]); },
      [&](std::size_t k, const PlanarJointSpec& jt, const JointBlocks& b, const Vec3& vi,
          const Vec3& vj) { block_curvature_rows(jt, b, vi, vj, t, L + rows_[k]); },
      [&](std::size_t k) { beams_->curvature_rows(k, q, v, L + rows_[k]); });
}

void PlanarMultibody::jacobian_values_and_constraints(double t,
                                                      VecCRef q,
                                                      std::span<double> out_jacobian,
                                                      VecRef out_g) const noexcept {
  double* g = out_g.data();
  fused_joint_pass(
      spec_, beams_.get(), BodyLayout(offsets_.data()), jacobian_slots_, q, nullptr, out_jacobian,
      [&](std::size_t k, const PlanarJointSpec& jt, const Vec3& qi, const Vec3& qj, const Vec3&,
          const Vec3&, const Vec2& ui,
          const Vec2& uj) { revolute_constraint_rows(jt, qi, qj, ui, uj, g + rows_[k]); },
      [&](std::size_t k, const PlanarJointSpec& jt, const JointBlocks& b, const Vec3&,
          const Vec3&) { block_constraint_rows(jt, b, t, g + rows_[k]); },
      [&](std::size_t k) { beams_->constraint_rows(k, q, g + rows_[k]); });
}

void PlanarMultibody::velocity_constraint_jacobian(double /*t*/,
                                                   VecCRef q,
                                                   VecCRef v,
                                                   MatRef out_Gv_q) const noexcept {
  out_Gv_q.setZero();
  JointBlocks b;
  const BodyLayout lay(offsets_.data());
  for (std::size_t k = 0; k < spec_.joints.size(); ++k) {
    const PlanarJointSpec& jt = spec_.joints[k];
    if (beams_ && beams_->on_beam(k)) {
      beams_->velocity_jacobian_rows(k, q, v, rows_[k], out_Gv_q);
      continue;
    }
    const int rows = constraint_rows(jt.type);
    const Vec3 qi = lay.block(q, jt.body_i);
    const Vec3 qj = lay.block(q, jt.body_j);
    evaluate_joint(jt, qi, qj, Rotation::of(qi.z()), Rotation::of(qj.z()), lay.block(v, jt.body_i),
                   lay.block(v, jt.body_j), b);
    if (jt.body_i != kGround)
      out_Gv_q.block(rows_[k], lay.offset(jt.body_i), rows, 3) = b.hi.topRows(rows);
    if (jt.body_j != kGround)
      out_Gv_q.block(rows_[k], lay.offset(jt.body_j), rows, 3) = b.hj.topRows(rows);
  }
}

bool PlanarMultibody::inertia_jacobian(double /*t*/,
                                       VecCRef q,
                                       VecCRef a,
                                       MatRef out_K) const noexcept {
  // M is constant in body coordinates except a beam's block M_b(q_b)
  // (FloatingFrameBeam::inertia_jacobian)
  out_K.setZero();
  if (beams_) beams_->inertia_blocks(q, a, out_K);
  return true;
}

double PlanarMultibody::energy(double /*t*/,
                               VecCRef q,
                               VecCRef v,
                               InputValues channels) const noexcept {
  // T = sum (m |r'|^2 + J th'^2)/2; V of every conservative element:
  //   gravity -m g.r, spring k (l - l0)^2/2 - F_act l, rotational spring k phi^2/2,
  //   constant force -F.p, constant torque -tau th
  double e = beams_ ? beams_->energy(q, v, gravity_) : 0.0;  // T + U + V of the beams
  const BodyLayout lay(offsets_.data());
  for (std::size_t b = 0; b < spec_.bodies.size(); ++b) {
    const Vec3 vb = v.segment<3>(offsets_[b]);
    e += 0.5 * (spec_.bodies[b].mass * vb.head<2>().squaredNorm() +
                spec_.bodies[b].inertia * vb.z() * vb.z());
  }
  for (const PlanarForceSpec& f : spec_.forces) {
    switch (f.type) {
      case PlanarForceType::kGravity:
        for (std::size_t b = 0; b < spec_.bodies.size(); ++b) {
          e -= spec_.bodies[b].mass * f.vector.dot(q.segment<2>(offsets_[b]));
        }
        break;
      case PlanarForceType::kSpringDamper: {
        const double l =
            is_beam(f.body_i) || is_beam(f.body_j)
                ? (point_position(q, f.body_j, f.point_j) - point_position(q, f.body_i, f.point_i))
                      .norm()
                : spring_ends(f, lay.block(q, f.body_i), lay.block(q, f.body_j)).d.norm();
        e += 0.5 * f.stiffness * (l - f.rest) * (l - f.rest) - f.actuator * l;
        break;
      }
      case PlanarForceType::kRotationalSpring: {
        const double phi = spring_angle(f, lay, q);
        e += 0.5 * f.stiffness * phi * phi;
        break;
      }
      case PlanarForceType::kForce:
        // -F.p at the body point (a beam's deformed material point; on a rigid body the same
        // bits as r + A(theta) s)
        e -= f.vector.dot(point_position(q, f.body_i, f.point_i));
        break;
      case PlanarForceType::kTorque:
        e -= f.torque * q(lay.offset(f.body_i) + 2);
        break;
      case PlanarForceType::kAxialSpring: {
        // s depends on q only (the velocity argument, here q again, only feeds s')
        const double stretch =
            axial(spec_.joints[static_cast<std::size_t>(f.joint)], lay, q, q).s - f.rest;
        e += 0.5 * f.stiffness * stretch * stretch;
        break;
      }
      case PlanarForceType::kCoupling: {
        // relative to the current target: moving the target does work that is not counted here
        const auto k = static_cast<std::size_t>(&f - spec_.forces.data());
        const Vec2 d = point_position(q, f.body_i, f.point_i) - coupling_target(k, channels);
        e += 0.5 * f.stiffness * d.squaredNorm();
        break;
      }
      case PlanarForceType::kWall: {
        // k max(0, d)^2 / 2: the spring part of the wall force is its negative gradient
        const double d =
            std::max(0.0, f.vector.dot(f.point_j - point_position(q, f.body_i, f.point_i)));
        e += 0.5 * f.stiffness * d * d;
        break;
      }
    }
  }
  return e;
}

std::vector<std::string> assemble(PlanarModelSpec& spec, double tolerance, int max_iterations) {
  return detail::assemble_spec<PlanarMultibody>(
      spec, tolerance, max_iterations, [&spec](const PlanarMultibody& m, const State& s) {
        for (std::size_t b = 0; b < spec.bodies.size(); ++b) {
          const int o = m.coordinate_offset(static_cast<int>(b));
          spec.bodies[b].pose = s.q.segment<3>(o);
          spec.bodies[b].velocity = s.v.segment<3>(o);
        }
      });
}

}  // namespace rtmb
