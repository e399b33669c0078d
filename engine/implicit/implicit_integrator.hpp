// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include "engine/integrate/step_endpoints.hpp"
#include "rtmb/status.hpp"
#include "rtmb/system.hpp"
#include "rtmb/types.hpp"

namespace rtmb {

/// Stages 1-2 of the step for the implicit index-3 methods (engine/implicit): one fixed step that
/// satisfies the constraints itself by Newton iteration, so no stabilizer runs afterwards.
class ImplicitIntegrator {
 public:
  virtual ~ImplicitIntegrator() = default;

  /// Advances (t, q, v) by h into `to` (no aliasing). Returns false on kNotConverged or
  /// kSingularKkt (flag set in status; outputs unspecified, internal history unchanged). Newton
  /// iterations and the last increment norm are reported in status either way. RT-safe.
  [[nodiscard]] virtual bool step(const StepFrom& from, StepTo to, StepStatus& status) noexcept = 0;

  /// This simulation's inputs (the Workspace's Dynamics holds them): the external generalized
  /// force of applied_force(ws), added to f wherever the method evaluates it, and the named
  /// channel values of input_values(ws), passed to System::forces (held over the step, as in the
  /// explicit pipeline). Setup-only; both must outlive the integrator. nullptr / empty: none.
  void set_inputs(const Vec* applied, InputValues channels) noexcept {
    applied_ = applied;
    channels_ = channels;
  }

 protected:
  /// f(t, q, v, channels) of sys plus the applied force, when set, into out_f: the force every
  /// evaluation of the methods uses. RT-safe.
  void total_forces(
      const System& sys, double t, VecCRef q, VecCRef v, VecRef out_f) const noexcept {
    sys.forces(t, q, v, channels_, out_f);
    if (applied_ != nullptr) out_f += *applied_;  // inputs (applied_force)
  }

  const Vec* applied_ = nullptr;
  InputValues channels_;
};

}  // namespace rtmb
