// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// InputChannelBank: late/lost-input policies, safe state and the force/torque watchdog (design
// notes in include/rtmb/runtime/input_channels.hpp).
#include "rtmb/runtime/input_channels.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace rtmb {
namespace {

bool watched(InputKind kind) noexcept {
  return kind == InputKind::kForce || kind == InputKind::kTorque;
}

// Setup-time check of one channel's config; the message names the channel and the field.
void validate(const InputChannelConfig& c, std::size_t index) {
  const std::string where = "InputChannelConfig[" + std::to_string(index) + "].";
  auto fail = [&where](const std::string& what) { throw std::invalid_argument(where + what); };
  if (std::isnan(c.min_value) || std::isnan(c.max_value) || c.min_value > c.max_value) {
    fail("min_value/max_value must be ordered limits (min_value <= max_value)");
  }
  // the watchdog's target is zero, so zero must be inside a force's limits
  if (watched(c.kind) && !(c.min_value <= 0.0 && 0.0 <= c.max_value)) {
    fail("min_value <= 0 <= max_value is required for force and torque channels");
  }
  if (!std::isfinite(c.initial_value) || c.initial_value < c.min_value ||
      c.initial_value > c.max_value) {
    fail("initial_value must be finite and within [min_value, max_value]");
  }
  if (!std::isfinite(c.safe_value) || c.safe_value < c.min_value || c.safe_value > c.max_value) {
    fail("safe_value must be finite and within [min_value, max_value]");
  }
  if (c.extrapolate_horizon_ns < 0) fail("extrapolate_horizon_ns must be >= 0");
  if (c.decay_tau_ns <= 0) fail("decay_tau_ns must be > 0");
  if (c.safe_after_misses < 0) fail("safe_after_misses must be >= 0 (0 disables)");
}

}  // namespace

InputChannelBank::InputChannelBank(std::span<const InputChannelConfig> channels,
                                   const InputBankConfig& config) {
  if (channels.size() > static_cast<std::size_t>(kMaxInputChannels)) {
    throw std::invalid_argument(
        "InputChannelBank: " + std::to_string(channels.size()) +
        " channels, at most kMaxInputChannels = " + std::to_string(kMaxInputChannels));
  }
  if (config.period_ns <= 0) {
    throw std::invalid_argument("InputBankConfig::period_ns must be > 0");
  }
  if (config.stale_after_ns < 0) {
    throw std::invalid_argument("InputBankConfig::stale_after_ns must be >= 0 (0: default)");
  }
  if (config.watchdog_ramp_ns < 0) {
    throw std::invalid_argument("InputBankConfig::watchdog_ramp_ns must be >= 0");
  }
  for (std::size_t i = 0; i < channels.size(); ++i) {
    validate(channels[i], i);
    configs_[i] = channels[i];
  }
  count_ = static_cast<int>(channels.size());
  stale_after_ns_ =
      config.stale_after_ns > 0 ? config.stale_after_ns : kDefaultStalePeriods * config.period_ns;
  ramp_ns_ = config.watchdog_ramp_ns;
  reset();
}

void InputChannelBank::reset() noexcept {
  for (int i = 0; i < kMaxInputChannels; ++i) {
    channels_[i] = Channel{};
    channels_[i].value = configs_[i].initial_value;
    channels_[i].last_value = configs_[i].initial_value;
  }
  counters_ = {};
  last_fresh_tick_ns_ = 0;
  started_ = false;
  stale_ = false;
}

void InputChannelBank::receive(std::uint32_t channel,
                               double value,
                               std::int64_t sender_time_ns,
                               std::int64_t arrival_ns) noexcept {
  if (channel >= static_cast<std::uint32_t>(count_)) {
    ++counters_.unknown_channel;
    return;
  }
  Channel& ch = channels_[channel];
  if (!std::isfinite(value)) {
    ++ch.counters.non_finite;
    ++counters_.non_finite;
    return;
  }
  // shift the history; a sender time that does not advance restarts the slope, because the
  // span to the previous sample is zero, negative or measured on another clock
  if (ch.has_last && sender_time_ns < ch.last_sender_ns) {
    ++ch.counters.time_regressions;
    ++counters_.time_regressions;
  }
  if (ch.has_last && sender_time_ns > ch.last_sender_ns) {
    ch.prev_value = ch.last_value;
    ch.prev_sender_ns = ch.last_sender_ns;
    ch.has_prev = true;
  } else {
    ch.has_prev = false;
  }
  ch.last_value = value;
  ch.last_sender_ns = sender_time_ns;
  ch.last_arrival_ns = arrival_ns;
  ch.has_last = true;
  ch.pending = true;
  ++ch.counters.samples;
  ++counters_.samples;
}

