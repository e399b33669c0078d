// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// A model file's named channels driven through the SimulationRunner as the server does (input
// ring -> InputChannelBank -> System inputs, outputs evaluated each tick), for the allocation
// tests of planar and spatial channel models (tests/alloc/*channels_alloc_test.cpp).

#include <cstdint>
#include <memory>
#include <span>
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
    bool ok = true;  ///< every tick returned true
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

  Workspace ws;
  State state;
  std::unique_ptr<InputRing> inputs = std::make_unique<InputRing>();
  std::unique_ptr<SnapshotSlot> snapshots = std::make_unique<SnapshotSlot>();
  std::unique_ptr<SimulationRunner> runner;
  std::unique_ptr<InputChannelBank> bank;
  std::unique_ptr<OutputEvaluator> outputs;
};

}  // namespace rtmb::testing
