// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// The device loop (issue 14, `serve.clock: device`): the driver of DeviceLockstep. It waits
// until the clock master's input arrives or the lockstep's deadline passes, tells the state
// machine which, and runs one step for every tick it releases.
//
// Design notes.
//
// Why a loop of its own and not a mode of DeadlineLoop. DeadlineLoop sleeps to deadlines on a
// grid; here the deadline is only a timeout and the wake-up is an input, so the wait, the
// decision (DeviceLockstep, clock-free and unit-tested alone) and the overrun policies differ.
// What both share is what the step and the telemetry see: the same Tick, LoopCounters,
// LoopHistograms and LoopTelemetry, so the server's stats and the step do not care which loop
// runs them.
//
// The waiter (concept InputWaiter) is the only contact with time and the socket:
//  * now(): the loop's clock [ns];
//  * wait_input_until(deadline): block until input is readable (true) or deadline passed
//    (false);
//  * take_inputs(): the number of master inputs that arrived since the last call, taking them
//    (the server's waiter drains the socket here, so the step must not drain it again: an input
//    it read would be applied without its own tick).
// The loop calls take_inputs() after every wait, timed out or not, so an input and a deadline
// at the same instant give the input's tick, not a wall tick (DeviceLockstep's seam rule).
//
// Accounting, as in DeadlineLoop where it means the same: compute = end - start of each step;
// slack = release + period - end, an overrun when negative (a step longer than a period makes
// the next input wait, and in kFree costs wall slots, counted in missed_ticks); lateness is the
// wake-up after a wall slot (input ticks run at the wake-up, and the network's delay before it
// is the runner's input-wait histogram). There is no overrun policy: a device-clocked loop
// cannot catch up (the ticks are the master's), and skipping is DeviceLockstep's own rule.
// LoopConfig's period_ns, max_ticks, telemetry and telemetry_every_ticks are used; the other
// fields are ignored.

#include <atomic>
#include <concepts>
#include <cstdint>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "rtmb/runtime/deadline_loop.hpp"
#include "rtmb/runtime/device_lockstep.hpp"

namespace rtmb {

/// What DeviceLoop waits with (see the file comment).
template <class W>
concept InputWaiter = requires(W& waiter, std::int64_t deadline_ns) {
  { waiter.now() }
  noexcept->std::same_as<std::int64_t>;
  { waiter.wait_input_until(deadline_ns) }
  noexcept->std::same_as<bool>;
  { waiter.take_inputs() }
  noexcept->std::same_as<int>;
};

/// Runs step once per tick released by a DeviceLockstep (see the file comment). The step is
/// held by value, the waiter by reference (it must outlive the loop). Construct at setup: the
/// histograms are about 23 KiB.
template <LoopStep Step, InputWaiter Waiter>
class DeviceLoop {
 public:
  /// Setup-only; throws std::invalid_argument for an invalid config (period, stale_after).
  DeviceLoop(const LoopConfig& config, std::int64_t stale_after_ns, Step step, Waiter& waiter)
      : config_(validated(config)),
        lockstep_(DeviceLockstepConfig{config.period_ns, stale_after_ns}),
        step_(std::move(step)),
        waiter_(&waiter) {}

  DeviceLoop(const DeviceLoop&) = delete;
  DeviceLoop& operator=(const DeviceLoop&) = delete;

  /// Runs on the calling thread until a stop request, max_ticks or the step returning false.
  /// Starts in kFree with a wall tick at once. RT-safe if the step and the waiter are.
  StopReason run() noexcept {
    counters_ = LoopCounters{};
    histograms_.reset();
    stop_reason_ = StopReason::kNone;
    waiting_messages_ = 0;
    lockstep_.begin(waiter_->now());
    for (;;) {
      if (stop_requested()) return stop(StopReason::kStopRequested);
      const bool readable = waiter_->wait_input_until(lockstep_.wait_deadline_ns());
      (void)readable;  // take_inputs() tells: a readable socket may hold no master input
      if (stop_requested()) return stop(StopReason::kStopRequested);
      const int inputs = waiter_->take_inputs();
      const std::int64_t wake_ns = waiter_->now();
      if (inputs > 0) {
        // each input's tick applies its own message; an absorbed input's message goes with
        // the next tick's (Tick::input_messages), so no data waits behind its own tick
        for (int i = 0; i < inputs; ++i) {
          ++waiting_messages_;
          if (!lockstep_.on_input(wake_ns)) continue;  // absorbed by the wall tick just run
          const StopReason r = run_tick(wake_ns, /*record_lateness=*/false, waiting_messages_);
          if (r != StopReason::kNone) return stop(r);
        }
      } else if (lockstep_.on_timeout(wake_ns)) {
        // a wall tick applies whatever waits (absorbed inputs' messages, `set` samples)
        const StopReason r = run_tick(wake_ns, /*record_lateness=*/true, /*messages=*/0);
        if (r != StopReason::kNone) return stop(r);
      }
    }
  }

