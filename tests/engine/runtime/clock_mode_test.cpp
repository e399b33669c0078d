// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The clock mode names of `serve.clock` and `rtmb serve --clock` (docs/model-format.md).
#include "rtmb/runtime/clock_mode.hpp"

#include <gtest/gtest.h>

namespace rtmb {
namespace {

TEST(RuntimeClockMode, NamesAreTheDocumentedOnesAndParseBack) {
  EXPECT_EQ(to_string(ClockMode::kWall), "wall");
  EXPECT_EQ(to_string(ClockMode::kPhaseLock), "phase-lock");
  EXPECT_EQ(to_string(ClockMode::kDevice), "device");
  for (const ClockMode m : {ClockMode::kWall, ClockMode::kPhaseLock, ClockMode::kDevice}) {
    EXPECT_EQ(parse_clock_mode(to_string(m)), m);
  }
  EXPECT_FALSE(parse_clock_mode("phase_lock").has_value());
  EXPECT_FALSE(parse_clock_mode("").has_value());
  EXPECT_EQ(to_string(static_cast<ClockMode>(7)), "unknown");
}

}  // namespace
}  // namespace rtmb
