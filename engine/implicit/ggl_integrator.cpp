// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// GGL stabilized index-2 formulation with the implicit midpoint rule (ggl_integrator.hpp for the
// equations; Gear, Gupta & Leimkuhler 1985,
// J. Comput. Appl. Math. 12-13:77-90).
#include "engine/implicit/ggl_integrator.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rtmb {

GglIntegrator::GglIntegrator(const System& system, const ImplicitSettings& settings)
    : sys_(system),
      settings_(settings),
      n_(system.n_v()),
      m_(system.n_lambda()),
      lu_(2 * system.n_v() + 2 * system.n_lambda()),
      scratch_(n_, m_),
      x_(Vec::Zero(2 * n_ + 2 * m_)),
      rhs_(Vec::Zero(2 * n_ + 2 * m_)),
      qm_(Vec::Zero(n_)),
      vm_(Vec::Zero(n_)),
      dv_(Vec::Zero(n_)),
      f_(Vec::Zero(n_)),
      g_(Vec::Zero(m_)),
      M_(Mat::Zero(n_, n_)),
      fq_(Mat::Zero(n_, n_)),
      fv_(Mat::Zero(n_, n_)),
      Kin_(Mat::Zero(n_, n_)),
      H_(Mat::Zero(n_, n_)),
      Gm_(Mat::Zero(m_, n_)),
      G1_(Mat::Zero(m_, n_)),
      Gvq_(Mat::Zero(m_, n_)),
      lambda_(Vec::Zero(m_)),
      mu_(Vec::Zero(m_)),
      dv_last_(Vec::Zero(n_)),
      q_last_(Vec::Zero(n_)),
      v_last_(Vec::Zero(n_)) {}

namespace {

// max_j sum_i |A_ij|: the infinity norm of A^T, without a temporary
double transpose_inf_norm(const Mat& a) noexcept {
  double out = 0.0;
  for (Eigen::Index j = 0; j < a.cols(); ++j) out = std::max(out, a.col(j).lpNorm<1>());
  return out;
}

// max_i sum_j |A_ij|: the infinity norm of A
double inf_norm(const Mat& a) noexcept {
  double out = 0.0;
  for (Eigen::Index i = 0; i < a.rows(); ++i) {
    double row = 0.0;
    for (Eigen::Index j = 0; j < a.cols(); ++j) row += std::fabs(a(i, j));
    out = std::max(out, row);
  }
  return out;
}

}  // namespace

bool GglIntegrator::residual_at_round_off(
    VecCRef qn, double h, VecCRef q1, VecCRef v1, VecCRef L, VecCRef X) const noexcept {
  // each block of -r (rhs_) against 64 eps times a bound on its terms' magnitude
  // (ggl_integrator.hpp r1..r4; 64 eps as in GsssssIntegrator: each row sums several terms of that
  // size)
  const auto inf = [](VecCRef x) { return x.size() > 0 ? x.lpNorm<Eigen::Infinity>() : 0.0; };
  const double tol = 64.0 * std::numeric_limits<double>::epsilon();
  const double g_norm_t = transpose_inf_norm(Gm_);  // ||G~^T||inf
  const double m_norm = inf_norm(M_);               // ||M||inf
  const double s1 = std::max({1.0, inf(qn), inf(q1)}) + h * inf(vm_) + g_norm_t * inf(X);
  const double s2 = m_norm * inf(dv_) + h * inf(f_) + g_norm_t * inf(L);
  const double s3 = std::max(1.0, inf(q1));
  const double s4 = std::max(1.0, inf_norm(G1_) * inf(v1));
  return inf(rhs_.segment(0, n_)) <= tol * std::max(1.0, s1) &&
         inf(rhs_.segment(n_, n_)) <= tol * std::max(1.0, s2) &&
         inf(rhs_.segment(2 * n_, m_)) <= tol * s3 &&
         inf(rhs_.segment(2 * n_ + m_, m_)) <= tol * s4;
}

