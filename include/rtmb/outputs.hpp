// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Named output channels (issue 4): values computed from the state after each tick, streamed in
// place of q and v when a model defines them (docs/protocol.md, "State payload").

#include <span>

#include "rtmb/state.hpp"
#include "rtmb/step.hpp"

namespace rtmb {

/// Computes a model's output channels from a state. Built at setup (allocates there); evaluate()
/// is called by the simulation thread after every tick (SimulationRunner).
class OutputEvaluator {
 public:
  virtual ~OutputEvaluator() = default;

  /// Number of scalar output channels.
  [[nodiscard]] virtual int count() const noexcept = 0;

  /// The channels at state s into out (size >= count()), in schema order. ws is the Workspace
  /// that stepped s (its applied force acts in reaction forces). RT-safe.
  virtual void evaluate(const State& s, const Workspace& ws, std::span<double> out) noexcept = 0;
};

}  // namespace rtmb
