// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// The engine-side real-time runtime (issue 3, "Deadline loop"; no networking inside):
//
//   runtime/log_histogram.hpp      LogHistogram: O(1) log-bucket histogram of durations
//   runtime/spsc_ring.hpp          SpscRing: bounded wait-free queue for inputs and events
//   runtime/latest_value.hpp       LatestValue: wait-free triple buffer for state snapshots
//   runtime/monotonic_clock.hpp    MonotonicClock (CLOCK_MONOTONIC, absolute sleeps), FakeClock
//   runtime/deadline_loop.hpp      DeadlineLoop: fixed period, absolute deadlines, overrun
//                                  policies (skip / catch-up / degrade / halt), histograms
//   runtime/rt_setup.hpp           mlockall, SCHED_FIFO, CPU affinity, stack prefault: results
//   runtime/input_channels.hpp     InputChannelBank: per-channel hold/extrapolate/decay, watchdog
//   runtime/simulation_runner.hpp  SimulationRunner (drain inputs -> step -> publish snapshot),
//                                  StateSnapshot and QueuedInput (trivially copyable)
//   runtime/record.hpp             Recorder and record files (what was applied, tick by tick)
//   runtime/phase_lock.hpp         PhaseLock: slews the tick phase so inputs arrive a margin
//                                  before each tick (clock mode phase-lock, LoopConfig::phase_lock)
//   runtime/device_lockstep.hpp    DeviceLockstep: one tick per master input, wall ticks when
//                                  it is silent (clock mode device; not wired yet)
//   runtime/clock_mode.hpp         ClockMode: wall, phase-lock, device (`serve.clock`)
//
// Typical use on the simulation thread (setup first, then the loop; nothing after setup
// allocates):
//
//   const Model model(make_mechanism("pendulum"), settings);
//   Workspace ws(model);
//   State state = initial_state(model);
//   auto inputs = std::make_unique<InputRing>();        // the network thread pushes
//   auto snapshots = std::make_unique<SnapshotSlot>();  // the network thread reads
//   SimulationRunner runner(model, state, ws, *inputs, *snapshots);
//   const RtSetupReport rt = setup_realtime({});        // log refusals from here, once
//   LoopConfig config;
//   config.period_ns = runner.period_ns();
//   MonotonicClock clock;
//   DeadlineLoop loop(config, runner.step_fn(), clock);
//   const StopReason why = loop.run();                  // until loop.request_stop()

#include "rtmb/runtime/clock_mode.hpp"
#include "rtmb/runtime/deadline_loop.hpp"
#include "rtmb/runtime/device_lockstep.hpp"
#include "rtmb/runtime/input_channels.hpp"
#include "rtmb/runtime/latest_value.hpp"
#include "rtmb/runtime/log_histogram.hpp"
#include "rtmb/runtime/monotonic_clock.hpp"
#include "rtmb/runtime/phase_lock.hpp"
#include "rtmb/runtime/record.hpp"
#include "rtmb/runtime/rt_setup.hpp"
#include "rtmb/runtime/simulation_runner.hpp"
#include "rtmb/runtime/spsc_ring.hpp"
