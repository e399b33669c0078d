// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// InputChannelBank: what each input channel is worth at each simulation tick, given the samples
// that did (or did not) arrive (issue 3, "UDP inputs": late/lost-input policies and the watchdog).
//
// Design notes.
//
// The problem. Samples arrive over UDP at roughly the tick rate, but not on the tick: some are
// late, some are lost, and sometimes the sender stops altogether (cable pulled, client crashed).
// The step still needs a value for every channel every tick. What the right value is depends on
// what the channel means, so the policy for a tick without a fresh sample is per channel:
// - kHold keeps the last value. Right for position targets and commands: a setpoint that was
//   valid a millisecond ago is still the best guess, and inventing motion would be worse.
// - kExtrapolate continues the line through the last two samples (slope from their sender
//   timestamps, so network jitter does not bend it), for at most a configured horizon, then
//   holds. Right for smooth, densely sampled streams such as haptic devices, where one lost
//   packet should not leave a one-tick notch the user can feel.
// - kDecay lets the value fall to zero as exp(-t/tau). Right for forces and torques: holding a
//   force that nobody is commanding any more keeps pushing the mechanism.
// On top of the policy, `safe_after_misses` K moves a channel to its `safe_value` after K
// consecutive ticks without a fresh sample, until a fresh sample arrives: the policies are for
// short gaps; a long gap means the sender is not in control and the channel should be somewhere
// known.
//
// The watchdog. Force and torque channels are also watched: once a channel has had no fresh
// sample for the staleness threshold, its value ramps linearly to exactly zero over
// `watchdog_ramp_ns` (default 10 ms), whatever its policy or safe state say. It ramps rather than
// steps because a force step at 1 kHz is an impulse the device and the mechanism feel as a kick;
// a 10 ms ramp is still fast enough to be safe. The ramp starts from the value the channel had on
// the tick before it went stale and is linear in tick time, so the magnitude never increases on
// the way down and is exactly zero from `last fresh tick + threshold + ramp` on (the policy is
// not mixed in: an extrapolation could grow, and a product with it would not be monotone).
// Position and command channels are not ramped: zero is not a safe position, so they follow
// their policy and safe state. Staleness is judged per channel against one bank-wide threshold
// (default 3 tick periods), so a force whose samples stop while other channels keep streaming is
// ramped too; stale() reports the whole stream.
//
// Time. Every duration here is measured in simulation tick time [ns], the time passed to
// advance() (use Tick::index * period, not the wall clock), and a sample counts from the tick
// that consumes it. So the values depend only on which samples were delivered before which tick:
// a recorded session replays bit for bit, tests need no clock, and wake-up jitter of a tick
// cannot make the watchdog fire early or late. Sender timestamps are used only for the
// extrapolation slope (they are the only record of when the sender measured the values); arrival
// times are kept for diagnostics only.
//
// Real time. All storage is inline (kMaxInputChannels channels), the bank is trivially
// copyable, and everything after construction is noexcept, allocation-free and O(channels) per
// tick, so the simulation thread can own it outright.

#include <array>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>

#include "rtmb/runtime/simulation_runner.hpp"

