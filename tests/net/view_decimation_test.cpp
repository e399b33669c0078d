// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The view's per-page decimation (net/view_decimation.hpp): k = ceil(0.9 timer_hz / page_fps) in
// [1, kMaxViewDecimation], the frames a page gets (timer_hz / k) never more than it draws / 0.9.
#include "net/view_decimation.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace rtmb {
namespace {

TEST(ViewDecimation, APageThatDrawsEveryFrameGetsEveryFrame) {
  EXPECT_EQ(view_decimation(30.0, 60.0, 4), 1);
  EXPECT_EQ(view_decimation(30.0, 30.0, 4), 1);
  EXPECT_EQ(view_decimation(30.0, 27.0, 4), 1);  // 90 % of the frames: still all of them
}

TEST(ViewDecimation, ASlowPageGetsNoMoreFramesThanItDraws) {
  EXPECT_EQ(view_decimation(30.0, 26.0, 1), 2);
  EXPECT_EQ(view_decimation(30.0, 11.4, 1), 3);  // the software renderer of issue 20's report
  EXPECT_EQ(view_decimation(30.0, 10.0, 1), 3);
  EXPECT_EQ(view_decimation(30.0, 1.0, 1), 27);
  for (double fps = 0.5; fps < 40.0; fps *= 1.37) {
    const int k = view_decimation(30.0, fps, 1);
    // the rate it gets is at most what it draws / 0.9, and k is the smallest such
    if (k < kMaxViewDecimation) {
      EXPECT_LE(30.0 / k, fps / 0.9 + 1e-12) << fps;
    }
    if (k > 1) {
      EXPECT_GT(30.0 / (k - 1), fps / 0.9) << fps;
    }
  }
  EXPECT_EQ(view_decimation(30.0, 0.01, 1), kMaxViewDecimation);
}

TEST(ViewDecimation, AReportThatIsNotARateChangesNothing) {
  EXPECT_EQ(view_decimation(30.0, 0.0, 5), 5);
  EXPECT_EQ(view_decimation(30.0, -3.0, 5), 5);
  EXPECT_EQ(view_decimation(30.0, std::numeric_limits<double>::quiet_NaN(), 5), 5);
  EXPECT_EQ(view_decimation(30.0, std::numeric_limits<double>::infinity(), 5), 5);
}

}  // namespace
}  // namespace rtmb
