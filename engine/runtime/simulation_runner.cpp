// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// SimulationRunner: drain inputs -> step -> publish, once per loop tick (design notes in
// include/rtmb/runtime/simulation_runner.hpp).
#include "rtmb/runtime/simulation_runner.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "rtmb/outputs.hpp"
#include "rtmb/runtime/input_channels.hpp"
#include "rtmb/runtime/phase_lock.hpp"
#include "rtmb/runtime/record.hpp"

namespace rtmb {
namespace {

// Copies the first min(n, kSnapshotMaxCoordinates) entries and zeroes the rest, because the
// writer's buffer holds an older snapshot. Returns the number copied.
std::int32_t copy_coordinates(const Vec& from,
                              std::array<double, kSnapshotMaxCoordinates>& out) noexcept {
  const auto n =
      static_cast<std::int32_t>(std::min<Eigen::Index>(from.size(), kSnapshotMaxCoordinates));
  std::copy_n(from.data(), n, out.begin());
  std::fill(out.begin() + n, out.end(), 0.0);
  return n;
}

}  // namespace

SimulationRunner::SimulationRunner(const Model& model,
                                   State& state,
                                   Workspace& ws,
                                   InputRing& inputs,
                                   SnapshotSlot& snapshots,
                                   const RunnerConfig& config)
    : model_(&model),
      state_(&state),
      ws_(&ws),
      inputs_(&inputs),
      snapshots_(&snapshots),
      config_(config) {
  if (config.substeps < 1) {
    throw std::invalid_argument("RunnerConfig::substeps must be >= 1, got " +
                                std::to_string(config.substeps));
  }
  if (config.max_inputs_per_tick < 1) {
    throw std::invalid_argument("RunnerConfig::max_inputs_per_tick must be >= 1, got " +
                                std::to_string(config.max_inputs_per_tick));
  }
  if (state.q.size() != model.system().n_q() || state.v.size() != model.system().n_v()) {
    throw std::invalid_argument(
        "SimulationRunner: state is not sized for the model (use "
        "initial_state(model))");
  }
}

std::int64_t SimulationRunner::period_ns() const noexcept {
  return std::llround(model_->settings().dt * config_.substeps * 1e9);
}

void SimulationRunner::set_input_bank(InputChannelBank* bank) noexcept {
  bank_ = bank;
  if (bank != nullptr) {
    set_input_hook(&InputChannelBank::hook, bank);
  } else {
    set_input_hook(nullptr, nullptr);
  }
}

bool SimulationRunner::on_tick(const Tick& tick) noexcept {
  // inputs that arrived before this tick act in this tick; the bank then applies its per-channel
  // policies and the watchdog at this tick's grid time
  drain_inputs(tick);
  if (bank_ != nullptr) {
    bank_->advance(tick.index * period_ns());
    apply_bank_values();
  }
  if (force_hook_ != nullptr) {
    // the bank wrote the applied force only when its channels are generalized forces; otherwise
    // it starts from zero every tick, so the hook's force never accumulates
    VecRef u = applied_force(*ws_);
    if (bank_ == nullptr || model_->system().n_inputs() > 0) u.setZero();
    force_hook_(force_hook_context_, *state_, u);
  }

  // advance the state; a non-finite step leaves the state as it was, so stop stepping
  std::uint32_t step_flags = 0;
  for (int i = 0; i < config_.substeps; ++i) {
    last_status_ = step(*model_, *state_, *ws_);
    if (recorder_ != nullptr) recorder_->stepped(*state_);
    ++counters_.steps;
    step_flags |= last_status_.flags;
    if (!last_status_.ok()) ++counters_.flagged_steps;
    if (has_flag(last_status_.flags, StepFlag::kNonFinite)) break;
  }
  counters_.flags_seen |= step_flags;
  ++counters_.ticks;

  publish(tick, step_flags);
  return !(config_.stop_on_non_finite && has_flag(step_flags, StepFlag::kNonFinite));
}

void SimulationRunner::apply_bank_values() noexcept {
  const System& sys = model_->system();
  if (sys.n_inputs() > 0) {
    // named channels: channel i is the System's input i (a force, motor or coupling target)
    std::array<double, kMaxInputChannels> values{};
    const int n = std::min(bank_->channel_count(), kMaxInputChannels);
    for (int i = 0; i < n; ++i) values[static_cast<std::size_t>(i)] = bank_->value(i);
    set_inputs(*ws_, std::span<const double>(values.data(), static_cast<std::size_t>(n)));
    if (recorder_ != nullptr) {
      recorder_->inputs(std::span<const double>(values.data(), static_cast<std::size_t>(n)));
    }
    return;
  }
  // channel i is the generalized force on velocity coordinate i, held over the tick's steps
  VecRef u = applied_force(*ws_);
  const Eigen::Index n = std::min<Eigen::Index>(bank_->channel_count(), u.size());
  for (Eigen::Index i = 0; i < n; ++i) u[i] = bank_->value(static_cast<int>(i));
  // coordinates beyond the bank's channels get no input (a model served without inputs because it
  // has more velocities than kMaxInputChannels, net/server.cpp): zero, so that the force hook's
  // force, added to u every tick, never accumulates
  u.tail(u.size() - n).setZero();
  if (recorder_ != nullptr) {
    recorder_->inputs(std::span<const double>(u.data(), static_cast<std::size_t>(u.size())));
  }
}

void SimulationRunner::halt_inputs() noexcept {
  applied_force(*ws_).setZero();
  const System& sys = model_->system();
  if (bank_ == nullptr || sys.n_inputs() == 0) return;
  std::array<double, kMaxInputChannels> values{};
  const int n = std::min(bank_->channel_count(), kMaxInputChannels);
  for (int i = 0; i < n; ++i) {
    const InputKind kind = bank_->config(i).kind;
    const bool force = kind == InputKind::kForce || kind == InputKind::kTorque;
    values[static_cast<std::size_t>(i)] = force ? 0.0 : bank_->value(i);
  }
  set_inputs(*ws_, std::span<const double>(values.data(), static_cast<std::size_t>(n)));
}

void SimulationRunner::set_output_evaluator(OutputEvaluator* evaluator) {
  if (evaluator != nullptr && evaluator->count() > kSnapshotMaxOutputs) {
    throw std::invalid_argument("the model has " + std::to_string(evaluator->count()) +
                                " output channels; a snapshot carries at most " +
                                std::to_string(kSnapshotMaxOutputs));
  }
  outputs_ = evaluator;
}

void SimulationRunner::evaluate_outputs(StateSnapshot& s) noexcept {
  s.n_outputs = outputs_ != nullptr ? outputs_->count() : 0;
  std::fill(s.outputs.begin(), s.outputs.end(), 0.0);
  if (outputs_ != nullptr) outputs_->evaluate(*state_, *ws_, s.outputs);
}

void SimulationRunner::reset_inputs() noexcept {
  // the reset goes into the record before the inputs it starts from
  if (recorder_ != nullptr) recorder_->reset();
  if (bank_ != nullptr) {
    bank_->reset();
    // named channels go back to their initial values (a coupling to its start target)
    if (model_->system().n_inputs() > 0) apply_bank_values();
  }
  applied_force(*ws_).setZero();
  last_input_ = QueuedInput{};
  last_input_step_ = -1;
  last_input_wait_ns_ = -1;
}

void SimulationRunner::drain_inputs(const Tick& tick) noexcept {
  // bounded, so a producer that never stops pushing cannot hold the tick here
  QueuedInput sample;
  const std::int64_t release = tick.release_ns > 0 ? tick.release_ns : tick.deadline_ns;
  // a tick that applies n messages (Tick::input_messages > 0, the device loop) stops after the
  // n-th message's last sample; the rest waits for the ticks of the messages it belongs to
  int messages_left = tick.input_messages;
  for (int i = 0; i < config_.max_inputs_per_tick && inputs_->try_pop(sample); ++i) {
    if (hook_ != nullptr) hook_(hook_context_, sample);
    last_input_ = sample;
    last_input_step_ = counters_.steps + 1;
    // arrival and release on the same clock (CLOCK_MONOTONIC); the release is when the loop
    // woke to drain (D(k) if the driver does not say), and an input can arrive between it and
    // the drain (or after D(k) for a catch-up tick): it waited no time for this tick
    last_input_wait_ns_ = sample.arrival_ns > 0 && release > 0
                              ? std::max<std::int64_t>(0, release - sample.arrival_ns)
                              : -1;
    if (phase_lock_ != nullptr && sample.arrival_ns > 0 && release > 0) {
      phase_lock_->record_input(sample.arrival_ns, release);
    }
    ++counters_.inputs_applied;
    if (messages_left > 0 &&
        (sample.flags & static_cast<std::uint32_t>(QueuedInputFlag::kEndOfMessage)) != 0 &&
        --messages_left == 0) {
      break;
    }
  }
}

void SimulationRunner::publish(const Tick& tick, std::uint32_t step_flags) noexcept {
  // fill the writer's private buffer in place and commit it: no 1 KiB temporary
  StateSnapshot& s = snapshots_->back();
  s.t = state_->t;
  s.step = counters_.steps;
  s.tick = tick.index;
  s.position_drift = last_status_.position_drift;
  s.velocity_drift = last_status_.velocity_drift;
  s.energy = last_status_.energy;
  s.last_input_seq = last_input_.seq;
  s.last_input_sender_time_ns = last_input_.sender_time_ns;
  s.last_input_step = last_input_step_;
  s.last_input_wait_ns = last_input_wait_ns_;
  s.tick_deadline_ns = tick.deadline_ns;
  s.step_flags = step_flags;
  s.n_q = copy_coordinates(state_->q, s.q);
  s.n_v = copy_coordinates(state_->v, s.v);
  const bool truncated = state_->q.size() > s.n_q || state_->v.size() > s.n_v;
  s.flags = truncated ? static_cast<std::uint32_t>(SnapshotFlag::kTruncated) : 0u;
  s.degrade_level = tick.degrade_level;
  s.reserved = 0;
  s.reserved2 = 0;
  evaluate_outputs(s);
  snapshots_->commit();
}

}  // namespace rtmb
