// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include "rtmb/status.hpp"
#include "rtmb/system.hpp"
#include "rtmb/types.hpp"

namespace rtmb {

/// Dense solver for the saddle-point (KKT) system of a constrained mechanical system
///
///     K = [ M  G^T ]      K [x; mu] = [a; b]
///         [ G   0  ]
///
/// (Chin 1995, seed 000_43485023299f7749.txt: the descriptor form eq. 2.2, eq. 4.2 / 4.22 for the
/// right-hand side, eq. 4.15 with Lemma 4.1 for post-stabilization).
///
/// Why the full KKT matrix and not the Schur complement G M^-1 G^T: M may be singular as long as it
/// is positive definite on ker G (Chin Lemma 4.1; Hoitink's double pendulum has massless angle
/// coordinates), and then only K is invertible.
///
/// K is symmetric indefinite. Two factorizations, both written out on the raw column-major
/// storage because Eigen's dynamic-size decompositions spend most of their time in expression
/// overhead at these sizes (measured ~7.6k instructions for a 13 x 13 PartialPivLU, Andrews' KKT):
///  1. symmetric LDL^T without pivoting, tried first. When M is positive definite, K is
///     quasi-definite (M > 0, -G M^-1 G^T < 0), so it factors stably in this order and the pivots
///     are n_v positive then n_lambda negative (Vanderbei 1995). Half the cost of LU.
///  2. LU with partial pivoting, the fallback when a pivot has the wrong sign or is tiny: M
///     singular but positive definite on ker G, or an ill-posed K.
/// tests/engine/kkt compare both with Eigen and check which one was used.
///
/// Usage per evaluation: write M into mass_block() and G into jacobian_block(), call factor(),
/// then any number of solve() calls reuse the factorization. All buffers are sized at
/// construction; factor() and solve() do not allocate (tests/alloc proves it).
class DenseKkt {
 public:
  /// What factor() does with rows of G that are dependent at the current configuration.
  enum class RankLoss {
    kDropRows,  ///< leave them out with zero multipliers (dropped_rows()); the default
    kFail,      ///< report K singular (a caller with its own treatment: DirectCorrection)
  };

  DenseKkt(int n_v, int n_lambda, RankLoss rank_loss = RankLoss::kDropRows);

  [[nodiscard]] int n_v() const noexcept { return n_v_; }
  [[nodiscard]] int n_lambda() const noexcept { return n_lambda_; }

  /// Top-left n_v x n_v block of K: the caller writes M here before factor().
  [[nodiscard]] MatRef mass_block() noexcept { return k_.topLeftCorner(n_v_, n_v_); }
  /// Bottom-left n_lambda x n_v block of K: the caller writes G here before factor().
  [[nodiscard]] MatRef jacobian_block() noexcept { return k_.bottomLeftCorner(n_lambda_, n_v_); }
  /// G as last written (valid after factor()).
  [[nodiscard]] auto jacobian() const noexcept { return k_.bottomLeftCorner(n_lambda_, n_v_); }

  /// Completes K (G^T block, zero block) and factors it. Returns false when K is numerically
  /// singular or not finite; solve() results are then meaningless. Rows of G dependent at this
  /// configuration are not a failure when M is positive definite: they are dropped (zero
  /// multipliers, dropped_rows()). RT-safe.
  [[nodiscard]] bool factor() noexcept;

  /// Writes M(t,q) and G(t,q) of the system into K and factors it, counting the factorization in
  /// status and flagging kSingularKkt on failure (kRankDeficient when rows were dropped). RT-safe.
  [[nodiscard]] bool factor_at(const System& system,
                               double t,
                               VecCRef q,
                               StepStatus& status) noexcept;

  /// True when the last factor() needed the pivoted LU (M not positive definite).
  [[nodiscard]] bool used_pivoting() const noexcept { return pivoted_; }

  /// Constraint rows the last factor() found dependent at this configuration (G lost rank) and
  /// left out: zero multipliers, their equations dropped (dense_kkt.cpp ldlt_factor). Only the
  /// LDL^T path (M positive definite) detects them; the pivoted LU still fails on a singular K.
  [[nodiscard]] int dropped_rows() const noexcept { return dropped_; }
  [[nodiscard]] bool rank_deficient() const noexcept { return dropped_ > 0; }

  /// Solves K [x; mu] = [a; b]. RT-safe. out_x has size n_v, out_mu size n_lambda.
  void solve(VecCRef a, VecCRef b, VecRef out_x, VecRef out_mu) noexcept;

  /// The constraint correction top(K^-1 [0; r]) (Chin eq. 4.15, J K^-1 P r): the M-metric
  /// minimum-norm dx with G dx = r. RT-safe. out_dx has size n_v.
  void solve_correction(VecCRef r, VecRef out_dx) noexcept;

  /// solve_correction() of r1 and r2, bit-identical to two calls: on the LDL^T path the two
  /// back substitutions run interleaved (their dependency chains overlap). RT-safe.
  void solve_correction2(VecCRef r1, VecCRef r2, VecRef out_dx1, VecRef out_dx2) noexcept;

 private:
  bool factor_ldlt() noexcept;
  bool factor_lu() noexcept;
  void ldlt_solve_in_place(double* x) const noexcept;
  void ldlt_solve2_in_place(double* x, double* y) const noexcept;
  void lu_solve_in_place(double* x) const noexcept;
  void solve_in_place(double* x) const noexcept;

  int n_v_;
  int n_lambda_;
  Mat k_;                 ///< K, (n_v + n_lambda)^2
  Mat lu_;                ///< LDL^T (unit L below the diagonal, D on it) or L\U of P K
  bool pivoted_ = false;  ///< lu_ holds the pivoted LU
  Eigen::VectorXi perm_;  ///< row i of P K is row perm_[i] of K
  Vec sol_;               ///< scratch right-hand side / solution, n_v + n_lambda
  Vec sol2_;              ///< the second one of solve_correction2, n_v + n_lambda
  RankLoss rank_loss_;
  Vec ref_;          ///< the constraint pivots' reference values -(G M^-1 G^T)_jj, n_lambda
  int dropped_ = 0;  ///< rows dropped by the last factor()
};

}  // namespace rtmb
