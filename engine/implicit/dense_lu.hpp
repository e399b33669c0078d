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
  explicit DenseLu(int n) : a_(Mat::Zero(n, n)), perm_(Eigen::VectorXi::Zero(n)) {}

  [[nodiscard]] int size() const noexcept { return static_cast<int>(a_.rows()); }
  /// The matrix to factor; write it here, then call factor() (which overwrites it with L\U).
  [[nodiscard]] Mat& matrix() noexcept { return a_; }

  /// Factors matrix() in place. Returns false when a pivot is zero/tiny relative to the largest
  /// entry or the matrix is not finite. RT-safe.
  [[nodiscard]] bool factor() noexcept {
    const int n = size();
    double* a = a_.data();
    double scale = 0.0;
    for (int i = 0; i < n * n; ++i) scale = std::fmax(scale, std::fabs(a[i]));
    if (!std::isfinite(scale) || scale == 0.0) return false;
    const double tiny = scale * 1e-14;
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
      if (!(best > tiny)) return false;
      if (p != k) {
        for (int j = 0; j < n; ++j) std::swap(a[k + j * n], a[p + j * n]);
      }
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
    return true;
  }

  /// Solves A x = b in place (x holds b on entry). Valid after a successful factor(). RT-safe.
  void solve_in_place(VecRef x) const noexcept {
    const int n = size();
    const double* a = a_.data();
    for (int k = 0; k < n; ++k) {
      if (perm_[k] != k) std::swap(x[k], x[perm_[k]]);
    }
    for (int j = 0; j < n; ++j) {  // L y = P b, unit lower
      const double xj = x[j];
      if (xj == 0.0) continue;
      for (int i = j + 1; i < n; ++i) x[i] -= a[i + j * n] * xj;
    }
    for (int j = n - 1; j >= 0; --j) {  // U x = y
      x[j] /= a[j + j * n];
      const double xj = x[j];
      for (int i = 0; i < j; ++i) x[i] -= a[i + j * n] * xj;
    }
  }

 private:
  Mat a_;                 ///< the matrix, then its L\U factors (unit L below the diagonal)
  Eigen::VectorXi perm_;  ///< row k was swapped with row perm_[k] at elimination step k
};

}  // namespace rtmb
