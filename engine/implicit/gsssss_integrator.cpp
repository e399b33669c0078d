// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// GSSSS single-field a-form Newton step for the index-3 DAE (Hoitink 2011 §3.3-§3.4, seed
// 001_95e1ee7b0cc35f6b.txt eqs. 3.12-3.31 and 4.15-4.18; the seed's OCR-garbled signs
// corrected, the Jacobians checked against central differences in iteration_blocks_test.cpp).
//
// Symbols (reference §1.2): u = q, v, a = v'; n_v = n, n_lambda = m; dA = a - a_n;
// u~, v~, a~ the EOM-level quantities at t~ = t_n + W1 h; B = G = dg/dq;
// H(q, mu) = d(B(q)^T mu)/dq (the seed's J_B-lambda).
#include "engine/implicit/gsssss_integrator.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rtmb {

GsssssIntegrator::GsssssIntegrator(const System& system,
                                   const GsssssParameters& parameters,
                                   const ImplicitSettings& settings)
    : sys_(system),
      p_(parameters),
      settings_(settings),
      n_(system.n_v()),
      m_(system.n_lambda()),
      kkt_(system.n_v(), system.n_lambda()),
      lu_(system.n_v() + system.n_lambda()),
      q_last_(Vec::Zero(n_)),
      v_last_(Vec::Zero(n_)),
      a_(Vec::Zero(n_)),
      lambda_(Vec::Zero(m_)),
      a_prev_(Vec::Zero(n_)),
      lambda_prev_(Vec::Zero(m_)),
      discrete_gradient_(parameters.W1 == 0.5 ? discrete_gradient_of(system) : nullptr),
      an_(Vec::Zero(n_)),
      ln_(Vec::Zero(m_)),
      qn_(Vec::Zero(n_)),
      u1_0_(Vec::Zero(n_)),
      ut_0_(Vec::Zero(n_)),
      vt_0_(Vec::Zero(n_)),
      a_it_(Vec::Zero(n_)),
      l_it_(Vec::Zero(m_)),
      u1_(Vec::Zero(n_)),
      ut_(Vec::Zero(n_)),
      vt_(Vec::Zero(n_)),
      at_(Vec::Zero(n_)),
      mu_(Vec::Zero(m_)),
      M_(Mat::Zero(n_, n_)),
      fq_(Mat::Zero(n_, n_)),
      fv_(Mat::Zero(n_, n_)),
      Kin_(Mat::Zero(n_, n_)),
      H_(Mat::Zero(n_, n_)),
      Gt_(Mat::Zero(m_, n_)),
      G1_(Mat::Zero(m_, n_)),
      Gn_(Mat::Zero(m_, n_)),
      f_(Vec::Zero(n_)),
      g1_(Vec::Zero(m_)),
      cforce_n_(Vec::Zero(n_)),
      rhs_(Vec::Zero(n_ + m_)),
      scratch_(n_, m_) {}

void GsssssIntegrator::initialize(double t, VecCRef q, VecCRef v, StepStatus& status) noexcept {
  // consistent a0, lambda0 (reference §2.8): [M G^T; G 0][a0; l0] = [f; -L]
  if (kkt_.factor_at(sys_, t, q, status)) {
    total_forces(sys_, t, q, v, f_);
    sys_.curvature(t, q, v, g1_);
    g1_ = -g1_;
    kkt_.solve(f_, g1_, a_, lambda_);
  } else {
    a_.setZero();
    lambda_.setZero();
  }
  a_prev_ = a_;
  lambda_prev_ = lambda_;
  initialized_ = true;
}

// ---- evaluations at the current iterate -------------------------------------------------------

