// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Generalized coordinate partitioning with re-partitioning (Wehage & Haug 1982; the "local
// coordinates" class of Pöll & Hafner 2015, IFAC-PapersOnLine 48-1:306-311; Hairer & Wanner,
// Solving ODEs II §VII.2).
#include "engine/stabilize/coordinate_partitioning.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rtmb {

CoordinatePartitioning::CoordinatePartitioning(const System& system,
                                               NewtonLimits limits,
                                               double repartition_ratio)
    : system_(system),
      limits_(limits),
      repartition_ratio_(repartition_ratio),
      g_jac_(Mat::Zero(system.n_lambda(), system.n_v())),
      work_(Mat::Zero(system.n_lambda(), system.n_v())),
      gu_(Mat::Zero(system.n_lambda(), system.n_lambda())),
      lu_(system.n_lambda()),
      dep_(Eigen::VectorXi::Zero(system.n_lambda())),
      best_(Eigen::VectorXi::Zero(system.n_lambda())),
      is_dependent_(Eigen::VectorXi::Zero(system.n_v())),
      row_used_(Eigen::VectorXi::Zero(system.n_lambda())),
      col_used_(Eigen::VectorXi::Zero(system.n_v())),
      r_(Vec::Zero(system.n_lambda())),
      du_(Vec::Zero(system.n_lambda())) {}

double CoordinatePartitioning::best_partition() noexcept {
  const int m = static_cast<int>(work_.rows());
  const int n = static_cast<int>(work_.cols());
  work_ = g_jac_;
  row_used_.setZero();
  col_used_.setZero();
  double smallest = std::numeric_limits<double>::infinity();
  for (int k = 0; k < m; ++k) {
    int pr = -1;
    int pc = -1;
    double big = -1.0;
    for (int j = 0; j < n; ++j) {
      if (col_used_(j) != 0) continue;
      for (int i = 0; i < m; ++i) {
        if (row_used_(i) == 0 && std::abs(work_(i, j)) > big) {
          big = std::abs(work_(i, j));
          pr = i;
          pc = j;
        }
      }
    }
    // every remaining entry NaN (G of a diverged stage): no pivot, no partition; the step's
    // guard reports the non-finite state
    if (pr < 0) return std::numeric_limits<double>::quiet_NaN();
    best_(k) = pc;
    smallest = std::min(smallest, big);
    row_used_(pr) = 1;
    col_used_(pc) = 1;
    if (big == 0.0) continue;
    for (int i = 0; i < m; ++i) {
      if (row_used_(i) != 0) continue;
      const double f = work_(i, pc) / work_(pr, pc);
      work_.row(i) -= f * work_.row(pr);
    }
  }
  return smallest;
}

double CoordinatePartitioning::factor_dependent() noexcept {
  for (int k = 0; k < dep_.size(); ++k) gu_.col(k) = g_jac_.col(dep_(k));
  lu_.compute(gu_);
  const auto& u = lu_.matrixLU();
  double smallest = std::numeric_limits<double>::infinity();
  for (int k = 0; k < u.rows(); ++k) smallest = std::min(smallest, std::abs(u(k, k)));
  return smallest;
}

void CoordinatePartitioning::apply(double t, VecRef q, VecRef v, StepStatus& status) noexcept {
  if (dep_.size() == 0) return;
  // partition: keep the current one unless its G_u has become much worse than the best
  system_.jacobian(t, q, g_jac_);
  const double best = best_partition();
  if (std::isnan(best)) return;
  double current = have_partition_ ? factor_dependent() : 0.0;
  if (!have_partition_ || current < repartition_ratio_ * best) {
    if (have_partition_) ++repartitions_;
    have_partition_ = true;
    dep_ = best_;
    is_dependent_.setZero();
    for (int k = 0; k < dep_.size(); ++k) is_dependent_(dep_(k)) = 1;
    current = factor_dependent();
  }
  if (!(current > 0.0)) {
    status.set(StepFlag::kSingularKkt);  // no m independent columns: redundant constraints
    return;
  }

  // positions: Newton on g(z, u) = 0 in u
  bool moved = false;  // q changed since G_u was last factored
  newton_on_positions(system_, t, q, r_, limits_, status, [&](int it) {
    if (it > 0) {
      system_.jacobian(t, q, g_jac_);
      (void)factor_dependent();
    }
    du_ = lu_.solve(r_);
    for (int k = 0; k < dep_.size(); ++k) q(dep_(k)) -= du_(k);
    moved = true;
  });

  // velocities: G_u v_u = -(G_z v_z + g_t) at the corrected q (G and G_u are already those of
  // q when the Newton loop took no step)
  if (moved) {
    system_.jacobian(t, q, g_jac_);
    (void)factor_dependent();
  }
  system_.constraint_rate(t, q, r_);
  for (int j = 0; j < q.size(); ++j) {
    if (is_dependent_(j) == 0) r_.noalias() += g_jac_.col(j) * v(j);
  }
  r_ = -r_;
  du_ = lu_.solve(r_);
  for (int k = 0; k < dep_.size(); ++k) v(dep_(k)) = du_(k);
}

}  // namespace rtmb
