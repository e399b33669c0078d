// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#include "engine/kkt/kkt_values.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace rtmb {

KktValues::KktValues(const char* solver,
                     const Pattern& mass_lower_pattern,
                     const Pattern& jacobian_pattern,
                     int extra_values)
    : n_v_(static_cast<int>(mass_lower_pattern.rows())),
      n_lambda_(static_cast<int>(jacobian_pattern.rows())) {
  if (mass_lower_pattern.cols() != n_v_ || jacobian_pattern.cols() != n_v_) {
    throw std::invalid_argument(
        std::string(solver) +
        ": M must be n_v x n_v and G n_lambda x n_v (n_v = " + std::to_string(n_v_) + ")");
  }
  Pattern m = mass_lower_pattern;
  Pattern g = jacobian_pattern;
  m.makeCompressed();
  g.makeCompressed();
  n_mass_ = static_cast<int>(m.nonZeros());
  n_jac_ = static_cast<int>(g.nonZeros());
  mass_outer_.assign(m.outerIndexPtr(), m.outerIndexPtr() + n_v_ + 1);
  mass_inner_.assign(m.innerIndexPtr(), m.innerIndexPtr() + n_mass_);
  jac_outer_.assign(g.outerIndexPtr(), g.outerIndexPtr() + n_v_ + 1);
  jac_inner_.assign(g.innerIndexPtr(), g.innerIndexPtr() + n_jac_);
  for (int j = 0; j < n_v_; ++j) {
    for (int p = mass_outer_[static_cast<std::size_t>(j)];
         p < mass_outer_[static_cast<std::size_t>(j) + 1]; ++p) {
      const int r = mass_inner_[static_cast<std::size_t>(p)];
      if (r < j) {
        throw std::invalid_argument(std::string(solver) + ": mass pattern has M(" +
                                    std::to_string(r) + ", " + std::to_string(j) +
                                    ") above the diagonal; give the lower triangle only");
      }
    }
  }
  values_.assign(static_cast<std::size_t>(n_mass_ + n_jac_ + extra_values), 0.0);
}

int KktValues::mass_slot(int row, int col) const {
  if (row < col || col < 0 || row >= n_v_) return -1;
  const auto begin = mass_inner_.begin() + mass_outer_[static_cast<std::size_t>(col)];
  const auto end = mass_inner_.begin() + mass_outer_[static_cast<std::size_t>(col + 1)];
  const auto it = std::lower_bound(begin, end, row);
  return it != end && *it == row ? static_cast<int>(it - mass_inner_.begin()) : -1;
}

int KktValues::jacobian_slot(int row, int col) const {
  if (col < 0 || col >= n_v_ || row < 0 || row >= n_lambda_) return -1;
  const auto begin = jac_inner_.begin() + jac_outer_[static_cast<std::size_t>(col)];
  const auto end = jac_inner_.begin() + jac_outer_[static_cast<std::size_t>(col + 1)];
  const auto it = std::lower_bound(begin, end, row);
  return it != end && *it == row ? static_cast<int>(it - jac_inner_.begin()) : -1;
}

}  // namespace rtmb
