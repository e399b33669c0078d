// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#include "engine/stabilize/projection_stabilizer.hpp"

namespace rtmb {

ProjectionStabilizer::ProjectionStabilizer(const System& system,
                                           NewtonLimits limits,
                                           KktSolver solver)
    : system_(system),
      limits_(limits),
      kkt_(system, solver),
      r_(Vec::Zero(system.n_lambda())),
      dq_(Vec::Zero(system.n_v())) {}

void ProjectionStabilizer::apply(double t, VecRef q, VecRef v, StepStatus& status) noexcept {
  // positions: simplified Newton with K frozen at q~
  if (!kkt_.factor_at(t, q, status)) return;
  newton_on_positions(system_, t, q, r_, limits_, status, [&](int) {
    kkt_.solve_correction(r_, dq_);
    q -= dq_;
  });

  // velocities: exact linear projection with K at the projected q
  if (!kkt_.factor_at(t, q, status)) return;
  system_.constraint_rate(t, q, r_);
  kkt_.add_jacobian_product(v, r_);
  kkt_.solve_correction(r_, dq_);
  v -= dq_;
}

}  // namespace rtmb
