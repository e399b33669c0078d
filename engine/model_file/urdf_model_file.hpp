// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Internal to the model-file loader: URDF robots (docs/model-format.md, "URDF"), parsed by
// Debian's liburdfdom and compiled to a joint-space tree (rtmb/models/joint_space_tree.hpp).
// Every error is a ModelFileError naming the file, the line of the element and the link or joint.

#include <yaml-cpp/yaml.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/model_file/yaml_reader.hpp"
#include "rtmb/models/joint_space_outputs.hpp"
#include "rtmb/models/joint_space_tree.hpp"
#include "rtmb/models/model_file.hpp"

namespace rtmb::detail {

/// The joint-space tree of URDF text; `path` is used in messages only. Setup-only.
[[nodiscard]] JointSpaceSpec parse_urdf(const std::string& text, const std::string& path);

/// A ModelFile for a URDF file: its tree, gravity -9.81 m/s^2 along world z, the default
/// integration settings at dt = 1 ms without a stabilizer (a tree has no constraint rows; with
/// <mimic> rows, PStab), one torque (or force) input channel per joint coordinate named after the
/// joint. Setup-only.
[[nodiscard]] ModelFile urdf_model_file(const std::string& text, const std::string& path);

/// The tree of a YAML model file's `urdf: PATH` (relative to the YAML file's folder), with its
/// `initial_positions` / `initial_velocities` mappings from joint name to value applied, its
/// `joints` (loop closures between named links, mimic rows) and `forces` (gravity, springs,
/// joint springs, efforts). Errors in the URDF name the URDF file; errors in the YAML the key.
/// Setup-only.
[[nodiscard]] std::shared_ptr<const JointSpaceSpec> read_urdf_model(const YamlReader& r,
                                                                    const YAML::Node& root);

/// The `outputs.channels` of a YAML file with `urdf:` (joint and link names). Setup-only.
[[nodiscard]] std::vector<JointSpaceOutputSpec> read_urdf_outputs(const YamlReader& r,
                                                                  const YAML::Node& root,
                                                                  const JointSpaceSpec& spec);

/// PStab when the spec has constraint rows (closures, <mimic>), none for a plain tree.
[[nodiscard]] StabilizerKind joint_space_stabilizer(const JointSpaceSpec& spec) noexcept;

/// One generalized-force channel per joint coordinate, named after the joint (N*m or N).
[[nodiscard]] std::vector<InputChannelSpec> urdf_input_channels(const JointSpaceSpec& spec);

/// The units of q then v: rad or m, rad/s or m/s per coordinate.
[[nodiscard]] std::vector<std::string> urdf_output_units(const JointSpaceSpec& spec);

}  // namespace rtmb::detail
