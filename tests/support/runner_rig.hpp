// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// What the simulation thread owns, built at setup, for the tests and benchmarks of
// SimulationRunner (tests/engine/runtime/simulation_runner_test.cpp, input_channels_test.cpp,
// bench/loop_bench.cpp): a built-in mechanism's model, workspace and state, the input ring and the
// snapshot slot (RunnerParts), and a runner over them on a FakeClock (RunnerRig).

#include <cstdint>
#include <memory>

#include "rtmb/models/mechanisms.hpp"
#include "rtmb/runtime/deadline_loop.hpp"
#include "rtmb/runtime/monotonic_clock.hpp"
#include "rtmb/runtime/simulation_runner.hpp"
#include "rtmb/step.hpp"

namespace rtmb::testing {

/// Everything a SimulationRunner works on, with default settings.
struct RunnerParts {
  explicit RunnerParts(const char* mechanism, const MechanismOptions& options = {})
      : model(make_mechanism(mechanism, options), Settings{}),
        ws(model),
        state(initial_state(model)) {}

  Model model;
  Workspace ws;
  State state;
  std::unique_ptr<InputRing> inputs = std::make_unique<InputRing>();
  std::unique_ptr<SnapshotSlot> snapshots = std::make_unique<SnapshotSlot>();
};

/// RunnerParts with the runner over them, driven by a DeadlineLoop on a FakeClock.
struct RunnerRig : RunnerParts {
  explicit RunnerRig(const char* mechanism,
                     const MechanismOptions& options = {},
                     const RunnerConfig& config = {})
      : RunnerParts(mechanism, options), runner(model, state, ws, *inputs, *snapshots, config) {}

  /// Runs `ticks` loop ticks on the fake clock and returns why the loop stopped.
  StopReason run(std::int64_t ticks) {
    LoopConfig lc;
    lc.period_ns = runner.period_ns();
    lc.max_ticks = ticks;
    DeadlineLoop loop(lc, runner.step_fn(), clock);
    return loop.run();
  }

  SimulationRunner runner;
  FakeClock clock;
};

}  // namespace rtmb::testing
