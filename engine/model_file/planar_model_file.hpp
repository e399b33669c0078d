// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Internal to the model-file loader: planar body models (`bodies:`, docs/model-format.md,
// "Bodies, joints and forces", "Named channels", "Haptic safety"). planar_model_file.cpp reads
// bodies, joints and forces; planar_model_channels.cpp the named channels and a coupling's
// safety filter. Every error is a ModelFileError with file, line, column and key. Setup-only.

#include <yaml-cpp/yaml.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/model_file/spec_refs.hpp"
#include "engine/model_file/yaml_reader.hpp"
#include "rtmb/models/force_output_filter.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/models/planar_multibody.hpp"
#include "rtmb/models/planar_outputs.hpp"

namespace rtmb::detail {

/// Builds the body model of `root`, assembles its initial conditions and fills the defaults
/// that depend on it (channel names, output units, f.notes, f.outputs).
[[nodiscard]] std::shared_ptr<const PlanarModelSpec> read_body_model(const YamlReader& r,
                                                                     const YAML::Node& root,
                                                                     ModelFile& f);

/// Input channels of a body model: the named `inputs` if any, else <body>.fx/.fy/.tz.
[[nodiscard]] std::vector<InputChannelSpec> body_input_channels(const PlanarModelSpec& spec);

/// forces[k].safety of a coupling (the ForceOutputFilter of its haptic_force outputs).
void read_safety(const YamlReader& r,
                 const YAML::Node& n,
                 const std::string& p,
                 ForceSafetyConfig& c);

/// The `drive` of one named input channel (node d at key p): what it acts on.
[[nodiscard]] PlanarInputSpec read_drive(const YamlReader& r,
                                         const YAML::Node& d,
                                         const std::string& p,
                                         const PlanarModelSpec& spec);

/// The channel defaults of named inputs (unit, watchdog kind, initial value from the drive).
[[nodiscard]] std::vector<InputChannelSpec> named_input_channels(const PlanarModelSpec& spec);

/// outputs.channels: the named outputs streamed instead of q and v (nothing without the key).
void read_output_channels(const YamlReader& r,
                          const YAML::Node& outputs,
                          const PlanarModelSpec& spec,
                          std::vector<PlanarOutputSpec>& out);

}  // namespace rtmb::detail
