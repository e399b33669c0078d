// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Internal to the model-file loader: applies ModelOverrides (include/rtmb/models/model_file.hpp)
// to the parsed YAML tree before the loader reads it, so an overridden value is checked exactly
// as if it had been written in the file. Setup-only.

#include <yaml-cpp/yaml.h>

#include <span>
#include <string>
#include <vector>

#include "rtmb/models/model_overrides.hpp"

namespace rtmb::detail {

/// Sets each override's value in root, in order (a later override of the same key wins). Returns
/// the resolved key of each override, as the loader spells keys in its errors ("bodies[2].mass"
/// for "bodies[crank].mass"). Throws ModelFileError "PATH: override 'KEY': reason" for a key
/// path that does not lead to a value (an index past the end, a name no entry has, a step into
/// a scalar) or a value that is not YAML.
std::vector<std::string> apply_overrides(YAML::Node& root,
                                         std::span<const ModelOverride> overrides,
                                         const std::string& path);

}  // namespace rtmb::detail
