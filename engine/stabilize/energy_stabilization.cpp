// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#include "engine/stabilize/energy_stabilization.hpp"

#include <cmath>

#include "rtmb/state.hpp"
#include "rtmb/status.hpp"

namespace rtmb {

EnergyStabilization::EnergyStabilization(const System& system, InputValues channels)
    : system_(system), channels_(channels), zero_(Vec::Zero(system.n_v())) {
  State s0(system.n_q(), system.n_v());
  system.initial_state(s0);
  e0_ = system.energy(s0.t, s0.q, s0.v, channels_);
}

bool EnergyStabilization::apply(double t, VecCRef q, VecRef v, StepStatus& status) noexcept {
  // s = sqrt((E0 - V) / T) (energy_stabilization.hpp)
  const double potential = system_.energy(t, q, zero_, channels_);
  const double kinetic = system_.energy(t, q, v, channels_) - potential;
  const double target = e0_ - potential;
  const double s = std::sqrt(target / kinetic);
  if (kinetic > 0.0 && target > 0.0 && std::isfinite(s)) {
    v *= s;
    return true;
  }
  // No root. Nothing is wrong where the invariant already holds to round-off (at rest at the
  // reference energy: T = 0 = E0 - V); otherwise the energy stays off E0 and the step says so.
  const double scale = std::abs(e0_) + std::abs(potential) + std::abs(kinetic);
  if (std::abs(kinetic - target) <= kRoundOff * scale) return true;
  status.set(StepFlag::kStabilizerNotConverged);
  return false;
}

}  // namespace rtmb
