// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#include "engine/stabilize/sfull_stabilizer.hpp"

namespace rtmb {

SFullStabilizer::SFullStabilizer(const System& system)
    : system_(system),
      h_jac_(Mat::Zero(2 * system.n_lambda(), system.n_q() + system.n_v())),
      g_(Mat::Zero(system.n_lambda(), system.n_v())),
      gv_q_(Mat::Zero(system.n_lambda(), system.n_q())),
      hht_(Mat::Zero(2 * system.n_lambda(), 2 * system.n_lambda())),
      llt_(2 * system.n_lambda()),
      h_(Vec::Zero(2 * system.n_lambda())),
      w_(Vec::Zero(2 * system.n_lambda())),
      dz_(Vec::Zero(system.n_q() + system.n_v())),
      gt_(Vec::Zero(system.n_lambda())) {}

void SFullStabilizer::apply(double t, VecRef q, VecRef v, StepStatus& status) noexcept {
  const int m = system_.n_lambda();
  const int nq = system_.n_q();
  const int nv = system_.n_v();

  // residual h = (g; G v + g_t) at (q~, v~)
  system_.jacobian(t, q, g_);
  system_.constraints(t, q, h_.head(m));
  system_.constraint_rate(t, q, gt_);
  h_.tail(m).noalias() = g_ * v;
  h_.tail(m) += gt_;

  // H = [G 0; (Gv + g_t)_q G]   (Chin eq. 3.63-3.65)
  system_.velocity_constraint_jacobian(t, q, v, gv_q_);
  h_jac_.setZero();
  h_jac_.topLeftCorner(m, nq) = g_;
  h_jac_.bottomLeftCorner(m, nq) = gv_q_;
  h_jac_.bottomRightCorner(m, nv) = g_;

  // (H H^T) w = h;  (q, v) -= H^T w
  hht_.noalias() = h_jac_ * h_jac_.transpose();
  llt_.compute(hht_);
  if (llt_.info() != Eigen::Success) {
    status.set(StepFlag::kSingularKkt);
    return;
  }
  w_ = llt_.solve(h_);
  dz_.noalias() = h_jac_.transpose() * w_;
  q -= dz_.head(nq);
  v -= dz_.tail(nv);
  ++status.stabilizer_iterations;
}

}  // namespace rtmb