void InputChannelBank::advance(std::int64_t tick_time_ns) noexcept {
  // the first tick is every channel's origin: staleness and misses count from the start of the
  // run, so a force channel that never hears from its sender is watched too
  if (!started_) {
    for (int i = 0; i < count_; ++i) channels_[i].fresh_tick_ns = tick_time_ns;
    last_fresh_tick_ns_ = tick_time_ns;
    started_ = true;
  }
  for (int i = 0; i < count_; ++i) {
    if (channels_[i].pending) last_fresh_tick_ns_ = tick_time_ns;
    advance_channel(configs_[i], channels_[i], tick_time_ns);
  }
  stale_ = tick_time_ns - last_fresh_tick_ns_ >= stale_after_ns_;
  ++counters_.ticks;
}

void InputChannelBank::advance_channel(const InputChannelConfig& cfg,
                                       Channel& ch,
                                       std::int64_t t) noexcept {
  InputChannelCounters& n = ch.counters;

  // a fresh sample wins over everything and ends safe state and any ramp
  if (ch.pending) {
    ch.pending = false;
    ch.fresh_tick_ns = t;
    ch.in_safe = false;
    ch.ramping = false;
    ++n.fresh_ticks;
    n.consecutive_misses = 0;
    ch.mode = InputChannelMode::kFresh;
    ch.value = std::clamp(ch.last_value, cfg.min_value, cfg.max_value);
    return;
  }

  ++n.missed_ticks;
  ++n.consecutive_misses;
  // safe state is entered on exactly the K-th consecutive miss and kept until a fresh sample
  if (cfg.safe_after_misses > 0 && !ch.in_safe && n.consecutive_misses >= cfg.safe_after_misses) {
    ch.in_safe = true;
    ++n.safe_state_entries;
  }

  // watchdog: a stale force/torque ramps linearly from its previous tick's value to zero, reached
  // exactly at fresh_tick + stale_after + ramp; it overrides policy and safe state
  const std::int64_t age = t - ch.fresh_tick_ns;
  if (watched(cfg.kind) && age >= stale_after_ns_) {
    if (!ch.ramping) {
      ch.ramping = true;
      ch.ramp_from = ch.value;
      ++n.watchdog_ramps;
    }
    ch.mode = InputChannelMode::kWatchdog;
    const std::int64_t remaining = stale_after_ns_ + ramp_ns_ - age;
    ch.value =
        remaining <= 0
            ? 0.0
            : ch.ramp_from * (static_cast<double>(remaining) / static_cast<double>(ramp_ns_));
    return;
  }

  if (ch.in_safe) {
    ch.mode = InputChannelMode::kSafe;
    ch.value = cfg.safe_value;
    return;
  }
  ch.mode = InputChannelMode::kPolicy;
  ch.value = std::clamp(policy_value(cfg, ch, t), cfg.min_value, cfg.max_value);
}

double InputChannelBank::policy_value(const InputChannelConfig& cfg,
                                      const Channel& ch,
                                      std::int64_t t) const noexcept {
  // elapsed since the tick that consumed the newest sample; never negative
  const std::int64_t elapsed = std::max<std::int64_t>(0, t - ch.fresh_tick_ns);
  switch (cfg.policy) {
    case MissPolicy::kHold:
      return ch.last_value;
    case MissPolicy::kExtrapolate: {
      // v = v1 + (v1 - v0) * dt / (t1 - t0), dt capped at the horizon; the ratio of times is
      // formed first so that whole multiples of the sample spacing extrapolate exactly
      if (!ch.has_prev) return ch.last_value;
      const std::int64_t dt = std::min(elapsed, cfg.extrapolate_horizon_ns);
      // sender times come off the network: subtract in double, an int64 difference may overflow
      const double span =
          static_cast<double>(ch.last_sender_ns) - static_cast<double>(ch.prev_sender_ns);
      const double v =
          ch.last_value + (ch.last_value - ch.prev_value) * (static_cast<double>(dt) / span);
      // finite samples can still overflow here (huge values, long horizon); never emit Inf/NaN
      return std::isfinite(v) ? v : ch.last_value;
    }
    case MissPolicy::kDecay:
      // v = v1 * exp(-dt / tau)
      return ch.last_value *
             std::exp(-static_cast<double>(elapsed) / static_cast<double>(cfg.decay_tau_ns));
  }
  return ch.last_value;
}

double InputChannelBank::value(int channel) const noexcept {
  if (channel < 0 || channel >= count_) return 0.0;
  return channels_[channel].value;
}

InputChannelMode InputChannelBank::mode(int channel) const noexcept {
  if (channel < 0 || channel >= count_) return InputChannelMode::kPolicy;
  return channels_[channel].mode;
}

InputChannelCounters InputChannelBank::channel_counters(int channel) const noexcept {
  if (channel < 0 || channel >= count_) return {};
  return channels_[channel].counters;
}

std::int64_t InputChannelBank::last_arrival_ns(int channel) const noexcept {
  if (channel < 0 || channel >= count_) return kUnknownArrivalNs;
  return channels_[channel].last_arrival_ns;
}

void InputChannelBank::hook(void* bank, const QueuedInput& sample) noexcept {
  static_cast<InputChannelBank*>(bank)->receive(sample.channel, sample.value,
                                                sample.sender_time_ns);
}

}  // namespace rtmb
