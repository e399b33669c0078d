// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Timing two engines side by side (issue 14 and 19: rtmb against MuJoCo's mj_step). A "loop" is
// any type with step() (one step, no allocation) and restart() (back to its warm start state,
// no allocation). The machine is shared and noisy, so the ratio is measured rather than
// remembered: step_ratio() runs a batch of each engine in turn and compares the medians of the
// per-batch times, which exposes both to the same noise.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "rtmb/step.hpp"

namespace rtmb::bench {

/// rtmb's side of a comparison: `system` at RK4 + PStab with step dt (the default step settings;
/// monitor false leaves out the drift and energy monitor, which mj_step has no counterpart of),
/// from the system's initial state with q replaced by `q0` when given, warmed by `warm_steps`
/// steps; restart() returns to the warm state.
class RtmbStepLoop {
 public:
  RtmbStepLoop(std::shared_ptr<const System> system,
               double dt,
               bool monitor,
               int warm_steps,
               const Vec* q0 = nullptr)
      : model_(std::move(system), settings(dt, monitor)),
        ws_(model_),
        state_(initial_state(model_)) {
    if (q0 != nullptr) state_.q = *q0;
    for (int i = 0; i < warm_steps; ++i) (void)rtmb::step(model_, state_, ws_);
    start_ = state_;
  }

  void step() noexcept { benchmark::DoNotOptimize(rtmb::step(model_, state_, ws_)); }
  void restart() noexcept { state_ = start_; }  // same-size assignment: no allocation
  [[nodiscard]] const State& state() const noexcept { return state_; }

 private:
  static Settings settings(double dt, bool monitor) {
    Settings s;
    s.monitor = monitor;
    s.method = Method::kRk4;
    s.stabilizer = StabilizerKind::kPStab;
    s.dt = dt;
    return s;
  }

  Model model_;
  Workspace ws_;
  State state_;
  State start_;
};

/// Steps `loop` in batches of `batch`, restarting it every `restart_steps` steps.
template <class Loop>
void run_batches(benchmark::State& bs, Loop& loop, int batch, int restart_steps) {
  int since_restart = 0;
  while (bs.KeepRunningBatch(batch)) {
    if (since_restart >= restart_steps) {
      loop.restart();
      since_restart = 0;
    }
    for (int i = 0; i < batch; ++i) loop.step();
    since_restart += batch;
  }
  bs.SetItemsProcessed(bs.iterations());
}

/// Both loops, a batch of each in turn, timed with steady_clock into buffers sized before the
/// loop; counters rtmb_ns, mujoco_ns (per step, medians of the batches) and rtmb_per_mujoco.
template <class RtmbLoop, class MujocoLoop>
void step_ratio(benchmark::State& bs,
                RtmbLoop& rtmb_loop,
                MujocoLoop& mujoco_loop,
                int batch,
                int restart_steps) {
  std::vector<double> rtmb_ns;
  std::vector<double> mujoco_ns;
  constexpr std::size_t kMaxBatches = 1 << 16;
  rtmb_ns.reserve(kMaxBatches);
  mujoco_ns.reserve(kMaxBatches);
  using Clock = std::chrono::steady_clock;
  int since_restart = 0;
  while (bs.KeepRunningBatch(2 * batch)) {
    if (since_restart >= restart_steps) {
      rtmb_loop.restart();
      mujoco_loop.restart();
      since_restart = 0;
    }
    const auto t0 = Clock::now();
    for (int i = 0; i < batch; ++i) rtmb_loop.step();
    const auto t1 = Clock::now();
    for (int i = 0; i < batch; ++i) mujoco_loop.step();
    const auto t2 = Clock::now();
    since_restart += batch;
    if (rtmb_ns.size() < kMaxBatches) {
      rtmb_ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / batch);
      mujoco_ns.push_back(std::chrono::duration<double, std::nano>(t2 - t1).count() / batch);
    }
  }
  auto median = [](std::vector<double>& v) {
    if (v.empty()) return 0.0;
    const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
    std::nth_element(v.begin(), mid, v.end());
    return *mid;
  };
  const double r = median(rtmb_ns);
  const double m = median(mujoco_ns);
  bs.counters["rtmb_ns"] = r;
  bs.counters["mujoco_ns"] = m;
  bs.counters["rtmb_per_mujoco"] = m > 0.0 ? r / m : 0.0;
}

}  // namespace rtmb::bench
