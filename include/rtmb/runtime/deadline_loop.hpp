// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// The deadline loop: runs a step at a fixed period on absolute deadlines, measures every tick,
// and applies an overrun policy when a step does not finish in time.
//
// Design notes.
//
// Absolute deadlines. Tick k is released at D(k) = start + k * period + offset and should
// finish by D(k+1); offset is 0 unless a phase lock moves the grid (shift_phase below). Computing
// each deadline from the start, rather than sleeping "period" after the end of the last step or
// adding the period to a running total of wake-up times, means wake-up lateness and compute time
// never accumulate into a drift of the phase: a late tick is late alone, and the grid stays where
// it was, in step with wall-clock time and with any other device sampling on the same grid.
//
// Overruns. A step overruns when it ends after D(k+1). Ticks whose release time has already
// passed when the loop is free again are "due". What to do with them is the policy:
//  * kSkip (default): skip them, count them (missed_ticks), and run the first tick whose
//    deadline is still ahead, on time. The phase is kept, the real-time thread never runs
//    behind wall-clock time, and an overload cannot snowball: a slow step costs ticks, not
//    latency. Simulated time falls behind wall time by the skipped steps, which is the right
//    trade for an interactive simulator (a device sees fresh state, not a queue of old state),
//    so it is the default.
//  * kCatchUp: run due ticks back to back, without sleeping, so simulated time keeps up with
//    wall time, but at most max_catch_up of them per episode (an episode ends when a tick starts
//    on time); the rest are skipped as in kSkip. The bound keeps a step that is always too slow
//    from starving everything else.
//  * kDegrade: skip as in kSkip, and raise a degrade level (passed to the step in Tick) after
//    each overrun, up to max_degrade_level; lower it by one after degrade_recover_ticks good
//    ticks in a row. The loop only manages the level; the step decides what it means (fewer
//    iterations, a cheaper stabilizer, sub-steps dropped).
//  * kHalt: skip as in kSkip, but after halt_after_overruns consecutive overruns stop the loop
//    and call the safe-state hook (e.g. command zero torque); run() reports kHalted.
//
// Measurements. For every step: wake lateness (wake-up time - deadline, for ticks that slept;
// catch-up ticks do not sleep and are not wake-ups), compute time (end - start) and slack
// (D(k+1) - end; negative on overrun, see LogHistogram::below_zero()) into LogHistograms, plus
// counters. The loop thread never logs: a telemetry thread reads LoopTelemetry snapshots that
// the loop publishes every telemetry_every_ticks ticks into a LatestValue.
//
// Phase shifts (issue 14, clock mode phase-lock). shift_phase(d) moves the whole grid of the
// ticks after the current one by d: offset += d. The grid index is not touched, so no tick is
// lost or doubled (ticks + missed_ticks == next_index still holds), and the shift is bounded:
// |d| <= period / 4, so one period is never shortened or lengthened by more than a quarter, and
// a deadline is never moved before the end of the last step, so that a shift alone cannot make
// the next tick a catch-up tick (a negative shift is cut to what keeps it on time). With
// LoopConfig::phase_lock set, the scheduler asks the PhaseLock for its correction after each
// step and applies it with shift_phase; the step reports the tick's input arrivals to the same
// PhaseLock (SimulationRunner::set_phase_lock), with Tick::release_ns as the release time.
//
// Structure. LoopScheduler holds the policy and bookkeeping; it knows nothing of clocks or
// steps (plain timestamps in, decisions out), so it is compiled once. DeadlineLoop<Step, Clock>
// is the thin driver that sleeps, calls the step and feeds the timestamps to the scheduler. The
// step is a template parameter, not std::function: no allocation, no type-erased call, and its
// noexcept is checked at compile time.

#include <atomic>
#include <concepts>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "rtmb/runtime/latest_value.hpp"
#include "rtmb/runtime/log_histogram.hpp"
#include "rtmb/runtime/monotonic_clock.hpp"
#include "rtmb/runtime/spsc_ring.hpp"

