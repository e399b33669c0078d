// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// How many of the view's frames one page gets (issue 20 point 6: "decimation chosen by the
// server from the page's frame rate"). The page reports the rate at which it draws frames with
// new content (docs/protocol.md "Live view", the `frame_rate` message); the server then sends
// that session one frame in every d ticks of its timer on average, d real, so that a page that
// cannot draw them all is not made to parse frames it will never show (a 1000-body chain's frame
// is ~60 kB of JSON).
//
// Why a real d and not every k-th frame: the page counts only frames it drew with new content, so
// a page never draws more than it gets. With whole k, a page able to draw 45 of a 60 Hz timer's
// frames would get every 2nd (30/s), draw those 30, report 30, and stay at k = 2 for good: 60/k
// has nothing between 60 and 30. And for the same reason a page that draws all it gets must be
// offered more, or a page that reported a slow first second (the scene being built, the shaders
// compiled) would stay slow: such a page is offered twice as many at each report, until it gets
// the timer's rate or draws fewer than it gets (its own limit, which it then keeps).

namespace rtmb {

/// Largest d: a page gets at least one frame in kMaxViewDecimation ticks of the timer.
inline constexpr double kMaxViewDecimation = 30.0;

/// The decimation d for a page that draws page_fps frames per second while the view's timer runs
/// at timer_hz, and that was sent sent_hz frames per second since its last report (measured by
/// its session; when not a positive finite rate, timer_hz / current, the nominal rate at d =
/// current):
///  - it drew at least 85 % of them (it keeps up): d = current / 2, twice the frames;
///  - it drew 60-85 % of them and had a quarter more animation frames than it was sent
///    (animation_hz, the page's requestAnimationFrame rate; 0 or not finite: unknown): d =
///    current / 2. Its missed frames came in bursts (two within one animation frame), and more
///    frames fill more of its idle animation frames;
///  - it drew 60-85 % of them otherwise: d = current. A page whose frames arrive in bursts draws a
///  fixed
///    share of what it gets at any rate; the rule below would then cut its rate by that share at
///    every report, down to nothing (measured on a 1000-body chain before this band existed);
///  - else d = 0.8 timer_hz / page_fps: it gets page_fps / 0.8, a quarter more than it draws
///    (inside the band, so d then stays), but no less than half what it got (d <= 2 current): a
///    slow page settles within a few reports where it draws 60-85 % of what it gets, a page slow
///    for one second recovers in one.
/// The 85 %: a page that keeps up still loses a frame now and then (two arriving within one
/// animation frame, the newest drawn), and its one-second count and the session's differ by a
/// frame (10 % at 10 frames per second); measured in headless Chromium, pages that kept up drew
/// 94-100 % of what they got on a quiet machine, 70-80 % with the simulation thread holding one
/// of two cores. The 0.8 (< 0.85): a page at its own limit, drawing 80 % of what it gets, is not
/// offered more again, so d settles instead of doubling and halving.
/// d is clamped to [1, kMaxViewDecimation]. A report that is not a finite positive rate, or a
/// timer_hz that is not, returns `current`.
[[nodiscard]] double view_decimation(double timer_hz,
                                     double page_fps,
                                     double current,
                                     double sent_hz,
                                     double animation_hz = 0.0) noexcept;

/// Per-page pacing of the timer's frames at a real decimation d: every tick adds one to a credit,
/// a frame is sent when the credit reaches d and takes d from it, so n ticks send floor(n / d) or
/// one more frames, evenly spread. No allocation.
class ViewFramePacer {
 public:
  /// One tick of the view's timer at decimation d (>= 1): whether this page gets its frame.
  [[nodiscard]] bool tick(double d) noexcept {
    credit_ += 1.0;
    // the 1e-9: d = 1.25 must send exactly 4 of every 5 ticks despite rounding in the sums
    if (credit_ + 1e-9 < d) return false;
    credit_ -= d;
    if (credit_ < 0.0) credit_ = 0.0;
    return true;
  }

 private:
  double credit_ = 0.0;
};

}  // namespace rtmb
