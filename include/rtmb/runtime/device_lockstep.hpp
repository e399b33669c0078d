// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Device lockstep (issue 14, `serve.clock: device`): each input from the clock master triggers
// one tick at once; when the master is silent the loop falls back to wall ticks, and locks on
// again when it returns.
//
// Design notes.
//
// Why. In lockstep the device's own sampling clock paces the simulation, as in libfranka's
// control loop: an input never waits for a tick, so the round trip is the network's plus one
// step. But a device can stop, pause or lose packets, and the simulation must not freeze with it
// (forces must still ramp to zero on the watchdog, a live view must keep moving), nor jump when
// it comes back.
//
// The two modes.
//  * kLocked: every input handled at time t runs one tick released at t, and arms the watchdog
//    at t + stale_after. The driver waits on the socket with that absolute timeout. A burst (two
//    inputs in one period, e.g. one delayed by the network and the next on time) runs two
//    ticks: the master's count of inputs is the clock, so simulated time stays in step with it.
//  * kFree: wall ticks on a grid F, F + P, F + 2P, ... as in wall mode. A fallback anchors the
//    grid at the watchdog deadline F = last tick + stale_after: the first wall tick comes
//    exactly stale_after after the master's last one (time is frozen at most that long, which is
//    the price of waiting for a master that is only late; the watchdog ramp starts at the same
//    moment). begin(start) starts in kFree with F = start, so a run without a master is exactly
//    the wall grid of DeadlineLoop.
//
// No lost and no doubled tick across the transitions. The hazard is at the seams, where a wall
// tick and an input compete for the same period:
//  * an input and the watchdog deadline at the same instant: the driver drains the socket
//    before it acts on a timeout, the input's tick re-arms the watchdog, and the timeout then
//    finds its deadline ahead and returns no tick (one tick, the input's);
//  * locking on again (kFree -> kLocked): the input is given to the nearest wall slot. If it
//    comes less than P/2 after the last wall tick, it is that slot's late input: the wall tick
//    already ran for it, so the input is absorbed (its data is applied by the driver as usual,
//    to the next tick) and no tick runs now; the next input runs the next tick. Otherwise it
//    takes the next wall slot, early, and that slot's wall tick never runs. Either way each
//    period of the transition gets exactly one tick. Without this rule a master whose input
//    arrives just after a wall tick would get two ticks in one period when it returns, and a
//    master a hair slower than the watchdog would double a tick every time it flaps.
//  * a driver that wakes late in kFree (an overrun) skips the wall slots that passed, counts
//    them (missed_slots) and keeps the grid's phase, like LoopScheduler's kSkip: a slow step
//    costs ticks, not latency.
// Invariant: ticks == input_ticks + wall_ticks; every input handled is either an input tick or
// absorbed: inputs == input_ticks + absorbed_inputs.
//
// Options considered. Catching up the slots frozen before a fallback (they would arrive as a
// burst of stale_after / P ticks at once, just when the device is gone) or anchoring the wall
// grid on the master's last phase (keeps the phase, but adds up to a period to the freeze, and
// the master's phase is lost anyway when it returns). Rate-limiting a master that sends faster
// than the rate is left to the network side's admission (issue 14 keeps rate limits there).
//
// Structure. Like LoopScheduler: plain timestamps in, decisions out; no clock, no socket. A
// driver: loop { wait on the socket until wait_deadline_ns(); for each master input, if
// on_input(now) ticks, run a tick; if none came, if on_timeout(now), run a tick }.
// One thread; allocation-free after construction.

#include <cstdint>
#include <type_traits>

