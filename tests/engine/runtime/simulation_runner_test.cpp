// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// SimulationRunner driven by DeadlineLoop on a FakeClock: snapshots match the engine state,
// sub-steps, inputs drained in order before the step with the latency echo, the drain bound,
// stopping on a non-finite state, and truncation of large models.
#include "rtmb/runtime/simulation_runner.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>

#include "rtmb/models/mechanisms.hpp"
#include "rtmb/runtime/phase_lock.hpp"
#include "tests/support/runner_rig.hpp"

namespace rtmb {
namespace {

using Rig = testing::RunnerRig;

// The newest snapshot; a failure if none was published.
StateSnapshot latest(Rig& rig) {
  StateSnapshot s;
  EXPECT_TRUE(rig.snapshots->try_read(s));
  return s;
}

// Records the samples the hook was given, in a fixed array (the hook must not allocate).
struct HookLog {
  QueuedInput seen[16];
  int count = 0;
  State* state = nullptr;  // for the hook that corrupts the state
};

void log_input(void* context, const QueuedInput& sample) noexcept {
  auto* log = static_cast<HookLog*>(context);
  if (log->count < 16) log->seen[log->count] = sample;
  ++log->count;
}

void poison_velocity(void* context, const QueuedInput&) noexcept {
  auto* log = static_cast<HookLog*>(context);
  log->state->v[0] = std::numeric_limits<double>::quiet_NaN();
}

QueuedInput sample(std::uint32_t channel, double value, std::uint64_t seq, std::int64_t time) {
  QueuedInput s;
  s.channel = channel;
  s.value = value;
  s.seq = seq;
  s.sender_time_ns = time;
  return s;
}

TEST(RuntimeSimulationRunner, SnapshotMatchesTheStateAfterEachTick) {
  Rig rig("pendulum");
  EXPECT_EQ(rig.runner.period_ns(), 1'000'000);  // dt = 1e-3 s
  EXPECT_EQ(rig.run(10), StopReason::kMaxTicks);

  const StateSnapshot s = latest(rig);
  EXPECT_DOUBLE_EQ(s.t, 10 * rig.model.settings().dt);
  EXPECT_EQ(s.t, rig.state.t);
  EXPECT_EQ(s.step, 10);
  EXPECT_EQ(s.tick, 9);
  ASSERT_EQ(s.n_q, rig.model.system().n_q());
  ASSERT_EQ(s.n_v, rig.model.system().n_v());
  for (int i = 0; i < s.n_q; ++i) EXPECT_EQ(s.q[i], rig.state.q[i]);
  for (int i = 0; i < s.n_v; ++i) EXPECT_EQ(s.v[i], rig.state.v[i]);
  for (int i = s.n_q; i < kSnapshotMaxCoordinates; ++i) EXPECT_EQ(s.q[i], 0.0);
  EXPECT_EQ(s.step_flags, 0u);
  EXPECT_EQ(s.flags, 0u);
  EXPECT_EQ(s.last_input_step, -1);  // no input yet
  EXPECT_LT(s.position_drift, 1e-8);
  EXPECT_TRUE(std::isfinite(s.energy));
  EXPECT_EQ(rig.snapshots->published(), 10u);
  EXPECT_EQ(rig.runner.counters().ticks, 10);
  EXPECT_EQ(rig.runner.counters().steps, 10);
}

// The force hook (the live view's mouse spring): called once per tick with the state the tick
// starts from, its force acts in the tick's steps and starts from zero every tick (no bank here),
// so a hook adding a constant torque steps exactly as a constant applied force does.
struct ForceLog {
  double times[8] = {};
  int count = 0;
};

void add_torque(void* context, const State& state, VecRef applied) noexcept {
  auto* log = static_cast<ForceLog*>(context);
  if (log->count < 8) log->times[log->count] = state.t;
  ++log->count;
  applied[0] += 0.75;
}

TEST(RuntimeSimulationRunner, ForceHookAddsItsForceEveryTickFromTheTicksStartState) {
  Rig hooked("pendulum");
  ForceLog log;
  hooked.runner.set_force_hook(add_torque, &log);
  Rig constant("pendulum");
  applied_force(constant.ws)[0] = 0.75;
  ASSERT_EQ(hooked.run(8), StopReason::kMaxTicks);
  ASSERT_EQ(constant.run(8), StopReason::kMaxTicks);
  EXPECT_EQ(log.count, 8);
  for (int k = 0; k < 8; ++k) EXPECT_DOUBLE_EQ(log.times[k], k * hooked.model.settings().dt);
  EXPECT_EQ(hooked.state.q, constant.state.q);
  EXPECT_EQ(hooked.state.v, constant.state.v);
  Rig free("pendulum");
  ASSERT_EQ(free.run(8), StopReason::kMaxTicks);
  EXPECT_NE(hooked.state.v, free.state.v);  // the torque did act
}

TEST(RuntimeSimulationRunner, SubstepsAdvanceSeveralEngineStepsPerTick) {
  RunnerConfig config;
  config.substeps = 4;
  Rig rig("pendulum", {}, config);
  EXPECT_EQ(rig.runner.period_ns(), 4'000'000);
  EXPECT_EQ(rig.run(3), StopReason::kMaxTicks);
  const StateSnapshot s = latest(rig);
  EXPECT_EQ(s.step, 12);
  EXPECT_DOUBLE_EQ(s.t, 12 * rig.model.settings().dt);
  EXPECT_EQ(rig.snapshots->published(), 3u);  // one snapshot per tick, not per step
}

TEST(RuntimeSimulationRunner, InputsAreDrainedInOrderBeforeTheStepAndEchoed) {
  Rig rig("pendulum");
  HookLog log;
  rig.runner.set_input_hook(log_input, &log);
  ASSERT_TRUE(rig.inputs->try_push(sample(0, 1.5, 10, 1000)));
  ASSERT_TRUE(rig.inputs->try_push(sample(1, -2.0, 11, 2000)));
  ASSERT_TRUE(rig.inputs->try_push(sample(0, 0.5, 12, 3000)));
  EXPECT_EQ(rig.run(1), StopReason::kMaxTicks);

  ASSERT_EQ(log.count, 3);
  EXPECT_EQ(log.seen[0].seq, 10u);
  EXPECT_EQ(log.seen[1].seq, 11u);
  EXPECT_EQ(log.seen[1].channel, 1u);
  EXPECT_EQ(log.seen[1].value, -2.0);
  EXPECT_EQ(log.seen[2].seq, 12u);
  StateSnapshot s = latest(rig);
  EXPECT_EQ(s.last_input_seq, 12u);
  EXPECT_EQ(s.last_input_sender_time_ns, 3000);
  EXPECT_EQ(s.last_input_step,
            1);  // applied before step 1, so snapshot step 1 is the first to see it
  EXPECT_EQ(s.step, 1);

  // a sample arriving later acts in the next tick
  ASSERT_TRUE(rig.inputs->try_push(sample(0, 0.0, 13, 4000)));
  EXPECT_EQ(rig.run(2), StopReason::kMaxTicks);
  s = latest(rig);
  EXPECT_EQ(log.count, 4);
  EXPECT_EQ(s.last_input_seq, 13u);
  EXPECT_EQ(s.last_input_step, 2);
  EXPECT_EQ(s.step, 3);
  EXPECT_EQ(rig.runner.counters().inputs_applied, 4);
}

// Tick::input_messages (the device loop's one tick per datagram): a tick told to apply n
// messages stops after the n-th sample flagged kEndOfMessage and echoes that message; samples
// without a message (the `set` command) go with the next message; 0 drains everything.
TEST(RuntimeSimulationRunner, TickAppliesTheNumberOfInputMessagesItIsGiven) {
  Rig rig("pendulum");
  HookLog log;
  rig.runner.set_input_hook(&log_input, &log);
  const auto end = static_cast<std::uint32_t>(QueuedInputFlag::kEndOfMessage);
  const auto push = [&](std::uint64_t seq, bool last) {
    QueuedInput q = sample(0, static_cast<double>(seq), seq, 100);
    q.flags = last ? end : 0u;
    ASSERT_TRUE(rig.inputs->try_push(q));
  };
  push(1, false);  // message 1: two samples
  push(1, true);
  push(2, true);   // message 2: one sample
  push(0, false);  // a `set` sample, then message 3
  push(3, true);
  push(4, true);  // message 4
  push(5, true);  // message 5
  Tick tick;
  tick.input_messages = 1;
  ASSERT_TRUE(rig.runner.on_tick(tick));
  EXPECT_EQ(log.count, 2);
  EXPECT_EQ(latest(rig).last_input_seq, 1u);
  ASSERT_TRUE(rig.runner.on_tick(tick));
  EXPECT_EQ(log.count, 3);
  EXPECT_EQ(latest(rig).last_input_seq, 2u);
  tick.input_messages = 2;  // the `set` sample and messages 3 and 4
  ASSERT_TRUE(rig.runner.on_tick(tick));
  EXPECT_EQ(log.count, 6);
  EXPECT_EQ(latest(rig).last_input_seq, 4u);
  tick.input_messages = 0;  // everything that waits
  push(6, true);
  ASSERT_TRUE(rig.runner.on_tick(tick));
  EXPECT_EQ(log.count, 8);
  EXPECT_EQ(latest(rig).last_input_seq, 6u);
  EXPECT_EQ(rig.runner.counters().inputs_applied, 8);
  tick.input_messages = 1;  // nothing waits: nothing applied, the echo stays
  ASSERT_TRUE(rig.runner.on_tick(tick));
  EXPECT_EQ(log.count, 8);
  EXPECT_EQ(latest(rig).last_input_seq, 6u);
}

TEST(RuntimeSimulationRunner, ReportsHowLongAnInputWaitedForItsTick) {
  Rig rig("pendulum");
  Tick tick;
  tick.deadline_ns = 5'000'000;
  QueuedInput q = sample(0, 1.0, 1, 100);
  q.arrival_ns = 4'250'000;  // 0.75 ms before the tick's release
  ASSERT_TRUE(rig.inputs->try_push(q));
  ASSERT_TRUE(rig.runner.on_tick(tick));
  StateSnapshot s = latest(rig);
  EXPECT_EQ(s.last_input_wait_ns, 750'000);
  EXPECT_EQ(s.tick_deadline_ns, 5'000'000);

  q.arrival_ns = 6'100'000;  // a catch-up tick released before the input came: no wait
  tick.deadline_ns = 6'000'000;
  ASSERT_TRUE(rig.inputs->try_push(q));
  ASSERT_TRUE(rig.runner.on_tick(tick));
  EXPECT_EQ(latest(rig).last_input_wait_ns, 0);

  q.arrival_ns = 0;  // arrival not known
  ASSERT_TRUE(rig.inputs->try_push(q));
  ASSERT_TRUE(rig.runner.on_tick(tick));
  EXPECT_EQ(latest(rig).last_input_wait_ns, -1);
}

TEST(RuntimeSimulationRunner, MeasuresTheWaitToTheWakeUpAndReportsArrivalsToThePhaseLock) {
  Rig rig("pendulum");
  PhaseLockConfig pc;  // 1 ms period, 30 µs margin
  pc.min_samples = 1;
  pc.window = 1;
  pc.gain = 1.0;
  pc.max_slew_ns = 250'000;  // no clamp: the adjustment is the whole error
  PhaseLock lock(pc);
  rig.runner.set_phase_lock(&lock);
  Tick tick;
  tick.deadline_ns = 5'000'000;
  tick.release_ns = 5'040'000;  // woke 40 µs late: the inputs are drained then
  QueuedInput q = sample(0, 1.0, 1, 100);
  q.arrival_ns = 4'900'000;  // 100 µs before D(k), 140 µs before the drain
  ASSERT_TRUE(rig.inputs->try_push(q));
  q.arrival_ns = 4'950'000;  // the freshest: the one the lock keeps
  ASSERT_TRUE(rig.inputs->try_push(q));
  q.arrival_ns = 0;  // arrival not known: not reported
  ASSERT_TRUE(rig.inputs->try_push(q));
  ASSERT_TRUE(rig.runner.on_tick(tick));
  EXPECT_EQ(lock.counters().samples, 2);
  // the second input waited 90 µs, 60 µs more than the margin: the next tick comes 60 µs early
  EXPECT_EQ(lock.next_adjustment(tick.release_ns), -60'000);

  q.arrival_ns = 5'990'000;
  tick.deadline_ns = 6'000'000;
  tick.release_ns = 6'002'000;
  ASSERT_TRUE(rig.inputs->try_push(q));
  ASSERT_TRUE(rig.runner.on_tick(tick));
  EXPECT_EQ(latest(rig).last_input_wait_ns, 12'000);  // to the wake-up, not to D(k)
}

TEST(RuntimeSimulationRunner, DrainingIsBoundedPerTick) {
  RunnerConfig config;
  config.max_inputs_per_tick = 2;
  Rig rig("pendulum", {}, config);
  for (std::uint64_t i = 0; i < 5; ++i) ASSERT_TRUE(rig.inputs->try_push(sample(0, 0.0, i, 0)));
  EXPECT_EQ(rig.run(1), StopReason::kMaxTicks);
  EXPECT_EQ(rig.runner.counters().inputs_applied, 2);
  EXPECT_EQ(rig.inputs->size_approx(), 3u);
  EXPECT_EQ(rig.run(2), StopReason::kMaxTicks);
  EXPECT_EQ(rig.runner.counters().inputs_applied, 5);
  EXPECT_EQ(latest(rig).last_input_seq, 4u);
}

TEST(RuntimeSimulationRunner, NonFiniteStateStopsTheLoop) {
  Rig rig("pendulum");
  HookLog log;
  log.state = &rig.state;
  rig.runner.set_input_hook(poison_velocity, &log);
  EXPECT_EQ(rig.run(3), StopReason::kMaxTicks);  // no input, no trouble
  ASSERT_TRUE(rig.inputs->try_push(sample(0, 0.0, 1, 0)));
  EXPECT_EQ(rig.run(100), StopReason::kStepRequestedStop);
  EXPECT_EQ(rig.runner.counters().ticks, 4);
  const StateSnapshot s = latest(rig);
  EXPECT_TRUE(has_flag(s.step_flags, StepFlag::kNonFinite));
  EXPECT_TRUE(has_flag(rig.runner.counters().flags_seen, StepFlag::kNonFinite));
  EXPECT_EQ(rig.runner.counters().flagged_steps, 1);
}

TEST(RuntimeSimulationRunner, LargeModelsAreTruncatedAndFlagged) {
  MechanismOptions options;
  options.chain_links = 40;  // n_q = 80 > 64
  Rig rig("chain", options);
  ASSERT_GT(rig.model.system().n_q(), kSnapshotMaxCoordinates);
  EXPECT_EQ(rig.run(1), StopReason::kMaxTicks);
  const StateSnapshot s = latest(rig);
  EXPECT_EQ(s.n_q, kSnapshotMaxCoordinates);
  EXPECT_EQ(s.n_v, kSnapshotMaxCoordinates);
  EXPECT_EQ(s.flags, static_cast<std::uint32_t>(SnapshotFlag::kTruncated));
  for (int i = 0; i < kSnapshotMaxCoordinates; ++i) EXPECT_EQ(s.q[i], rig.state.q[i]);
}

TEST(RuntimeSimulationRunner, InvalidSetupIsRejected) {
  testing::RunnerParts p("pendulum");
  RunnerConfig bad;
  bad.substeps = 0;
  EXPECT_THROW(SimulationRunner(p.model, p.state, p.ws, *p.inputs, *p.snapshots, bad),
               std::invalid_argument);
  bad = RunnerConfig{};
  bad.max_inputs_per_tick = 0;
  EXPECT_THROW(SimulationRunner(p.model, p.state, p.ws, *p.inputs, *p.snapshots, bad),
               std::invalid_argument);
  State wrong(5, 5);
  EXPECT_THROW(SimulationRunner(p.model, wrong, p.ws, *p.inputs, *p.snapshots),
               std::invalid_argument);
}

}  // namespace
}  // namespace rtmb