void GsssssIntegrator::evaluate_point(double t_tilde, double t_end) noexcept {
  // tilde quantities and u_{n+1} as functions of dA = a - a_n (reference §1.2, a-form chi_C)
  const double c_u1 = p_.l3 * dt2_;
  const double c_ut = p_.W3L3 * dt2_;
  const double c_vt = p_.W2L5 * h_;
  u1_ = u1_0_ + c_u1 * (a_it_ - an_);
  ut_ = ut_0_ + c_ut * (a_it_ - an_);
  vt_ = vt_0_ + c_vt * (a_it_ - an_);
  at_ = an_ + p_.W1L6 * (a_it_ - an_);
  sys_.mass(t_tilde, ut_, M_);
  // W1 = 1/2: u~ is the midpoint of u_n and u_{n+1} (reference §7.3), and a system with
  // nonlinear internal forces gives their discrete gradient between the two
  // (rtmb/discrete_gradient.hpp), so that
  // the step's energy balance E_{n+1} - E_n = du^T [F - grad_d V - B(u~)^T lambda] (reference §3)
  // closes to round-off
  if (discrete_gradient_ != nullptr) {
    discrete_gradient_->discrete_gradient_forces(t_tilde, qn_, u1_, vt_, channels_, f_);
    if (applied_ != nullptr) f_ += *applied_;
  } else {
    total_forces(sys_, t_tilde, ut_, vt_, f_);
  }
  sys_.constraints(t_end, u1_, g1_);
  sys_.jacobian(t_end, u1_, G1_);
  if (settings_.option == 2 || settings_.option == 4) sys_.jacobian(t_tilde, ut_, Gt_);
  if (settings_.option == 4) mu_ = (1.0 - p_.W1) * ln_ + p_.W1 * l_it_;
}

void GsssssIntegrator::residual() noexcept {
  // rhs = -[e1; e2], e1 = M a~ - f + (B^T lambda)~ (eq. 3.12), e2 = g(u_{n+1}) / (l3 h^2) (P1)
  auto r1 = rhs_.head(n_);
  r1 = f_;
  r1.noalias() -= M_ * at_;
  const double w1 = p_.W1;
  switch (settings_.option) {
    case 1:  // (1-W1) B_n^T l_n + W1 B_{n+1}^T l_{n+1}   (eq. 3.8)
      r1 -= cforce_n_;
      r1.noalias() -= w1 * (G1_.transpose() * l_it_);
      break;
    case 2:  // B(u~)^T l~   (eq. 3.9)
      r1.noalias() -= Gt_.transpose() * l_it_;
      break;
    case 3:  // [(1-W1) B_n + W1 B_{n+1}]^T l~   (eq. 3.10)
      r1.noalias() -= (1.0 - w1) * (Gn_.transpose() * l_it_);
      r1.noalias() -= w1 * (G1_.transpose() * l_it_);
      break;
    default:  // 4: B(u~)^T [(1-W1) l_n + W1 l_{n+1}]   (eq. 3.11)
      r1.noalias() -= Gt_.transpose() * mu_;
      break;
  }
  rhs_.tail(m_) = g1_ * (-1.0 / (p_.l3 * dt2_));
}

bool GsssssIntegrator::build_and_factor(double t, StepStatus& status) noexcept {
  // Newton matrix (eq. 3.22; option blocks of eq. 4.15-4.18, reference §2.4, exact for option 4)
  const double t_tilde = t + p_.W1 * h_;
  const double t_end = t + h_;
  const double c_ut = p_.W3L3 * dt2_;
  const double c_vt = p_.W2L5 * h_;
  const double c_u1 = p_.l3 * dt2_;
  const double w1 = p_.W1;
  force_jacobian_blocks(sys_, t_tilde, ut_, vt_, channels_, fq_, fv_, scratch_);
  inertia_block(sys_, t_tilde, ut_, at_, Kin_, scratch_);
  Mat& J = lu_.matrix();
  auto A = J.topLeftCorner(n_, n_);
  A = p_.W1L6 * M_ + c_ut * (Kin_ - fq_) - c_vt * fv_;
  auto Bt = J.topRightCorner(n_, m_);
  switch (settings_.option) {
    case 1:
      constraint_force_block(sys_, t_end, u1_, l_it_, H_, scratch_);
      A += (w1 * c_u1) * H_;
      Bt = w1 * G1_.transpose();
      break;
    case 2:
      constraint_force_block(sys_, t_tilde, ut_, l_it_, H_, scratch_);
      A += c_ut * H_;
      Bt = Gt_.transpose();
      break;
    case 3:
      constraint_force_block(sys_, t_end, u1_, l_it_, H_, scratch_);
      A += (w1 * c_u1) * H_;
      Bt = (1.0 - w1) * Gn_.transpose() + w1 * G1_.transpose();
      break;
    default:
      constraint_force_block(sys_, t_tilde, ut_, mu_, H_, scratch_);
      A += c_ut * H_;
      Bt = w1 * Gt_.transpose();
      break;
  }
  // the constraint row is exactly B(u_{n+1}) because e2 is scaled by 1/chi_Cu (P1)
  J.bottomLeftCorner(m_, n_) = G1_;
  J.bottomRightCorner(m_, m_).setZero();
  ++factorizations_;
  ++status.kkt_factorizations;
  factored_ = lu_.factor();
  // dependent rows at a singular position: their multipliers move by 0 (DenseLu::factor)
  if (factored_ && lu_.dropped() > 0) status.set(StepFlag::kRankDeficient);
  return factored_;
}