namespace rtmb {

class PhaseLock;  // rtmb/runtime/phase_lock.hpp

/// What the loop does when a step ends after the next tick's deadline (see the file comment).
enum class OverrunPolicy {
  kSkip,     ///< skip the missed ticks and keep the phase (default)
  kCatchUp,  ///< run missed ticks back to back, at most max_catch_up per episode, skip the rest
  kDegrade,  ///< skip, and raise the degrade level passed to the step; lower it when calm again
  kHalt,     ///< skip; after halt_after_overruns overruns in a row, call safe_state and stop
};

/// Why DeadlineLoop::run() returned.
enum class StopReason {
  kNone,               ///< not stopped (the loop is running or has not run)
  kStopRequested,      ///< request_stop() was called (another thread or a signal handler)
  kMaxTicks,           ///< LoopConfig::max_ticks ticks were executed
  kHalted,             ///< kHalt: halt_after_overruns consecutive overruns; safe_state was called
  kStepRequestedStop,  ///< the step returned false
};

/// What the step is told about the tick it runs for. Passed by const reference.
struct Tick {
  std::int64_t index = 0;        ///< k: position on the grid, D(k) = start + k * period + offset
  std::int64_t deadline_ns = 0;  ///< D(k), release time [ns on the loop's clock]
  /// When the step started [ns on the loop's clock]: the wake-up time of an on-time tick (D(k)
  /// plus the wake latency), the end of the previous step for a catch-up tick; 0 if the driver
  /// does not say (then D(k) stands for it). Inputs drained by the step waited until this.
  std::int64_t release_ns = 0;
  std::int64_t sequence = 0;  ///< steps executed before this one (0, 1, 2, ...)
  int degrade_level = 0;      ///< kDegrade: 0 = full quality .. max_degrade_level
  bool catch_up = false;      ///< run late, back to back, because D(k) had already passed
  /// Input messages (datagrams) this tick applies: 0 (DeadlineLoop) drains every queued input;
  /// n > 0 stops after the n-th message's last sample (QueuedInputFlag::kEndOfMessage). The
  /// device loop gives each master input its own tick this way (DeviceLoop), so that two
  /// inputs read in one wake-up run two ticks with their own data and their own echo.
  int input_messages = 0;
};

/// Loop counters. Trivially copyable.
/// Invariant: ticks + missed_ticks == next_index (every grid tick is either executed or missed).
struct LoopCounters {
  std::int64_t ticks = 0;                     ///< steps executed (catch-up steps included)
  std::int64_t missed_ticks = 0;              ///< grid ticks skipped without a step
  std::int64_t catch_up_ticks = 0;            ///< steps run back to back after an overrun
  std::int64_t overruns = 0;                  ///< steps that ended after the next deadline
  std::int64_t consecutive_overruns = 0;      ///< overruns in a row, up to the last step
  std::int64_t max_consecutive_overruns = 0;  ///< longest such run so far
  std::int64_t degraded_ticks = 0;            ///< steps executed with degrade_level > 0
  std::int64_t next_index = 0;                ///< grid index of the next tick
  int degrade_level = 0;                      ///< current degrade level (kDegrade)
  int max_degrade_level_reached = 0;          ///< highest degrade level so far
};

/// The loop's measurements. Each is in ns. Read from the loop thread, or after run() returned.
struct LoopHistograms {
  LogHistogram lateness;  ///< wake-up time - deadline, for steps that slept first
  LogHistogram compute;   ///< end - start of every step
  LogHistogram slack;     ///< next deadline - end of every step (< 0 on overrun)

  void reset() noexcept {
    lateness.reset();
    compute.reset();
    slack.reset();
  }
};

/// What the loop publishes for a telemetry thread. Trivially copyable.
struct LoopTelemetry {
  LoopCounters counters;
  HistogramSummary lateness;
  HistogramSummary compute;
  HistogramSummary slack;
  StopReason stop_reason = StopReason::kNone;  ///< kNone while running
};

/// Counts one step in the overrun counters of c: overruns, the current run of consecutive
/// overruns and the longest run so far. Shared by every loop driver. RT-safe.
void count_overrun(LoopCounters& c, bool overrun) noexcept;

/// Fills telemetry's writer buffer in place (LoopTelemetry is a few hundred bytes) and commits
/// it. Shared by every loop driver. RT-safe.
void publish_loop_telemetry(LatestValue<LoopTelemetry>& telemetry,
                            const LoopCounters& counters,
                            const LoopHistograms& histograms,
                            StopReason reason) noexcept;

/// Called once, on the loop thread, when kHalt stops the loop. Must be RT-safe.
using SafeStateFn = void (*)(void* context, const LoopCounters& counters) noexcept;

/// Settings of a deadline loop. Validated by LoopScheduler's constructor.
struct LoopConfig {
  std::int64_t period_ns = 1'000'000;  ///< tick period [ns], > 0
  OverrunPolicy policy = OverrunPolicy::kSkip;
  std::int64_t max_ticks = 0;          ///< stop after this many steps; 0: no limit
  int max_catch_up = 4;                ///< kCatchUp: extra steps per episode, >= 0
  int max_degrade_level = 3;           ///< kDegrade: highest level, >= 1
  int degrade_recover_ticks = 100;     ///< kDegrade: good ticks in a row to lower, >= 1
  int halt_after_overruns = 3;         ///< kHalt: consecutive overruns that halt, >= 1
  SafeStateFn safe_state = nullptr;    ///< kHalt: called once on halt (may be null)
  void* safe_state_context = nullptr;  ///< passed to safe_state
  /// Where to publish LoopTelemetry (may be null). Owned by the caller; must outlive the loop.
  LatestValue<LoopTelemetry>* telemetry = nullptr;
  std::int64_t telemetry_every_ticks = 1000;  ///< publish period in steps, >= 1
  /// Clock mode phase-lock: after each step, the scheduler adds phase_lock->next_adjustment()
  /// (the step released at Tick::release_ns) to the grid with shift_phase; null: no phase lock
  /// (clock mode wall). Owned by the caller, who also feeds it the inputs' arrival times from
  /// the step; its period must be period_ns; reset at begin(). Must outlive the loop.
  PhaseLock* phase_lock = nullptr;
};

/// Result of LoopScheduler::finish_step.
enum class LoopEvent {
  kContinue,  ///< run the next tick
  kHalt,      ///< kHalt's limit was reached: stop with StopReason::kHalted
  kMaxTicks,  ///< max_ticks steps done: stop with StopReason::kMaxTicks
};

/// The clock-free policy state machine of DeadlineLoop: timestamps in, decisions out. Exposed
/// for drivers other than DeadlineLoop (and for tests). One thread only.
class LoopScheduler {
 public:
  /// Validates config (std::invalid_argument naming the field). Setup-only.
  explicit LoopScheduler(const LoopConfig& config);

