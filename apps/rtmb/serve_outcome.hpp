// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// How a served run ended, said on stderr and in the exit code (issue 15, point 4): a server
// halted by `--overrun halt` exits 3 with the reason; a run that missed more than 1 % of its
// deadlines warns once with the rate its measured median tick allows. Not real-time code.

#include "rtmb/runtime/deadline_loop.hpp"
#include "rtmb/runtime/log_histogram.hpp"

namespace rtmb::app {

/// Overrun rate above which a served run warns at the end.
inline constexpr double kOverrunWarningRate = 0.01;

/// The exit code serve returns for a halted loop.
inline constexpr int kHaltedExitCode = 3;

/// Prints the halt reason or the overrun warning on stderr when they apply; returns
/// kHaltedExitCode for a halted loop, else 0.
int report_serve_outcome(StopReason reason,
                         const LoopCounters& counters,
                         const HistogramSummary& compute,
                         double rate_hz,
                         int halt_after);

}  // namespace rtmb::app
