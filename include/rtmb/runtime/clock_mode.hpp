// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// What clocks the server's loop (issue 14; `serve.clock` in the model file, `rtmb serve
// --clock`; docs/architecture.md "Clock modes").

#include <optional>
#include <string_view>

namespace rtmb {

/// What sets the instants of the loop's ticks.
enum class ClockMode {
  kWall,       ///< "wall": absolute deadlines at the rate on the loop's own clock
  kPhaseLock,  ///< "phase-lock": the rate, with the phase slewed so inputs arrive a margin early
  kDevice,     ///< "device": one tick per input of the clock master (lockstep, DeviceLoop)
};

/// "wall", "phase-lock" or "device"; "unknown" outside the enum.
[[nodiscard]] std::string_view to_string(ClockMode mode) noexcept;
/// The mode called name (the names of to_string), if any.
[[nodiscard]] std::optional<ClockMode> parse_clock_mode(std::string_view name) noexcept;

}  // namespace rtmb
