// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// PhaseLock: the phase-lock clock mode's state machine (design notes in
// include/rtmb/runtime/phase_lock.hpp). Terms: P = period, w = release - arrival (the input's
// wait), e = wrap(w - margin) in [-P/2, P/2), O = sum of the adjustments applied so far, and a
// stored sample is s = e - O, so that the error now is s + O.
#include "rtmb/runtime/phase_lock.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace rtmb {
namespace {

void require_phase_lock(bool ok, const char* field, const char* what) {
  if (!ok) throw std::invalid_argument(std::string("PhaseLockConfig::") + field + " " + what);
}

}  // namespace

PhaseLock::PhaseLock(const PhaseLockConfig& config) : config_(config) {
  require_phase_lock(config.period_ns > 0, "period_ns", "must be > 0 [ns]");
  require_phase_lock(config.input_margin_ns >= 0 && config.input_margin_ns <= config.period_ns / 2,
                     "input_margin_ns", "must be in [0, period_ns / 2] [ns]");
  // a bound above P/4 would let one tick's period shrink or grow by more than a quarter
  require_phase_lock(config.max_slew_ns > 0 && config.max_slew_ns <= config.period_ns / 4,
                     "max_slew_ns", "must be in (0, period_ns / 4] [ns]");
  require_phase_lock(config.gain > 0.0 && config.gain <= 1.0, "gain", "must be in (0, 1]");
  require_phase_lock(config.window >= 1 && config.window <= kMaxPhaseLockWindow, "window",
                     "must be in [1, 31]");
  require_phase_lock(config.min_samples >= 1 && config.min_samples <= config.window, "min_samples",
                     "must be in [1, window]");
  require_phase_lock(config.stale_after_ns > 0, "stale_after_ns", "must be > 0 [ns]");
}

void PhaseLock::reset() noexcept {
  counters_ = PhaseLockCounters{};
  count_ = 0;
  head_ = 0;
  reference_ = 0;
  has_pending_ = false;
  pending_wait_ns_ = 0;
  last_input_release_ns_ = 0;
  locked_ = false;
}

std::int64_t PhaseLock::wrap(std::int64_t x) const noexcept {
  // x mod P, shifted into [-P/2, P/2)
  const std::int64_t p = config_.period_ns;
  const std::int64_t half = p / 2;
  std::int64_t r = (x + half) % p;
  if (r < 0) r += p;
  return r - half;
}

void PhaseLock::record_input(std::int64_t arrival_ns, std::int64_t release_ns) noexcept {
  // keep the freshest input of the tick (the smallest wait): the tick was released for it, and
  // a burst of queued inputs delivered together then counts as one sample, not a window full
  const std::int64_t wait = release_ns - arrival_ns;
  if (!has_pending_ || wait < pending_wait_ns_) pending_wait_ns_ = wait;
  has_pending_ = true;
  ++counters_.samples;
}

void PhaseLock::push_sample(std::int64_t s) noexcept {
  // unwrap against the current estimate, so that the window never straddles the ±P/2 seam
  if (count_ == 0) reference_ = s;
  samples_[static_cast<std::size_t>(head_)] = reference_ + wrap(s - reference_);
  head_ = (head_ + 1) % config_.window;
  count_ = std::min(count_ + 1, config_.window);
}

std::int64_t PhaseLock::median() const noexcept {
  // the ring's order does not matter: sort a copy (at most 31 values, on the stack)
  std::array<std::int64_t, kMaxPhaseLockWindow> v{};
  std::copy_n(samples_.begin(), count_, v.begin());
  const auto n = static_cast<std::size_t>(count_);
  std::sort(v.begin(), v.begin() + count_);
  if (n % 2 == 1) return v[n / 2];
  return v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}

std::int64_t PhaseLock::next_adjustment(std::int64_t release_ns) noexcept {
  ++counters_.ticks;

  // a tick with an input adds a sample; a long silence empties the window (wall mode)
  if (has_pending_) {
    push_sample(wrap(pending_wait_ns_ - config_.input_margin_ns) - counters_.phase_ns);
    has_pending_ = false;
    last_input_release_ns_ = release_ns;
  } else if (count_ > 0 && release_ns - last_input_release_ns_ > config_.stale_after_ns) {
    count_ = 0;
    head_ = 0;
    ++counters_.stale_resets;
  }
  locked_ = count_ >= config_.min_samples;
  if (!locked_) {
    counters_.error_ns = 0;
    return 0;
  }

  // the error now: the median sample seen through every adjustment applied since
  reference_ = median();
  const std::int64_t error = wrap(reference_ + counters_.phase_ns);

  // a proportional step, bounded by the slew limit: too long a wait releases the ticks earlier
  const auto wanted =
      static_cast<std::int64_t>(std::llround(-config_.gain * static_cast<double>(error)));
  const std::int64_t adjustment = std::clamp(wanted, -config_.max_slew_ns, config_.max_slew_ns);
  if (adjustment != wanted) ++counters_.slew_limited_ticks;
  ++counters_.locked_ticks;
  counters_.error_ns = error;
  counters_.phase_ns += adjustment;
  return adjustment;
}

}  // namespace rtmb
