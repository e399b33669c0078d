// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Internal to the output channels of the body models (planar_outputs.cpp, spatial_outputs.cpp):
// each output kind's component suffixes, one string per kind in a table indexed by the kind
// ("x y theta"; "" for a kind with a single component, named by its channel alone), from which
// the component count and the scalar channel names follow.

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rtmb::detail {

// Components of the kind at `type` in `suffixes`: one per suffix, 1 without any, 0 outside.
template <std::size_t N, typename Enum>
constexpr int components_of(const std::array<std::string_view, N>& suffixes, Enum type) noexcept {
  const auto k = static_cast<std::size_t>(type);
  if (k >= N) return 0;
  int n = 1;
  for (const char c : suffixes[k]) n += c == ' ' ? 1 : 0;
  return n;
}

// The suffixes of the kind at `type` as a list; empty for a single component or outside.
template <std::size_t N, typename Enum>
std::vector<std::string> suffixes_of(const std::array<std::string_view, N>& suffixes, Enum type) {
  std::vector<std::string> out;
  const auto k = static_cast<std::size_t>(type);
  if (k >= N || suffixes[k].empty()) return out;
  std::string_view rest = suffixes[k];
  for (std::size_t space = rest.find(' '); space != std::string_view::npos;
       space = rest.find(' ')) {
    out.emplace_back(rest.substr(0, space));
    rest.remove_prefix(space + 1);
  }
  out.emplace_back(rest);
  return out;
}

// The scalar channels (name, unit) of `outputs` in schema order: "<name>.<suffix>" or "<name>"
// (output_suffixes and output_components of the outputs' kind type, found by ADL).
template <class OutputSpec>
std::vector<std::pair<std::string, std::string>> scalar_channels(
    const std::vector<OutputSpec>& outputs) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const OutputSpec& o : outputs) {
    const std::vector<std::string> suffixes = output_suffixes(o.type);
    for (int c = 0; c < output_components(o.type); ++c) {
      const auto k = static_cast<std::size_t>(c);
      out.emplace_back(suffixes.empty() ? o.name : o.name + "." + suffixes[k],
                       k < o.units.size() ? o.units[k] : std::string());
    }
  }
  return out;
}

}  // namespace rtmb::detail
