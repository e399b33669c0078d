// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The range-space KKT solve of engine/kkt/tree_kkt.hpp (RBDA §8.5-8.6; Chin 1995 eq. 4.15 for the
// correction). The loops below are written on the columns so that nothing has a run-time-sized
// temporary (no allocation on the step path).
#include "engine/kkt/tree_kkt.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "engine/kkt/ldlt_kernels.hpp"
#include "engine/kkt/pivot_tolerance.hpp"

namespace rtmb {

TreeKkt::TreeKkt(const System& system)
    : mass_(system.mass_factor()),
      g_(Mat::Zero(system.n_lambda(), system.n_v())),
      y_(Mat::Zero(system.n_v(), system.n_lambda())),
      s_(Mat::Zero(system.n_lambda(), system.n_lambda())),
      ref_(Vec::Zero(system.n_lambda())),
      x0_(Vec::Zero(system.n_v())),
      z_(Vec::Zero(system.n_lambda())) {
  if (mass_ == nullptr) {
    throw std::invalid_argument("system '" + std::string(system.name()) +
                                "' has no O(n) mass factorization (only joint-space trees have)");
  }
}

void TreeKkt::load_mass(double t, VecCRef q) noexcept {
  mass_ok_ = mass_->factor(t, q);
}

bool TreeKkt::factor() noexcept {
  dropped_ = 0;
  if (!mass_ok_) return false;
  const Eigen::Index k = g_.rows();
  // Y = M^-1 G^T, one O(n) solve per row of G
  for (Eigen::Index i = 0; i < k; ++i) {
    y_.col(i) = g_.row(i).transpose();
    mass_->solve(y_.col(i));
  }
  // S = G Y (lower triangle; symmetric)
  for (Eigen::Index j = 0; j < k; ++j) {
    for (Eigen::Index i = j; i < k; ++i) s_(i, j) = g_.row(i).dot(y_.col(j));
  }
  double largest = 0.0;
  for (Eigen::Index j = 0; j < k; ++j) {
    ref_(j) = s_(j, j);
    if (!std::isfinite(ref_(j))) return false;
    largest = std::max(largest, ref_(j));
  }
  // right-looking LDL^T of the lower triangle. Eliminating rows 0..j-1 leaves as pivot j
  // S_jj minus the squared M^-1 distance of G_j from their span, so d_j / S_jj = sin^2 of the
  // angle between G_j and that span (DenseKkt's test on the same numbers, dense_kkt.cpp
  // ldlt_factor): at most kDependentRowTol, or a row that vanished (S_jj at most
  // kSingularPivotRatio of the largest), is dropped: its column of L
  // zeroed, no trailing update, D_j = inf (zero multiplier).
  for (Eigen::Index j = 0; j < k; ++j) {
    const double d = s_(j, j);
    if (!std::isfinite(d)) return false;
    if (d <= kDependentRowTol * ref_(j) || ref_(j) <= kSingularPivotRatio * largest) {
      for (Eigen::Index i = j + 1; i < k; ++i) s_(i, j) = 0.0;
      s_(j, j) = std::numeric_limits<double>::infinity();
      ++dropped_;
      continue;
    }
    for (Eigen::Index c = j + 1; c < k; ++c) {
      const double f = s_(c, j) / d;
      if (f == 0.0) continue;
      for (Eigen::Index i = c; i < k; ++i) s_(i, c) -= s_(i, j) * f;
    }
    const double inv = 1.0 / d;
    for (Eigen::Index i = j + 1; i < k; ++i) s_(i, j) *= inv;
  }
  return true;
}

void TreeKkt::schur_solve(VecRef z) const noexcept {
  detail::ldlt_solve<0>(s_.data(), static_cast<int>(s_.rows()), z.data());
}

void TreeKkt::solve(VecCRef a, VecCRef b, VecRef out_x, VecRef out_mu) noexcept {
  // x0 = M^-1 a; S mu = G x0 - b; x = x0 - Y mu
  x0_ = a;
  mass_->solve(x0_);
  const Eigen::Index k = g_.rows();
  for (Eigen::Index i = 0; i < k; ++i) z_(i) = g_.row(i).dot(x0_) - b(i);
  schur_solve(z_);
  out_mu = z_;
  out_x = x0_;
  for (Eigen::Index i = 0; i < k; ++i) out_x -= y_.col(i) * z_(i);
}

void TreeKkt::solve_correction(VecCRef r, VecRef out_dx) noexcept {
  z_ = r;
  schur_solve(z_);
  out_dx.setZero();
  for (Eigen::Index i = 0; i < z_.size(); ++i) out_dx += y_.col(i) * z_(i);
}

}  // namespace rtmb
