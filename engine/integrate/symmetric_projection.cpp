// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#include "engine/integrate/symmetric_projection.hpp"

#include <algorithm>

namespace rtmb {

SymmetricProjection::SymmetricProjection(std::unique_ptr<Integrator> base,
                                         const System& system,
                                         double tolerance,
                                         int max_iterations,
                                         bool mass_metric)
    : base_(std::move(base)),
      system_(system),
      mass_metric_(mass_metric),
      tolerance_(tolerance),
      max_iterations_(max_iterations),
      kkt_(2 * system.n_v(), 2 * system.n_lambda()),
      c1_(Mat::Zero(2 * system.n_lambda(), 2 * system.n_v())),
      mu_(Vec::Zero(2 * system.n_lambda())),
      dmu_(Vec::Zero(2 * system.n_lambda())),
      hat_(system.n_q(), system.n_v()),
      tilde_(system.n_q(), system.n_v()),
      f1_(Vec::Zero(2 * system.n_v())),
      f2_(Vec::Zero(2 * system.n_lambda())),
      dy_(Vec::Zero(2 * system.n_v())),
      gt_(Vec::Zero(system.n_lambda())),
      w_(Vec::Zero(2 * system.n_v())),
      dq_(Vec::Zero(system.n_v())),
      dv_(Vec::Zero(system.n_v())),
      rhs_(Vec::Zero(2 * system.n_v())),
      m_(Mat::Zero(system.n_v(), system.n_v())),
      mn_(Mat::Zero(system.n_v(), system.n_v())),
      llt_(system.n_v()) {
  // constant parts of K and C, written once (DenseKkt keeps them between factorizations): W = I
  // in the Euclidean metric; the zero blocks of diag(M, M) and the zero block dg/dv of C (in K
  // and in c1_) stay as constructed
  if (!mass_metric_) kkt_.mass_block().setIdentity();
}

void SymmetricProjection::constraint_and_jacobian(
    double t, VecCRef q, VecCRef v, VecRef c, MatRef jac) noexcept {
  const int n = system_.n_v();
  const int m = system_.n_lambda();
  system_.constraints(t, q, c.head(m));
  system_.jacobian(t, q, jac.block(0, 0, m, n));
  system_.constraint_rate(t, q, gt_);
  c.tail(m).noalias() = jac.block(0, 0, m, n) * v;
  c.tail(m) += gt_;
  system_.velocity_constraint_jacobian(t, q, v, jac.block(m, 0, m, n));
  jac.block(m, n, m, n) = jac.block(0, 0, m, n);
}

bool SymmetricProjection::direction(
    double t, VecCRef q, MatCRef c, VecRef out_dq, VecRef out_dv) noexcept {
  const int n = system_.n_v();
  // w = C^T mu, then W^-1 w with W = diag(M, M) in the mass metric
  w_.noalias() = c.transpose() * mu_;
  if (!mass_metric_) {
    out_dq = w_.head(n);
    out_dv = w_.tail(n);
    return true;
  }
  system_.mass(t, q, m_);
  llt_.compute(m_);
  if (llt_.info() != Eigen::Success) return false;
  out_dq = w_.head(n);
  out_dv = w_.tail(n);
  llt_.solveInPlace(out_dq);
  llt_.solveInPlace(out_dv);
  return true;
}

void SymmetricProjection::advance(Dynamics& dynamics,
                                  const StepFrom& from,
                                  StepTo to,
                                  StepStatus& status) noexcept {
  const int n = system_.n_v();
  // C_n at y_n, factored once: K = [W_n C_n^T; C_n 0], W_n = I or diag(M(y_n), M(y_n))
  if (mass_metric_) {
    MatRef w = kkt_.mass_block();
    system_.mass(from.t, from.q, mn_);
    w.topLeftCorner(n, n) = mn_;
    w.bottomRightCorner(n, n) = mn_;
  }
  constraint_and_jacobian(from.t, from.q, from.v, f2_, kkt_.jacobian_block());
  ++status.kkt_factorizations;
  if (!kkt_.factor()) {
    status.set(StepFlag::kSingularKkt);
    base_->advance(dynamics, from, to, status);
    return;
  }
  const auto cn = kkt_.jacobian();

  // mu = 0: y~ = Phi_h(y_n), first iterate y_{n+1} = y~
  mu_.setZero();
  base_->advance(dynamics, from, {tilde_.q, tilde_.v}, status);
  to.q = tilde_.q;
  to.v = tilde_.v;
  dy_.setZero();
  for (int it = 0;; ++it) {
    // F2 = c(y), F1 = y - y~ - W(y)^-1 C(y)^T mu
    constraint_and_jacobian(from.t + from.h, to.q, to.v, f2_, c1_);
    if (!direction(from.t + from.h, to.q, c1_, dq_, dv_)) {
      status.set(StepFlag::kSingularKkt);  // M(y) not positive definite: no M metric here
      return;
    }
    f1_.head(n) = to.q - tilde_.q - dq_;
    f1_.tail(n) = to.v - tilde_.v - dv_;
    if (it > 0 && f2_.lpNorm<Eigen::Infinity>() <= tolerance_ &&
        dy_.lpNorm<Eigen::Infinity>() <= tolerance_) {
      break;
    }
    if (it == max_iterations_) {
      status.set(StepFlag::kStabilizerNotConverged);
      break;
    }
    // simplified Newton [[I, -2 Q_n], [C_n, 0]], rows 1 multiplied by W_n: K [x; z] = [W_n F1; F2]
    if (mass_metric_) {
      rhs_.head(n).noalias() = mn_ * f1_.head(n);
      rhs_.tail(n).noalias() = mn_ * f1_.tail(n);
    } else {
      rhs_ = f1_;
    }
    kkt_.solve(rhs_, f2_, dy_, dmu_);
    to.q -= dy_.head(n);
    to.v -= dy_.tail(n);
    mu_ += 0.5 * dmu_;
    ++status.stabilizer_iterations;
    // y~ = Phi_h(y_n + W_n^-1 C_n^T mu)
    if (!direction(from.t, from.q, cn, dq_, dv_)) {
      status.set(StepFlag::kSingularKkt);
      return;
    }
    hat_.q = from.q + dq_;
    hat_.v = from.v + dv_;
    base_->advance(dynamics, {from.t, from.h, hat_.q, hat_.v}, {tilde_.q, tilde_.v}, status);
  }
}

}  // namespace rtmb
