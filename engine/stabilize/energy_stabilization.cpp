// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#include "engine/stabilize/energy_stabilization.hpp"

#include <cmath>

#include "rtmb/state.hpp"

namespace rtmb {

EnergyStabilization::EnergyStabilization(const System& system, InputValues channels)
    : system_(system), channels_(channels), zero_(Vec::Zero(system.n_v())) {
  State s0(system.n_q(), system.n_v());
  system.initial_state(s0);
  e0_ = system.energy(s0.t, s0.q, s0.v, channels_);
}

bool EnergyStabilization::apply(double t, VecCRef q, VecRef v) noexcept {
  // s = sqrt((E0 - V) / T) (energy_stabilization.hpp)
  const double potential = system_.energy(t, q, zero_, channels_);
  const double kinetic = system_.energy(t, q, v, channels_) - potential;
  const double target = e0_ - potential;
  if (!(kinetic > 0.0) || !(target > 0.0)) return false;
  const double s = std::sqrt(target / kinetic);
  if (!std::isfinite(s)) return false;
  v *= s;
  return true;
}

}  // namespace rtmb
