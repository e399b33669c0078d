// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include "rtmb/types.hpp"

namespace rtmb {

/// Where one step of an integrator starts: time t [s] and state (q, v), and the step size h [s]
/// (negative: backwards in time). Every Integrator::advance and ImplicitIntegrator::step takes
/// these four together; views only, so building one on the step path does not allocate.
struct StepFrom {
  double t;
  double h;
  VecCRef q;
  VecCRef v;
};

/// Where a step writes the state it reaches at t + h. Must not alias StepFrom's q, v: the methods
/// read the start state after writing the end state.
struct StepTo {
  VecRef q;
  VecRef v;
};

/// A state (q, v) an integrator keeps between the start and the end of a step (a stage, a
/// predictor, a midpoint): sized once at setup, so that the step writes it without allocating.
struct StateScratch {
  StateScratch(int n_q, int n_v) : q(Vec::Zero(n_q)), v(Vec::Zero(n_v)) {}
  Vec q;
  Vec v;
};

}  // namespace rtmb
