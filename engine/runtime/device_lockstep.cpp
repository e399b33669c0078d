// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// DeviceLockstep: the device clock mode's state machine (design notes in
// include/rtmb/runtime/device_lockstep.hpp). Terms: P = period, S = stale_after, a wall slot is
// a point of the kFree grid F + jP.
#include "rtmb/runtime/device_lockstep.hpp"

#include <cstddef>
#include <stdexcept>
#include <string>

namespace rtmb {
namespace {

void require_lockstep(bool ok, const char* field, const char* what) {
  if (!ok) throw std::invalid_argument(std::string("DeviceLockstepConfig::") + field + " " + what);
}

}  // namespace

DeviceLockstep::DeviceLockstep(const DeviceLockstepConfig& config) : config_(config) {
  require_lockstep(config.period_ns > 0, "period_ns", "must be > 0 [ns]");
  require_lockstep(config.stale_after_ns == 0 || config.stale_after_ns >= 2 * config.period_ns,
                   "stale_after_ns", "must be 0 (default) or >= 2 * period_ns [ns]");
  stale_after_ns_ = config.stale_after_ns == 0 ? kDefaultLockstepStalePeriods * config.period_ns
                                               : config.stale_after_ns;
}

void DeviceLockstep::begin(std::int64_t start_ns) noexcept {
  counters_ = LockstepCounters{};
  last_tick_ = LockstepTick{};
  mode_ = LockstepMode::kFree;
  deadline_ns_ = start_ns;
  last_wall_ns_ = start_ns;
  has_wall_tick_ = false;
}

void DeviceLockstep::release(std::int64_t release_ns, TickSource source) noexcept {
  last_tick_.sequence = counters_.ticks;
  last_tick_.release_ns = release_ns;
  last_tick_.source = source;
  ++counters_.ticks;
  if (source == TickSource::kInput) {
    ++counters_.input_ticks;
  } else {
    ++counters_.wall_ticks;
  }
}

std::int64_t DeviceLockstep::skip_passed_slots(std::int64_t slot_ns, std::int64_t now_ns) noexcept {
  // slot_ns <= now_ns: the latest slot not after now_ns runs; the ones before it are missed
  const std::int64_t missed = (now_ns - slot_ns) / config_.period_ns;
  counters_.missed_slots += missed;
  return slot_ns + missed * config_.period_ns;
}

bool DeviceLockstep::on_input(std::int64_t now_ns) noexcept {
  ++counters_.inputs;
  if (mode_ == LockstepMode::kFree) {
    mode_ = LockstepMode::kLocked;
    ++counters_.locks;

    // nearest slot: less than P/2 after the last wall tick, the input is that slot's, and the
    // wall tick already ran for it; the watchdog counts from that tick
    if (has_wall_tick_ && now_ns - last_wall_ns_ < config_.period_ns / 2) {
      ++counters_.absorbed_inputs;
      deadline_ns_ = last_wall_ns_ + stale_after_ns_;
      return false;
    }
    // otherwise it takes the next slot (early), or the latest one that passed (late driver)
    if (now_ns >= deadline_ns_) static_cast<void>(skip_passed_slots(deadline_ns_, now_ns));
  }

  // locked: one tick per input, at once; the watchdog is re-armed from it
  release(now_ns, TickSource::kInput);
  deadline_ns_ = now_ns + stale_after_ns_;
  return true;
}

bool DeviceLockstep::on_timeout(std::int64_t now_ns) noexcept {
  if (now_ns < deadline_ns_) return false;  // early wake: keep waiting

  // the master stayed silent until the watchdog: the wall grid starts at the watchdog deadline
  if (mode_ == LockstepMode::kLocked) {
    mode_ = LockstepMode::kFree;
    ++counters_.fallbacks;
  }

  // the wall tick of the due slot (the latest one if the driver woke late)
  const std::int64_t slot = skip_passed_slots(deadline_ns_, now_ns);
  release(slot, TickSource::kWall);
  last_wall_ns_ = slot;
  has_wall_tick_ = true;
  deadline_ns_ = slot + config_.period_ns;
  return true;
}

const char* to_string(LockstepMode mode) noexcept {
  switch (mode) {
    case LockstepMode::kFree:
      return "free";
    case LockstepMode::kLocked:
      return "locked";
  }
  return "unknown";
}

}  // namespace rtmb
