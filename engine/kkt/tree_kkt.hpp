// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include <memory>

#include "rtmb/system.hpp"
#include "rtmb/types.hpp"

namespace rtmb {

/// KKT solver for a System whose M has an O(n) factorization (System::mass_factor(): a
/// joint-space tree, by the articulated-body algorithm), issue 19. Closed loops in joint
/// coordinates are few rows on many coordinates, so the KKT system
///
///     [ M  G^T ] [x ]   [a]
///     [ G   0  ] [mu] = [b]
///
/// is solved by the range-space method of R. Featherstone, Rigid Body Dynamics Algorithms
/// (Springer 2008) §8.5-8.6 (loop closures: forward dynamics from M^-1 G^T and the k x k
/// G M^-1 G^T), k = n_lambda:
///     Y = M^-1 G^T                 (k solves with M, O(n) each)
///     S = G Y = G M^-1 G^T          (k x k, symmetric positive semi-definite)
///     S mu = G M^-1 a - b,  x = M^-1 a - Y mu.
/// O(k n + k^3) per factorization and O(n + k n) per solve, where the dense K costs O((n+k)^3).
/// The correction of post-stabilization, top(K^-1 [0; r]) = M^-1 G^T S^-1 r (Chin eq. 4.15), is
/// Y S^-1 r.
///
/// Rank handling as DenseKkt's and BlockKkt's (engine/kkt/pivot_tolerance.hpp): S is factored by
/// LDL^T without pivoting, in row order; pivot j is S_jj sin^2 of the angle between G_j and the
/// span of the rows before it in the M^-1 metric, the same number DenseKkt's LDL^T of K sees, so
/// rows with a pivot at most kDependentRowTol S_jj are dropped (zero multiplier, their equation
/// left out) and the same rows are dropped on either path. M itself must be positive definite
/// (the articulated factorization fails otherwise: factor() false).
///
/// Per evaluation: load_mass(t, q) factors M, the caller writes G into jacobian_block(), then
/// factor() and any number of solves. Everything after construction is allocation-free.
class TreeKkt {
 public:
  /// std::invalid_argument when system.mass_factor() is nullptr. Setup-only.
  explicit TreeKkt(const System& system);

  /// Factors M(t,q) (System::mass_factor). RT-safe.
  void load_mass(double t, VecCRef q) noexcept;
  /// G, n_lambda x n_v: the caller writes it before factor().
  [[nodiscard]] MatRef jacobian_block() noexcept { return g_; }
  [[nodiscard]] MatCRef jacobian() const noexcept { return g_; }

  /// Y = M^-1 G^T and the LDL^T of S = G Y. False when M was singular or S has a pivot of the
  /// wrong sign that is not a dependent row. RT-safe.
  [[nodiscard]] bool factor() noexcept;
  [[nodiscard]] int dropped_rows() const noexcept { return dropped_; }
  [[nodiscard]] bool rank_deficient() const noexcept { return dropped_ > 0; }

  /// K [x; mu] = [a; b] with the last factorization. RT-safe.
  void solve(VecCRef a, VecCRef b, VecRef out_x, VecRef out_mu) noexcept;
  /// top(K^-1 [0; r]) = M^-1 G^T S^-1 r. RT-safe.
  void solve_correction(VecCRef r, VecRef out_dx) noexcept;

 private:
  // z <- S^-1 z with the LDL^T in s_ (a dropped row's D_j = inf gives z_j = 0)
  void schur_solve(VecRef z) const noexcept;

  std::unique_ptr<MassFactor> mass_;
  bool mass_ok_ = false;
  Mat g_;    ///< G, n_lambda x n_v
  Mat y_;    ///< M^-1 G^T, n_v x n_lambda
  Mat s_;    ///< LDL^T of G M^-1 G^T, n_lambda x n_lambda (unit L below the diagonal, D on it)
  Vec ref_;  ///< S_jj before elimination, n_lambda
  Vec x0_;   ///< M^-1 a, n_v
  Vec z_;    ///< Schur right-hand side, n_lambda
  int dropped_ = 0;
};

}  // namespace rtmb
