// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Output channels of planar body models (include/rtmb/multibody_outputs.hpp).
//
// Reaction forces. With M v' = f - G^T lambda, the constraint force of joint k on the bodies is
// -G_k^T lambda_k; its block on body j, Q = -G_kj^T lambda_k = (F, m), is the force F the joint
// exerts on body j (world frame, acting at the joint point) and its moment m about j's centre of
// mass. The moment about the joint point is tz = m - (A_j s_j) x F (zero for a revolute joint,
// the joint's holding torque for prismatic and fixed joints). lambda is the index-1 KKT solution
// at the streamed state (t, q, v) itself, so the reaction belongs to the state sent with it;
// the step's own multipliers would belong to its last stage (RK) or be the discrete ones of an
// implicit method. No Baumgarte terms enter this solve: at a state on the manifold they vanish.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "engine/dynamics/dynamics.hpp"
#include "rtmb/multibody_outputs.hpp"
#include "rtmb/status.hpp"

namespace rtmb {
namespace {

using Vec2 = Eigen::Vector2d;
using Vec3 = Eigen::Vector3d;

Vec2 rotated(double th, const Vec2& s) noexcept {
  return {std::cos(th) * s.x() - std::sin(th) * s.y(), std::sin(th) * s.x() + std::cos(th) * s.y()};
}

Vec2 perp(const Vec2& x) noexcept {
  return {-x.y(), x.x()};
}

double angle_of(VecCRef x, int body) noexcept {
  return body == kGround ? 0.0 : x(3 * body + 2);
}

}  // namespace

int output_components(PlanarOutputType type) noexcept {
  switch (type) {
    case PlanarOutputType::kPose:
    case PlanarOutputType::kVelocity:
    case PlanarOutputType::kReaction:
      return 3;
    case PlanarOutputType::kPointPosition:
    case PlanarOutputType::kPointVelocity:
    case PlanarOutputType::kCouplingForce:
      return 2;
    case PlanarOutputType::kJointPosition:
    case PlanarOutputType::kJointVelocity:
    case PlanarOutputType::kPositionDrift:
    case PlanarOutputType::kVelocityDrift:
    case PlanarOutputType::kEnergy:
      return 1;
  }
  return 0;
}

std::vector<std::string> output_suffixes(PlanarOutputType type) {
  switch (type) {
    case PlanarOutputType::kPose:
      return {"x", "y", "theta"};
    case PlanarOutputType::kVelocity:
      return {"vx", "vy", "omega"};
    case PlanarOutputType::kPointPosition:
      return {"x", "y"};
    case PlanarOutputType::kPointVelocity:
      return {"vx", "vy"};
    case PlanarOutputType::kReaction:
      return {"fx", "fy", "tz"};
    case PlanarOutputType::kCouplingForce:
      return {"fx", "fy"};
    default:
      return {};
  }
}

std::vector<std::string> default_output_units(const PlanarOutputSpec& out,
                                              const PlanarModelSpec& spec) {
  const bool linear_joint =
      out.joint >= 0 && out.joint < static_cast<int>(spec.joints.size()) &&
      spec.joints[static_cast<std::size_t>(out.joint)].type == PlanarJointType::kPrismatic;
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
  }
  return {};
}

std::vector<std::pair<std::string, std::string>> output_channels(
    const std::vector<PlanarOutputSpec>& outputs) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const PlanarOutputSpec& o : outputs) {
    const std::vector<std::string> suffix = output_suffixes(o.type);
    const int n = output_components(o.type);
    for (int c = 0; c < n; ++c) {
      const auto k = static_cast<std::size_t>(c);
      out.emplace_back(suffix.empty() ? o.name : o.name + "." + suffix[k],
                       k < o.units.size() ? o.units[k] : std::string());
    }
  }
  return out;
}