  /// Asks run() to return before its next step. Any thread, async-signal-safe.
  void request_stop() noexcept { stop_requested_.store(true, std::memory_order_relaxed); }
  /// Forgets a stop request. Not while run() is running.
  void clear_stop_request() noexcept { stop_requested_.store(false, std::memory_order_relaxed); }
  [[nodiscard]] bool stop_requested() const noexcept {
    return stop_requested_.load(std::memory_order_relaxed);
  }

  /// Read on the loop thread or after run() returned.
  [[nodiscard]] const LoopCounters& counters() const noexcept { return counters_; }
  [[nodiscard]] const LoopHistograms& histograms() const noexcept { return histograms_; }
  [[nodiscard]] const DeviceLockstep& lockstep() const noexcept { return lockstep_; }
  [[nodiscard]] StopReason stop_reason() const noexcept { return stop_reason_; }
  [[nodiscard]] const LoopConfig& config() const noexcept { return config_; }
  [[nodiscard]] Step& step() noexcept { return step_; }

 private:
  static const LoopConfig& validated(const LoopConfig& config) {
    if (config.telemetry_every_ticks < 1) {
      throw std::invalid_argument("telemetry_every_ticks must be >= 1");
    }
    return config;  // period_ns and stale_after: DeviceLockstep's constructor
  }

  // One step for lockstep_.last_tick(), woken at wake_ns, applying `messages` input messages
  // (0: all that wait); kNone: go on.
  StopReason run_tick(std::int64_t wake_ns, bool record_lateness, int messages) noexcept {
    const LockstepTick& lt = lockstep_.last_tick();
    if (record_lateness) histograms_.lateness.record(wake_ns - lt.release_ns);
    Tick tick;
    tick.index = lt.sequence + lockstep_.counters().missed_slots;
    tick.deadline_ns = lt.release_ns;
    tick.release_ns = wake_ns;
    tick.sequence = lt.sequence;
    tick.input_messages = messages;
    waiting_messages_ = 0;
    const bool keep_going = step_(tick);
    const std::int64_t end_ns = waiter_->now();
    histograms_.compute.record(end_ns - wake_ns);
    const std::int64_t slack = lt.release_ns + config_.period_ns - end_ns;
    histograms_.slack.record(slack);
    LoopCounters& c = counters_;
    ++c.ticks;
    count_overrun(c, slack < 0);
    c.missed_ticks = lockstep_.counters().missed_slots;
    c.next_index = c.ticks + c.missed_ticks;
    if (config_.telemetry != nullptr && c.ticks % config_.telemetry_every_ticks == 0) publish();
    if (!keep_going) return StopReason::kStepRequestedStop;
    if (config_.max_ticks > 0 && c.ticks >= config_.max_ticks) return StopReason::kMaxTicks;
    return StopReason::kNone;
  }

  StopReason stop(StopReason reason) noexcept {
    stop_reason_ = reason;
    counters_.missed_ticks = lockstep_.counters().missed_slots;
    counters_.next_index = counters_.ticks + counters_.missed_ticks;
    if (config_.telemetry != nullptr) publish();
    return reason;
  }

  void publish() noexcept {
    publish_loop_telemetry(*config_.telemetry, counters_, histograms_, stop_reason_);
  }

  LoopConfig config_;
  DeviceLockstep lockstep_;
  Step step_;
  Waiter* waiter_;
  LoopCounters counters_;
  LoopHistograms histograms_;
  StopReason stop_reason_ = StopReason::kNone;
  int waiting_messages_ = 0;  // master inputs taken whose messages no tick applied yet
  std::atomic<bool> stop_requested_{false};
};

}  // namespace rtmb
