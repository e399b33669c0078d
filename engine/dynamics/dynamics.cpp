// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#include "engine/dynamics/dynamics.hpp"

namespace rtmb {

Dynamics::Dynamics(const System& system, KktSolver solver)
    : system_(system),
      kkt_(system, solver),
      f_(Vec::Zero(system.n_v())),
      applied_(Vec::Zero(system.n_v())),
      rhs_(Vec::Zero(system.n_lambda())),
      g_(Vec::Zero(system.n_lambda())),
      lambda_(Vec::Zero(system.n_lambda())) {
  inputs_.reserve(static_cast<std::size_t>(system.n_inputs()));
  for (int i = 0; i < system.n_inputs(); ++i) inputs_.push_back(system.initial_input(i));
}

void Dynamics::set_baumgarte(double gamma1, double gamma2) noexcept {
  gamma1_ = gamma1;
  gamma2_ = gamma2;
}

void Dynamics::evaluate(
    double t, VecCRef q, VecCRef v, VecRef out_vdot, StepStatus& status) noexcept {
  ++evaluations_;
  ++status.rhs_evaluations;

  // assemble K = [M G^T; G 0] and L at the same (t, q) (one fused pass on the sparse path),
  // then the force side
  kkt_.load_with_curvature(t, q, v, rhs_);
  system_.forces(t, q, v, inputs_, f_);
  f_ += applied_;

  // constraint side: -L, plus Baumgarte feedback -g1 (G v + g_t) - g2 g  (Chin eq. 2.14)
  rhs_ = -rhs_;
  if (gamma1_ != 0.0) {
    system_.constraint_rate(t, q, g_);
    kkt_.add_jacobian_product(v, g_);
    rhs_ -= gamma1_ * g_;
  }
  if (gamma2_ != 0.0) {
    system_.constraints(t, q, g_);
    rhs_ -= gamma2_ * g_;
  }

  ++status.kkt_factorizations;
  if (!kkt_.factor_solve(f_, rhs_, out_vdot, lambda_)) {
    status.set(StepFlag::kSingularKkt);
    return;
  }
  if (kkt_.rank_deficient()) status.set(StepFlag::kRankDeficient);  // a singular position
  // stabilized vector field: v' = a - S c after the plain solve (Chin eq. 2.58, whose
  // multiplier row 0 = G(f + B y) + z carries no stabilization term), with the G just loaded
  if (svf_ != nullptr) svf_->correct(t, q, v, kkt_.dense_jacobian(), out_vdot, status);
}

}  // namespace rtmb
