// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Internal to the model-file loader: what planar and spatial body models read alike
// (docs/model-format.md, "Bodies, joints and forces", "Spatial bodies"): the `forces` list and
// its spring-damper elements, whose keys and rules are the same in both dimensions. Vectors
// have the model's dimension (Eigen::Matrix<double, N, 1>). Setup-only; every failure is a
// ModelFileError at the value's position.

#include <yaml-cpp/yaml.h>

#include <array>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/model_file/spec_refs.hpp"
#include "engine/model_file/yaml_reader.hpp"

namespace rtmb::detail {

/// A `spring_damper`: a translational spring-damper-actuator between points of two bodies
/// (stiffness, damping, rest_length, actuator_force).
template <class Spec, class Force>
void read_spring_damper(
    const YamlReader& r, const YAML::Node& e, const std::string& p, const Spec& spec, Force& f) {
  r.check_keys(e, p,
               {"name", "type", "body_i", "body_j", "point_i", "point_j", "stiffness", "damping",
                "rest_length", "actuator_force"});
  read_body_pair(r, e, p, spec, "connects a body to itself", f.body_i, f.body_j, f.point_i,
                 f.point_j);
  if (const YAML::Node m = e["stiffness"]) f.stiffness = r.non_negative(m, p + ".stiffness");
  if (const YAML::Node m = e["damping"]) f.damping = r.non_negative(m, p + ".damping");
  if (const YAML::Node m = e["rest_length"]) f.rest = r.non_negative(m, p + ".rest_length");
  if (const YAML::Node m = e["actuator_force"]) f.actuator = r.number(m, p + ".actuator_force");
}

/// A `rotational_spring_damper` on revolute joint `joint` (of the spec's joint type Revolute)
/// between its two bodies (stiffness, damping, rest_angle). Returns the joint's index.
template <auto Revolute, class Spec, class Force>
int read_rotational_spring(
    const YamlReader& r, const YAML::Node& e, const std::string& p, const Spec& spec, Force& f) {
  r.check_keys(e, p, {"name", "type", "joint", "stiffness", "damping", "rest_angle"});
  const int joint = joint_ref<Revolute>(r, r.required(e, p, "joint", "a revolute joint's name"),
                                        p + ".joint", spec, "a revolute joint");
  f.body_i = spec.joints[static_cast<std::size_t>(joint)].body_i;
  f.body_j = spec.joints[static_cast<std::size_t>(joint)].body_j;
  if (const YAML::Node m = e["stiffness"]) f.stiffness = r.non_negative(m, p + ".stiffness");
  if (const YAML::Node m = e["damping"]) f.damping = r.non_negative(m, p + ".damping");
  if (const YAML::Node m = e["rest_angle"]) f.rest = r.number(m, p + ".rest_angle");
  return joint;
}

/// The spring-damper of a `coupling` (virtual coupling, issue 4): from a point of `body` to a
/// target that input channels may move (stiffness, damping, target). Without a target the
/// vector is NaN: the point's assembled start position, filled in after assembly.
template <class Spec, class Force>
void read_coupling_spring(
    const YamlReader& r, const YAML::Node& e, const std::string& p, const Spec& spec, Force& f) {
  constexpr int N = std::decay_t<decltype(f.point_i)>::RowsAtCompileTime;
  f.body_i = body_ref(r, r.required(e, p, "body", "the body coupled"), p + ".body", spec, false);
  if (const YAML::Node m = e["point"]) f.point_i = r.vec<N>(m, p + ".point");
  f.stiffness = r.non_negative(r.required(e, p, "stiffness", "N/m"), p + ".stiffness");
  if (const YAML::Node m = e["damping"]) f.damping = r.non_negative(m, p + ".damping");
  f.vector.setConstant(std::numeric_limits<double>::quiet_NaN());
  if (const YAML::Node m = e["target"]) f.vector = r.vec<N>(m, p + ".target");
}

/// A body model's `name`: the key's value, else the file's stem.
inline std::string body_model_name(const YamlReader& r, const YAML::Node& root) {
  if (const YAML::Node m = root["name"]) return r.string(m, "name");
  return std::filesystem::path(r.path()).stem().string();
}

/// assemble(spec), the consistent initial conditions, with its failures reported at `joints` (at
/// `bodies` in a model without joints). Returns its notes.
template <class Spec>
std::vector<std::string> assemble_or_fail(const YamlReader& r, const YAML::Node& root, Spec& spec) {
  const YAML::Node at = root["joints"] ? root["joints"] : root["bodies"];
  try {
    return assemble(spec);
  } catch (const AssemblyError& e) {
    r.fail(at, "joints", e.what());
  } catch (const std::invalid_argument& e) {
    r.fail(at, "joints", e.what());
  }
}

/// The input channels of a body model without named inputs: each body's generalized force
/// components <body><suffix> (suffix[c] for its K velocity coordinates), the first `forces` of
/// them forces [N], the others torques [N*m], each with the defaults of default_input_channels.
template <class Spec, std::size_t K>
std::vector<InputChannelSpec> body_force_channels(const Spec& spec,
                                                  const std::array<const char*, K>& suffix,
                                                  std::size_t forces) {
  std::vector<InputChannelSpec> out =
      default_input_channels(static_cast<int>(K) * static_cast<int>(spec.bodies.size()));
  for (std::size_t b = 0; b < spec.bodies.size(); ++b) {
    for (std::size_t c = 0; c < K; ++c) {
      InputChannelSpec& ch = out[K * b + c];
      ch.name = spec.bodies[b].name + suffix[c];
      ch.unit = c < forces ? "N" : "N*m";
      ch.config.kind = c < forces ? InputKind::kForce : InputKind::kTorque;
    }
  }
  return out;
}

/// The `type` node of a channel's `drive` at d (key p), which must be a mapping.
inline YAML::Node drive_type(const YamlReader& r, const YAML::Node& d, const std::string& p) {
  if (!d.IsMap()) r.fail(d, p, "expected a mapping with a 'type'");
  return r.required(d, p, "type", "force, torque, motor or coupling");
}

/// A `force` drive's keys, its body (not the ground) and optional point; its direction is read
/// by the caller (`axis` or `direction`, in the model's dimension).
template <class Spec, class Input>
void read_force_drive(
    const YamlReader& r, const YAML::Node& d, const std::string& p, const Spec& spec, Input& in) {
  constexpr int N = decltype(Input::point)::RowsAtCompileTime;
  r.check_keys(d, p, {"type", "body", "point", "axis", "direction"});
  in.type = decltype(Input::type)::kForce;
  in.body = body_ref(r, r.required(d, p, "body", "the body pushed"), p + ".body", spec, false);
  if (const YAML::Node m = d["point"]) in.point = r.vec<N>(m, p + ".point");
}

/// A `motor` drive: a torque on revolute joint `joint` (Revolute of the spec's joint type),
/// clamped to +-limit.
template <auto Revolute, class Spec, class Input>
void read_motor_drive(
    const YamlReader& r, const YAML::Node& d, const std::string& p, const Spec& spec, Input& in) {
  r.check_keys(d, p, {"type", "joint", "limit"});
  in.type = decltype(Input::type)::kMotor;
  in.joint = joint_ref<Revolute>(r, r.required(d, p, "joint", "a revolute joint's name"),
                                 p + ".joint", spec, "a revolute joint");
  if (const YAML::Node m = d["limit"]) in.limit = r.positive(m, p + ".limit");
}

/// `forces`: a list of mappings, each with an optional `name` (default "forces[k]") and a `type`,
/// appended to spec.forces. gravity and spring_damper read alike in both dimensions;
/// read_element(e, p, t, f) reads the model's other types (element e at key p of type name t into
/// f) and returns false for a name it does not know, which fails listing `valid`.
template <class Spec, class ReadElement>
void read_force_list(const YamlReader& r,
                     const YAML::Node& n,
                     Spec& spec,
                     ReadElement read_element,
                     const char* valid) {
  using Force = typename decltype(spec.forces)::value_type;
  using Type = decltype(Force::type);
  constexpr int N = decltype(Force::vector)::RowsAtCompileTime;
  if (!n.IsSequence()) r.fail(n, "forces", "expected a list of force elements");
  for (std::size_t k = 0; k < n.size(); ++k) {
    const YAML::Node e = n[k];
    const std::string p = "forces[" + std::to_string(k) + "]";
    if (!e.IsMap()) r.fail(e, p, "expected a mapping");
    Force f;
    f.name = item_name(r, e, p, p);
    const YAML::Node type = r.required(e, p, "type", "force element type");
    const std::string t = r.string(type, p + ".type");
    if (t == "gravity") {
      r.check_keys(e, p, {"name", "type", "vector"});
      f.type = Type::kGravity;
      f.vector = r.vec<N>(r.required(e, p, "vector", "m/s^2"), p + ".vector");
    } else if (t == "spring_damper") {
      f.type = Type::kSpringDamper;
      read_spring_damper(r, e, p, spec, f);
    } else if (!read_element(e, p, t, f)) {
      r.fail(type, p + ".type", "unknown force type '" + t + "' (valid: " + valid + ")");
    }
    spec.forces.push_back(std::move(f));
  }
}

}  // namespace rtmb::detail
