// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include <Eigen/SparseCore>
#include <span>
#include <vector>

namespace rtmb {

/// What the sparse KKT solvers (SparseKkt, BlockKkt) share: the CSC structure of the lower
/// triangle of M and of G, the value array the caller writes every evaluation, and the slot
/// look-ups. The value array is [M values | G values | `extra` zeros], M and G in the CSC order
/// of their patterns (column by column, rows ascending: the order of their valuePtr()).
class KktValues {
 public:
  using Pattern = Eigen::SparseMatrix<double>;

  [[nodiscard]] int n_v() const noexcept { return n_v_; }
  [[nodiscard]] int n_lambda() const noexcept { return n_lambda_; }

  /// Values of the lower triangle of M in the CSC order of the mass pattern. RT-safe.
  [[nodiscard]] std::span<double> mass_values() noexcept {
    return {values_.data(), static_cast<std::size_t>(n_mass_)};
  }
  /// Values of G in the CSC order of the Jacobian pattern. RT-safe.
  [[nodiscard]] std::span<double> jacobian_values() noexcept {
    return {values_.data() + n_mass_, static_cast<std::size_t>(n_jac_)};
  }
  /// Read-only view of jacobian_values() (e.g. for G v products with the loaded G). RT-safe.
  [[nodiscard]] std::span<const double> jacobian_values() const noexcept {
    return {values_.data() + n_mass_, static_cast<std::size_t>(n_jac_)};
  }

  /// Index into mass_values() of M(row, col), row >= col, or -1 when not in the pattern. Setup
  /// helper (binary search), not meant for the per-step path: cache the slots.
  [[nodiscard]] int mass_slot(int row, int col) const;
  /// Index into jacobian_values() of G(row, col), or -1 when not in the pattern. Setup helper.
  [[nodiscard]] int jacobian_slot(int row, int col) const;

 protected:
  /// Copies the structure of the patterns (only the structure is read; their values are
  /// ignored). Throws std::invalid_argument, naming `solver`, when the sizes do not match
  /// (M n_v x n_v, G n_lambda x n_v) or M has an entry above the diagonal. Setup-only.
  KktValues(const char* solver,
            const Pattern& mass_lower_pattern,
            const Pattern& jacobian_pattern,
            int extra_values);

  int n_v_;
  int n_lambda_;
  int n_mass_ = 0;
  int n_jac_ = 0;
  std::vector<int> mass_outer_, mass_inner_, jac_outer_, jac_inner_;
  std::vector<double> values_;  ///< [mass values | jacobian values | extra zeros]
};

}  // namespace rtmb