namespace rtmb {

/// Default stale_after in periods when none is given in ns: the input channels' staleness
/// (kDefaultStalePeriods in input_channels.hpp), so the fallback and the watchdog ramp agree.
inline constexpr std::int64_t kDefaultLockstepStalePeriods = 3;

/// Settings of a DeviceLockstep. Validated by its constructor.
struct DeviceLockstepConfig {
  std::int64_t period_ns = 1'000'000;  ///< wall tick period when the master is silent [ns], > 0
  /// master silent this long: wall ticks [ns]; 0: kDefaultLockstepStalePeriods periods; else
  /// >= 2 period_ns (a master at the rate, with jitter below a period, never looks stale)
  std::int64_t stale_after_ns = 0;
};

/// Which clock releases the ticks.
enum class LockstepMode {
  kFree,    ///< wall ticks at the period (no master, or it went silent)
  kLocked,  ///< each master input runs a tick
};

/// What released a tick.
enum class TickSource {
  kInput,  ///< an input from the clock master
  kWall,   ///< the wall grid (kFree)
};

/// The tick to run. Trivially copyable.
struct LockstepTick {
  std::int64_t sequence = 0;    ///< ticks before this one (0, 1, 2, ...)
  std::int64_t release_ns = 0;  ///< input: when it was handled; wall: the grid slot [ns]
  TickSource source = TickSource::kWall;
};

/// What a DeviceLockstep has done. Trivially copyable.
/// Invariants: ticks == input_ticks + wall_ticks; inputs == input_ticks + absorbed_inputs.
struct LockstepCounters {
  std::int64_t ticks = 0;            ///< ticks released
  std::int64_t input_ticks = 0;      ///< ... by a master input
  std::int64_t wall_ticks = 0;       ///< ... by the wall grid
  std::int64_t inputs = 0;           ///< master inputs handled
  std::int64_t absorbed_inputs = 0;  ///< inputs that came for a slot a wall tick had just run
  std::int64_t missed_slots = 0;     ///< wall slots skipped because the driver woke late
  std::int64_t fallbacks = 0;        ///< kLocked -> kFree (the master went silent)
  std::int64_t locks = 0;            ///< kFree -> kLocked (the master appeared or returned)
};

/// The device-lockstep state machine (see the file comment). One thread; every method but the
/// constructor RT-safe.
class DeviceLockstep {
 public:
  /// Validates config (std::invalid_argument naming the field). Setup-only.
  explicit DeviceLockstep(const DeviceLockstepConfig& config);

  /// Starts a run in kFree, the first wall tick due at start_ns; counters reset. RT-safe.
  void begin(std::int64_t start_ns) noexcept;

  /// The driver waits for a master input until this time [ns]: the watchdog (kLocked) or the
  /// next wall slot (kFree). RT-safe.
  [[nodiscard]] std::int64_t wait_deadline_ns() const noexcept { return deadline_ns_; }

  /// The driver handled one input from the clock master at now_ns. Returns true when it runs a
  /// tick at once (described by last_tick()); false when it was absorbed by the wall tick just
  /// run (its data still goes to the next tick). Either way the loop is kLocked after. RT-safe.
  [[nodiscard]] bool on_input(std::int64_t now_ns) noexcept;

  /// The driver's wait ended at now_ns without a master input. Returns true when a wall tick
  /// is due (run it; last_tick() describes it), false when the wake was early. RT-safe.
  [[nodiscard]] bool on_timeout(std::int64_t now_ns) noexcept;

  [[nodiscard]] LockstepMode mode() const noexcept { return mode_; }
  /// The tick of the last call that returned true. RT-safe.
  [[nodiscard]] const LockstepTick& last_tick() const noexcept { return last_tick_; }
  [[nodiscard]] const DeviceLockstepConfig& config() const noexcept { return config_; }
  /// stale_after in ns, the default resolved. RT-safe.
  [[nodiscard]] std::int64_t stale_after_ns() const noexcept { return stale_after_ns_; }
  [[nodiscard]] const LockstepCounters& counters() const noexcept { return counters_; }

 private:
  void release(std::int64_t release_ns, TickSource source) noexcept;
  [[nodiscard]] std::int64_t skip_passed_slots(std::int64_t slot_ns, std::int64_t now_ns) noexcept;

  DeviceLockstepConfig config_;
  std::int64_t stale_after_ns_;
  LockstepCounters counters_;
  LockstepTick last_tick_;
  LockstepMode mode_ = LockstepMode::kFree;
  std::int64_t deadline_ns_ = 0;   // watchdog (kLocked) or next wall slot (kFree)
  std::int64_t last_wall_ns_ = 0;  // slot of the last wall tick (kFree)
  bool has_wall_tick_ = false;     // a wall tick ran since kFree was entered
};

static_assert(std::is_trivially_copyable_v<LockstepTick>);
static_assert(std::is_trivially_copyable_v<LockstepCounters>);

/// Short lowercase name, e.g. "locked", for messages.
[[nodiscard]] const char* to_string(LockstepMode mode) noexcept;

}  // namespace rtmb
