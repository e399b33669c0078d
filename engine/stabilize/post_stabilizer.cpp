// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#include "engine/stabilize/post_stabilizer.hpp"

#include <algorithm>

namespace rtmb {

PostStabilizer::PostStabilizer(const System& system,
                               int passes,
                               double datol,
                               KktSolver solver,
                               bool stabilize_energy,
                               InputValues channels)
    : system_(system),
      passes_(passes),
      datol_(datol),
      kkt_(system, solver),
      g_now_(system, solver),
      rg_(Vec::Zero(system.n_lambda())),
      rv_(Vec::Zero(system.n_lambda())),
      dq_(Vec::Zero(system.n_v())),
      dv_(Vec::Zero(system.n_v())) {
  if (stabilize_energy) energy_.emplace(system, channels);
}

void PostStabilizer::apply(double t, VecRef q, VecRef v, StepStatus& status) noexcept {
  // No constraint rows (a joint-space tree without closures, e.g. the WAM of issue 19): there is
  // no drift to correct, and the correction M^-1 G^T (G M^-1 G^T)^-1 r of Chin eq. 4.15 is empty.
  // Loading and factoring M at q~ only to solve for zero rows cost a fifth of an RK4 step.
  if (system_.n_lambda() == 0) {
    if (energy_) (void)energy_->apply(t, q, v, status);
    return;
  }
  // K at the unstabilized point q~, and both residuals there (pass 1 is simultaneous); G and g
  // in one fused pass on the sparse path
  kkt_.load_with_constraints(t, q, rg_);
  system_.constraint_rate(t, q, rv_);
  kkt_.add_jacobian_product(v, rv_);

  // DATOL: skip when the drift is already below the user's threshold
  if (datol_ > 0.0 &&
      std::max(rg_.lpNorm<Eigen::Infinity>(), rv_.lpNorm<Eigen::Infinity>()) <= datol_) {
    if (energy_) (void)energy_->apply(t, q, v, status);
    return;
  }

  ++status.kkt_factorizations;
  if (!kkt_.factor()) {
    status.set(StepFlag::kSingularKkt);
    return;
  }
  if (kkt_.rank_deficient()) status.set(StepFlag::kRankDeficient);  // dependent rows: dx = 0

  for (int pass = 0; pass < passes_; ++pass) {
    if (pass > 0) {
      // residuals at the corrected point; the factored matrix stays frozen at q~
      system_.constraint_rate(t, q, rv_);
      g_now_.add_with_constraints(t, q, v, rv_, rg_);
    }
    kkt_.solve_correction2(rg_, rv_, dq_, dv_);  // both with the same K: one sweep
    q -= dq_;
    v -= dv_;
    ++status.stabilizer_iterations;
  }
  if (energy_)
    (void)energy_->apply(t, q, v, status);  // the energy invariant, after the constraints
}

}  // namespace rtmb
