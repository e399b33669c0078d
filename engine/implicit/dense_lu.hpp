// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include <cmath>
#include <utility>

#include "rtmb/types.hpp"

namespace rtmb {

/// In-place LU factorization with partial pivoting of a square matrix held in a buffer sized once
/// at construction. Used for the implicit methods' Newton matrix, which is unsymmetric (the
/// constraint-force block B(u~)^T differs from the constraint row B(u_{n+1}); Hoitink eq. 3.22)
/// and has a singular mass block for the double pendulum (P14), so neither DenseKkt's LDL^T nor a
/// Schur complement applies. Written out on raw column-major storage: factor() and solve() never
/// allocate (tests/alloc).
class DenseLu {
 public:
  explicit DenseLu(int n)
      : a_(Mat::Zero(n, n)),
        copy_(Mat::Zero(n, n)),
        perm_(Eigen::VectorXi::Zero(n)),
        cperm_(Eigen::VectorXi::LinSpaced(n, 0, n - 1)) {}

  [[nodiscard]] int size() const noexcept { return static_cast<int>(a_.rows()); }
  /// The matrix to factor; write it here, then call factor() (which overwrites it with L\U).
  [[nodiscard]] Mat& matrix() noexcept { return a_; }

  /// Factors matrix() in place. Partial pivoting first; when it meets a pivot that is zero or
  /// tiny relative to the largest entry (the Newton matrix is singular: G lost rank at a
  /// singular position, so [.. B^T; B 0] has dependent constraint rows), the matrix is factored
  /// again with complete pivoting, which reveals its rank: the trailing block left once every
  /// remaining entry is tiny is dropped, i.e. the unknowns of its columns are set to 0 and its
  /// equations (then 0 = residual) left out, the basic solution of the consistent part
  /// (Golub & Van Loan, Matrix Computations, 3rd ed., §3.4.2 and §5.5.7). Newton then moves the
  /// dependent rows' multipliers by 0 and the other unknowns exactly. dropped() counts those
  /// columns. Returns false only for a non-finite or zero matrix. RT-safe.
  [[nodiscard]] bool factor() noexcept {
    const int n = size();
    double* a = a_.data();
    double scale = 0.0;
    for (int i = 0; i < n * n; ++i) {
      if (!std::isfinite(a[i])) return false;  // (fmax would skip a NaN)
      scale = std::fmax(scale, std::fabs(a[i]));
    }
    if (scale == 0.0) return false;
    const double tiny = scale * 1e-14;
    copy_ = a_;
    complete_ = false;
    rank_ = n;
    for (int k = 0; k < n; ++k) {
      // pivot: largest |a(i,k)|, i >= k
      int p = k;
      double best = std::fabs(a[k + k * n]);
      for (int i = k + 1; i < n; ++i) {
        const double c = std::fabs(a[i + k * n]);
        if (c > best) {
          best = c;
          p = i;
        }
      }
      perm_[k] = p;
      if (!(best > tiny)) return factor_complete(tiny);
      if (p != k) {
        for (int j = 0; j < n; ++j) std::swap(a[k + j * n], a[p + j * n]);
      }
      eliminate(k);
    }
    return true;
  }

  /// Columns the last factor() dropped as dependent (0 unless it needed complete pivoting).
  [[nodiscard]] int dropped() const noexcept { return size() - rank_; }

  /// Solves A x = b in place (x holds b on entry). Valid after a successful factor(). RT-safe.
  void solve_in_place(VecRef x) const noexcept {
    const int n = size();
    const double* a = a_.data();
    for (int k = 0; k < n; ++k) {
      if (perm_[k] != k) std::swap(x[k], x[perm_[k]]);
    }
    for (int j = 0; j < rank_; ++j) {  // L y = P b, unit lower
      const double xj = x[j];
      if (xj == 0.0) continue;
      for (int i = j + 1; i < n; ++i) x[i] -= a[i + j * n] * xj;
    }
    for (int j = rank_; j < n; ++j) x[j] = 0.0;  // dropped unknowns (complete pivoting only)
    for (int j = rank_ - 1; j >= 0; --j) {       // U x = y
      x[j] /= a[j + j * n];
      const double xj = x[j];
      for (int i = 0; i < j; ++i) x[i] -= a[i + j * n] * xj;
    }
    if (complete_) {
      // x = Q z, Q = Q_0 Q_1 ... Q_{n-1} (column swaps in elimination order)
      for (int k = n - 1; k >= 0; --k) {
        if (cperm_[k] != k) std::swap(x[k], x[cperm_[k]]);
      }
    }
  }

 private:
  // multipliers of column k, then the rank-1 update of the trailing block
  void eliminate(int k) noexcept {
    const int n = size();
    double* a = a_.data();
    const double inv = 1.0 / a[k + k * n];
    for (int i = k + 1; i < n; ++i) a[i + k * n] *= inv;
    for (int j = k + 1; j < n; ++j) {
      const double akj = a[k + j * n];
      if (akj == 0.0) continue;
      double* col = a + j * n;
      const double* lk = a + k * n;
      for (int i = k + 1; i < n; ++i) col[i] -= lk[i] * akj;
    }
  }

  // P A Q = L U with complete pivoting from the saved matrix; stops at the first step whose
  // largest remaining entry is <= tiny: rank_ = that step.
  [[nodiscard]] bool factor_complete(double tiny) noexcept {
    const int n = size();
    a_ = copy_;
    double* a = a_.data();
    complete_ = true;
    for (int k = 0; k < n; ++k) {
      int p = k;
      int c = k;
      double best = 0.0;
      for (int j = k; j < n; ++j) {
        for (int i = k; i < n; ++i) {
          const double m = std::fabs(a[i + j * n]);
          if (m > best) {
            best = m;
            p = i;
            c = j;
          }
        }
      }
      perm_[k] = p;
      cperm_[k] = c;
      if (!(best > tiny)) {
        if (!std::isfinite(best)) return false;
        for (int r = k; r < n; ++r) {
          perm_[r] = r;
          cperm_[r] = r;
        }
        rank_ = k;
        return true;
      }
      if (p != k) {
        for (int j = 0; j < n; ++j) std::swap(a[k + j * n], a[p + j * n]);
      }
      if (c != k) {
        for (int i = 0; i < n; ++i) std::swap(a[i + k * n], a[i + c * n]);
      }
      eliminate(k);
    }
    rank_ = n;
    return true;
  }

  Mat a_;                  ///< the matrix, then its L\U factors (unit L below the diagonal)
  Mat copy_;               ///< the matrix as written, for the complete-pivoting refactorization
  Eigen::VectorXi perm_;   ///< row k was swapped with row perm_[k] at elimination step k
  Eigen::VectorXi cperm_;  ///< column k was swapped with column cperm_[k] (complete pivoting)
  bool complete_ = false;  ///< the last factor() used complete pivoting
  int rank_ = 0;           ///< leading steps eliminated; the rest were dropped
};

}  // namespace rtmb