bool GglIntegrator::step(const StepFrom& from, StepTo to, StepStatus& status) noexcept {
  // history (predictor and multiplier guesses) only when continuing our own last step
  if (!has_history_ || from.t != t_last_ || (from.q.array() != q_last_.array()).any() ||
      (from.v.array() != v_last_.array()).any()) {
    dv_last_.setZero();
    lambda_.setZero();
  }
  const double tm = from.t + 0.5 * from.h;
  const double t1 = from.t + from.h;
  auto q1 = x_.segment(0, n_);
  auto v1 = x_.segment(n_, n_);
  auto L = x_.segment(2 * n_, m_);
  auto X = x_.segment(2 * n_ + m_, m_);
  // predictor: constant velocity increment, last multiplier impulse, mu = 0
  v1 = from.v + dv_last_;
  q1 = from.q + (0.5 * from.h) * (from.v + v1);
  L = from.h * lambda_;
  X.setZero();

  auto r1 = rhs_.segment(0, n_);
  auto r2 = rhs_.segment(n_, n_);
  auto r3 = rhs_.segment(2 * n_, m_);
  auto r4 = rhs_.segment(2 * n_ + m_, m_);
  bool converged = false;
  bool stalled = false;  // the last increment did not contract
  double previous = 0.0;
  int k = 0;
  while (k < settings_.newton_max_iterations) {
    qm_ = 0.5 * (from.q + q1);
    vm_ = 0.5 * (from.v + v1);
    dv_ = v1 - from.v;
    sys_.mass(tm, qm_, M_);
    total_forces(sys_, tm, qm_, vm_, f_);
    sys_.jacobian(tm, qm_, Gm_);
    sys_.jacobian(t1, q1, G1_);
    // rhs = -r
    r1 = from.q - q1 + from.h * vm_;
    r1.noalias() -= Gm_.transpose() * X;
    r2 = from.h * f_;
    r2.noalias() -= M_ * dv_;
    r2.noalias() -= Gm_.transpose() * L;
    sys_.constraints(t1, q1, g_);
    r3 = -g_;
    sys_.constraint_rate(t1, q1, g_);
    g_.noalias() += G1_ * v1;
    r4 = -g_;
    // Near a singular position the Newton matrix is nearly singular and maps the round-off of the
    // residual into increments far above the tolerance that repeat without contracting (measured
    // on the parallel cranks at h = 0.005: increments 1e-5 in L with every residual block at
    // 1e-16 .. 2e-15). Newton has then solved the equations as far as doubles allow: accept the
    // iterate once the increments stall and the residual is at round-off (as GsssssIntegrator).
    if (settings_.newton_round_off_floor && stalled &&
        residual_at_round_off(from.q, from.h, q1, v1, L, X)) {
      converged = true;
      break;
    }

    // Newton matrix (ggl_integrator.hpp)
    force_jacobian_blocks(sys_, tm, qm_, vm_, channels_, fq_, fv_, scratch_);
    inertia_block(sys_, tm, qm_, dv_, Kin_, scratch_);
    Mat& J = lu_.matrix();
    J.setZero();
    constraint_force_block(sys_, tm, qm_, X, H_, scratch_);
    J.block(0, 0, n_, n_) = 0.5 * H_;
    J.block(0, 0, n_, n_).diagonal().array() += 1.0;
    J.block(0, n_, n_, n_).diagonal().setConstant(-0.5 * from.h);
    J.block(0, 2 * n_ + m_, n_, m_) = Gm_.transpose();
    constraint_force_block(sys_, tm, qm_, L, H_, scratch_);
    J.block(n_, 0, n_, n_) = 0.5 * (Kin_ - from.h * fq_ + H_);
    J.block(n_, n_, n_, n_) = M_ - (0.5 * from.h) * fv_;
    J.block(n_, 2 * n_, n_, m_) = Gm_.transpose();
    J.block(2 * n_, 0, m_, n_) = G1_;
    sys_.velocity_constraint_jacobian(t1, q1, v1, Gvq_);
    J.block(2 * n_ + m_, 0, m_, n_) = Gvq_;
    J.block(2 * n_ + m_, n_, m_, n_) = G1_;
    ++status.kkt_factorizations;
    if (!lu_.factor()) {
      status.set(StepFlag::kSingularKkt);
      status.newton_iterations = k;
      return false;
    }
    if (lu_.dropped() > 0) status.set(StepFlag::kRankDeficient);  // a singular position
    lu_.solve_in_place(rhs_);
    x_ += rhs_;
    ++k;
    const double norm = rhs_.lpNorm<Eigen::Infinity>();
    status.newton_residual = norm;
    if (!std::isfinite(norm)) break;
    if (norm < settings_.newton_tolerance) {
      converged = true;
      break;
    }
    stalled = k > 1 && norm > 0.5 * previous;
    previous = norm;
  }
  status.newton_iterations = k;
  if (!converged) {
    status.set(StepFlag::kNotConverged);
    return false;
  }
  to.q = q1;
  to.v = v1;
  dv_last_ = v1 - from.v;
  lambda_ = L / from.h;
  mu_ = X / from.h;
  t_last_ = t1;
  q_last_ = to.q;
  v_last_ = to.v;
  has_history_ = true;
  return true;
}

}  // namespace rtmb
