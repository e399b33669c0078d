// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// The step: a Workspace (what one simulation writes) and step(), which advances a State by one
// fixed step of its Model. rtmb/engine.hpp includes this with the rest of the core API.

#include <memory>
#include <span>

#include "rtmb/model.hpp"
#include "rtmb/state.hpp"
#include "rtmb/status.hpp"

namespace rtmb {

/// Everything a simulation writes besides the State: its inputs (applied_force, input_values),
/// the dynamics (KKT) buffers, the integrator's stages, the stabilizer's factorization and
/// scratch. Sized once from the Model (setup-only, allocates); a Workspace serves only the Model
/// it was built from, which must outlive it. The Model is never written: several Workspaces may
/// share one Model and step in different threads at the same time (Model/Data split, issue 13).
class Workspace {
 public:
  explicit Workspace(const Model& model);
  ~Workspace();
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  struct Impl;
  [[nodiscard]] Impl& impl() noexcept { return *impl_; }
  [[nodiscard]] const Impl& impl() const noexcept { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

/// A State sized for the model and set to the system's consistent initial values. Setup-only.
[[nodiscard]] State initial_state(const Model& model);

/// Advances s by one fixed step of model.settings().dt:
///   1. integrate   (q~, v~) = (q, v) + phi(t, q, v, dt)   [Dynamics solves the KKT system]
///   2. stabilize   (q, v) = stabilizer(t + dt, q~, v~)
///   3. guard       non-finite result -> state restored, kNonFinite
///   4. monitor     drift ||g||inf, ||G v + g_t||inf and energy into the status
/// RT-safe: no allocation, no locks, no system calls, no logging, does not throw.
/// With Method::kDopri5 this is a fixed step of the fifth-order Dormand-Prince formula; adaptive
/// step-size control lives in AdaptiveDopri5 (rtmb/adaptive_dopri5.hpp).
[[nodiscard]] StepStatus step(const Model& model, State& s, Workspace& ws) noexcept;

/// The external generalized force u [N | N m] (size n_v) that every following step adds to the
/// system's applied forces: M v' = f(t, q, v) + u - G^T lambda. Zero after the Workspace is
/// built; held constant over a step (a zero-order hold, as for a sampled input). This is where
/// input channels act (SimulationRunner writes it from the InputChannelBank). RT-safe.
[[nodiscard]] VecRef applied_force(Workspace& ws) noexcept;
[[nodiscard]] VecCRef applied_force(const Workspace& ws) noexcept;

/// The number of fixed steps of size dt that take a simulation from time t to t_end: as many as
/// fit, the last one ending within 1e-9 dt of t_end (so 1 s at dt = 1e-3 is 1000 steps despite
/// the rounding of 1e-3), and 0 when t_end <= t. `rtmb run`, the Python Simulation.run and every
/// other "run to t_end" use this one count, so they end on the same step. dt must be > 0.
[[nodiscard]] long fixed_step_count(double t, double t_end, double dt) noexcept;

/// Values of the System's named input channels (System::n_inputs(), channel i at index i) that
/// every following step passes to System::forces and System::energy, and that the output
/// evaluators read (the coupling targets). System::initial_input after the Workspace is built;
/// held constant over a step (a zero-order hold). The one home of these values: SimulationRunner
/// writes them from the InputChannelBank, replay from the record. RT-safe.
[[nodiscard]] std::span<double> input_values(Workspace& ws) noexcept;
[[nodiscard]] InputValues input_values(const Workspace& ws) noexcept;

/// Sets the first min(u.size(), n_inputs()) channel values of input_values(ws); the others keep
/// theirs. RT-safe.
void set_inputs(Workspace& ws, InputValues u) noexcept;

/// The right-hand side step() integrates: v' at (t, q, v) from the Workspace's Dynamics, with
/// its inputs and the Model's Baumgarte gains (Settings::gamma1, gamma2; under any stabilizer).
/// The Workspace's multipliers hold lambda afterwards. For drivers built on the Workspace
/// (AdaptiveDopri5). RT-safe.
void acceleration(
    Workspace& ws, double t, VecCRef q, VecCRef v, VecRef out_vdot, StepStatus& status) noexcept;

/// Stage 2 alone: the Model's post-step stabilizer applied to (q, v) at time t, in place (nothing
/// for none, baumgarte and the symmetric projections, which act around the integrator). RT-safe.
void stabilize(Workspace& ws, double t, VecRef q, VecRef v, StepStatus& status) noexcept;

/// Measures drift and energy of s into status (stage 4 alone). RT-safe.
void measure(const Model& model, const State& s, Workspace& ws, StepStatus& status) noexcept;

}  // namespace rtmb
