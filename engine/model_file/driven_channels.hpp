// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Internal to the model-file loader: named input channels with `drive` keys, shared by planar
// and spatial body models (docs/model-format.md, "Named channels"). Setup-only.

#include <yaml-cpp/yaml.h>

#include <stdexcept>
#include <string>
#include <utility>

#include "engine/model_file/yaml_reader.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/runtime/input_channels.hpp"

namespace rtmb::detail {

/// inputs.channels with `drive` keys into spec.inputs: all channels have a drive or none has
/// (then the model's default channels apply and spec.inputs stays empty). read_drive(node,
/// key) reads one `drive` mapping into the model's input type; name and initial value are
/// common. Model = PlanarMultibody or SpatialMultibody: constructing it checks the bindings
/// together, and its complaint is reported at inputs.channels.
template <class Model, class Spec, class ReadDrive>
void read_input_drives(const YamlReader& r,
                       const YAML::Node& inputs,
                       Spec& spec,
                       ReadDrive&& read_drive) {
  if (!inputs.IsMap()) return;  // read_inputs reports it
  const YAML::Node channels = inputs["channels"];
  if (!channels || !channels.IsSequence()) return;
  std::size_t driven = 0;
  for (std::size_t i = 0; i < channels.size(); ++i) {
    if (channels[i].IsMap() && channels[i]["drive"]) ++driven;
  }
  if (driven == 0) return;
  const std::string key = "inputs.channels";
  if (channels.size() > static_cast<std::size_t>(kMaxInputChannels)) {
    r.fail(channels, key, "at most " + std::to_string(kMaxInputChannels) + " channels");
  }
  for (std::size_t i = 0; i < channels.size(); ++i) {
    const YAML::Node n = channels[i];
    const std::string p = key + "[" + std::to_string(i) + "]";
    if (!n.IsMap()) r.fail(n, p, "expected a mapping");
    const YAML::Node d = n["drive"];
    if (!d) {
      r.fail(n, p + ".drive",
             "missing: when one channel has a drive, every channel needs one (force, torque, "
             "motor, coupling)");
    }
    auto in = read_drive(d, p + ".drive");
    in.name = "u" + std::to_string(i);
    if (const YAML::Node m = n["name"]) in.name = r.string(m, p + ".name");
    if (const YAML::Node m = n["initial_value"]) in.initial = r.number(m, p + ".initial_value");
    spec.inputs.push_back(std::move(in));
  }
  try {
    const Model probe(spec);
  } catch (const std::invalid_argument& e) {
    r.fail(channels, key, e.what());
  }
}

/// The channel defaults of a named input: held between samples, its initial value, and unit
/// and watchdog kind from what it drives (a force "N", a torque or motor "N*m", a coupling
/// target "m" as a position, which the watchdog must not zero).
inline InputChannelSpec named_input_channel(std::string name, double initial, InputKind kind) {
  InputChannelSpec c;
  c.name = std::move(name);
  c.config.policy = MissPolicy::kHold;
  c.config.initial_value = initial;
  c.config.kind = kind;
  c.unit = kind == InputKind::kForce ? "N" : kind == InputKind::kTorque ? "N*m" : "m";
  return c;
}

}  // namespace rtmb::detail
