// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#include "net/view_decimation.hpp"

#include <algorithm>
#include <cmath>

namespace rtmb {

double view_decimation(double timer_hz,
                       double page_fps,
                       double current,
                       double sent_hz,
                       double animation_hz) noexcept {
  if (!(std::isfinite(timer_hz) && timer_hz > 0.0 && std::isfinite(page_fps) && page_fps > 0.0)) {
    return current;
  }
  // the frames per second this page was sent since its last report
  const double sent =
      std::isfinite(sent_hz) && sent_hz > 0.0 ? sent_hz : timer_hz / std::max(current, 1.0);
  if (page_fps >= 0.85 * sent) return std::clamp(0.5 * current, 1.0, kMaxViewDecimation);
  // it drew most of them and had animation frames to spare (a quarter more than it was sent):
  // what it missed came in bursts, two frames within one animation frame, and more frames fill
  // more of its idle animation frames (measured on the 1000-body chain: held at d = 2-3 it drew
  // 14-20 of 16-30 frames/s with 45-48 animation frames/s; at d = 1, 34-44 of 45-57)
  const bool spare = std::isfinite(animation_hz) && animation_hz >= 1.25 * sent;
  if (spare && page_fps >= 0.6 * sent) return std::clamp(0.5 * current, 1.0, kMaxViewDecimation);
  // between 60 % and 85 %: d stays. A page whose frames arrive in bursts (two within one of its
  // animation frames, the newer drawn) draws a fixed share of what it gets whatever the rate;
  // backing it off to F / 0.8 at each report would shrink its rate by that share every time
  // (measured: a 1000-body chain drawing 76 % of 27.5 frames/s was taken down to 12 in 6 s)
  if (page_fps >= 0.6 * sent) return std::clamp(current, 1.0, kMaxViewDecimation);
  // at most half the frames per report: one slow second (a tab in the background, a burst of
  // load) costs a page half its frames, not all but one in 30
  const double d = std::min(0.8 * timer_hz / page_fps, 2.0 * current);
  return std::clamp(d, 1.0, kMaxViewDecimation);
}

}  // namespace rtmb
