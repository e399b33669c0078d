// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Direct correction (b), (c), (d) of Zhang et al. 2023 (Mathematics 11(6):1510;
// seed 004_24ffa321444869ee.txt, correction scenarios (b)-(d), eqs. 28-37 for (d)), generalised
// from planar revolute chains to any System, with the Euclidean (the paper's) or the mass metric.
#include "engine/stabilize/direct_correction.hpp"

#include <algorithm>
#include <cmath>

#include "rtmb/state.hpp"

namespace rtmb {
namespace {

int full_rows(const System& s, DirectCorrectionVariant variant) {
  const bool energy_row = variant == DirectCorrectionVariant::kSimultaneousEnergy && s.has_energy();
  return 2 * s.n_lambda() + (energy_row ? 1 : 0);
}

}  // namespace

DirectCorrection::DirectCorrection(const System& system,
                                   DirectCorrectionVariant variant,
                                   CorrectionMetric metric,
                                   double tolerance,
                                   int max_iterations,
                                   InputValues channels)
    : system_(system),
      variant_(variant),
      metric_(metric),
      tolerance_(tolerance),
      max_iterations_(max_iterations),
      has_energy_(system.has_energy()),
      channels_(channels),
      // a singular stacked system is a change point with its own defined treatment (fallback
      // to (b), kCorrectionSingular), so rank loss is reported, not dropped
      kkt_pos_(system.n_v(), system.n_lambda(), DenseKkt::RankLoss::kFail),
      kkt_full_(2 * system.n_v(), full_rows(system, variant), DenseKkt::RankLoss::kFail),
      m_(Mat::Zero(system.n_v(), system.n_v())),
      r_pos_(Vec::Zero(system.n_lambda())),
      dq_(Vec::Zero(system.n_v())),
      r_full_(Vec::Zero(full_rows(system, variant))),
      dx_(Vec::Zero(2 * system.n_v())),
      e_q_(Vec::Zero(system.n_v())),
      e_v_(Vec::Zero(system.n_v())),
      q_fd_(Vec::Zero(system.n_q())),
      gt_(Vec::Zero(system.n_lambda())) {
  // constant blocks, written once (DenseKkt keeps them between factorizations): W = I in the
  // Euclidean metric; the zero blocks of diag(W, W) and the zero G-row block dg/dv of J stay as
  // constructed
  if (metric_ == CorrectionMetric::kEuclidean) {
    kkt_pos_.mass_block().setIdentity();
    kkt_full_.mass_block().setIdentity();
  }
  if (has_energy_) {
    State s0(system.n_q(), system.n_v());
    system.initial_state(s0);
    e0_ = system.energy(s0.t, s0.q, s0.v, channels_);
  }
}

std::string_view DirectCorrection::name() const noexcept {
  switch (variant_) {
    case DirectCorrectionVariant::kSequential:
      return metric_ == CorrectionMetric::kEuclidean ? "dc-b" : "dc-b-m";
    case DirectCorrectionVariant::kSimultaneous:
      return metric_ == CorrectionMetric::kEuclidean ? "dc-c" : "dc-c-m";
    case DirectCorrectionVariant::kSimultaneousEnergy:
      return metric_ == CorrectionMetric::kEuclidean ? "dc-d" : "dc-d-m";
  }
  return "dc";
}

void DirectCorrection::apply(double t, VecRef q, VecRef v, StepStatus& status) noexcept {
  if (variant_ != DirectCorrectionVariant::kSequential) {
    const bool energy = variant_ == DirectCorrectionVariant::kSimultaneousEnergy && has_energy_;
    if (simultaneous(t, q, v, energy, status)) return;
    status.set(StepFlag::kCorrectionSingular);  // defined fallback: (b)
  }
  (void)sequential(t, q, v, status);
}

bool DirectCorrection::factor_positions(double t, VecCRef q, StepStatus& status) noexcept {
  // [W G^T; G 0] at q, W = M(q) or I (set at construction)
  if (metric_ == CorrectionMetric::kMass) system_.mass(t, q, kkt_pos_.mass_block());
  system_.jacobian(t, q, kkt_pos_.jacobian_block());
  ++status.kkt_factorizations;
  if (kkt_pos_.factor()) return true;
  status.set(StepFlag::kSingularKkt);
  return false;
}

bool DirectCorrection::sequential(double t, VecRef q, VecRef v, StepStatus& status) noexcept {
  // positions: full Newton, eq. 3 (c + c_q dq = 0, minimum norm in the metric)
  for (int it = 0;; ++it) {
    system_.constraints(t, q, r_pos_);
    if (r_pos_.size() == 0 || r_pos_.lpNorm<Eigen::Infinity>() <= tolerance_) break;
    if (it == max_iterations_) {
      status.set(StepFlag::kStabilizerNotConverged);
      break;
    }
    if (!factor_positions(t, q, status)) return false;
    kkt_pos_.solve_correction(r_pos_, dq_);
    q -= dq_;
    ++status.stabilizer_iterations;
  }
  // velocities: linear, one step at the corrected q (eq. 4; reference §13 item 5)
  if (!factor_positions(t, q, status)) return false;
  system_.constraint_rate(t, q, r_pos_);
  r_pos_.noalias() += kkt_pos_.jacobian() * v;
  kkt_pos_.solve_correction(r_pos_, dq_);
  v -= dq_;
  return true;
}

void DirectCorrection::energy_gradient(double t, VecCRef q, VecCRef v) noexcept {
  // E_v = M v (T = 1/2 v^T M v); E_q by central differences of E (any System)
  system_.mass(t, q, m_);
  e_v_.noalias() = m_ * v;
  q_fd_ = q;
  for (int j = 0; j < q.size(); ++j) {
    const double step = 1e-6 * std::max(1.0, std::abs(q(j)));
    q_fd_(j) = q(j) + step;
    const double ep = system_.energy(t, q_fd_, v, channels_);
    q_fd_(j) = q(j) - step;
    const double em = system_.energy(t, q_fd_, v, channels_);
    q_fd_(j) = q(j);
    e_q_(j) = (ep - em) / (2.0 * step);
  }
}

bool DirectCorrection::simultaneous(
    double t, VecRef q, VecRef v, bool energy, StepStatus& status) noexcept {
  const int n = system_.n_v();
  const int m = system_.n_lambda();
  MatRef w = kkt_full_.mass_block();
  MatRef j = kkt_full_.jacobian_block();
  for (int it = 0;; ++it) {
    // residual r = [g; G v + g_t; E - E0] (eq. 20, 28)
    system_.constraints(t, q, r_full_.head(m));
    system_.jacobian(t, q, j.block(0, 0, m, n));
    system_.constraint_rate(t, q, gt_);
    r_full_.segment(m, m).noalias() = j.block(0, 0, m, n) * v;
    r_full_.segment(m, m) += gt_;
    if (energy) r_full_(2 * m) = system_.energy(t, q, v, channels_) - e0_;
    if (r_full_.size() == 0 || r_full_.lpNorm<Eigen::Infinity>() <= tolerance_) return true;
    if (it == max_iterations_) {
      status.set(StepFlag::kStabilizerNotConverged);
      return true;
    }
    // J = [[G, 0], [d(Gv + g_t)/dq, G], [E_q, E_v]] (eq. 21, 36)
    system_.velocity_constraint_jacobian(t, q, v, j.block(m, 0, m, n));
    j.block(m, n, m, n) = j.block(0, 0, m, n);
    if (energy) {
      energy_gradient(t, q, v);
      j.block(2 * m, 0, 1, n) = e_q_.transpose();
      j.block(2 * m, n, 1, n) = e_v_.transpose();
    }
    if (metric_ == CorrectionMetric::kMass) {  // else W = I (constructor)
      system_.mass(t, q, w.topLeftCorner(n, n));
      w.bottomRightCorner(n, n) = w.topLeftCorner(n, n);
    }
    ++status.kkt_factorizations;
    if (!kkt_full_.factor()) return false;
    kkt_full_.solve_correction(r_full_, dx_);
    q -= dx_.head(n);
    v -= dx_.tail(n);
    ++status.stabilizer_iterations;
  }
}

}  // namespace rtmb