// Scratch sized once: the KKT solve for the multipliers, G and g for drift and reactions.
struct PlanarOutputs::Buffers {
  explicit Buffers(const PlanarMultibody& sys)
      : dynamics(sys),
        vdot(Vec::Zero(sys.n_v())),
        g(Vec::Zero(sys.n_lambda())),
        gt(Vec::Zero(sys.n_lambda())),
        G(Mat::Zero(sys.n_lambda(), sys.n_v())) {}
  Dynamics dynamics;
  Vec vdot;
  Vec g;
  Vec gt;
  Mat G;
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
        break;
      case PlanarOutputType::kJointPosition:
      case PlanarOutputType::kJointVelocity: {
        const bool ok =
            o.joint >= 0 && o.joint < static_cast<int>(spec.joints.size()) &&
            (spec.joints[static_cast<std::size_t>(o.joint)].type == PlanarJointType::kRevolute ||
             spec.joints[static_cast<std::size_t>(o.joint)].type == PlanarJointType::kPrismatic);
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
        if (o.element < 0 || o.element >= static_cast<int>(spec.forces.size()) ||
            spec.forces[static_cast<std::size_t>(o.element)].type != PlanarForceType::kCoupling) {
          throw std::invalid_argument(what + ": needs a coupling force element");
        }
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
}

PlanarOutputs::~PlanarOutputs() = default;

void PlanarOutputs::evaluate(const State& s, const Workspace& ws, std::span<double> out) noexcept {
  const PlanarModelSpec& spec = system_.spec();
  Buffers& b = *buf_;
  // shared evaluations first: G (drift, reactions), then lambda at (t, q, v)
  if (needs_drift_ && system_.n_lambda() > 0) system_.jacobian(s.t, s.q, b.G);
  if (needs_lambda_) {
    StepStatus ignored;
    b.dynamics.applied() = applied_force(ws);
    b.dynamics.evaluate(s.t, s.q, s.v, b.vdot, ignored);
  }
  std::size_t k = 0;
  for (const PlanarOutputSpec& o : outputs_) {
    switch (o.type) {
      case PlanarOutputType::kPose:
        for (int c = 0; c < 3; ++c) out[k++] = s.q(3 * o.body + c);
        break;
      case PlanarOutputType::kVelocity:
        for (int c = 0; c < 3; ++c) out[k++] = s.v(3 * o.body + c);
        break;
      case PlanarOutputType::kPointPosition: {
        const Vec2 p = point_position(s.q, o.body, o.point);
        out[k++] = p.x();
        out[k++] = p.y();
        break;
      }
      case PlanarOutputType::kPointVelocity: {
        const Vec2 p = point_velocity(s.q, s.v, o.body, o.point);
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
          out[k++] = angle_of(x, jt.body_j) - angle_of(x, jt.body_i);
          break;
        }
        // prismatic: sigma = a.(p_j - p_i) with the world axis a = A_i axis;
        // sigma' = a.(p_j' - p_i') + w_i (S a).(p_j - p_i)
        const Vec2 a = rotated(angle_of(s.q, jt.body_i), jt.axis);
        const Vec2 d =
            point_position(s.q, jt.body_j, jt.point_j) - point_position(s.q, jt.body_i, jt.point_i);
        if (!rate) {
          out[k++] = a.dot(d);
        } else {
          const Vec2 dd = point_velocity(s.q, s.v, jt.body_j, jt.point_j) -
                          point_velocity(s.q, s.v, jt.body_i, jt.point_i);
          out[k++] = a.dot(dd) + angle_of(s.v, jt.body_i) * perp(a).dot(d);
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
          q_c -= b.G.block<1, 3>(k_row, 3 * body).transpose() * b.dynamics.lambda()(k_row);
        }
        const Vec2 force = q_c.head<2>();
        const double tz = q_c.z() - perp(rotated(s.q(3 * body + 2), point)).dot(force);
        const double sign = on_j ? 1.0 : -1.0;
        out[k++] = sign * force.x();
        out[k++] = sign * force.y();
        out[k++] = sign * tz;
        break;
      }
      case PlanarOutputType::kCouplingForce: {
        const Vec2 f = system_.coupling_force(static_cast<std::size_t>(o.element), s.q, s.v);
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
        out[k++] = system_.energy(s.t, s.q, s.v);
        break;
    }
  }
}

}  // namespace rtmb
