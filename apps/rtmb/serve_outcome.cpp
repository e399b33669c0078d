// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// `rtmb serve`'s ending (apps/rtmb/serve_outcome.hpp).
#include "apps/rtmb/serve_outcome.hpp"

#include <cstdio>

namespace rtmb::app {

namespace {

/// The highest loop rate the median tick leaves room for [Hz]: one median compute per period.
/// The median, not the tail: the tail is what the overrun policy absorbs.
double rate_allowed_by(const HistogramSummary& compute) {
  return compute.p50 > 0 ? 1e9 / static_cast<double>(compute.p50) : 0.0;
}

}  // namespace

int report_serve_outcome(StopReason reason,
                         const LoopCounters& c,
                         const HistogramSummary& compute,
                         double rate_hz,
                         int halt_after) {
  const double allowed = rate_allowed_by(compute);
  if (reason == StopReason::kHalted) {
    std::fprintf(stderr,
                 "rtmb serve: halted: %d overruns in a row (--overrun halt --halt-after %d) after "
                 "%lld ticks at %.0f Hz; the median tick took %.1f us of a %.1f us period (at "
                 "most ~%.0f Hz fits); a lower --rate or a larger --halt-after keeps it running\n",
                 halt_after, halt_after, static_cast<long long>(c.ticks), rate_hz,
                 1e-3 * static_cast<double>(compute.p50), 1e6 / rate_hz, allowed);
    return kHaltedExitCode;
  }
  const double overrun_rate =
      c.ticks > 0 ? static_cast<double>(c.overruns) / static_cast<double>(c.ticks) : 0.0;
  if (overrun_rate > kOverrunWarningRate) {
    std::fprintf(stderr,
                 "rtmb serve: warning: %.1f %% of the ticks overran their deadline (%lld of "
                 "%lld) at %.0f Hz; the measured median tick (%.1f us) allows at most ~%.0f Hz\n",
                 100.0 * overrun_rate, static_cast<long long>(c.overruns),
                 static_cast<long long>(c.ticks), rate_hz, 1e-3 * static_cast<double>(compute.p50),
                 allowed);
  }
  return 0;
}

}  // namespace rtmb::app