// ---- the step ----------------------------------------------------------------------------------

bool GsssssIntegrator::step(const StepFrom& from, StepTo to, StepStatus& status) noexcept {
  if (!initialized_ || from.t != t_last_ || (from.q.array() != q_last_.array()).any() ||
      (from.v.array() != v_last_.array()).any()) {
    initialize(from.t, from.q, from.v, status);
  }
  if (from.h != h_) factored_ = false;  // the modified-Newton matrix depends on h
  h_ = from.h;
  dt2_ = from.h * from.h;
  const double t_tilde = from.t + p_.W1 * from.h;
  const double t_end = from.t + from.h;

  // predictor (Table 2.2 a-form): dA = 0, lambda = lambda_n (eq. 3.18)
  an_ = a_;
  ln_ = lambda_;
  qn_ = from.q;
  u1_0_ = from.q + (p_.l1 * from.h) * from.v + (p_.l2 * dt2_) * an_;
  ut_0_ = from.q + (p_.W1L1 * from.h) * from.v + (p_.W2L2 * dt2_) * an_;
  vt_0_ = from.v + (p_.W1L4 * from.h) * an_;
  a_it_ = an_;
  l_it_ = ln_;
  if (settings_.option == 1 || settings_.option == 3) sys_.jacobian(from.t, from.q, Gn_);
  if (settings_.option == 1) cforce_n_.noalias() = (1.0 - p_.W1) * (Gn_.transpose() * ln_);

  bool refactor = !settings_.modified_newton || !factored_;
  double previous = 0.0;
  double previous_dl = std::numeric_limits<double>::infinity();
  bool converged = false;
  bool stalled = false;  // the last increment did not contract
  int k = 0;
  while (k < settings_.newton_max_iterations) {
    evaluate_point(t_tilde, t_end);
    residual();
    // Near a singular position (G(u_{n+1}) nearly rank-deficient; issue 16, the parallel cranks
    // landing on their horizontal pose) the Newton matrix [A B^T; G 0] is nearly singular and
    // maps the round-off of the residual into increments of ~cond * eps (measured: 1e-9 in a,
    // 3e-8 in lambda with e1 ~ 2e-14 and g ~ 2e-16), which repeat without contracting and never
    // meet the absolute increment test. Newton has then solved the equations as far as doubles
    // allow: accept the iterate once the increments stall and the residual is at round-off.
    if (settings_.newton_round_off_floor && stalled && residual_at_round_off()) {
      converged = true;
      break;
    }
    if (refactor) {
      if (!build_and_factor(from.t, status)) {
        status.set(StepFlag::kSingularKkt);
        status.newton_iterations = k;
        return false;
      }
      refactor = !settings_.modified_newton;
    }
    lu_.solve_in_place(rhs_);
    a_it_ += rhs_.head(n_);
    l_it_ += rhs_.tail(m_);
    ++k;
    const double norm = rhs_.lpNorm<Eigen::Infinity>();
    status.newton_residual = norm;
    if (!std::isfinite(norm)) break;
    if (norm < settings_.newton_tolerance ||
        (settings_.newton_round_off_floor && at_round_off_floor(previous_dl))) {
      converged = true;
      break;
    }
    previous_dl = m_ > 0 ? rhs_.tail(m_).lpNorm<Eigen::Infinity>() : 0.0;
    // modified Newton: refresh the matrix once the iteration stops contracting quickly
    if (settings_.modified_newton && k > 1 && norm > 0.5 * previous) refactor = true;
    stalled = k > 1 && norm > 0.5 * previous;
    previous = norm;
  }
  status.newton_iterations = k;
  if (!converged) {
    status.set(StepFlag::kNotConverged);
    factored_ = false;
    return false;
  }

  // final updates (eq. 3.28-3.30): a_{n+1} = a, v and u by the lambda_4/5, lambda_3 formulas
  to.q = u1_0_ + (p_.l3 * dt2_) * (a_it_ - an_);
  to.v = from.v + (p_.l4 * from.h) * an_ + (p_.l5 * from.h) * (a_it_ - an_);
  a_prev_ = an_;
  lambda_prev_ = ln_;
  a_ = a_it_;
  lambda_ = l_it_;
  t_last_ = t_end;
  q_last_ = to.q;
  v_last_ = to.v;
  return true;
}

