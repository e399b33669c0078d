// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#include "rtmb/runtime/clock_mode.hpp"

#include <array>

#include "engine/model/enum_names.hpp"

namespace rtmb {
namespace {

// by enumerator value (the enum counts from 0 without gaps, enum_names.hpp)
constexpr std::array<std::string_view, 3> kClockModeNames = {"wall", "phase-lock", "device"};

}  // namespace

std::string_view to_string(ClockMode mode) noexcept {
  return detail::enum_lookup(kClockModeNames, mode, std::string_view("unknown"));
}

std::optional<ClockMode> parse_clock_mode(std::string_view name) noexcept {
  return detail::enum_parse<ClockMode>(kClockModeNames, name);
}

}  // namespace rtmb
