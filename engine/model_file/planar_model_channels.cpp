// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Model-file loader, named channels of planar body models (docs/model-format.md, "Named
// channels" and "Haptic safety"): the `inputs` drives, the `outputs.channels` and a coupling's
// `safety` filter. Every error is a ModelFileError with file, line, column and key.
#include <string>
#include <utility>
#include <vector>

#include "engine/model_file/driven_channels.hpp"
#include "engine/model_file/element_readers.hpp"
#include "engine/model_file/output_channel_readers.hpp"
#include "engine/model_file/planar_model_file.hpp"
#include "rtmb/runtime/simulation_runner.hpp"

namespace rtmb::detail {

namespace {

using Reader = YamlReader;

// "x" -> 0, "y" -> 1 at key; anything else fails.
int channel_axis_index(const Reader& r, const YAML::Node& n, const std::string& key) {
  const std::string a = r.string(n, key);
  if (a == "x") return 0;
  if (a == "y") return 1;
  r.fail(n, key, "unknown axis '" + a + "' (valid: x, y)");
}

}  // namespace

// forces[k].safety of a coupling: the ForceOutputFilter of its haptic_force outputs
// (docs/model-format.md, "Haptic safety")
void read_safety(const Reader& r, const YAML::Node& n, const std::string& p, ForceSafetyConfig& c) {
  r.check_keys(n, p,
               {"max_force", "max_rate", "engage_force", "engage_ramp", "passivity", "max_damping",
                "passivity_margin"});
  if (const YAML::Node m = n["max_force"]) c.max_force = r.non_negative(m, p + ".max_force");
  if (const YAML::Node m = n["max_rate"]) c.max_rate = r.non_negative(m, p + ".max_rate");
  if (const YAML::Node m = n["engage_force"]) {
    c.engage_force = r.non_negative(m, p + ".engage_force");
  }
  if (const YAML::Node m = n["engage_ramp"]) {
    c.engage_ramp_s = r.non_negative(m, p + ".engage_ramp");
  }
  if (const YAML::Node m = n["max_damping"]) {
    c.max_damping = r.non_negative(m, p + ".max_damping");
  }
  if (const YAML::Node m = n["passivity_margin"]) {
    c.passivity_margin = r.non_negative(m, p + ".passivity_margin");
  }
  if (const YAML::Node m = n["passivity"]) {
    c.passivity = r.boolean(m, p + ".passivity");
    if (c.passivity && !(c.max_damping > 0.0)) {
      r.fail(m, p + ".passivity",
             "the passivity controller needs max_damping > 0 (about device mass / sample period, "
             "N*s/m)");
    }
  }
}

namespace {

// The channel's `kind` (read_output_kind) among the planar output kinds.
PlanarOutputType parse_output_kind(const Reader& r, const YAML::Node& n, const std::string& p) {
  static const std::pair<const char*, PlanarOutputType> kKinds[] = {
      {"pose", PlanarOutputType::kPose},
      {"velocity", PlanarOutputType::kVelocity},
      {"point_position", PlanarOutputType::kPointPosition},
      {"point_velocity", PlanarOutputType::kPointVelocity},
      {"joint_position", PlanarOutputType::kJointPosition},
      {"joint_velocity", PlanarOutputType::kJointVelocity},
      {"reaction", PlanarOutputType::kReaction},
      {"coupling_force", PlanarOutputType::kCouplingForce},
      {"position_drift", PlanarOutputType::kPositionDrift},
      {"velocity_drift", PlanarOutputType::kVelocityDrift},
      {"energy", PlanarOutputType::kEnergy},
      {"haptic_force", PlanarOutputType::kHapticForce},
      {"coupling_linearization", PlanarOutputType::kCouplingLinearization},
      {"beam_deflection", PlanarOutputType::kBeamDeflection},
  };
  return read_output_kind(r, n, p, kKinds);
}

}  // namespace

// The `drive` of one channel: what it acts on.
PlanarInputSpec read_drive(const Reader& r,
                           const YAML::Node& d,
                           const std::string& p,
                           const PlanarModelSpec& spec) {
  PlanarInputSpec in;
  const YAML::Node type = drive_type(r, d, p);
  const std::string t = r.string(type, p + ".type");
  if (t == "force") {
    read_force_drive(r, d, p, spec, in);
    if (d["axis"] && d["direction"]) r.fail(d["direction"], p + ".direction", "not with 'axis'");
    if (const YAML::Node m = d["axis"]) {
      in.direction = channel_axis_index(r, m, p + ".axis") == 0 ? Eigen::Vector2d::UnitX()
                                                                : Eigen::Vector2d::UnitY();
    }
    if (const YAML::Node m = d["direction"]) {
      in.direction = r.vec<2>(m, p + ".direction");
      if (!(in.direction.norm() > 0.0)) r.fail(m, p + ".direction", "must not be zero");
    }
  } else if (t == "torque") {
    r.check_keys(d, p, {"type", "body"});
    in.type = PlanarInputType::kTorque;
    in.body = body_ref(r, r.required(d, p, "body", "the body turned"), p + ".body", spec, false);
  } else if (t == "motor") {
    read_motor_drive<PlanarJointType::kRevolute>(r, d, p, spec, in);
  } else if (t == "coupling") {
    r.check_keys(d, p, {"type", "element", "axis"});
    in.element = coupling_ref(r, r.required(d, p, "element", "a coupling force element's name"),
                              p + ".element", spec);
    const int axis = channel_axis_index(r, r.required(d, p, "axis", "x or y"), p + ".axis");
    in.type = axis == 0 ? PlanarInputType::kCouplingX : PlanarInputType::kCouplingY;
    in.initial = spec.forces[static_cast<std::size_t>(in.element)].vector(axis);
  } else {
    r.fail(type, p + ".type",
           "unknown drive type '" + t + "' (valid: force, torque, motor, coupling)");
  }
  return in;
}

// The channel defaults of named inputs: unit and watchdog kind from what each drives, the
// initial value from the drive (a coupling's target starts where its point is).
std::vector<InputChannelSpec> named_input_channels(const PlanarModelSpec& spec) {
  std::vector<InputChannelSpec> out;
  for (const PlanarInputSpec& in : spec.inputs) {
    const bool target =
        in.type == PlanarInputType::kCouplingX || in.type == PlanarInputType::kCouplingY;
    const InputKind kind = in.type == PlanarInputType::kForce ? InputKind::kForce
                           : target                           ? InputKind::kPosition
                                                              : InputKind::kTorque;
    out.push_back(detail::named_input_channel(in.name, in.initial, kind));
  }
  return out;
}

// outputs.channels: the named outputs streamed instead of q and v
void read_output_channels(const Reader& r,
                          const YAML::Node& outputs,
                          const PlanarModelSpec& spec,
                          std::vector<PlanarOutputSpec>& out) {
  read_output_list(
      r, outputs, out,
      [&](const YAML::Node& n, const std::string& p, PlanarOutputSpec& o) {
        o.type = parse_output_kind(r, n, p);
        const bool beam_kind = o.type == PlanarOutputType::kBeamDeflection;
        const bool body_kind = o.type == PlanarOutputType::kPose ||
                               o.type == PlanarOutputType::kVelocity ||
                               o.type == PlanarOutputType::kPointPosition ||
                               o.type == PlanarOutputType::kPointVelocity || beam_kind;
        const bool point_kind = o.type == PlanarOutputType::kPointPosition ||
                                o.type == PlanarOutputType::kPointVelocity;
        const bool joint_kind = o.type == PlanarOutputType::kJointPosition ||
                                o.type == PlanarOutputType::kJointVelocity ||
                                o.type == PlanarOutputType::kReaction;
        const bool element_kind = o.type == PlanarOutputType::kCouplingForce ||
                                  o.type == PlanarOutputType::kHapticForce ||
                                  o.type == PlanarOutputType::kCouplingLinearization;
        check_kind_key(r, n, p, "body", body_kind,
                       "pose, velocity, point and beam_deflection outputs");
        check_kind_key(r, n, p, "point", point_kind, "point outputs");
        check_kind_key(r, n, p, "station", beam_kind, "beam_deflection outputs");
        check_kind_key(r, n, p, "joint", joint_kind, "joint and reaction outputs");
        check_kind_key(r, n, p, "element", element_kind,
                       "coupling_force, haptic_force and coupling_linearization outputs");
        if (body_kind) o.body = body_ref(r, n["body"], p + ".body", spec, false);
        if (point_kind && n["point"]) o.point = r.vec<2>(n["point"], p + ".point");
        // on a beam, points and stations are material points of the axis (x, 0), 0 <= x <= L
        // (PlanarMultibody::point_position), as for the joints that attach to it
        const PlanarBodySpec* body =
            body_kind ? &spec.bodies[static_cast<std::size_t>(o.body)] : nullptr;
        const bool on_beam = body != nullptr && body->kind == PlanarBodyKind::kBeam;
        const double length = on_beam ? body->beam.length : 0.0;
        if (point_kind && on_beam && !body->beam.on_axis(o.point)) {
          r.fail(n["point"] ? n["point"] : n, p + ".point",
                 "a beam's point must be [x, 0] with 0 <= x <= length (" + std::to_string(length) +
                     ")");
        }
        if (beam_kind) {
          if (!on_beam) r.fail(n["body"], p + ".body", "beam_deflection needs a beam body");
          o.station = r.number(n["station"], p + ".station");
          if (!body->beam.on_axis({o.station, 0.0})) {
            r.fail(n["station"], p + ".station",
                   "must be in [0, length] (" + std::to_string(length) + ")");
          }
        }
        if (joint_kind) {
          o.joint = find_named(
              r, n["joint"], p + ".joint", spec.joints,
              [&o](const PlanarJointSpec& j) {
                return o.type == PlanarOutputType::kReaction ||
                       j.type == PlanarJointType::kRevolute ||
                       j.type == PlanarJointType::kPrismatic;
              },
              o.type == PlanarOutputType::kReaction ? "a joint" : "a revolute or prismatic joint");
        }
        if (element_kind) o.element = coupling_ref(r, n["element"], p + ".element", spec);
        o.units = default_output_units(o, spec);
      },
      /*links=*/false, /*stations=*/true);
}

}  // namespace rtmb::detail