  /// Starts a run: tick 0 is released at start_ns; counters and histograms are reset. RT-safe.
  void begin(std::int64_t start_ns) noexcept;

  /// True when the next tick's deadline is not before the end of the previous step: the loop
  /// sleeps until it. False for a catch-up tick, which runs at once. RT-safe.
  [[nodiscard]] bool next_is_on_time() const noexcept { return deadline_ns() >= last_end_ns_; }
  /// D(k) of the next tick [ns]. RT-safe.
  [[nodiscard]] std::int64_t deadline_ns() const noexcept {
    return deadline_of(counters_.next_index);
  }
  /// End of the previous step (the run's start before the first step) [ns]. RT-safe.
  [[nodiscard]] std::int64_t last_end_ns() const noexcept { return last_end_ns_; }
  /// What to tell the step about the next tick. RT-safe.
  [[nodiscard]] Tick tick() const noexcept;

  /// Records the wake-up of an on-time tick (lateness = wake_ns - deadline). RT-safe.
  void record_wake(std::int64_t wake_ns) noexcept;
  /// Records the step that ran from start_ns to end_ns and applies the policy. RT-safe.
  [[nodiscard]] LoopEvent finish_step(std::int64_t start_ns, std::int64_t end_ns) noexcept;
  /// Moves the deadlines of every tick from the next one on by shift_ns (later if > 0), within
  /// [-period/4, period/4] and never before the end of the last step (nor, for a tick already
  /// due, earlier than it is): returns the shift applied. Call it between finish_step() and the
  /// next tick. Counters and grid indices are unchanged. RT-safe.
  std::int64_t shift_phase(std::int64_t shift_ns) noexcept;
  /// Sum of the shifts applied since begin() [ns]. RT-safe.
  [[nodiscard]] std::int64_t phase_offset_ns() const noexcept { return offset_ns_; }

  /// Ends the run: stores reason, calls safe_state for kHalted, publishes telemetry. RT-safe
  /// if safe_state is.
  void finish(StopReason reason) noexcept;

  [[nodiscard]] const LoopConfig& config() const noexcept { return config_; }
  [[nodiscard]] const LoopCounters& counters() const noexcept { return counters_; }
  [[nodiscard]] const LoopHistograms& histograms() const noexcept { return histograms_; }
  [[nodiscard]] StopReason stop_reason() const noexcept { return stop_reason_; }

 private:
  [[nodiscard]] std::int64_t deadline_of(std::int64_t index) const noexcept {
    return start_ns_ + index * config_.period_ns + offset_ns_;
  }
  void update_degrade_level(bool overrun) noexcept;
  void choose_next_tick(std::int64_t end_ns) noexcept;
  void publish_telemetry() noexcept;

