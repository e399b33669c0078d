// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#include "engine/kkt/dense_kkt.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>

#include "engine/kkt/ldlt_kernels.hpp"
#include "engine/kkt/pivot_tolerance.hpp"

namespace rtmb {

namespace {

using detail::forward_unit_lower;
using detail::ldlt_solve;
using detail::size_of;
// A constraint pivot at most kDependentRowTol (engine/kkt/pivot_tolerance.hpp) of its row's own
// M^-1 norm (ldlt_factor) marks the row as dependent at this configuration, as in BlockKkt.

// Small KKT matrices (Andrews: n = 13) spend their time in loop control around loops of a few
// iterations, and the back substitution waits on one subtraction after another. The LDL^T kernels
// below are templates on the size: N > 0 is the size known at compile time (dispatched for
// n <= kFixedMax, so the compiler unrolls and keeps vectors in registers), N = 0 the size at run
// time. Every N performs the same operations in the same order on every entry (no reassociation
// without -ffast-math, and no FMA contraction without -mfma), so results are bit-identical.
constexpr int kFixedMax = 16;

// f(std::integral_constant<int, n>) for n <= kFixedMax, f(std::integral_constant<int, 0>) above.
template <int N = kFixedMax, class F>
decltype(auto) with_fixed_size(int n, F&& f) {
  if constexpr (N == 0) {
    return f(std::integral_constant<int, 0>{});
  } else {
    if (n == N) return f(std::integral_constant<int, N>{});
    return with_fixed_size<N - 1>(n, std::forward<F>(f));
  }
}

// Column j of ldlt_factor below (its comment has the method); false: K is not factored by
// LDL^T with these signs. Always inlined, so that with N and j known at compile time every loop
// unrolls completely into the same operations in the same order as the run-time loops.
template <int N>
[[gnu::always_inline]] inline bool ldlt_column(double* a,
                                               int n,
                                               int j,
                                               int n_v,
                                               double* ref,
                                               bool drop,
                                               double& largest,
                                               int& dropped) noexcept {
  double* col_j = a + j * n;
  const double d = col_j[j];
  if (drop && j == n_v) {
    for (int k = n_v; k < n; ++k) ref[k - n_v] = std::abs(a[k + k * n]);
  }
  // dependent on the rows before it, or a row that (nearly) vanished: its M^-1 norm at the
  // round-off of the largest pivot (Chin §4.5: G -> 0 where the singular slider-crank's branches
  // cross)
  if (drop && j >= n_v && std::isfinite(d) &&
      (std::abs(d) <= kDependentRowTol * ref[j - n_v] ||
       ref[j - n_v] <= kSingularPivotRatio * largest)) {
    for (int i = j + 1; i < n; ++i) col_j[i] = 0.0;
    col_j[j] = std::numeric_limits<double>::infinity();
    ++dropped;
    return true;
  }
  const bool sign_ok = j < n_v ? d > 0.0 : d < 0.0;
  if (!sign_ok || !std::isfinite(d)) return false;
  largest = std::max(largest, std::abs(d));
  if (std::abs(d) <= kSingularPivotRatio * largest) return false;

#pragma GCC unroll 16
  // trailing update with the unscaled column w = L(:,j) d, then scale it into L(:,j)
  for (int c = j + 1; c < n; ++c) {
    const double w = col_j[c];
    if (w == 0.0) continue;
    const double f = w / d;
    double* col_c = a + c * n;
#pragma GCC unroll 16
    for (int i = c; i < n; ++i) col_c[i] -= col_j[i] * f;
  }
  const double inv = 1.0 / d;
#pragma GCC unroll 16
  for (int i = j + 1; i < n; ++i) col_j[i] *= inv;
  return true;
}

// The LDL^T of DenseKkt::factor_ldlt on a (the copy of K, n x n column-major), n_v the size of M;
// ref (n - n_v entries) is scratch for the constraint pivots' reference values; drop false keeps
// the plain LDL^T (no dependency test). Returns the number of constraint rows dropped as
// dependent, or -1 when the LDL^T does not apply.
template <int N>
[[nodiscard]] int ldlt_factor(double* a, int n_rt, int n_v, double* ref, bool drop) noexcept {
  // right-looking LDL^T on the lower triangle: K = L D L^T with unit lower L stored below the
  // diagonal and D on it. Pivot j must be positive for j < n_v (the M block) and negative after
  // (the Schur complement -G M^-1 G^T); anything else means "use the pivoted LU".
  //
  // Rank loss of G (a singular position): once M is eliminated, the constraint block holds
  // S = -G M^-1 G^T, and S_jj = -||G_j||^2 in the M^-1 metric (ref_j). Eliminating the constraint
  // rows in turn leaves as pivot j minus the squared M^-1-distance of G_j from the span of the rows
  // before it, so |d_j| / ref_j = sin^2 of the angle between G_j and that span: a relative pivot
  // test decided per factorization, scale-free in each row's units. Below kDependentRowTol
  // the row is dependent or nearly so (sin <= 1e-4; pivot_tolerance.hpp): it is dropped, i.e. K is
  // factored without its row and column (no trailing update; its column of L zeroed) and D_j = inf,
  // so the solves give it a zero multiplier and leave its equation out. The other rows' equations
  // then hold exactly, and for a consistent right-hand side (c in range G, as at a singular
  // position on the manifold) the dropped equation holds too.
  const int n = size_of<N>(n_rt);
  double largest = 0.0;
  int dropped = 0;
  if constexpr (N > 0) {
    // the columns one by one with j a constant, their loops unrolled: Andrews' 13 x 13 K took
    // 4.2k instructions with the run-time loops and 2.25k so (callgrind, 2026-11-29; the
    // behaviour hashes unchanged, so bit-identical)
    const bool ok = [&]<int... J>(std::integer_sequence<int, J...>) {
      return (ldlt_column<N>(a, N, J, n_v, ref, drop, largest, dropped) && ...);
    }
    (std::make_integer_sequence<int, N>{});
    if (!ok) return -1;
  } else {
    for (int j = 0; j < n; ++j) {
      if (!ldlt_column<N>(a, n, j, n_v, ref, drop, largest, dropped)) return -1;
    }
  }
  // early pivots were compared with the largest seen so far; compare all with the overall one
  // (a dropped pivot holds inf)
  for (int j = 0; j < n; ++j) {
    if (std::abs(a[j + j * n]) <= kSingularPivotRatio * largest) return -1;
  }
  return dropped;
}

// ldlt_solve() of x and of y, each with exactly its operations in its order (the forward skip of
// zero entries stays per vector, so that no 0 * L term is added that the single solve would
// skip); the back substitution's two sums are independent dependency chains the CPU overlaps,
// where one solve waits on each subtraction in turn.
template <int N>
void ldlt_solve2(const double* a, int n_rt, double* x, double* y) noexcept {
  const int n = size_of<N>(n_rt);
#pragma GCC unroll 16
  for (int j = 0; j < n; ++j) {
    const double* col = a + j * n;
    const double xj = x[j];
    const double yj = y[j];
    if (xj != 0.0) {
#pragma GCC unroll 16
      for (int i = j + 1; i < n; ++i) x[i] -= col[i] * xj;
    }
    if (yj != 0.0) {
#pragma GCC unroll 16
      for (int i = j + 1; i < n; ++i) y[i] -= col[i] * yj;
    }
  }
#pragma GCC unroll 16
  for (int j = 0; j < n; ++j) {
    x[j] /= a[j + j * n];
    y[j] /= a[j + j * n];
  }
#pragma GCC unroll 16
  for (int j = n - 1; j >= 0; --j) {
    const double* col = a + j * n;
    double sx = x[j];
    double sy = y[j];
#pragma GCC unroll 16
    for (int i = j + 1; i < n; ++i) {
      sx -= col[i] * x[i];
      sy -= col[i] * y[i];
    }
    x[j] = sx;
    y[j] = sy;
  }
}
}  // namespace

DenseKkt::DenseKkt(int n_v, int n_lambda, RankLoss rank_loss)
    : n_v_(n_v),
      n_lambda_(n_lambda),
      k_(Mat::Zero(n_v + n_lambda, n_v + n_lambda)),
      lu_(Mat::Zero(n_v + n_lambda, n_v + n_lambda)),
      perm_(Eigen::VectorXi::LinSpaced(n_v + n_lambda, 0, n_v + n_lambda - 1)),
      sol_(Vec::Zero(n_v + n_lambda)),
      sol2_(Vec::Zero(n_v + n_lambda)),
      rank_loss_(rank_loss),
      ref_(Vec::Zero(n_lambda)) {}

bool DenseKkt::factor_at(const System& system, double t, VecCRef q, StepStatus& status) noexcept {
  system.mass(t, q, mass_block());
  system.jacobian(t, q, jacobian_block());
  ++status.kkt_factorizations;
  if (factor()) {
    if (rank_deficient()) status.set(StepFlag::kRankDeficient);
    return true;
  }
  status.set(StepFlag::kSingularKkt);
  return false;
}

bool DenseKkt::factor() noexcept {
  // complete the symmetric saddle-point matrix from the blocks the caller wrote
  k_.topRightCorner(n_v_, n_lambda_) = k_.bottomLeftCorner(n_lambda_, n_v_).transpose();
  k_.bottomRightCorner(n_lambda_, n_lambda_).setZero();
  pivoted_ = false;
  if (factor_ldlt()) return true;
  pivoted_ = true;
  dropped_ = 0;
  return factor_lu();
}

bool DenseKkt::factor_ldlt() noexcept {
  const int n = n_v_ + n_lambda_;
  lu_ = k_;
  const bool drop = rank_loss_ == RankLoss::kDropRows;
  const int dropped = with_fixed_size(
      n, [&](auto nc) { return ldlt_factor<nc()>(lu_.data(), n, n_v_, ref_.data(), drop); });
  dropped_ = dropped > 0 ? dropped : 0;
  return dropped >= 0;
}

bool DenseKkt::factor_lu() noexcept {
  // right-looking LU with partial (row) pivoting on column-major storage: P K = L U
  const int n = n_v_ + n_lambda_;
  lu_ = k_;
  for (int i = 0; i < n; ++i) perm_[i] = i;
  double* a = lu_.data();
  const auto at = [a, n](int i, int j) -> double& { return a[i + j * n]; };
  double largest = 0.0;
  double smallest = INFINITY;
  for (int j = 0; j < n; ++j) {
    // pivot: largest magnitude in column j at or below the diagonal
    int p = j;
    double best = std::abs(at(j, j));
    for (int i = j + 1; i < n; ++i) {
      const double mag = std::abs(at(i, j));
      if (mag > best) {
        best = mag;
        p = i;
      }
    }
    if (!(best > 0.0) || !std::isfinite(best)) return false;  // exactly singular or not finite
    largest = std::max(largest, best);
    smallest = std::min(smallest, best);
    if (p != j) {
      for (int c = 0; c < n; ++c) std::swap(at(j, c), at(p, c));
      std::swap(perm_[j], perm_[p]);
    }

    // multipliers, then the rank-1 update of the trailing block (inner loop contiguous)
    const double inv = 1.0 / at(j, j);
    double* col_j = a + j * n;
    for (int i = j + 1; i < n; ++i) col_j[i] *= inv;
    for (int c = j + 1; c < n; ++c) {
      double* col_c = a + c * n;
      const double u = col_c[j];
      if (u == 0.0) continue;
      for (int i = j + 1; i < n; ++i) col_c[i] -= col_j[i] * u;
    }
  }
  return smallest > kSingularPivotRatio * largest;
}

void DenseKkt::ldlt_solve_in_place(double* x) const noexcept {
  const int n = n_v_ + n_lambda_;
  with_fixed_size(n, [&](auto nc) { ldlt_solve<nc()>(lu_.data(), n, x); });
}

void DenseKkt::ldlt_solve2_in_place(double* x, double* y) const noexcept {
  const int n = n_v_ + n_lambda_;
  with_fixed_size(n, [&](auto nc) { ldlt_solve2<nc()>(lu_.data(), n, x, y); });
}

void DenseKkt::lu_solve_in_place(double* x) const noexcept {
  const int n = n_v_ + n_lambda_;
  const double* a = lu_.data();
  forward_unit_lower(a, n, x);  // L y = P b
  // U x = y
  for (int j = n - 1; j >= 0; --j) {
    const double* col = a + j * n;
    x[j] /= col[j];
    const double xj = x[j];
    for (int i = 0; i < j; ++i) x[i] -= col[i] * xj;
  }
}

void DenseKkt::solve_in_place(double* x) const noexcept {
  if (pivoted_) {
    lu_solve_in_place(x);
  } else {
    ldlt_solve_in_place(x);
  }
}

void DenseKkt::solve(VecCRef a, VecCRef b, VecRef out_x, VecRef out_mu) noexcept {
  // right-hand side [a; b], gathered as P [a; b] for the pivoted LU
  const int n = n_v_ + n_lambda_;
  for (int i = 0; i < n; ++i) {
    const int src = pivoted_ ? perm_[i] : i;
    sol_[i] = src < n_v_ ? a[src] : b[src - n_v_];
  }
  solve_in_place(sol_.data());
  out_x = sol_.head(n_v_);
  out_mu = sol_.tail(n_lambda_);
}

void DenseKkt::solve_correction(VecCRef r, VecRef out_dx) noexcept {
  // right-hand side [0; r], gathered as P [0; r] for the pivoted LU
  const int n = n_v_ + n_lambda_;
  for (int i = 0; i < n; ++i) {
    const int src = pivoted_ ? perm_[i] : i;
    sol_[i] = src < n_v_ ? 0.0 : r[src - n_v_];
  }
  solve_in_place(sol_.data());
  out_dx = sol_.head(n_v_);
}

void DenseKkt::solve_correction2(VecCRef r1, VecCRef r2, VecRef out_dx1, VecRef out_dx2) noexcept {
  if (pivoted_) {
    solve_correction(r1, out_dx1);
    solve_correction(r2, out_dx2);
    return;
  }
  // right-hand sides [0; r1] and [0; r2] (no permutation on the LDL^T path)
  sol_.head(n_v_).setZero();
  sol_.tail(n_lambda_) = r1;
  sol2_.head(n_v_).setZero();
  sol2_.tail(n_lambda_) = r2;
  ldlt_solve2_in_place(sol_.data(), sol2_.data());
  out_dx1 = sol_.head(n_v_);
  out_dx2 = sol2_.head(n_v_);
}

}  // namespace rtmb
