// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Output channels of spatial body models (include/rtmb/models/spatial_outputs.hpp). Every channel
// is a closed-form function of the streamed state (t, q, v): positions r and p = r + A(e) s,
// velocities r' and p' = r' + B(e, s) e', the world angular velocity omega = 2 E(e) e' (Haug 1989,
// ch. 6), joint angles from the joint's reference vectors, and the System's own constraints and
// energy.
#include "rtmb/models/spatial_outputs.hpp"

#include <array>
#include <stdexcept>

#include "engine/multibody/output_kinds.hpp"
#include "engine/multibody/spec_checks.hpp"

namespace rtmb {

namespace {

// Component suffixes per SpatialOutputType, in declaration order (output_kinds.hpp).
constexpr std::array<std::string_view, 12> kSpatialSuffixes{
    "x y z", "e0 e1 e2 e3", "vx vy vz", "wx wy wz", "x y z", "vx vy vz", "",
    "",      "fx fy fz",    "",         "",         ""};
static_assert(static_cast<std::size_t>(SpatialOutputType::kEnergy) + 1 == kSpatialSuffixes.size());

// The kinds measured on a body (its pose, velocities or a point of it).
bool on_body(SpatialOutputType type) noexcept {
  return type == SpatialOutputType::kPosition || type == SpatialOutputType::kOrientation ||
         type == SpatialOutputType::kVelocity || type == SpatialOutputType::kAngularVelocity ||
         type == SpatialOutputType::kPointPosition || type == SpatialOutputType::kPointVelocity;
}

}  // namespace

int output_components(SpatialOutputType type) noexcept {
  return detail::components_of(kSpatialSuffixes, type);
}

std::vector<std::string> output_suffixes(SpatialOutputType type) {
  return detail::suffixes_of(kSpatialSuffixes, type);
}

std::vector<std::string> default_output_units(SpatialOutputType type) {
  const auto n = static_cast<std::size_t>(output_components(type));
  switch (type) {
    case SpatialOutputType::kPosition:
    case SpatialOutputType::kPointPosition:
      return std::vector<std::string>(n, "m");
    case SpatialOutputType::kOrientation:
      return std::vector<std::string>(n, "1");
    case SpatialOutputType::kVelocity:
    case SpatialOutputType::kPointVelocity:
      return std::vector<std::string>(n, "m/s");
    case SpatialOutputType::kAngularVelocity:
    case SpatialOutputType::kJointVelocity:
      return std::vector<std::string>(n, "rad/s");
    case SpatialOutputType::kJointPosition:
      return {"rad"};
    case SpatialOutputType::kCouplingForce:
      return std::vector<std::string>(n, "N");
    case SpatialOutputType::kPositionDrift:
      return {"1"};  // rows mix metres, dot products and the normalization
    case SpatialOutputType::kVelocityDrift:
      return {"1/s"};
    case SpatialOutputType::kEnergy:
      return {"J"};
  }
  return {};
}

std::vector<std::pair<std::string, std::string>> output_channels(
    const std::vector<SpatialOutputSpec>& outputs) {
  return detail::scalar_channels(outputs);
}

SpatialOutputs::SpatialOutputs(const SpatialMultibody& system,
                               std::vector<SpatialOutputSpec> outputs)
    : system_(system),
      outputs_(std::move(outputs)),
      g_(Vec::Zero(system.n_lambda())),
      G_(Mat::Zero(system.n_lambda(), system.n_v())) {
  const SpatialModelSpec& spec = system.spec();
  const int nb = static_cast<int>(spec.bodies.size());
  for (SpatialOutputSpec& o : outputs_) {
    const std::string what = "output '" + o.name + "'";
    if (on_body(o.type) && (o.body < 0 || o.body >= nb)) {
      throw std::invalid_argument(what + ": needs a body");
    }
    if (o.type == SpatialOutputType::kJointPosition ||
        o.type == SpatialOutputType::kJointVelocity) {
      detail::require_of_type(spec.joints, o.joint, SpatialJointType::kRevolute,
                              what + ": needs a revolute joint");
    }
    if (o.type == SpatialOutputType::kCouplingForce) {
      detail::require_of_type(spec.forces, o.element, SpatialForceType::kCoupling,
                              what + ": needs a coupling force element");
    }
    if (o.units.empty()) o.units = default_output_units(o.type);
    count_ += output_components(o.type);
  }
}

void SpatialOutputs::evaluate(const State& s, const Workspace& ws, std::span<double> out) noexcept {
  const InputValues u = input_values(ws);  // the simulation's channel values (coupling targets)
  std::size_t k = 0;
  auto put3 = [&out, &k](const Eigen::Vector3d& x) {
    for (int c = 0; c < 3; ++c) out[k++] = x(c);
  };
  for (const SpatialOutputSpec& o : outputs_) {
    const Eigen::Index base = 7 * static_cast<Eigen::Index>(o.body);
    switch (o.type) {
      case SpatialOutputType::kPosition:
        put3(s.q.segment<3>(base));
        break;
      case SpatialOutputType::kOrientation:
        for (int c = 0; c < 4; ++c) out[k++] = s.q(base + 3 + c);
        break;
      case SpatialOutputType::kVelocity:
        put3(s.v.segment<3>(base));
        break;
      case SpatialOutputType::kAngularVelocity:
        put3(2.0 * euler_e(s.q.segment<4>(base + 3)) * s.v.segment<4>(base + 3));
        break;
      case SpatialOutputType::kPointPosition:
        put3(system_.point_position(o.body, o.point, s.q));
        break;
      case SpatialOutputType::kPointVelocity:
        put3(system_.point_velocity(o.body, o.point, s.q, s.v));
        break;
      case SpatialOutputType::kJointPosition:
        out[k++] = system_.revolute_coordinate(static_cast<std::size_t>(o.joint), s.q, s.v)[0];
        break;
      case SpatialOutputType::kJointVelocity:
        out[k++] = system_.revolute_coordinate(static_cast<std::size_t>(o.joint), s.q, s.v)[1];
        break;
      case SpatialOutputType::kCouplingForce:
        put3(system_.coupling_force(static_cast<std::size_t>(o.element), s.q, s.v, u));
        break;
      case SpatialOutputType::kPositionDrift:
        system_.constraints(s.t, s.q, g_);
        out[k++] = g_.size() > 0 ? g_.lpNorm<Eigen::Infinity>() : 0.0;
        break;
      case SpatialOutputType::kVelocityDrift:
        // scleronomic constraints: g_t = 0, the velocity drift is G v
        system_.jacobian(s.t, s.q, G_);
        g_.noalias() = G_ * s.v;
        out[k++] = g_.size() > 0 ? g_.lpNorm<Eigen::Infinity>() : 0.0;
        break;
      case SpatialOutputType::kEnergy:
        out[k++] = system_.energy(s.t, s.q, s.v, u);
        break;
    }
  }
}

}  // namespace rtmb
