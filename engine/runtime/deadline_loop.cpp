// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// LoopScheduler: the overrun policies and the bookkeeping of the deadline loop (design notes in
// include/rtmb/runtime/deadline_loop.hpp). Terms: P = period, D(k) = start + k P + offset, a step
// for tick k runs from start to end and overruns when end > D(k+1).
#include "rtmb/runtime/deadline_loop.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

#include "engine/model/enum_names.hpp"
#include "rtmb/runtime/phase_lock.hpp"

namespace rtmb {
namespace {

void require(bool ok, const char* field, const char* what) {
  if (!ok) throw std::invalid_argument(std::string("LoopConfig::") + field + " " + what);
}

}  // namespace

LoopScheduler::LoopScheduler(const LoopConfig& config) : config_(config) {
  require(config.period_ns > 0, "period_ns", "must be > 0 [ns]");
  require(config.max_ticks >= 0, "max_ticks", "must be >= 0 (0: no limit)");
  require(config.max_catch_up >= 0, "max_catch_up", "must be >= 0");
  require(config.max_degrade_level >= 1, "max_degrade_level", "must be >= 1");
  require(config.degrade_recover_ticks >= 1, "degrade_recover_ticks", "must be >= 1");
  require(config.halt_after_overruns >= 1, "halt_after_overruns", "must be >= 1");
  require(config.telemetry_every_ticks >= 1, "telemetry_every_ticks", "must be >= 1");
  require(config.phase_lock == nullptr || config.phase_lock->config().period_ns == config.period_ns,
          "phase_lock", "must have the loop's period_ns");
}

void LoopScheduler::begin(std::int64_t start_ns) noexcept {
  counters_ = LoopCounters{};
  histograms_.reset();
  start_ns_ = start_ns;
  last_end_ns_ = start_ns;
  offset_ns_ = 0;
  if (config_.phase_lock != nullptr) config_.phase_lock->reset();
  catch_up_budget_ = config_.max_catch_up;
  good_streak_ = 0;
  stop_reason_ = StopReason::kNone;
}

Tick LoopScheduler::tick() const noexcept {
  Tick t;
  t.index = counters_.next_index;
  t.deadline_ns = deadline_ns();
  t.sequence = counters_.ticks;
  t.degrade_level = counters_.degrade_level;
  t.catch_up = !next_is_on_time();
  return t;
}

void LoopScheduler::record_wake(std::int64_t wake_ns) noexcept {
  histograms_.lateness.record(wake_ns - deadline_ns());
}

LoopEvent LoopScheduler::finish_step(std::int64_t start_ns, std::int64_t end_ns) noexcept {
  // measurements of this step
  const std::int64_t next_deadline = deadline_of(counters_.next_index + 1);
  histograms_.compute.record(end_ns - start_ns);
  histograms_.slack.record(next_deadline - end_ns);
  if (!next_is_on_time()) ++counters_.catch_up_ticks;
  if (counters_.degrade_level > 0) ++counters_.degraded_ticks;
  ++counters_.ticks;

  // overrun accounting
  const bool overrun = end_ns > next_deadline;
  count_overrun(counters_, overrun);
  if (config_.policy == OverrunPolicy::kDegrade) update_degrade_level(overrun);

  // the policy picks the next tick: on time, caught up, or after skipping the due ones
  choose_next_tick(end_ns);
  last_end_ns_ = end_ns;

  // phase-lock: the correction the tick's input arrivals call for moves the grid from here on
  if (config_.phase_lock != nullptr) {
    (void)shift_phase(config_.phase_lock->next_adjustment(start_ns));
  }

  if (config_.telemetry != nullptr && counters_.ticks % config_.telemetry_every_ticks == 0) {
    publish_telemetry();
  }
  if (config_.policy == OverrunPolicy::kHalt &&
      counters_.consecutive_overruns >= config_.halt_after_overruns) {
    return LoopEvent::kHalt;
  }
  if (config_.max_ticks > 0 && counters_.ticks >= config_.max_ticks) return LoopEvent::kMaxTicks;
  return LoopEvent::kContinue;
}

void LoopScheduler::update_degrade_level(bool overrun) noexcept {
  // up one level per overrun, down one level per degrade_recover_ticks good ticks in a row
  if (overrun) {
    good_streak_ = 0;
    counters_.degrade_level = std::min(counters_.degrade_level + 1, config_.max_degrade_level);
    counters_.max_degrade_level_reached =
        std::max(counters_.max_degrade_level_reached, counters_.degrade_level);
    return;
  }
  ++good_streak_;
  if (good_streak_ >= config_.degrade_recover_ticks && counters_.degrade_level > 0) {
    --counters_.degrade_level;
    good_streak_ = 0;
  }
}

void LoopScheduler::choose_next_tick(std::int64_t end_ns) noexcept {
  std::int64_t next = counters_.next_index + 1;
  const std::int64_t late_ns = end_ns - deadline_of(next);
  if (late_ns <= 0) {
    // on time: a new catch-up episode may start at the next overrun
    catch_up_budget_ = config_.max_catch_up;
  } else if (config_.policy == OverrunPolicy::kCatchUp && catch_up_budget_ > 0) {
    // run tick `next` at once, late
    --catch_up_budget_;
  } else {
    // skip every tick released before end_ns: the first one kept has D(j) >= end_ns
    const std::int64_t due = (late_ns + config_.period_ns - 1) / config_.period_ns;
    counters_.missed_ticks += due;
    next += due;
    catch_up_budget_ = config_.max_catch_up;
  }
  counters_.next_index = next;
}

std::int64_t LoopScheduler::shift_phase(std::int64_t shift_ns) noexcept {
  // bounded, so one period changes by at most a quarter; not before the last step's end, so the
  // shift alone cannot turn an on-time tick into a catch-up tick (and a tick already due is not
  // pushed further into the past)
  const std::int64_t bound = config_.period_ns / 4;
  const std::int64_t earliest =
      std::max(-bound, std::min<std::int64_t>(0, last_end_ns_ - deadline_ns()));
  const std::int64_t applied = std::clamp(shift_ns, earliest, bound);
  offset_ns_ += applied;
  return applied;
}

void LoopScheduler::finish(StopReason reason) noexcept {
  stop_reason_ = reason;
  if (reason == StopReason::kHalted && config_.safe_state != nullptr) {
    config_.safe_state(config_.safe_state_context, counters_);
  }
  if (config_.telemetry != nullptr) publish_telemetry();
}

void LoopScheduler::publish_telemetry() noexcept {
  publish_loop_telemetry(*config_.telemetry, counters_, histograms_, stop_reason_);
}

void count_overrun(LoopCounters& c, bool overrun) noexcept {
  if (!overrun) {
    c.consecutive_overruns = 0;
    return;
  }
  ++c.overruns;
  ++c.consecutive_overruns;
  c.max_consecutive_overruns = std::max(c.max_consecutive_overruns, c.consecutive_overruns);
}

void publish_loop_telemetry(LatestValue<LoopTelemetry>& telemetry,
                            const LoopCounters& counters,
                            const LoopHistograms& histograms,
                            StopReason reason) noexcept {
  LoopTelemetry& t = telemetry.back();
  t.counters = counters;
  t.lateness = histograms.lateness.summarize();
  t.compute = histograms.compute.summarize();
  t.slack = histograms.slack.summarize();
  t.stop_reason = reason;
  telemetry.commit();
}

// The names by enumerator value (the enums count from 0 without gaps, enum_names.hpp); "unknown"
// for a value outside the enum.
const char* to_string(OverrunPolicy policy) noexcept {
  constexpr std::array<const char*, 4> kNames = {"skip", "catch_up", "degrade", "halt"};
  return detail::enum_lookup(kNames, policy, "unknown");
}

const char* to_string(StopReason reason) noexcept {
  constexpr std::array<const char*, 5> kNames = {"none", "stop_requested", "max_ticks", "halted",
                                                 "step_requested_stop"};
  return detail::enum_lookup(kNames, reason, "unknown");
}

}  // namespace rtmb
