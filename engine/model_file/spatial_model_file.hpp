// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Internal to the model-file loader: spatial bodies (`dimension: spatial`) and the redundant-
// constraint check shared by planar and spatial body models (docs/model-format.md, "Spatial
// bodies" and "Redundant constraints"). Every error is a ModelFileError with file, line, column
// and key.

#include <yaml-cpp/yaml.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "rtmb/models/model_file.hpp"
#include "rtmb/models/spatial_multibody.hpp"
#include "rtmb/models/spatial_outputs.hpp"

namespace rtmb::detail {

/// True for `dimension: spatial`, false for `planar` or no key; other values fail.
[[nodiscard]] bool spatial_dimension(const YAML::Node& root, const std::string& path);

/// Reads `bodies`, `joints`, `forces` of a spatial model and assembles its initial state (notes
/// appended). Setup-only.
[[nodiscard]] std::shared_ptr<const SpatialModelSpec> read_spatial_model(
    const YAML::Node& root, const std::string& path, std::vector<std::string>& notes);

/// The rank check of G at the model's initial (assembled) state. Full rank: returns {}.
/// Redundant rows: with `redundant_constraints: remove` returns the independent rows to keep
/// (and says in `notes` which rows went); otherwise fails naming the joints whose rows are
/// dependent (`row_owner(row)` names the joint or body owning a row). Setup-only.
[[nodiscard]] std::vector<int> resolve_redundancy(const System& system,
                                                  const YAML::Node& root,
                                                  const std::string& path,
                                                  const std::function<std::string(int)>& row_owner,
                                                  std::vector<std::string>& notes);

/// Default input channels of a spatial model: per body <name>.fx/.fy/.fz [N] on the centre of
/// mass and <name>.qe0...qe3 [N*m], generalized forces on the Euler parameters (a torque n acts
/// as 2 E(e)^T n). Setup-only.
[[nodiscard]] std::vector<InputChannelSpec> spatial_input_channels(const SpatialModelSpec& spec);

/// outputs.channels of a spatial model (docs/model-format.md, "Spatial channels"); empty when
/// the file has none. Setup-only.
[[nodiscard]] std::vector<SpatialOutputSpec> read_spatial_outputs(const YAML::Node& root,
                                                                  const std::string& path,
                                                                  const SpatialModelSpec& spec);

/// Output units: q = (r [m], e [-]) per body, then v = (r' [m/s], e' [1/s]).
[[nodiscard]] std::vector<std::string> spatial_output_units(const SpatialModelSpec& spec);

}  // namespace rtmb::detail
