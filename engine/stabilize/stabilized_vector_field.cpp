// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#include "engine/stabilize/stabilized_vector_field.hpp"

namespace rtmb {

SvfScratch::SvfScratch(int n_lambda)
    : ggt(Mat::Zero(n_lambda, n_lambda)), llt(n_lambda), y(Vec::Zero(n_lambda)) {}

bool svf_direction(
    SvfVariant variant, MatCRef G, VecCRef w, SvfScratch& scratch, VecRef out) noexcept {
  switch (variant) {
    case SvfVariant::kGt:
      // S = G^T (Chin eq. 2.50)
      out.noalias() = G.transpose() * w;
      return true;
    case SvfVariant::kGgtInverse:
      // S = G^T (G G^T)^-1 (Chin eq. 2.45): G G^T is SPD exactly when G has full row rank, so
      // the Cholesky factorization both solves and detects rank loss
      scratch.ggt.noalias() = G * G.transpose();
      scratch.llt.compute(scratch.ggt);
      if (scratch.llt.info() != Eigen::Success) return false;
      scratch.y = w;
      scratch.llt.solveInPlace(scratch.y);
      out.noalias() = G.transpose() * scratch.y;
      return true;
  }
  return false;
}

StabilizedVectorField::StabilizedVectorField(const System& system, double gamma, SvfVariant variant)
    : system_(system),
      gamma_(gamma),
      variant_(variant),
      scratch_(system.n_lambda()),
      g_(Vec::Zero(system.n_lambda())),
      gv_(Vec::Zero(system.n_lambda())),
      c_(Vec::Zero(system.n_lambda())),
      dv_(Vec::Zero(system.n_v())) {}

void StabilizedVectorField::correct(
    double t, VecCRef q, VecCRef v, MatCRef G, VecRef vdot, StepStatus& status) noexcept {
  if (system_.n_lambda() == 0) return;
  // the invariants h = (g, g') with g' = G v + g_t (reference §1.1, time-dependent form)
  system_.constraints(t, q, g_);
  system_.constraint_rate(t, q, gv_);
  gv_.noalias() += G * v;
  // c = 2 gamma P1^-1-scaled g' + gamma^2 P2^-1-scaled g, then v' -= S c (eq. 2.58, 2.59):
  // kGgtInverse: S = G^T (G G^T)^-1 and c = 2 gamma g' + gamma^2 g            (P1 = P2 = G G^T)
  // kGt:         S = G^T and c = 2 gamma g' + gamma^2 (G G^T) g         (P1 = I, P2^-1 = G G^T)
  c_ = 2.0 * gamma_ * gv_;
  g_ *= gamma_ * gamma_;
  if (variant_ == SvfVariant::kGt) {
    scratch_.ggt.noalias() = G * G.transpose();
    c_.noalias() += scratch_.ggt * g_;
  } else {
    c_ += g_;
  }
  if (!svf_direction(variant_, G, c_, scratch_, dv_)) {
    status.set(StepFlag::kSingularKkt);
    return;
  }
  vdot -= dv_;
}

}  // namespace rtmb
