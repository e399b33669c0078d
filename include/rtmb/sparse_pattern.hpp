// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include <vector>

namespace rtmb {

/// Structure of a sparse matrix in compressed sparse column (CSC) form, without values: column c
/// holds the row indices inner[outer[c]] .. inner[outer[c + 1] - 1], ascending. A System that
/// has a sparse structure (System::sparse_structure) describes M and G with it once at setup, then
/// writes only the values, in this order, at every evaluation (System::mass_values,
/// System::jacobian_values). Kept free of Eigen so that rtmb/system.hpp stays light.
struct SparsePattern {
  int rows = 0;
  int cols = 0;
  std::vector<int> outer;  ///< cols + 1 column starts into inner
  std::vector<int> inner;  ///< row index of each stored entry

  [[nodiscard]] int nonzeros() const noexcept { return static_cast<int>(inner.size()); }
};

}  // namespace rtmb
