// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The view's per-page decimation (net/view_decimation.hpp): a page that draws at least 85 % of
// the frames it was sent is sent twice as many, a slower one page_fps / 0.8 frames per second
// (d = 0.8 timer_hz / page_fps) but at least half as many as before, d in [1,
// kMaxViewDecimation]; and the pacer that sends one tick in d on average.
#include "net/view_decimation.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace rtmb {
namespace {

TEST(ViewDecimation, APageThatDrawsEveryFrameGetsEveryFrame) {
  EXPECT_EQ(view_decimation(60.0, 60.0, 1.0, 0.0), 1.0);
  EXPECT_EQ(view_decimation(60.0, 54.0, 1.0, 0.0), 1.0);  // 90 % of the frames: still all of them
  // a page that drew all the 15 frames per second it got is sent 30
  EXPECT_EQ(view_decimation(60.0, 15.0, 4.0, 0.0), 2.0);
  EXPECT_EQ(view_decimation(60.0, 13.0, 4.0, 0.0), 2.0);  // more than 85 % of them
  EXPECT_EQ(view_decimation(60.0, 12.5, 4.0, 0.0), 4.0);  // 60-85 %: the same d
  EXPECT_EQ(view_decimation(60.0, 9.5, 4.0, 0.0), 4.0);
  EXPECT_EQ(view_decimation(60.0, 8.0, 4.0, 0.0), 6.0);  // fewer than 60 %: 0.8 * 60 / 8
}

// A page whose frames arrive in bursts draws a fixed share of what it gets, at any rate. Backing
// it off to F / 0.8 would give it F / 0.8 and see it draw the same share again, report after
// report: at 76 % its rate would fall 5 % per report (this happened on a 1000-body chain: 21
// frames/s drawn of 27.5 became 12 of 17 within six reports). It keeps its rate.
TEST(ViewDecimation, APageThatDropsAFixedShareOfBurstsKeepsItsRate) {
  for (const double share : {0.62, 0.76, 0.84}) {
    double d = 1.0;
    for (int report = 0; report < 20; ++report) {
      const double sent = 30.0 / d;
      d = view_decimation(30.0, share * sent, d, sent);
    }
    EXPECT_EQ(d, 1.0) << share;
  }
}

TEST(ViewDecimation, ASlowPageSettlesWhereItDrawsSixtyToEightyFivePercentHalvingAtMostPerReport) {
  // a page that draws fps whatever it gets, less than 60 % of the 60 it gets at first: within a
  // few reports the rate it gets, timer_hz / d, is one it draws 60-85 % of (F / 0.8 when the
  // back-off lands there, else where halving first enters the band), and then stays; each
  // report at most halves it
  for (double fps = 2.5; fps < 36.0; fps *= 1.37) {
    double d = 1.0;
    for (int report = 0; report < 8; ++report) {
      const double next = view_decimation(60.0, fps, d, 0.0);
      EXPECT_LE(next, 2.0 * d) << fps;
      EXPECT_GE(next, d) << fps;
      d = next;
    }
    EXPECT_GE(fps, 0.6 * 60.0 / d) << fps;
    EXPECT_LT(fps, 0.85 * 60.0 / d) << fps;
    EXPECT_EQ(view_decimation(60.0, fps, d, 0.0), d) << fps << ": settled";
  }
  EXPECT_EQ(view_decimation(60.0, 0.01, 1.0, 0.0), 2.0);
  EXPECT_EQ(view_decimation(60.0, 0.01, 20.0, 0.0), kMaxViewDecimation);
  // one that draws 60 % or more of them is left at the full rate
  for (const double fps : {36.0, 42.6, 50.0}) EXPECT_EQ(view_decimation(60.0, fps, 1.0, 0.0), 1.0);
}

// The cases whole decimations, or no probing, could not serve (net/view_decimation.hpp says why):
// a page able to draw 45 of 60 frames per second that was sent 2 frames per second (after slow
// seconds) climbs to drawing its 45 within a few reports and stays there (45 of 60 is 75 %: it
// keeps all 60, and a page able to draw 30 gets 30 / 0.8); a page faster than the timer gets
// all 60.
TEST(ViewDecimation, APageThatKeepsUpIsOfferedMoreUntilItsOwnLimit) {
  for (const double capacity : {30.0, 45.0, 100.0}) {
    double d = kMaxViewDecimation;
    std::vector<double> drawn;
    for (int second = 0; second < 12; ++second) {
      drawn.push_back(std::min(capacity, 60.0 / d));  // it draws what it gets, up to its limit
      d = view_decimation(60.0, drawn.back(), d, 0.0);
    }
    // 2, 4, 8, 16, 32, then 60 (capacity 100) or 45 (capacity 45): the limit by the 6th
    EXPECT_EQ(drawn[5], std::min(capacity, 60.0)) << capacity;
    for (std::size_t s = 5; s < drawn.size(); ++s) EXPECT_EQ(drawn[s], drawn[5]) << capacity;
    EXPECT_NEAR(60.0 / d, capacity >= 36.0 ? 60.0 : capacity / 0.8, 1e-9) << capacity;
  }
}

// A page that drew 60-85 % of what it got but had idle animation frames (a quarter more than the
// frames it was sent) lost the rest to bursts, not to its own speed: it is offered twice as many.
// Without idle animation frames, or with its animation frames unknown (0, NaN: an older page), d
// holds as above; below 60 % the animation frames change nothing.
TEST(ViewDecimation, APageWithIdleAnimationFramesIsOfferedMoreThoughBurstsCostItFrames) {
  // the 1000-body chain: 20 sent, 15 drawn (75 %), 47 animation frames per second
  EXPECT_EQ(view_decimation(60.0, 15.0, 3.0, 20.0, 47.0), 1.5);
  EXPECT_EQ(view_decimation(60.0, 15.0, 3.0, 20.0, 25.0), 1.5);  // 1.25 x 20: just enough
  EXPECT_EQ(view_decimation(60.0, 15.0, 3.0, 20.0, 24.0), 3.0);  // no idle animation frames
  EXPECT_EQ(view_decimation(60.0, 15.0, 3.0, 20.0, 0.0), 3.0);
  EXPECT_EQ(view_decimation(60.0, 15.0, 3.0, 20.0, std::numeric_limits<double>::quiet_NaN()), 3.0);
  EXPECT_EQ(view_decimation(60.0, 15.0, 1.0, 20.0, 47.0), 1.0);  // at the timer's rate already
  // drew under 60 %: it is slow whatever its animation frames, backed off to 0.8 * 60 / 10
  EXPECT_EQ(view_decimation(60.0, 10.0, 3.0, 20.0, 60.0), 4.8);
}

// The rate a page was really sent is what it is compared with: a view's timer late on a loaded
// machine sent 20 frames per second at d = 1, not 60; a page that drew those 20 keeps up.
TEST(ViewDecimation, APageIsComparedWithTheFramesItWasReallySent) {
  EXPECT_EQ(view_decimation(60.0, 20.0, 2.0, 20.0), 1.0);  // drew them all: twice as many
  EXPECT_EQ(view_decimation(60.0, 20.0, 2.0, 0.0), 2.0);   // of the nominal 30: 67 %, held
  EXPECT_EQ(view_decimation(60.0, 15.0, 2.0, 0.0), 3.2);   // 50 %: slower, 0.8 * 60 / 15
  EXPECT_EQ(view_decimation(60.0, 10.0, 1.0, 20.0), 2.0);  // drew half: at most half as many
}

TEST(ViewDecimation, AReportThatIsNotARateChangesNothing) {
  EXPECT_EQ(view_decimation(60.0, 0.0, 5.0, 0.0), 5.0);
  EXPECT_EQ(view_decimation(60.0, -3.0, 5.0, 0.0), 5.0);
  EXPECT_EQ(view_decimation(60.0, std::numeric_limits<double>::quiet_NaN(), 5.0, 0.0), 5.0);
  EXPECT_EQ(view_decimation(60.0, std::numeric_limits<double>::infinity(), 5.0, 0.0), 5.0);
}

// n ticks at decimation d send floor(n / d) or one more frames, and no two sent ticks are closer
// than floor(d) or farther apart than ceil(d): evenly spread.
TEST(ViewFramePacer, SendsOneTickInDOnAverageEvenlySpread) {
  for (const double d : {1.0, 1.2, 1.25, 1.5, 2.0, 2.7, 5.4, 30.0}) {
    ViewFramePacer pacer;
    int sent = 0;
    int last = -1;
    const int n = 600;
    for (int tick = 0; tick < n; ++tick) {
      if (!pacer.tick(d)) continue;
      ++sent;
      if (last >= 0) {
        EXPECT_GE(tick - last, static_cast<int>(std::floor(d + 1e-9))) << d;
        EXPECT_LE(tick - last, static_cast<int>(std::ceil(d - 1e-9))) << d;
      }
      last = tick;
    }
    EXPECT_GE(sent, static_cast<int>(std::floor(n / d + 1e-9))) << d;
    EXPECT_LE(sent, static_cast<int>(std::floor(n / d + 1e-9)) + 1) << d;
  }
}

}  // namespace
}  // namespace rtmb
