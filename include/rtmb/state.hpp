// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include "rtmb/types.hpp"

namespace rtmb {

/// What the step advances: time, positions and velocities. Sized once (State(n_q, n_v)); the
/// step only writes into the existing storage, so copying a State of the same size into another
/// does not allocate.
struct State {
  double t = 0.0;  ///< simulation time [s]
  Vec q;           ///< generalized positions [m | rad], size n_q
  Vec v;           ///< generalized velocities [m/s | rad/s], size n_v

  State() = default;
  State(int n_q, int n_v) : q(Vec::Zero(n_q)), v(Vec::Zero(n_v)) {}
};

}  // namespace rtmb