namespace rtmb {

/// Most input channels an InputChannelBank holds.
inline constexpr int kMaxInputChannels = 64;
/// Default duration of the watchdog's ramp to zero [ns] (issue 3: 10 ms).
inline constexpr std::int64_t kDefaultWatchdogRampNs = 10'000'000;
/// Default staleness threshold, in expected tick periods, when none is configured in ns.
inline constexpr std::int64_t kDefaultStalePeriods = 3;
/// arrival_ns value meaning "not known" (the SimulationRunner hook does not carry it).
inline constexpr std::int64_t kUnknownArrivalNs = std::numeric_limits<std::int64_t>::min();

/// What a channel drives; decides whether the watchdog ramps it to zero.
enum class InputKind : std::uint8_t {
  kForce,     ///< force [N]; watched: ramps to zero when stale
  kTorque,    ///< torque [N m]; watched: ramps to zero when stale
  kPosition,  ///< position target [m | rad]; follows its policy only
  kCommand,   ///< any other command value; follows its policy only
};

/// What a channel's value does on a tick without a fresh sample.
enum class MissPolicy : std::uint8_t {
  kHold,         ///< keep the last value
  kExtrapolate,  ///< linear through the last two samples, up to extrapolate_horizon_ns
  kDecay,        ///< last value * exp(-elapsed / decay_tau_ns)
};

/// Where a channel's value came from on the last tick.
enum class InputChannelMode : std::uint8_t {
  kFresh,     ///< a fresh sample was consumed this tick
  kPolicy,    ///< no fresh sample: the MissPolicy's value
  kSafe,      ///< safe state: safe_value after safe_after_misses consecutive misses
  kWatchdog,  ///< force/torque stale: ramping to, or at, zero
};

/// Settings of one input channel. Setup-only (validated by the InputChannelBank constructor).
struct InputChannelConfig {
  InputKind kind = InputKind::kCommand;   ///< kForce/kTorque are watched (InputBankConfig)
  MissPolicy policy = MissPolicy::kHold;  ///< value on a tick without a fresh sample
  double initial_value = 0.0;  ///< value before the first sample, within [min_value, max_value]
  std::int64_t extrapolate_horizon_ns = 5'000'000;  ///< kExtrapolate: longest extrapolation, >= 0
  std::int64_t decay_tau_ns = 5'000'000;            ///< kDecay: time constant tau [ns], > 0
  /// K: safe state on the K-th consecutive tick without a fresh sample (counted from the first
  /// tick if no sample ever came), until the next fresh sample; 0 disables. >= 0.
  int safe_after_misses = 0;
  double safe_value = 0.0;  ///< value in safe state, within [min_value, max_value]
  double min_value = -std::numeric_limits<double>::infinity();  ///< lower clamp; <= 0 for forces
  double max_value = std::numeric_limits<double>::infinity();   ///< upper clamp; >= 0 for forces
};

/// Bank-wide settings. Setup-only.
struct InputBankConfig {
  std::int64_t period_ns = 1'000'000;  ///< expected tick period [ns], > 0
  /// A channel without a fresh sample for this long is stale [ns]; 0: kDefaultStalePeriods
  /// periods. > 0 otherwise.
  std::int64_t stale_after_ns = 0;
  std::int64_t watchdog_ramp_ns = kDefaultWatchdogRampNs;  ///< ramp to zero [ns], >= 0 (0: step)
};

/// Counters of one channel. Trivially copyable.
struct InputChannelCounters {
  std::int64_t samples = 0;             ///< finite samples accepted
  std::int64_t fresh_ticks = 0;         ///< ticks that consumed at least one sample
  std::int64_t missed_ticks = 0;        ///< ticks without a fresh sample
  std::int64_t consecutive_misses = 0;  ///< missed ticks since the last fresh one
  std::int64_t safe_state_entries = 0;  ///< times the channel entered its safe state
  std::int64_t watchdog_ramps = 0;      ///< times the watchdog started a ramp
  std::int64_t non_finite = 0;          ///< NaN/Inf samples ignored
  std::int64_t time_regressions = 0;    ///< samples older (sender time) than the newest, accepted
};

/// Counters of the whole bank. Trivially copyable.
struct InputBankCounters {
  std::int64_t ticks = 0;             ///< advance() calls
  std::int64_t samples = 0;           ///< samples accepted, all channels
  std::int64_t non_finite = 0;        ///< NaN/Inf samples ignored, all channels
  std::int64_t unknown_channel = 0;   ///< samples naming a channel >= channel_count(), ignored
  std::int64_t time_regressions = 0;  ///< samples older than their channel's newest, accepted
};

/// Fixed-capacity set of input channels: receive() samples as they are drained, advance() once
/// per tick before the step, then read value(). Trivially copyable; every member function after
/// the constructor is RT-safe (no allocation, lock, log or exception). Not thread-safe: use it
/// on the simulation thread only (samples cross threads through the InputRing).
class InputChannelBank {
 public:
  /// Setup-only; throws std::invalid_argument for an invalid config or more than
  /// kMaxInputChannels channels.
  explicit InputChannelBank(std::span<const InputChannelConfig> channels,
                            const InputBankConfig& config = {});

  /// Records a sample for the next advance(). Ignored and counted: channel out of range, value
  /// not finite. Several samples of one channel before a tick are all kept in order: the newest
  /// is the value, the two newest give the extrapolation slope. A sample whose sender time is not
  /// after the channel's newest is still accepted (the newest arrival wins), but restarts the
  /// slope from it and, if strictly older, is counted as a time regression: per-sender order is
  /// InputSequencer's job, so here it means another sender or a restarted sender clock, and a
  /// slope across two clocks would be meaningless. arrival_ns [ns, loop clock] is diagnostic
  /// only (kUnknownArrivalNs if unknown). RT-safe.
  void receive(std::uint32_t channel,
               double value,
               std::int64_t sender_time_ns,
               std::int64_t arrival_ns = kUnknownArrivalNs) noexcept;

