// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// A model file ticked by a SimulationRunner in lockstep with an emulated device: the device's
// input values are written into the System before each tick and the tick's published snapshot
// (its output channels by name) is read back at once. No network and no clock, so a device loop
// built on it is deterministic: the haptic tests that assert the sign of the work the rendered
// force does (tests/engine/multibody/planar_outputs_haptic_coupling_test.cpp,
// tests/scenarios/wam_haptic_lockstep_test.cpp) use it where `rtmb haptic-sim`'s result
// depends on how many states the machine's load lets arrive.

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "rtmb/models/model_file.hpp"
#include "rtmb/outputs.hpp"
#include "rtmb/runtime/input_channels.hpp"
#include "rtmb/runtime/simulation_runner.hpp"
#include "rtmb/step.hpp"

namespace rtmb::testing {

class HapticRig {
 public:
  HapticRig(const ModelFile& file, int substeps) : file_(file) {
    model_ =
        std::make_unique<Model>(std::shared_ptr<const System>(make_system(file_)), file_.settings);
    ws_ = std::make_unique<Workspace>(*model_);
    state_ = initial_state(*model_);
    ring_ = std::make_unique<InputRing>();
    slot_ = std::make_unique<SnapshotSlot>();
    RunnerConfig rc;
    rc.substeps = substeps;
    runner_ = std::make_unique<SimulationRunner>(*model_, state_, *ws_, *ring_, *slot_, rc);
    outputs_ = make_output_evaluator(file_, model_->system());
    runner_->set_output_evaluator(outputs_.get());
    channels_ = model_output_channels(file_);
  }

  /// index of the scalar output channel `name` ("device.fx")
  [[nodiscard]] int channel(const std::string& name) const {
    for (std::size_t i = 0; i < channels_.size(); ++i) {
      if (channels_[i].first == name) return static_cast<int>(i);
    }
    ADD_FAILURE() << "no output channel " << name;
    return 0;
  }

  /// the System's input values (in the file's channel order) in, one tick, the snapshot out
  const StateSnapshot& tick(std::span<const double> u) {
    set_inputs(*ws_, u);
    Tick t;
    t.index = k_;
    t.sequence = k_;
    ++k_;
    EXPECT_TRUE(runner_->on_tick(t));
    EXPECT_TRUE(slot_->try_read(snap_));
    return snap_;
  }
  /// a planar device's position (the first two channels, target_x and target_y)
  const StateSnapshot& tick(double x, double y) {
    const double u[2] = {x, y};
    return tick(std::span<const double>(u, 2));
  }
  [[nodiscard]] double out(const std::string& name) const {
    return snap_.outputs[static_cast<std::size_t>(channel(name))];
  }
  [[nodiscard]] const State& state() const { return state_; }
  [[nodiscard]] double period() const { return static_cast<double>(runner_->period_ns()) * 1e-9; }

 private:
  ModelFile file_;
  std::unique_ptr<Model> model_;
  std::unique_ptr<Workspace> ws_;
  State state_;
  std::unique_ptr<InputRing> ring_;
  std::unique_ptr<SnapshotSlot> slot_;
  std::unique_ptr<SimulationRunner> runner_;
  std::unique_ptr<OutputEvaluator> outputs_;
  std::vector<std::pair<std::string, std::string>> channels_;
  StateSnapshot snap_;
  std::int64_t k_ = 0;
};

}  // namespace rtmb::testing