bool GsssssIntegrator::at_round_off_floor(double previous_dl) const noexcept {
  // Hoitink's absolute test on [da; dlambda] (tolerance 1e-8 at dt = 0.01) cannot be met at small
  // steps: u_{n+1} = ... + l3 h^2 a resolves a only to ~eps |u| / (l3 h^2) (1e-5 for Andrews at
  // dt = 1e-5), and the scaled row e2 = g / (l3 h^2) (P1) feeds that round-off into dlambda.
  // Converged for our purposes: the position increment l3 h^2 ||da|| is at the round-off level of
  // u_{n+1} (64 eps: g sums several O(|u|) terms; measured stalls at 1.1e-15 with |u| = 1.2), and
  // dlambda meets the tolerance or has stopped contracting at a round-off-sized level (Newton
  // would contract it quadratically, so a non-contracting tiny increment is round-off).
  const auto da = rhs_.head(n_);
  const auto dl = rhs_.tail(m_);
  const double floor_u =
      64.0 * std::numeric_limits<double>::epsilon() * std::max(1.0, u1_.lpNorm<Eigen::Infinity>());
  if (p_.l3 * dt2_ * da.lpNorm<Eigen::Infinity>() > floor_u) return false;
  const double dl_norm = m_ > 0 ? dl.lpNorm<Eigen::Infinity>() : 0.0;
  if (dl_norm < settings_.newton_tolerance) return true;
  // stalled multiplier increment: accept only at a relative round-off-sized level (1e-8), so that
  // a diverging iteration (Newmark's growing lambda oscillation, Table 4.1) is never accepted
  const double l_norm = m_ > 0 ? l_it_.lpNorm<Eigen::Infinity>() : 0.0;
  return dl_norm > 0.5 * previous_dl && dl_norm <= 1e-8 * std::max(1.0, l_norm);
}

bool GsssssIntegrator::residual_at_round_off() const noexcept {
  // g(u_{n+1}): at the round-off of u_{n+1}, as in at_round_off_floor (64 eps: g sums several
  // O(|u|) terms); rhs_.tail = -g / (l3 h^2) (residual())
  const double eps = std::numeric_limits<double>::epsilon();
  const double floor_u = 64.0 * eps * std::max(1.0, u1_.lpNorm<Eigen::Infinity>());
  if (m_ > 0 && p_.l3 * dt2_ * rhs_.tail(m_).lpNorm<Eigen::Infinity>() > floor_u) return false;
  // e1 = M a~ - f + (B^T lambda)~: at the round-off of its largest term, bounded row by row by
  // sum_j |M_ij a~_j| + |f_i| + |B^T|_i |lambda| (the constraint force of every option is a
  // combination of B^T's at weights <= 1 on lambda_n, lambda_{n+1})
  const double l_norm = std::max(m_ > 0 ? l_it_.lpNorm<Eigen::Infinity>() : 0.0,
                                 m_ > 0 ? ln_.lpNorm<Eigen::Infinity>() : 0.0);
  double scale = 1.0;
  for (int i = 0; i < n_; ++i) {
    double row = std::fabs(f_[i]);
    for (int j = 0; j < n_; ++j) row += std::fabs(M_(i, j) * at_[j]);
    for (int j = 0; j < m_; ++j) {
      row += (std::fabs(G1_(j, i)) + std::fabs(Gt_(j, i)) + std::fabs(Gn_(j, i))) * l_norm;
    }
    scale = std::max(scale, row);
  }
  return rhs_.head(n_).lpNorm<Eigen::Infinity>() <= 64.0 * eps * scale;
}

void GsssssIntegrator::acceleration_at_end(VecRef out_a) const noexcept {
  // a_{n+1} = a~ lives at t_{n+W1} when W1L6 = 1 (reference §1.6, §2.7)
  if (std::fabs(p_.W1L6 - 1.0) < 1e-12 && p_.W1 != 1.0) {
    out_a = (2.0 - p_.W1) * a_ - (1.0 - p_.W1) * a_prev_;
  } else {
    out_a = a_;
  }
}

void GsssssIntegrator::lambda_at_end(VecRef out_lambda) const noexcept {
  // options 2 and 3 solve for lambda~ at t_{n+W1} (reference §2.2); eq. 3.31 aligns it
  if (settings_.option == 2 || settings_.option == 3) {
    out_lambda = (2.0 - p_.W1) * lambda_ - (1.0 - p_.W1) * lambda_prev_;
  } else {
    out_lambda = lambda_;
  }
}

}  // namespace rtmb
