// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Phase lock (issue 14, `serve.clock: phase-lock`): the loop keeps its fixed period, but slews
// the phase of its ticks so that a device's inputs arrive input_margin before each tick.
//
// Design notes.
//
// The problem. In wall mode the loop's grid and the device's clock have an arbitrary phase, so
// an input waits anything from 0 to a full period for the tick that consumes it (issue 14
// measured 168 µs and 426 µs at 1 kHz). The device cannot be asked to move; the loop can: if
// its ticks are released margin after the inputs arrive, the wait is the margin, small enough
// for latency and large enough that arrival jitter does not make an input miss its tick.
//
// What is measured. For each input the driver reports its arrival time a and the release time
// R of the tick that consumed it (the time the loop woke and drained the socket, so the margin
// is what the input really waited, wake-up latency included). The wait is w = R - a, and the
// phase error is e = wrap(w - margin), wrapped into [-P/2, P/2). The wrap is what makes an
// input that arrived just after a tick (w close to P, consumed a whole period late) read as
// "arrived a little late", e slightly below -margin, rather than "waited far too long": both
// call for releasing the ticks a little later, and any phase is at most P/2 from the target.
//
// Samples that stay valid while the lock moves. Moving the ticks by d changes every later wait
// by d. Each sample is stored as s = e - O, O being the sum of the adjustments applied before
// its tick, so that the current error is s + O whatever was applied since: the window does not
// need to be flushed after a correction, and a filter lag cannot make the loop overshoot (the
// classic trouble of feeding back a delayed estimate of a quantity one keeps changing). Stored
// samples are unwrapped against the current estimate, so a window that straddles the ±P/2 seam
// is not averaged into the opposite phase.
//
// Robustness. The estimate is the median of the last `window` samples: one input delayed by the
// network (or a burst) moves it by nothing, where a mean would move the phase by delay/window.
// Options considered: a first-order low-pass (simple, but every outlier leaks in, and it lags,
// which with feedback means overshoot or a slow gain) and a PLL with a frequency term (it would
// also learn a rate offset, but ±100 ppm is 0.1 µs per tick at 1 kHz, which the median tracks
// with a lag of about window/2 samples, i.e. a fraction of a µs; not worth a second state).
//
// The control law. adjustment = clamp(-gain * error, ±max_slew): a proportional step on a
// lag-free estimate, bounded so that a tick's period is never changed by more than max_slew
// (the device sees a steady state stream, and one wild estimate cannot jerk the loop). From any
// phase, the error is at most P/2, so the lock settles within (P/2) / max_slew ticks of slewing
// plus a few of the gain's geometric tail: 100 ticks (0.1 s) at 1 kHz with the defaults. The
// gain below 1 (default 1/4) makes the tick phase an average of the median over a few ticks,
// so the median's own jitter is not passed on in full; its cost is a lag behind a drifting
// device of drift / gain, 0.4 µs for 100 ppm at 1 kHz.
//
// Without inputs. If no input arrived for stale_after_ns, the window is emptied and the
// adjustment is 0: the loop runs at its plain period, as in wall mode, keeping whatever phase it
// had. With fewer than min_samples in the window it does not correct yet either.
//
// Structure. Like LoopScheduler: plain timestamps in, decisions out; no clock, no socket. The
// driver adds each returned adjustment to its next deadline: D(k+1) = D(k) + P + adjustment.
// One thread; allocation-free after construction.

#include <array>
#include <cstdint>
#include <type_traits>

namespace rtmb {

/// Most samples a PhaseLock's median window can hold.
inline constexpr int kMaxPhaseLockWindow = 31;

/// Settings of a PhaseLock. Validated by its constructor.
struct PhaseLockConfig {
  std::int64_t period_ns = 1'000'000;        ///< tick period [ns], > 0
  std::int64_t input_margin_ns = 30'000;     ///< target input -> tick wait [ns], in [0, period/2]
  std::int64_t max_slew_ns = 5'000;          ///< largest |adjustment| per tick [ns], (0, period/4]
  double gain = 0.25;                        ///< fraction of the error corrected per tick, (0, 1]
  int window = 9;                            ///< samples in the median, [1, kMaxPhaseLockWindow]
  int min_samples = 3;                       ///< samples needed before correcting, [1, window]
  std::int64_t stale_after_ns = 50'000'000;  ///< no input for this long: wall mode [ns], > 0
};

/// What a PhaseLock has done. Trivially copyable.
struct PhaseLockCounters {
  std::int64_t ticks = 0;               ///< next_adjustment() calls
  std::int64_t samples = 0;             ///< inputs recorded
  std::int64_t locked_ticks = 0;        ///< ticks that had enough recent samples to correct
  std::int64_t slew_limited_ticks = 0;  ///< ticks whose adjustment was clamped to max_slew
  std::int64_t stale_resets = 0;        ///< times the window was emptied for lack of inputs
  std::int64_t phase_ns = 0;            ///< sum of every adjustment returned [ns]
  std::int64_t error_ns = 0;            ///< last estimate of wait - margin [ns] (0 if none)
};

/// The phase-lock state machine: arrival and release timestamps in, the adjustment of the next
/// deadline out (see the file comment). One thread; every method but the constructor RT-safe.
class PhaseLock {
 public:
  /// Validates config (std::invalid_argument naming the field). Setup-only.
  explicit PhaseLock(const PhaseLockConfig& config);

  /// Forgets every sample and counter (a new run). RT-safe.
  void reset() noexcept;

  /// An input that arrived at arrival_ns was drained by the tick released at release_ns
  /// (normally arrival_ns <= release_ns; an input consumed a whole period late or a clock step
  /// is handled by the wrap). Call it for every input of the tick, before next_adjustment(). At
  /// most one input per tick is kept as a sample: the freshest (see the .cpp). RT-safe.
  void record_input(std::int64_t arrival_ns, std::int64_t release_ns) noexcept;

  /// The tick released at release_ns has recorded its inputs: returns the adjustment [ns] to add
  /// to the next deadline, |adjustment| <= max_slew_ns, 0 when not locked. RT-safe.
  [[nodiscard]] std::int64_t next_adjustment(std::int64_t release_ns) noexcept;

  /// True when the last next_adjustment() had enough recent samples to correct. RT-safe.
  [[nodiscard]] bool locked() const noexcept { return locked_; }
  [[nodiscard]] const PhaseLockConfig& config() const noexcept { return config_; }
  [[nodiscard]] const PhaseLockCounters& counters() const noexcept { return counters_; }

 private:
  [[nodiscard]] std::int64_t wrap(std::int64_t x) const noexcept;
  void push_sample(std::int64_t s) noexcept;
  [[nodiscard]] std::int64_t median() const noexcept;

  PhaseLockConfig config_;
  PhaseLockCounters counters_;
  std::array<std::int64_t, kMaxPhaseLockWindow> samples_{};  // ring of s = e - O, unwrapped
  int count_ = 0;                                            // samples in the ring
  int head_ = 0;                                             // where the next sample goes
  std::int64_t reference_ = 0;              // unwrapping reference: the last median of s
  bool has_pending_ = false;                // an input was recorded for the current tick
  std::int64_t pending_wait_ns_ = 0;        // its wait (the smallest of the tick's)
  std::int64_t last_input_release_ns_ = 0;  // release of the last tick that had an input
  bool locked_ = false;
};

static_assert(std::is_trivially_copyable_v<PhaseLockCounters>);

}  // namespace rtmb
