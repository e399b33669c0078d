// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Names and per-type numbers of enums (methods, stabilizers, joint types, time functions) as
// tables indexed by the enumerator: the enums are numbered 0, 1, ... in declaration order, so one
// table entry per enumerator in that order replaces a switch per property.

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace rtmb::detail {

// table[value], or `outside` for a value not in the enum (a cast from a bad integer).
template <typename T, std::size_t N, typename Enum>
constexpr T enum_lookup(const std::array<T, N>& table, Enum value, T outside) noexcept {
  const auto k = static_cast<std::size_t>(value);
  return k < N ? table[k] : outside;
}

// The name of `value`: "?" outside the enum.
template <std::size_t N, typename Enum>
constexpr std::string_view enum_name(const std::array<std::string_view, N>& names,
                                     Enum value) noexcept {
  return enum_lookup(names, value, std::string_view("?"));
}

// The enumerator called `name`, if any.
template <typename Enum, std::size_t N>
constexpr std::optional<Enum> enum_parse(const std::array<std::string_view, N>& names,
                                         std::string_view name) noexcept {
  for (std::size_t k = 0; k < N; ++k) {
    if (names[k] == name) return static_cast<Enum>(k);
  }
  return std::nullopt;
}

// "a, b, c": every name, for messages.
template <std::size_t N>
std::string enum_names(const std::array<std::string_view, N>& names) {
  std::string out;
  for (const std::string_view name : names) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

}  // namespace rtmb::detail
