// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Output channels of planar body models (include/rtmb/models/planar_outputs.hpp).
//
// Reaction forces. With M v' = f - G^T lambda, the constraint force of joint k on the bodies is
// -G_k^T lambda_k; its block on body j, Q = -G_kj^T lambda_k = (F, m), is the force F the joint
// exerts on body j (world frame, acting at the joint point) and its moment m about j's centre of
// mass. The moment about the joint point is tz = m - (A_j s_j) x F (zero for a revolute joint,
// the joint's holding torque for prismatic and fixed joints). lambda is the index-1 KKT solution
// at the streamed state (t, q, v) itself, so the reaction belongs to the state sent with it;
// the step's own multipliers would belong to its last stage (RK) or be the discrete ones of an
// implicit method. No Baumgarte terms enter this solve: at a state on the manifold they vanish.
#include "rtmb/models/planar_outputs.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

#include "engine/dynamics/dynamics.hpp"
#include "engine/kkt/kkt_backend.hpp"
#include "engine/multibody/haptic_output_track.hpp"
#include "engine/multibody/output_kinds.hpp"
#include "engine/multibody/spec_checks.hpp"
#include "rtmb/models/force_output_filter.hpp"
#include "rtmb/status.hpp"

namespace rtmb {
namespace {

using Vec2 = Eigen::Vector2d;
using Vec3 = Eigen::Vector3d;

Vec2 rotated(double th, const Vec2& s) noexcept {
  return {std::cos(th) * s.x() - std::sin(th) * s.y(), std::sin(th) * s.x() + std::cos(th) * s.y()};
}

// S x: the vector x turned by +90 degrees
Vec2 turned(const Vec2& x) noexcept {
  return {-x.y(), x.x()};
}

// theta (or theta') of a body, 0 for the ground
double angle_of(const PlanarMultibody& m, VecCRef x, int body) noexcept {
  return body == kGround ? 0.0 : x(m.coordinate_offset(body) + 2);
}

// Component suffixes per PlanarOutputType, in declaration order (output_kinds.hpp).
constexpr std::array<std::string_view, 14> kPlanarSuffixes{"x y theta",
                                                           "vx vy omega",
                                                           "x y",
                                                           "vx vy",
                                                           "",
                                                           "",
                                                           "fx fy tz",
                                                           "fx fy",
                                                           "",
                                                           "",
                                                           "",
                                                           "fx fy flags energy damping",
                                                           "w_xx w_xy w_yy stiffness damping",
                                                           "u v"};
static_assert(static_cast<std::size_t>(PlanarOutputType::kBeamDeflection) + 1 ==
              kPlanarSuffixes.size());

}  // namespace

int output_components(PlanarOutputType type) noexcept {
  return detail::components_of(kPlanarSuffixes, type);
}

std::vector<std::string> output_suffixes(PlanarOutputType type) {
  return detail::suffixes_of(kPlanarSuffixes, type);
}

std::vector<std::string> default_output_units(const PlanarOutputSpec& out,
                                              const PlanarModelSpec& spec) {
  const bool linear_joint = detail::is_of_type(spec.joints, out.joint, PlanarJointType::kPrismatic);
  switch (out.type) {
    case PlanarOutputType::kPose:
      return {"m", "m", "rad"};
    case PlanarOutputType::kVelocity:
      return {"m/s", "m/s", "rad/s"};
    case PlanarOutputType::kPointPosition:
      return {"m", "m"};
    case PlanarOutputType::kPointVelocity:
      return {"m/s", "m/s"};
    case PlanarOutputType::kJointPosition:
      return {linear_joint ? "m" : "rad"};
    case PlanarOutputType::kJointVelocity:
      return {linear_joint ? "m/s" : "rad/s"};
    case PlanarOutputType::kReaction:
      return {"N", "N", "N*m"};
    case PlanarOutputType::kCouplingForce:
      return {"N", "N"};
    case PlanarOutputType::kPositionDrift:
      return {"m|rad"};
    case PlanarOutputType::kVelocityDrift:
      return {"m/s|rad/s"};
    case PlanarOutputType::kEnergy:
      return {"J"};
    case PlanarOutputType::kHapticForce:
      return {"N", "N", "1", "J", "N*s/m"};
    case PlanarOutputType::kCouplingLinearization:
      return {"1/kg", "1/kg", "1/kg", "N/m", "N*s/m"};
    case PlanarOutputType::kBeamDeflection:
      return {"m", "m"};
  }
  return {};
}

std::vector<std::pair<std::string, std::string>> output_channels(
    const std::vector<PlanarOutputSpec>& outputs) {
  return detail::scalar_channels(outputs);
}

// Scratch sized once: the KKT solve for the multipliers, G and g for drift and reactions.
struct PlanarOutputs::Buffers {
  explicit Buffers(const PlanarMultibody& sys)
      : dynamics(sys),
        vdot(Vec::Zero(sys.n_v())),
        g(Vec::Zero(sys.n_lambda())),
        gt(Vec::Zero(sys.n_lambda())),
        G(Mat::Zero(sys.n_lambda(), sys.n_v())),
        rhs(Vec::Zero(sys.n_v())),
        zero_lambda(Vec::Zero(sys.n_lambda())),
        x(Vec::Zero(sys.n_v())),
        mu(Vec::Zero(sys.n_lambda())) {}
  Dynamics dynamics;
  Vec vdot;
  Vec g;
  Vec gt;
  Mat G;
  // coupling linearization: K [x; mu] = [J_p^T e; 0]
  std::optional<KktBackend> kkt;
  Vec rhs;
  Vec zero_lambda;
  Vec x;
  Vec mu;
  // per output spec (index into outputs_): the haptic filter and its last sample
  std::vector<std::optional<detail::HapticOutputTrack>> haptic;
};

PlanarOutputs::PlanarOutputs(const PlanarMultibody& system, std::vector<PlanarOutputSpec> outputs)
    : system_(system), outputs_(std::move(outputs)) {
  const PlanarModelSpec& spec = system.spec();
  const auto n_bodies = static_cast<int>(spec.bodies.size());
  for (PlanarOutputSpec& o : outputs_) {
    const std::string what = "output '" + o.name + "'";
    switch (o.type) {
      case PlanarOutputType::kPose:
      case PlanarOutputType::kVelocity:
      case PlanarOutputType::kPointPosition:
      case PlanarOutputType::kPointVelocity:
        if (o.body < 0 || o.body >= n_bodies) throw std::invalid_argument(what + ": needs a body");
        // a beam's points are the material points of its axis (as for its joints)
        if (system.is_beam(o.body) &&
            !spec.bodies[static_cast<std::size_t>(o.body)].beam.on_axis(o.point)) {
          throw std::invalid_argument(what +
                                      ": a beam's point must be (x, 0) with 0 <= x <= length");
        }
        break;
      case PlanarOutputType::kBeamDeflection: {
        if (o.body < 0 || o.body >= n_bodies || !system.is_beam(o.body)) {
          throw std::invalid_argument(what + ": needs a beam body");
        }
        if (!spec.bodies[static_cast<std::size_t>(o.body)].beam.on_axis({o.station, 0.0})) {
          throw std::invalid_argument(what + ": the station must be in [0, length]");
        }
        break;
      }
      case PlanarOutputType::kJointPosition:
      case PlanarOutputType::kJointVelocity: {
        const bool ok = detail::is_of_type(spec.joints, o.joint, PlanarJointType::kRevolute) ||
                        detail::is_of_type(spec.joints, o.joint, PlanarJointType::kPrismatic);
        if (!ok) throw std::invalid_argument(what + ": needs a revolute or prismatic joint");
        break;
      }
      case PlanarOutputType::kReaction:
        if (o.joint < 0 || o.joint >= static_cast<int>(spec.joints.size())) {
          throw std::invalid_argument(what + ": needs a joint");
        }
        needs_lambda_ = true;
        needs_drift_ = true;  // uses G
        break;
      case PlanarOutputType::kCouplingForce:
      case PlanarOutputType::kHapticForce:
      case PlanarOutputType::kCouplingLinearization:
        if (o.type == PlanarOutputType::kCouplingLinearization) needs_kkt_ = true;
        detail::require_of_type(spec.forces, o.element, PlanarForceType::kCoupling,
                                what + ": needs a coupling force element");
        break;
      case PlanarOutputType::kPositionDrift:
      case PlanarOutputType::kVelocityDrift:
        needs_drift_ = true;
        break;
      case PlanarOutputType::kEnergy:
        break;
    }
    if (o.units.empty()) o.units = default_output_units(o, spec);
    if (static_cast<int>(o.units.size()) != output_components(o.type)) {
      throw std::invalid_argument(what + ": expected " + std::to_string(output_components(o.type)) +
                                  " units");
    }
    count_ += output_components(o.type);
  }
  buf_ = std::make_unique<Buffers>(system);
  if (needs_kkt_) {
    // the model's block solver, O(bodies) (a dense 22 x 22 LDL^T cost the five-bar's 10 kHz tick
    // 3-6 us of its ~16 us); a massless body (allowed when its joints place it, Chin Lemma 4.1)
    // has no sparse structure and keeps DenseKkt
    SparsePattern mass_pattern;
    SparsePattern jacobian_pattern;
    const bool definite = system.sparse_structure(mass_pattern, jacobian_pattern);
    buf_->kkt.emplace(system, definite ? KktSolver::kSparse : KktSolver::kDense);
  }
  buf_->haptic.resize(outputs_.size());
  for (std::size_t i = 0; i < outputs_.size(); ++i) {
    if (outputs_[i].type != PlanarOutputType::kHapticForce) continue;
    const auto e = static_cast<std::size_t>(outputs_[i].element);
    try {
      buf_->haptic[i].emplace(detail::HapticOutputTrack{ForceOutputFilter(spec.forces[e].safety)});
    } catch (const std::invalid_argument& err) {
      throw std::invalid_argument("output '" + outputs_[i].name + "': coupling '" +
                                  spec.forces[e].name + "': " + err.what());
    }
  }
}

PlanarOutputs::~PlanarOutputs() = default;

void PlanarOutputs::evaluate(const State& s, const Workspace& ws, std::span<double> out) noexcept {
  const PlanarModelSpec& spec = system_.spec();
  Buffers& b = *buf_;
  const InputValues u = input_values(ws);  // the simulation's channel values (coupling targets)
  // shared evaluations first: G (drift, reactions), then lambda at (t, q, v)
  if (needs_drift_ && system_.n_lambda() > 0) system_.jacobian(s.t, s.q, b.G);
  if (needs_lambda_) {
    StepStatus ignored;
    b.dynamics.applied() = applied_force(ws);
    const std::span<double> to = b.dynamics.inputs();
    std::copy_n(u.begin(), std::min(u.size(), to.size()), to.begin());
    b.dynamics.evaluate(s.t, s.q, s.v, b.vdot, ignored);
  }
  std::size_t k = 0;
  bool kkt_loaded = false;
  for (std::size_t i_out = 0; i_out < outputs_.size(); ++i_out) {
    const PlanarOutputSpec& o = outputs_[i_out];
    switch (o.type) {
      case PlanarOutputType::kPose:
        for (int c = 0; c < 3; ++c) out[k++] = s.q(system_.coordinate_offset(o.body) + c);
        break;
      case PlanarOutputType::kVelocity:
        for (int c = 0; c < 3; ++c) out[k++] = s.v(system_.coordinate_offset(o.body) + c);
        break;
      case PlanarOutputType::kPointPosition: {
        const Vec2 p = system_.point_position(s.q, o.body, o.point);
        out[k++] = p.x();
        out[k++] = p.y();
        break;
      }
      case PlanarOutputType::kPointVelocity: {
        const Vec2 p = system_.point_velocity(s.q, s.v, o.body, o.point);
        out[k++] = p.x();
        out[k++] = p.y();
        break;
      }
      case PlanarOutputType::kJointPosition:
      case PlanarOutputType::kJointVelocity: {
        const PlanarJointSpec& jt = spec.joints[static_cast<std::size_t>(o.joint)];
        const bool rate = o.type == PlanarOutputType::kJointVelocity;
        if (jt.type == PlanarJointType::kRevolute) {
          const VecCRef x = rate ? s.v : s.q;
          out[k++] = angle_of(system_, x, jt.body_j) - angle_of(system_, x, jt.body_i);
          break;
        }
        // prismatic: sigma = a.(p_j - p_i) with the world axis a = A_i axis;
        // sigma' = a.(p_j' - p_i') + w_i (S a).(p_j - p_i)
        const Vec2 a = rotated(angle_of(system_, s.q, jt.body_i), jt.axis);
        const Vec2 d = system_.point_position(s.q, jt.body_j, jt.point_j) -
                       system_.point_position(s.q, jt.body_i, jt.point_i);
        if (!rate) {
          out[k++] = a.dot(d);
        } else {
          const Vec2 dd = system_.point_velocity(s.q, s.v, jt.body_j, jt.point_j) -
                          system_.point_velocity(s.q, s.v, jt.body_i, jt.point_i);
          out[k++] = a.dot(dd) + angle_of(system_, s.v, jt.body_i) * turned(a).dot(d);
        }
        break;
      }
      case PlanarOutputType::kReaction: {
        const auto j = static_cast<std::size_t>(o.joint);
        const PlanarJointSpec& jt = spec.joints[j];
        const int rows = constraint_rows(jt.type);
        const int row = system_.joint_row(j);
        // on body_j; if that is the ground, minus the force on body_i (Newton's third law)
        const bool on_j = jt.body_j != kGround;
        const int body = on_j ? jt.body_j : jt.body_i;
        const Eigen::Vector2d& point = on_j ? jt.point_j : jt.point_i;
        // row by row with fixed-size blocks: a dynamic-size product here would allocate its
        // temporary
        Vec3 q_c = Vec3::Zero();
        for (int k_row = row; k_row < row + rows; ++k_row) {
          q_c -= b.G.block<1, 3>(k_row, system_.coordinate_offset(body)).transpose() *
                 b.dynamics.lambda()(k_row);
        }
        const Vec2 force = q_c.head<2>();
        // the arm from the body frame's origin to the joint point: A s on a rigid body, the
        // deformed A (u0 + S q_f) on a beam (whose theta column of G is (A I~ u)^T)
        const int o_body = system_.coordinate_offset(body);
        const Vec2 arm =
            system_.is_beam(body)
                ? Vec2(system_.point_position(s.q, body, point) - s.q.segment<2>(o_body))
                : rotated(s.q(o_body + 2), point);
        const double tz = q_c.z() - turned(arm).dot(force);
        const double sign = on_j ? 1.0 : -1.0;
        out[k++] = sign * force.x();
        out[k++] = sign * force.y();
        out[k++] = sign * tz;
        break;
      }
      case PlanarOutputType::kCouplingForce: {
        const Vec2 f = system_.coupling_force(static_cast<std::size_t>(o.element), s.q, s.v, u);
        out[k++] = f.x();
        out[k++] = f.y();
        break;
      }
      case PlanarOutputType::kPositionDrift:
        system_.constraints(s.t, s.q, b.g);
        out[k++] = system_.n_lambda() > 0 ? b.g.lpNorm<Eigen::Infinity>() : 0.0;
        break;
      case PlanarOutputType::kVelocityDrift:
        system_.constraint_rate(s.t, s.q, b.gt);
        if (system_.n_lambda() > 0) b.gt.noalias() += b.G * s.v;
        out[k++] = system_.n_lambda() > 0 ? b.gt.lpNorm<Eigen::Infinity>() : 0.0;
        break;
      case PlanarOutputType::kEnergy:
        out[k++] = system_.energy(s.t, s.q, s.v, u);
        break;
      case PlanarOutputType::kHapticForce: {
        const auto e = static_cast<std::size_t>(o.element);
        const Vec2 target = system_.coupling_target(e, u);
        const Vec2 force = system_.coupling_force(e, s.q, s.v, u);
        const ForceOutput f = b.haptic[i_out]->update(s.t, Vec3(force.x(), force.y(), 0.0),
                                                      Vec3(target.x(), target.y(), 0.0));
        out[k++] = f.force.x();
        out[k++] = f.force.y();
        out[k++] = static_cast<double>(f.flags);
        out[k++] = f.observed_energy;
        out[k++] = f.damping;
        break;
      }
      case PlanarOutputType::kCouplingLinearization: {
        // W e = J_p x with K [x; mu] = [J_p^T e; 0]: x = (M^-1 - M^-1 G^T S^-1 G M^-1) J_p^T e,
        // S = G M^-1 G^T (block elimination of the KKT system). J_p = dp/dv for the point
        // p = r_b + A(theta_b) s: columns (I, S A s) on body b's block.
        const PlanarForceSpec& fe = spec.forces[static_cast<std::size_t>(o.element)];
        if (!kkt_loaded) {
          b.kkt->load(s.t, s.q);
          kkt_ok_ = b.kkt->factor();
          kkt_loaded = true;
        }
        const int o_b = system_.coordinate_offset(fe.body_i);
        const Vec2 arm = turned(rotated(s.q(o_b + 2), fe.point_i));
        Eigen::Matrix2d w;
        for (int c = 0; c < 2; ++c) {
          const Vec2 dir = c == 0 ? Vec2::UnitX() : Vec2::UnitY();
          b.rhs.setZero();
          b.rhs.segment<2>(o_b) = dir;
          b.rhs(o_b + 2) = arm.dot(dir);
          b.kkt->solve(b.rhs, b.zero_lambda, b.x, b.mu);
          w.col(c) = b.x.segment<2>(o_b) + b.x(o_b + 2) * arm;
        }
        const double nan = std::numeric_limits<double>::quiet_NaN();
        out[k++] = kkt_ok_ ? w(0, 0) : nan;
        out[k++] = kkt_ok_ ? 0.5 * (w(0, 1) + w(1, 0)) : nan;
        out[k++] = kkt_ok_ ? w(1, 1) : nan;
        out[k++] = fe.stiffness;
        out[k++] = fe.damping;
        break;
      }
      case PlanarOutputType::kBeamDeflection: {
        const Vec2 d = system_.beam_deflection(s.q, o.body, o.station);
        out[k++] = d.x();
        out[k++] = d.y();
        break;
      }
    }
  }
}

}  // namespace rtmb
