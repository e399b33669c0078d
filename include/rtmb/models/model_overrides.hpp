// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Model files with some values replaced (issue 18: parameter studies from Python, sweeps): each
// override names a value by its key path and gives the new value as YAML text; the file is then
// read as if the value had been written in it, so it is validated by the same code, with the
// same messages (rtmb/models/model_file.hpp, docs/model-format.md "Overrides").

#include <span>
#include <string>

#include "rtmb/models/model_file.hpp"

namespace rtmb {

/// One value of a model file replaced before the file is read.
struct ModelOverride {
  /// The key path as the loader's errors spell it: "integration.dt", "bodies[2].mass",
  /// "forces[0].vector"; [NAME] selects the list entry whose `name` is NAME
  /// ("bodies[crank].mass"). A missing mapping key is added, then checked like any key.
  std::string key;
  std::string value;  ///< the new value as YAML text: "5e-4", "rk4", "[0, -9.81]"
};

/// load_model_file with overrides, applied in order (a later one of the same key wins). A key
/// path that leads nowhere (an index past the end, a name no entry has, a step into a scalar)
/// throws ModelFileError "FILE: override 'KEY': reason"; an error about an overridden value
/// ends with "(value set by override 'KEY' = VALUE)". Setup-only.
[[nodiscard]] ModelFile load_model_file(const std::string& path,
                                        std::span<const ModelOverride> overrides);

/// The same for YAML text already in memory; `path` is used in messages only.
[[nodiscard]] ModelFile parse_model_file(const std::string& text,
                                         const std::string& path,
                                         std::span<const ModelOverride> overrides);

}  // namespace rtmb
