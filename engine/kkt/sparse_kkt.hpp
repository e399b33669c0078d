// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include <Eigen/SparseCore>
#include <span>
#include <vector>

#include "engine/kkt/kkt_values.hpp"
#include "rtmb/types.hpp"

namespace rtmb {

/// Sparse solver for the saddle-point (KKT) system of a constrained mechanical system in absolute
/// (body) coordinates,
///
///     K = [ M  G^T ]      K [a; lambda] = [f; c],
///         [ G   0  ]
///
/// where M (n_v x n_v) is block diagonal and G (n_lambda x n_v) couples two bodies per joint, so
/// K is very sparse and a chain of N links costs O(N) instead of the O(N^3) of DenseKkt.
///
/// The step uses BlockKkt (block_kkt.hpp), which performs the same elimination in dense blocks
/// and is faster; SparseKkt stays as the scalar, entry-by-entry implementation of it that the
/// KKT tests hold BlockKkt against and bench/sparse_kkt_bench.cpp times it against. It also takes
/// any lower-triangular M pattern with a fill-reducing order of the coordinates, where BlockKkt
/// needs M block diagonal (a fully coupled M would be one dense block there).
///
/// Method (details and equations in sparse_kkt.cpp and docs/architecture.md "Sparse KKT"):
///  * setup (allocates, may throw std::invalid_argument on bad patterns):
///    1. fill-reducing order of the coordinates: AMD on the pattern of M + G^T G;
///    2. every constraint row is placed right after the last coordinate it couples. With that
///       order each leading block of P K P^T is [M_VV G_CV^T; G_CV 0] with G_CV of full row rank,
///       so when M is positive definite every pivot exists and its sign is known in advance
///       (+ for coordinates, - for constraints): a symmetric LDL^T needs no pivoting;
///    3. elimination tree, row and column structure of L, all factor storage (CSC of L, D).
///  * per evaluation (no allocation, no exceptions): write M and G into mass_values() /
///    jacobian_values(), call factor() (up-looking sparse LDL^T), then any number of solve().
///
/// What it cannot do: M singular (a massless coordinate) even when K is invertible. The pivot of
/// that coordinate is then zero and factor() returns false; such models must use DenseKkt, whose
/// pivoted LU handles them. Redundant constraints also make factor() return false.
///
/// Pattern input: Eigen::SparseMatrix<double> (column-major). Only the structure is read; the
/// stored values are ignored. `mass_lower_pattern` holds the lower triangle of M including the
/// diagonal (an entry above the diagonal is an error); `jacobian_pattern` holds G. The value
/// arrays follow the CSC order of these patterns (column by column, rows ascending within a
/// column, i.e. the order of their valuePtr()); mass_slot()/jacobian_slot() look a slot up.
class SparseKkt : public KktValues {
 public:
  SparseKkt(const Pattern& mass_lower_pattern, const Pattern& jacobian_pattern);

  /// Numeric LDL^T of P K P^T from the current values. Returns false (the caller flags
  /// kSingularKkt) when a pivot has the wrong sign, is tiny relative to the terms it was summed
  /// from, or is not finite: M not positive definite on the eliminated coordinates (massless
  /// coordinate), redundant constraints, or non-finite input. RT-safe: no allocation, no throw.
  [[nodiscard]] bool factor() noexcept;

  /// Solves K [a; lambda] = [f; c] with the last factor(). f, a have size n_v; c, lambda size
  /// n_lambda. After a failed factor() the outputs are NaN, never a plausible-looking answer.
  /// RT-safe.
  void solve(VecCRef f, VecCRef c, VecRef a_out, VecRef lambda_out) noexcept;

  /// The constraint correction top(K^-1 [0; r]) (Chin eq. 4.15, as DenseKkt::solve_correction):
  /// the M-metric minimum-norm dx with G dx = r. dx_out has size n_v; NaN after a failed
  /// factor(). RT-safe.
  void solve_correction(VecCRef r, VecRef dx_out) noexcept;

  /// solve_correction() of two right-hand sides in one sweep over the factors (PStab corrects q
  /// and v with the same K): the index arrays of L are read once, and the two columns, stored
  /// interleaved, share each multiply-subtract as one 2-wide vector operation. Each column gets
  /// exactly the operations of solve_correction() in the same order, so the results are
  /// bit-identical to two separate calls. RT-safe.
  void solve_correction2(VecCRef r1, VecCRef r2, VecRef dx1_out, VecRef dx2_out) noexcept;

  /// Elimination order: position k holds the K index (coordinate i < n_v, constraint row
  /// n_v + r) eliminated k-th. Exposed for tests and diagnostics.
  [[nodiscard]] const std::vector<int>& elimination_order() const noexcept { return order_; }
  /// Parent of each (permuted) column in the elimination tree of P K P^T, -1 for a root.
  [[nodiscard]] const std::vector<int>& elimination_tree() const noexcept { return parent_; }
  /// Number of stored off-diagonal entries of L (structural, fixed at setup).
  [[nodiscard]] int factor_nonzeros() const noexcept { return static_cast<int>(l_row_.size()); }

 private:
  /// x <- (P K P^T)^-1 x with the factors: L z = x, D w = z, L^T u = w, for W interleaved
  /// columns of length n (x_ with W = 1, x2_ with W = 2).
  template <int W>
  void solve_in_place(double* x) const noexcept;

  int n_;  ///< n_v + n_lambda
  // values_ (KktValues) ends with one zero: it feeds the structural diagonal entries that the
  // caller never writes (the (2,2) block of K).

  std::vector<int> order_;  ///< new index -> K index
  std::vector<int> inv_;    ///< K index -> new index

  // Upper triangle (rows <= column) of C = P K P^T by columns: row index and the values_ slot.
  std::vector<int> c_ptr_, c_row_, c_src_;

  std::vector<int> parent_;  ///< elimination tree of C

  // Row structure of L (strict lower): for row k, the columns i < k with L(k,i) != 0 in ascending
  // order, and where that entry lives in the CSC storage of L.
  std::vector<int> r_ptr_, r_col_, r_slot_;

  // L in CSC (strict lower, rows ascending per column) and D, kept as 1 / D.
  std::vector<int> l_ptr_, l_row_;
  std::vector<double> l_val_;
  std::vector<double> inv_d_;  ///< 1 / D, so that factor() and solve() multiply

  std::vector<double> y_;   ///< dense scratch row of factor(), length n (all zero between uses)
  std::vector<double> x_;   ///< permuted right-hand side / solution of solve(), length n
  std::vector<double> x2_;  ///< two of them interleaved (x2_[2k], x2_[2k+1]), length 2 n
  bool factored_ = false;   ///< the last factor() succeeded
};

}  // namespace rtmb
