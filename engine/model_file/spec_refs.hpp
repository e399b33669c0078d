// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Internal to the model-file loader: the names a body model's file uses to point at its own
// bodies, joints and force elements, read the same way for planar and spatial models
// (PlanarModelSpec, SpatialModelSpec: `bodies`, `joints`, `forces`, each with a `name`). Every
// failure is a ModelFileError at the name's position (yaml_reader.hpp). Setup-only.

#include <yaml-cpp/yaml.h>

#include <Eigen/Core>
#include <algorithm>
#include <string>
#include <type_traits>

#include "engine/model_file/yaml_reader.hpp"
#include "rtmb/models/planar_multibody.hpp"

namespace rtmb::detail {

/// The `name` of a body, joint or force at n (prefix p), or `fallback` without one: non-empty,
/// not "ground", without spaces or commas (channel names are built from it).
inline std::string item_name(const YamlReader& r,
                             const YAML::Node& n,
                             const std::string& p,
                             const std::string& fallback) {
  if (const YAML::Node m = n["name"]) {
    std::string name = r.string(m, p + ".name");
    if (name.empty() || name == "ground" || name.find_first_of(", ") != std::string::npos) {
      r.fail(m, p + ".name", "must be non-empty, not 'ground', without spaces or commas");
    }
    return name;
  }
  return fallback;
}

/// Index of the body a key names: kGround for "ground" (fails unless ground_allowed), else its
/// position in spec.bodies; an unknown name fails listing the valid ones.
template <class Spec>
[[nodiscard]] int body_ref(const YamlReader& r,
                           const YAML::Node& n,
                           const std::string& key,
                           const Spec& spec,
                           bool ground_allowed) {
  const std::string name = r.string(n, key);
  if (name == "ground") {
    if (!ground_allowed) r.fail(n, key, "cannot act on the ground");
    return kGround;
  }
  for (std::size_t b = 0; b < spec.bodies.size(); ++b) {
    if (spec.bodies[b].name == name) return static_cast<int>(b);
  }
  std::string valid = "ground";
  for (const auto& b : spec.bodies) valid += ", " + b.name;
  r.fail(n, key, "unknown body '" + name + "' (bodies: " + valid + ")");
}

/// Index of the element of `items` whose name is at n and that `accept`s, or fail with `what`.
template <typename Items, typename Accept>
[[nodiscard]] int find_named(const YamlReader& r,
                             const YAML::Node& n,
                             const std::string& key,
                             const Items& items,
                             Accept accept,
                             const std::string& what) {
  const std::string name = r.string(n, key);
  const auto it = std::find_if(items.begin(), items.end(),
                               [&](const auto& item) { return item.name == name && accept(item); });
  if (it == items.end()) r.fail(n, key, "'" + name + "' is not " + what + " of this model");
  return static_cast<int>(it - items.begin());
}

/// Index of the joint of spec named at n whose type is `Type` (kRevolute, kPrismatic of the
/// spec's joint type enum), or fail naming it as `what` ("a revolute joint").
template <auto Type, class Spec>
[[nodiscard]] int joint_ref(const YamlReader& r,
                            const YAML::Node& n,
                            const std::string& key,
                            const Spec& spec,
                            const std::string& what) {
  return find_named(
      r, n, key, spec.joints, [](const auto& j) { return j.type == Type; }, what);
}

/// Index of the coupling force element of spec named at n.
template <class Spec>
[[nodiscard]] int coupling_ref(const YamlReader& r,
                               const YAML::Node& n,
                               const std::string& key,
                               const Spec& spec) {
  return find_named(
      r, n, key, spec.forces,
      [](const auto& f) { return f.type == std::decay_t<decltype(f.type)>::kCoupling; },
      "a coupling force element");
}

/// The two bodies a joint or spring-damper connects (body_i, body_j: required, ground allowed,
/// distinct; `itself` is the message when they are the same) and its optional attachment points
/// point_i, point_j in their frames (left as they are when absent).
template <class Spec, int N>
void read_body_pair(const YamlReader& r,
                    const YAML::Node& n,
                    const std::string& p,
                    const Spec& spec,
                    const char* itself,
                    int& body_i,
                    int& body_j,
                    Eigen::Matrix<double, N, 1>& point_i,
                    Eigen::Matrix<double, N, 1>& point_j) {
  const YAML::Node bi = r.required(n, p, "body_i", "first body or ground");
  const YAML::Node bj = r.required(n, p, "body_j", "second body or ground");
  body_i = body_ref(r, bi, p + ".body_i", spec, true);
  body_j = body_ref(r, bj, p + ".body_j", spec, true);
  if (body_i == body_j) r.fail(bj, p + ".body_j", itself);
  if (const YAML::Node m = n["point_i"]) point_i = r.vec<N>(m, p + ".point_i");
  if (const YAML::Node m = n["point_j"]) point_j = r.vec<N>(m, p + ".point_j");
}

}  // namespace rtmb::detail
