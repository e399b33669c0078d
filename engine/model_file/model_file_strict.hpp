// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Internal to the model-file loader and its fuzz target (fuzz/fuzz_model.cpp).

#include <string>

#include "rtmb/models/model_file.hpp"

namespace rtmb::detail {

/// parse_model_file without its last guard: a yaml-cpp exception that escapes a reader (one that
/// looked inside a node without checking its kind, a loader bug) propagates as itself instead of
/// becoming a ModelFileError at its node, so that the fuzz target sees it. Setup-only.
[[nodiscard]] ModelFile parse_model_file_strict(const std::string& text, const std::string& path);

}  // namespace rtmb::detail