  /// Computes every channel's value for the tick at tick_time_ns [ns, simulation tick time,
  /// non-decreasing across calls; e.g. Tick::index * period]. RT-safe.
  void advance(std::int64_t tick_time_ns) noexcept;

  /// Back to the state right after construction (same configs; counters zeroed), e.g. for a
  /// simulation reset or a new session. RT-safe.
  void reset() noexcept;

  /// The channel's value for the last advanced tick (initial_value before the first advance);
  /// 0 for a channel out of range. RT-safe.
  [[nodiscard]] double value(int channel) const noexcept;
  /// The channel's settings (channel in [0, channel_count())). RT-safe.
  [[nodiscard]] const InputChannelConfig& config(int channel) const noexcept {
    return configs_[static_cast<std::size_t>(channel)];
  }
  /// Where value(channel) came from on the last tick (kPolicy for a channel out of range).
  /// RT-safe.
  [[nodiscard]] InputChannelMode mode(int channel) const noexcept;
  /// The channel's counters (all zero for a channel out of range). RT-safe.
  [[nodiscard]] InputChannelCounters channel_counters(int channel) const noexcept;
  /// arrival_ns of the channel's newest sample (kUnknownArrivalNs if none or not given), for
  /// arrival-to-tick diagnostics. RT-safe.
  [[nodiscard]] std::int64_t last_arrival_ns(int channel) const noexcept;
  /// Bank-wide counters. RT-safe.
  [[nodiscard]] const InputBankCounters& counters() const noexcept { return counters_; }

  /// True when no channel has had a fresh sample for the staleness threshold (the whole input
  /// stream is stale), as of the last advance(). False before the first advance(). RT-safe.
  [[nodiscard]] bool stale() const noexcept { return stale_; }

  /// Number of channels (the configs given to the constructor). RT-safe.
  [[nodiscard]] int channel_count() const noexcept { return count_; }
  /// Staleness threshold in use [ns] (resolved from InputBankConfig). RT-safe.
  [[nodiscard]] std::int64_t stale_after_ns() const noexcept { return stale_after_ns_; }
  /// Duration of the watchdog's ramp to zero [ns]. RT-safe.
  [[nodiscard]] std::int64_t watchdog_ramp_ns() const noexcept { return ramp_ns_; }

  /// InputHook adapter for SimulationRunner::set_input_hook(&InputChannelBank::hook, &bank):
  /// receive(sample.channel, sample.value, sample.sender_time_ns). The runner must still call
  /// advance() after draining and before the step. RT-safe.
  static void hook(void* bank, const QueuedInput& sample) noexcept;

 private:
  // Per-channel state: the sample history the policies need and the watchdog's ramp.
  struct Channel {
    double value = 0.0;                                // effective value on the last tick
    double last_value = 0.0;                           // newest sample (or initial_value)
    double prev_value = 0.0;                           // the one before it, for the slope
    std::int64_t last_sender_ns = 0;                   // sender time of last_value
    std::int64_t prev_sender_ns = 0;                   // sender time of prev_value
    std::int64_t last_arrival_ns = kUnknownArrivalNs;  // diagnostic only
    std::int64_t fresh_tick_ns = 0;                    // tick time that consumed last_value
    double ramp_from = 0.0;                            // value when the watchdog ramp started
    bool has_last = false;
    bool has_prev = false;
    bool pending = false;  // a sample arrived since the last advance()
    bool in_safe = false;
    bool ramping = false;
    InputChannelMode mode = InputChannelMode::kPolicy;
    InputChannelCounters counters;
  };

  void advance_channel(const InputChannelConfig& cfg, Channel& ch, std::int64_t t) noexcept;
  [[nodiscard]] double policy_value(const InputChannelConfig& cfg,
                                    const Channel& ch,
                                    std::int64_t t) const noexcept;

  std::array<InputChannelConfig, kMaxInputChannels> configs_{};
  std::array<Channel, kMaxInputChannels> channels_{};
  InputBankCounters counters_;
  int count_ = 0;
  std::int64_t stale_after_ns_ = 0;
  std::int64_t ramp_ns_ = 0;
  std::int64_t last_fresh_tick_ns_ = 0;  // newest tick that consumed a sample, any channel
  bool started_ = false;
  bool stale_ = false;
};
static_assert(std::is_trivially_copyable_v<InputChannelBank>);

}  // namespace rtmb