  LoopConfig config_;
  LoopCounters counters_;
  LoopHistograms histograms_;
  std::int64_t start_ns_ = 0;
  std::int64_t last_end_ns_ = 0;
  std::int64_t offset_ns_ = 0;  // sum of the phase shifts
  int catch_up_budget_ = 0;
  int good_streak_ = 0;
  StopReason stop_reason_ = StopReason::kNone;
};

/// A step the loop can call: bool(const Tick&) noexcept; returning false stops the loop.
template <class F>
concept LoopStep = std::is_nothrow_invocable_r_v<bool, F&, const Tick&>;

/// Runs step once per tick at a fixed period on absolute deadlines, applying the overrun
/// policy of config (see the file comment). The step is held by value (pass a small callable,
/// e.g. a lambda capturing references); the clock by reference, and it must outlive the loop.
/// The loop object holds three histograms (about 23 KiB): construct it at setup.
template <LoopStep Step, LoopClock Clock = MonotonicClock>
class DeadlineLoop {
 public:
  /// Setup-only; throws std::invalid_argument for an invalid config.
  DeadlineLoop(const LoopConfig& config, Step step, Clock& clock)
      : scheduler_(config), step_(std::move(step)), clock_(&clock) {}

  DeadlineLoop(const DeadlineLoop&) = delete;
  DeadlineLoop& operator=(const DeadlineLoop&) = delete;

  /// Runs on the calling thread until a stop request, max_ticks, a halt or the step returning
  /// false; returns which. Tick 0 is released at the clock's now() on entry; counters and
  /// histograms start from zero. A stop request made before run() makes it return at once.
  /// RT-safe if the step is: no allocation, lock, log or exception; sleeps in the clock.
  StopReason run() noexcept {
    scheduler_.begin(clock_->now());
    for (;;) {
      if (stop_requested()) return stop(StopReason::kStopRequested);

      // sleep until the tick's deadline, unless it has passed and the policy runs it late
      std::int64_t start_ns = scheduler_.last_end_ns();
      if (scheduler_.next_is_on_time()) {
        clock_->sleep_until(scheduler_.deadline_ns());
        start_ns = clock_->now();
        if (stop_requested()) return stop(StopReason::kStopRequested);
        scheduler_.record_wake(start_ns);
      }

      // the step, then its accounting and the policy's decision
      Tick tick = scheduler_.tick();
      tick.release_ns = start_ns;
      const bool keep_going = step_(tick);
      const LoopEvent event = scheduler_.finish_step(start_ns, clock_->now());
      if (event == LoopEvent::kHalt) return stop(StopReason::kHalted);
      if (!keep_going) return stop(StopReason::kStepRequestedStop);
      if (event == LoopEvent::kMaxTicks) return stop(StopReason::kMaxTicks);
    }
  }

  /// Asks run() to return before its next step. Any thread, and async-signal-safe (a lock-free
  /// atomic store). Sticky until clear_stop_request().
  void request_stop() noexcept { stop_requested_.store(true, std::memory_order_relaxed); }
  /// Forgets a stop request, so that run() can be called again. Not while run() is running.
  void clear_stop_request() noexcept { stop_requested_.store(false, std::memory_order_relaxed); }
  [[nodiscard]] bool stop_requested() const noexcept {
    return stop_requested_.load(std::memory_order_relaxed);
  }

  /// Counters and histograms of the current or last run: read them on the loop thread or after
  /// run() returned (use LoopConfig::telemetry from other threads while it runs).
  [[nodiscard]] const LoopCounters& counters() const noexcept { return scheduler_.counters(); }
  [[nodiscard]] const LoopHistograms& histograms() const noexcept {
    return scheduler_.histograms();
  }
  [[nodiscard]] StopReason stop_reason() const noexcept { return scheduler_.stop_reason(); }
  [[nodiscard]] const LoopConfig& config() const noexcept { return scheduler_.config(); }
  [[nodiscard]] Step& step() noexcept { return step_; }

 private:
  StopReason stop(StopReason reason) noexcept {
    scheduler_.finish(reason);
    return reason;
  }

  static_assert(std::atomic<bool>::is_always_lock_free,
                "request_stop() must be usable from a signal handler");

  LoopScheduler scheduler_;
  Step step_;
  Clock* clock_;
  std::atomic<bool> stop_requested_{false};
};

static_assert(std::is_trivially_copyable_v<Tick>);
static_assert(std::is_trivially_copyable_v<LoopCounters>);
static_assert(std::is_trivially_copyable_v<LoopTelemetry>);

/// Short lowercase name, e.g. "skip", for messages.
[[nodiscard]] const char* to_string(OverrunPolicy policy) noexcept;
/// Short lowercase name, e.g. "max_ticks", for messages.
[[nodiscard]] const char* to_string(StopReason reason) noexcept;

}  // namespace rtmb
