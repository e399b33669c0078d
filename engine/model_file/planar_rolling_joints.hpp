// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Internal to the model-file loader: the planar joints with velocity rows (docs/model-format.md,
// "Knife edges and rolling wheels"; issue 16), `knife_edge` and `rolling_wheel` entries of
// `joints:`. Their keys differ from the two-body joints' (one body against the ground), so they
// are read here. Setup-only; every error is a ModelFileError with file, line, column and key.

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "engine/model_file/yaml_reader.hpp"
#include "rtmb/models/planar_multibody.hpp"

namespace rtmb::detail {

/// Reads joints[k] (node j at key p) when its `type` is `knife_edge` or `rolling_wheel` and
/// returns true; false (nothing read) for any other type. A knife edge becomes one kKnifeEdge
/// entry, a rolling wheel a kRollingContact entry named after it and a kRollingNoSlip entry named
/// "<name>.no_slip". The nonholonomic entries go to `last`, which the caller appends after every
/// other joint (their rows must be the System's last, rtmb/system.hpp); the contact row goes to
/// spec.joints. Names must differ from those in spec.joints and `last`.
bool read_rolling_joint(const YamlReader& r,
                        const YAML::Node& j,
                        const std::string& p,
                        PlanarModelSpec& spec,
                        std::vector<PlanarJointSpec>& last);

}  // namespace rtmb::detail
