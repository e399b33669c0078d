// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// A maximal independent set of rows of a sparse constraint Jacobian G (m x n), found by a
// rank-revealing sparse QR of G^T (issue 16, "Spatial setup in O(n)"). Why G^T: a QR of G^T
// decides about its columns, which are the rows of G, so the columns it sets aside as (numerically)
// zero pivots are the dependent constraint rows. The factorization is SuiteSparseQR (Davis,
// "Algorithm 915, SuiteSparseQR", ACM TOMS 38(1), 2011; Debian's libsuitesparse-dev): multifrontal,
// with a fill-reducing column order and Heath's rank detection (a column whose part orthogonal to
// the columns already taken has a norm <= tol is dead and moved to the end). Why not Eigen's
// SparseQR: it is left-looking and keeps every Householder vector; on G^T of a body model (7
// coordinates per body, 3 or 4 rows per body) the rows left over per body pile up in those vectors
// and the factor grows as O(n^2) (8 s for the 1000-body spatial chain), where the multifrontal QR
// drops them with each front and stays O(nnz). Only R is kept (no Q): the solves use the
// corrected semi-normal equations. Setup-only (allocates).

#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>
#include <memory>
#include <vector>

#include "rtmb/system.hpp"

namespace rtmb {

using SparseMat = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;

/// G = dg/dq of `system` at (t, q) as a compressed sparse matrix: from its sparse structure when it
/// has one (O(nnz)), else from its dense Jacobian (the small mechanisms without one). Setup-only.
[[nodiscard]] SparseMat sparse_jacobian(const System& system, double t, VecCRef q);

/// An estimate of the largest singular value of G from below: power iteration on G^T G, at
/// least the largest row norm (a lower bound itself). O(nnz) per iteration. Setup-only.
[[nodiscard]] double largest_singular_value(const SparseMat& G);

/// The rank-revealing QR of G^T, G^T P = Q [R11 R12; 0 0]: P's first rank() columns are the
/// kept rows of G (R11 nonsingular), the others the rows whose pivot was <= the threshold.
class SparseRowBasis {
 public:
  /// Factors G^T; a row whose part orthogonal to the rows kept before it has a norm below
  /// `pivot_threshold` counts as dependent. Throws std::runtime_error if the factorization fails.
  SparseRowBasis(const SparseMat& G, double pivot_threshold);

  [[nodiscard]] int rank() const noexcept { return rank_; }
  /// The kept rows of G in pivot order (the columns of R11).
  [[nodiscard]] const std::vector<int>& kept_in_pivot_order() const noexcept { return kept_; }
  /// The dependent rows of G in pivot order (the columns of R12).
  [[nodiscard]] const std::vector<int>& dependent_in_pivot_order() const noexcept {
    return dependent_;
  }

  /// For the k-th dependent row d (pivot order): c with G_d^T = sum_j c(j) G_{kept[j]}^T, the
  /// least-squares combination of the kept rows, c = R11^-1 R12(:, k) (since G_K^T = Q1 R11 and
  /// G_d^T = Q1 R12(:, k) up to a residual below the threshold).
  [[nodiscard]] Vec combination(int k) const;

  /// x = G^+ b, the minimum-norm least-squares solution of G x = b (b of size m), as the complete
  /// orthogonal decomposition gives it, so that an inconsistent b (joints that cannot all hold)
  /// spreads its residual over the conflicting rows. With the dependent rows G_D = C G_K (C from
  /// combination()), G x = [I; C] G_K x: y = G_K x minimizes |[I; C] y - b|, i.e.
  /// (I + C^T C) y = b_K + C^T b_D (sparse Cholesky, eigenvalues >= 1), then x is the minimum-norm
  /// solution of G_K x = y, x = G_K^T (R11^T R11)^-1 y by the semi-normal equations with one step
  /// of refinement (the corrected semi-normal equations of Björck, Numerical Methods for Least
  /// Squares Problems, SIAM 1996: an R-only solve as accurate as one through Q for
  /// well-conditioned G_K; tests/engine/constraints/sparse_row_basis_test.cpp checks it against
  /// the complete orthogonal decomposition to 1e-12).
  [[nodiscard]] Vec min_norm_solve(const Vec& b) const;

 private:
  /// w with R11^T R11 w = b (pivot order); G_K^T w is then the minimum-norm x with G_K x = b.
  [[nodiscard]] Vec normal_solve(const Vec& b) const;

  int n_ = 0;      // columns of G
  SparseMat r11_;  // R11 (rank x rank, upper triangular) and R12, columns sorted
  SparseMat r12_;
  SparseMat gkt_;  // G_K^T (n x rank): the kept rows of G in pivot order, as columns
  SparseMat c_;    // C (dependent x rank): G_D = C G_K, rows in pivot order
  std::unique_ptr<Eigen::SimplicialLDLT<SparseMat>> normal_;  // I + C^T C, when C has rows
  int rank_ = 0;
  std::vector<int> kept_;
  std::vector<int> dependent_;
};

}  // namespace rtmb
