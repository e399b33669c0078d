// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// A model file's named channels driven through the SimulationRunner as the server does (input
// ring -> InputChannelBank -> System inputs, outputs evaluated each tick), for the allocation
// tests of planar and spatial channel models (tests/alloc/*channels_alloc_test.cpp).

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "rtmb/models/model_file.hpp"
#include "rtmb/outputs.hpp"
#include "rtmb/runtime/input_channels.hpp"
#include "rtmb/runtime/simulation_runner.hpp"
#include "rtmb/step.hpp"
#include "tests/support/alloc_counter.hpp"

namespace rtmb::testing {

struct ChannelTickRig {
  /// Two engine steps per tick, the file's input bank, and its output evaluator (may be null:
  /// check `outputs`).
  ChannelTickRig(const ModelFile& file, const Model& model)
      : ws(model), state(initial_state(model)) {
    RunnerConfig rc;
    rc.substeps = 2;
    runner = std::make_unique<SimulationRunner>(model, state, ws, *inputs, *snapshots, rc);
    std::vector<InputChannelConfig> configs;
    for (const InputChannelSpec& c : file.inputs) configs.push_back(c.config);
    InputBankConfig bank_config;
    bank_config.period_ns = runner->period_ns();
    bank = std::make_unique<InputChannelBank>(configs, bank_config);
    runner->set_input_bank(bank.get());
    outputs = make_output_evaluator(file, model.system());
    if (outputs) runner->set_output_evaluator(outputs.get());
  }

  /// Tick k: one sample per channel, values[c] * (1 + 0.1 (k mod 7)), then the runner's tick.
  bool tick(std::int64_t k, std::span<const double> values) {
    for (std::uint32_t c = 0; c < values.size(); ++c) {
      QueuedInput q;
      q.channel = c;
      q.value = values[c] * (1.0 + 0.1 * static_cast<double>(k % 7));
      q.seq = static_cast<std::uint64_t>(k);
      q.sender_time_ns = k * runner->period_ns();
      (void)inputs->try_push(q);
    }
    Tick t;
    t.index = k;
    t.sequence = k;
    return runner->on_tick(t);
  }

  struct Counted {
    AllocationCounts counts;
    bool ok = true;          ///< every counted tick returned true
    bool warm_up_ok = true;  ///< every warm-up tick returned true
  };

  /// Heap calls of ticks [first, last), a reset of the inputs and one more output evaluation.
  Counted count_ticks(std::int64_t first, std::int64_t last, std::span<const double> values) {
    Counted out;
    AllocationScope scope;
    for (std::int64_t k = first; k < last; ++k) out.ok = tick(k, values) && out.ok;
    runner->reset_inputs();
    StateSnapshot extra;
    runner->evaluate_outputs(extra);
    out.counts = scope.counts();
    return out;
  }

  /// Ticks [0, warm_up) outside the count, then count_ticks(warm_up, last, values).
  Counted warm_up_and_count(std::int64_t warm_up,
                            std::int64_t last,
                            std::span<const double> values) {
    bool warm_up_ok = true;
    for (std::int64_t k = 0; k < warm_up; ++k) warm_up_ok = tick(k, values) && warm_up_ok;
    Counted out = count_ticks(warm_up, last, values);
    out.warm_up_ok = warm_up_ok;
    return out;
  }

  Workspace ws;
  State state;
  std::unique_ptr<InputRing> inputs = std::make_unique<InputRing>();
  std::unique_ptr<SnapshotSlot> snapshots = std::make_unique<SnapshotSlot>();
  std::unique_ptr<SimulationRunner> runner;
  std::unique_ptr<InputChannelBank> bank;
  std::unique_ptr<OutputEvaluator> outputs;
};

/// The rig's model file: `text` parsed, run with `method` (PStab for explicit methods, no
/// stabilizer for implicit ones).
inline ModelFile channel_rig_file(const std::string& text, const std::string& name, Method method) {
  ModelFile file = parse_model_file(text, name);
  file.settings.method = method;
  file.settings.stabilizer = is_implicit(method) ? StabilizerKind::kNone : StabilizerKind::kPStab;
  return file;
}

/// Success when every tick of the run returned true and the counted ones touched no heap.
inline ::testing::AssertionResult ticked_without_heap(const ChannelTickRig::Counted& run) {
  if (run.warm_up_ok && run.ok && run.counts.allocations == 0 && run.counts.deallocations == 0) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << "warm-up ticks ok " << run.warm_up_ok << ", counted ticks ok " << run.ok << ", "
         << run.counts.allocations << " allocations, " << run.counts.deallocations
         << " deallocations";
}

}  // namespace rtmb::testing
