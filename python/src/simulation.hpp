// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// rtmb.Simulation: one running simulation of a Model (MuJoCo's MjData): its State, Workspace
// and output evaluator. Shared by simulation.cpp (state, step, channels) and run.cpp (run()).

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model.hpp"
#include "rtmb/outputs.hpp"
#include "rtmb/state.hpp"
#include "rtmb/status.hpp"
#include "rtmb/step.hpp"

namespace rtmb::python {

class PySimulation {
 public:
  explicit PySimulation(std::shared_ptr<PyModel> model);

  /// Back to the model's initial state: t = 0, inputs at their initial values, a fresh
  /// Workspace (integrator history) and output evaluator. q and v keep their storage, so NumPy
  /// views taken before stay valid.
  void reset();

  /// Advances n steps, or fewer if a step fails (kNonFinite or kNotConverged; the State is
  /// then the last good one, as in `rtmb run`). The GIL must be released by the caller or held;
  /// nothing here touches Python. Allocation-free: step(), the evaluator and the counters only.
  /// Returns the number of steps taken.
  long advance(long n) noexcept;

  /// True for the flags after which `rtmb run` stops (the state was restored).
  [[nodiscard]] static bool failed(const StepStatus& s) noexcept {
    return has_flag(s.flags, StepFlag::kNonFinite) || has_flag(s.flags, StepFlag::kNotConverged);
  }

  /// Output channel i (schema order) at the current step. RT-safe.
  [[nodiscard]] double output(int i) const noexcept;

  std::shared_ptr<PyModel> model;
  State state;
  std::unique_ptr<Workspace> ws;
  std::unique_ptr<OutputEvaluator> evaluator;  ///< null: outputs are q then v
  std::vector<double> output_values;           ///< evaluator's values after the last step
  StepStatus status;                           ///< of the last step (measured at reset)
  std::uint32_t flags_seen = 0;                ///< OR of every step's flags since reset
  long steps = 0;                              ///< steps since reset
  double max_position_drift = 0.0;             ///< since reset
  double max_velocity_drift = 0.0;             ///< since reset
  std::atomic<bool> busy{false};               ///< a thread is stepping it (GIL released)
};

/// Marks sim busy for its lifetime; throws RuntimeError if another thread is already stepping
/// it (two threads stepping one Simulation would race on its State).
class BusyGuard {
 public:
  explicit BusyGuard(PySimulation& sim);
  ~BusyGuard() { sim_.busy.store(false, std::memory_order_release); }
  BusyGuard(const BusyGuard&) = delete;
  BusyGuard& operator=(const BusyGuard&) = delete;

 private:
  PySimulation& sim_;
};

}  // namespace rtmb::python
