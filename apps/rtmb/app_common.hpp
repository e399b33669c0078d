// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Small helpers shared by the rtmb subcommands (not real-time code).

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "apps/rtmb/number_checks.hpp"

namespace rtmb::app {

/// True when a MODEL argument names a model file rather than a built-in mechanism: it contains a
/// '/', ends in .yaml or .yml, or is an existing file.
[[nodiscard]] inline bool names_model_file(const std::string& model) {
  return model.find('/') != std::string::npos || model.ends_with(".yaml") ||
         model.ends_with(".yml") || std::filesystem::exists(model);
}

/// Nearest-rank percentiles of a sample set (e.g. round trips [us]); NaN when empty.
struct Percentiles {
  double p50 = NAN, p90 = NAN, p99 = NAN, max = NAN;
  std::size_t count = 0;
};

[[nodiscard]] inline Percentiles percentiles(std::vector<double> values) {
  Percentiles s;
  s.count = values.size();
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  // nearest rank: the smallest value with at least q of the samples at or below it
  const auto rank = [&values](double q) {
    const auto k = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
    return values[std::clamp<std::size_t>(k, 1, values.size()) - 1];
  };
  s.p50 = rank(0.50);
  s.p90 = rank(0.90);
  s.p99 = rank(0.99);
  s.max = values.back();
  return s;
}

}  // namespace rtmb::app
