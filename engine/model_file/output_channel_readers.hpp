// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Internal to the model-file loader: the rules every `outputs.channels` entry follows in planar
// and spatial body models and URDF robots alike (docs/model-format.md, "Named channels"): its
// `unit`, names that stay unique channel by channel and the snapshot's limit on scalar channels.
// OutputSpec is PlanarOutputSpec, SpatialOutputSpec or JointSpaceOutputSpec (output_channels
// found by ADL). Setup-only.

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "engine/model_file/yaml_reader.hpp"
#include "rtmb/runtime/simulation_runner.hpp"

namespace rtmb::detail {

/// The `kind` of the channel at n (key p): one of `kinds` (name, type), which an unknown name's
/// message lists in their order.
template <class Type, std::size_t N>
Type read_output_kind(const YamlReader& r,
                      const YAML::Node& n,
                      const std::string& p,
                      const std::pair<const char*, Type> (&kinds)[N]) {
  const YAML::Node kind = r.required(n, p, "kind", "what the channel measures");
  const std::string k = r.string(kind, p + ".kind");
  std::string valid;
  for (const auto& [name, type] : kinds) {
    if (k == name) return type;
    valid += (valid.empty() ? "" : ", ") + std::string(name);
  }
  r.fail(kind, p + ".kind", "unknown output kind '" + k + "' (valid: " + valid + ")");
}

/// Key `key` of the channel at n (key p), given its kind: only where `allowed` (else "only for
/// <what>"), and then required unless it is the optional `point`.
inline void check_kind_key(const YamlReader& r,
                           const YAML::Node& n,
                           const std::string& p,
                           const char* key,
                           bool allowed,
                           const char* what) {
  if (n[key] && !allowed) r.fail(n[key], p + "." + key, std::string("only for ") + what);
  if (!n[key] && allowed && std::string(key) != "point") {
    r.fail(n, p + "." + key, "missing (needed by kind '" + n["kind"].Scalar() + "')");
  }
}

/// `unit` of the channel at n (key p): one unit for every component, or a list of one unit per
/// component; `units` holds the kind's defaults (and their count) on entry.
inline void read_output_units(const YamlReader& r,
                              const YAML::Node& n,
                              const std::string& p,
                              std::vector<std::string>& units) {
  const YAML::Node m = n["unit"];
  if (!m) return;
  if (!m.IsSequence()) {
    std::fill(units.begin(), units.end(), r.string(m, p + ".unit"));
    return;
  }
  if (m.size() != units.size()) {
    r.fail(m, p + ".unit", "expected " + std::to_string(units.size()) + " units");
  }
  for (std::size_t c = 0; c < m.size(); ++c) {
    units[c] = r.string(m[c], p + ".unit[" + std::to_string(c) + "]");
  }
}

/// After out.back() was read from n (key p): fails at its name when one of its scalar channels
/// repeats an earlier one (hello announces them channel by channel, so names must be unique).
template <class OutputSpec>
void check_new_channels_unique(const YamlReader& r,
                               const YAML::Node& n,
                               const std::string& p,
                               const std::vector<OutputSpec>& out) {
  const auto all = output_channels(out);
  const std::size_t added = static_cast<std::size_t>(output_components(out.back().type));
  for (std::size_t a = 0; a + added < all.size(); ++a) {
    for (std::size_t b = all.size() - added; b < all.size(); ++b) {
      if (all[a].first == all[b].first) {
        r.fail(n["name"], p + ".name", "channel '" + all[b].first + "' is already defined");
      }
    }
  }
}

/// Fails at `channels` (key) when `out` has more scalar channels than a snapshot carries.
template <class OutputSpec>
void check_output_count(const YamlReader& r,
                        const YAML::Node& channels,
                        const std::string& key,
                        const std::vector<OutputSpec>& out) {
  if (output_channels(out).size() > static_cast<std::size_t>(kSnapshotMaxOutputs)) {
    r.fail(channels, key,
           "at most " + std::to_string(kSnapshotMaxOutputs) + " scalar output channels");
  }
}

/// The `channels` of `outputs` (nothing without the key; an `outputs` that is not a mapping is
/// reported by model_file.cpp's read_outputs): a non-empty list, each with a name that is
/// non-empty and without commas, the keys of its `kind` read by read_kind(n, p, o) (which also
/// sets o.units to the kind's defaults) and an optional `unit`; appended to `out`.
/// `links`: the channels name URDF links (`link`) instead of bodies; `stations`: a channel may
/// have a `station` (planar beam deflections).
template <class OutputSpec, class ReadKind>
void read_output_list(const YamlReader& r,
                      const YAML::Node& outputs,
                      std::vector<OutputSpec>& out,
                      ReadKind read_kind,
                      bool links = false,
                      bool stations = false) {
  if (!outputs.IsMap()) return;
  const YAML::Node channels = outputs["channels"];
  if (!channels) return;
  const std::string key = "outputs.channels";
  if (!channels.IsSequence() || channels.size() == 0) {
    r.fail(channels, key, "expected a non-empty list of output channels");
  }
  for (std::size_t i = 0; i < channels.size(); ++i) {
    const YAML::Node n = channels[i];
    const std::string p = key + "[" + std::to_string(i) + "]";
    if (links) {
      r.check_keys(n, p, {"name", "kind", "link", "point", "joint", "element", "unit"});
    } else if (stations) {
      r.check_keys(n, p, {"name", "kind", "body", "point", "joint", "element", "station", "unit"});
    } else {
      r.check_keys(n, p, {"name", "kind", "body", "point", "joint", "element", "unit"});
    }
    OutputSpec o;
    o.name = r.string(r.required(n, p, "name", "the channel's name"), p + ".name");
    if (o.name.empty() || o.name.find(',') != std::string::npos) {
      r.fail(n["name"], p + ".name", "must be non-empty and contain no comma");
    }
    read_kind(n, p, o);
    read_output_units(r, n, p, o.units);
    out.push_back(std::move(o));
    check_new_channels_unique(r, n, p, out);
  }
  check_output_count(r, channels, key, out);
}

}  // namespace rtmb::detail
