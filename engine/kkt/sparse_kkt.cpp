// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#include "engine/kkt/sparse_kkt.hpp"

#include <Eigen/OrderingMethods>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "engine/kkt/pivot_tolerance.hpp"

namespace rtmb {

SparseKkt::SparseKkt(const Pattern& mass_lower_pattern, const Pattern& jacobian_pattern)
    : KktValues("SparseKkt", mass_lower_pattern, jacobian_pattern, 1), n_(n_v_ + n_lambda_) {
  Pattern m = mass_lower_pattern;
  Pattern g = jacobian_pattern;
  m.makeCompressed();
  g.makeCompressed();
  const int zero_slot = n_mass_ + n_jac_;

  // --- 1. Fill-reducing order of the coordinates --------------------------------------------
  // Eliminating the coordinates first turns the constraint block into -G M^-1 G^T, whose pattern
  // is that of G M^-1 G^T; the fill among the coordinates is that of a Cholesky factor of
  // M + G^T G. So AMD runs on pattern(M + M^T + G^T G + I) (I: isolated coordinates still get a
  // place in the order). Ones as values: a sum of positive numbers cannot cancel to a zero.
  std::vector<int> var_order(static_cast<std::size_t>(n_v_));
  {
    Pattern ones_m = m;
    for (int p = 0; p < n_mass_; ++p) ones_m.valuePtr()[p] = 1.0;
    Pattern ones_g = g;
    for (int p = 0; p < n_jac_; ++p) ones_g.valuePtr()[p] = 1.0;
    Pattern eye(n_v_, n_v_);
    eye.setIdentity();
    const Pattern mt = ones_m.transpose();
    const Pattern gtg = ones_g.transpose() * ones_g;
    const Pattern a = ones_m + mt + gtg + eye;
    Eigen::AMDOrdering<int>::PermutationType perm;
    Eigen::AMDOrdering<int> amd;
    amd(a, perm);
    // AMD returns the elimination order: indices()[k] is the coordinate eliminated k-th
    for (int k = 0; k < n_v_; ++k) var_order[static_cast<std::size_t>(k)] = perm.indices()[k];
  }

  // --- 2. Constraint rows right after the last coordinate they couple -----------------------
  // Why: let V be the coordinates and C the constraints eliminated before some step. Since every
  // constraint in C touches only coordinates in V, the leading block of P K P^T is
  //     K_lead = [ M_VV  G_CV^T ]
  //              [ G_CV  0      ]
  // where G_CV (rows C of G restricted to columns V) keeps the full row rank of those rows of G.
  // With M positive definite, K_lead is nonsingular with inertia (|V| positive, |C| negative)
  // (Sylvester, via the Schur complement -G_CV M_VV^-1 G_CV^T < 0). Every leading block being
  // nonsingular is exactly the condition for L D L^T to exist without pivoting, and the inertia
  // fixes the sign of each pivot: D_k > 0 when a coordinate is added, D_k < 0 when a constraint is
  // added. factor() checks those signs, so a violation (singular M, redundant G) is reported, not
  // computed through. A constraint placed before one of its coordinates would have a structural
  // zero pivot, which is why the AMD order of the full K cannot be used as is.
  // Alternative rejected: regularizing the (2,2) block with -delta I makes K quasi-definite and
  // factorizable in any order (Vanderbei 1995) but needs iterative refinement on every solve to
  // get the 1e-12 agreement back; this order is exact and costs nothing per step.
  {
    std::vector<int> var_pos(static_cast<std::size_t>(n_v_));
    for (int k = 0; k < n_v_; ++k) var_pos[static_cast<std::size_t>(var_order[k])] = k;
    std::vector<int> last(static_cast<std::size_t>(n_lambda_), -1);
    for (int j = 0; j < n_v_; ++j) {
      for (int p = jac_outer_[j]; p < jac_outer_[j + 1]; ++p) {
        int& l = last[static_cast<std::size_t>(jac_inner_[p])];
        l = std::max(l, var_pos[static_cast<std::size_t>(j)]);
      }
    }
    // bucket b + 1 holds the constraints whose last coordinate is eliminated b-th (bucket 0:
    // constraints with an empty row, first, where their zero pivot is reported at once)
    std::vector<std::vector<int>> bucket(static_cast<std::size_t>(n_v_ + 1));
    for (int r = 0; r < n_lambda_; ++r) {
      bucket[static_cast<std::size_t>(last[static_cast<std::size_t>(r)] + 1)].push_back(n_v_ + r);
    }
    order_.reserve(static_cast<std::size_t>(n_));
    for (int r : bucket[0]) order_.push_back(r);
    for (int k = 0; k < n_v_; ++k) {
      order_.push_back(var_order[static_cast<std::size_t>(k)]);
      for (int r : bucket[static_cast<std::size_t>(k + 1)]) order_.push_back(r);
    }
    inv_.resize(static_cast<std::size_t>(n_));
    for (int k = 0; k < n_; ++k) inv_[static_cast<std::size_t>(order_[k])] = k;
  }

  // --- 3. Upper triangle of C = P K P^T by columns, each entry pointing at its value slot ------
  {
    std::vector<std::vector<std::pair<int, int>>> cols(static_cast<std::size_t>(n_));
    std::vector<char> has_diag(static_cast<std::size_t>(n_), 0);
    const auto add = [&](int ki, int kj, int slot) {
      const int a = inv_[static_cast<std::size_t>(ki)];
      const int b = inv_[static_cast<std::size_t>(kj)];
      cols[static_cast<std::size_t>(std::max(a, b))].emplace_back(std::min(a, b), slot);
      if (a == b) has_diag[static_cast<std::size_t>(a)] = 1;
    };
    for (int j = 0; j < n_v_; ++j) {
      for (int p = mass_outer_[j]; p < mass_outer_[j + 1]; ++p) add(mass_inner_[p], j, p);
      for (int p = jac_outer_[j]; p < jac_outer_[j + 1]; ++p) {
        add(n_v_ + jac_inner_[p], j, n_mass_ + p);
      }
    }
    // structural diagonal everywhere: the constraint block and any coordinate whose M(i,i) is
    // not in the pattern read the permanent zero (and then fail the pivot test, as they must)
    for (int k = 0; k < n_; ++k) {
      if (!has_diag[static_cast<std::size_t>(k)]) {
        cols[static_cast<std::size_t>(k)].emplace_back(k, zero_slot);
      }
    }
    c_ptr_.assign(static_cast<std::size_t>(n_ + 1), 0);
    for (int k = 0; k < n_; ++k) {
      auto& col = cols[static_cast<std::size_t>(k)];
      std::sort(col.begin(), col.end());
      c_ptr_[static_cast<std::size_t>(k + 1)] =
          c_ptr_[static_cast<std::size_t>(k)] + static_cast<int>(col.size());
      for (const auto& [row, slot] : col) {
        c_row_.push_back(row);
        c_src_.push_back(slot);
      }
    }
  }

  // --- 4. Elimination tree and the structure of L ----------------------------------------------
  // Row k of L has a nonzero in column i < k iff i is reachable from some row index of column k
  // of upper(C) by climbing the elimination tree without passing k (Liu 1990). Climbing from each
  // such index until a node already marked for row k gives the row pattern, and the first time a
  // node i is reached from a row k, k becomes parent(i). Cost O(nnz(L)).
  parent_.assign(static_cast<std::size_t>(n_), -1);
  std::vector<int> flag(static_cast<std::size_t>(n_), -1);
  std::vector<int> col_count(static_cast<std::size_t>(n_), 0);
  r_ptr_.assign(static_cast<std::size_t>(n_ + 1), 0);
  for (int k = 0; k < n_; ++k) {
    flag[static_cast<std::size_t>(k)] = k;
    const auto row_begin = r_col_.size();
    for (int p = c_ptr_[k]; p < c_ptr_[k + 1]; ++p) {
      for (int i = c_row_[p]; flag[static_cast<std::size_t>(i)] != k;
           i = parent_[static_cast<std::size_t>(i)]) {
        if (parent_[static_cast<std::size_t>(i)] == -1) parent_[static_cast<std::size_t>(i)] = k;
        flag[static_cast<std::size_t>(i)] = k;
        ++col_count[static_cast<std::size_t>(i)];
        r_col_.push_back(i);
      }
    }
    // ascending column order is a topological order of the tree (parent(i) > i), which is the
    // order in which the up-looking factorization must visit row k
    std::sort(r_col_.begin() + static_cast<std::ptrdiff_t>(row_begin), r_col_.end());
    r_ptr_[static_cast<std::size_t>(k + 1)] = static_cast<int>(r_col_.size());
  }
  l_ptr_.assign(static_cast<std::size_t>(n_ + 1), 0);
  for (int i = 0; i < n_; ++i) {
    l_ptr_[static_cast<std::size_t>(i + 1)] =
        l_ptr_[static_cast<std::size_t>(i)] + col_count[static_cast<std::size_t>(i)];
  }
  // rows are visited in increasing k, so each column of L is filled with ascending row indices
  l_row_.resize(r_col_.size());
  r_slot_.resize(r_col_.size());
  std::vector<int> next(l_ptr_.begin(), l_ptr_.end() - 1);
  for (int k = 0; k < n_; ++k) {
    for (int r = r_ptr_[k]; r < r_ptr_[k + 1]; ++r) {
      const int slot = next[static_cast<std::size_t>(r_col_[r])]++;
      l_row_[static_cast<std::size_t>(slot)] = k;
      r_slot_[static_cast<std::size_t>(r)] = slot;
    }
  }
  l_val_.assign(l_row_.size(), 0.0);
  inv_d_.assign(static_cast<std::size_t>(n_), 0.0);
  y_.assign(static_cast<std::size_t>(n_), 0.0);
  x_.assign(static_cast<std::size_t>(n_), 0.0);
  x2_.assign(2 * static_cast<std::size_t>(n_), 0.0);
}

bool SparseKkt::factor() noexcept {
  // Up-looking LDL^T: row k of L and D_k from the rows above. With C = L D L^T,
  //     C(0:k, k) = L(0:k,0:k) D w,  w_i = L(k,i)   (i < k)
  // so y = D w solves the unit lower triangular system L(0:k,0:k) y = C(0:k, k) (sparse: only the
  // row pattern of k is touched), then L(k,i) = y_i / D_i and
  //     D_k = C(k,k) - sum_i L(k,i) y_i.
  // y_ is a dense scratch vector that is all zero on entry and on exit.
  factored_ = false;
  // raw pointers: the stores into y and l_val then provably leave the index arrays alone
  const double* val = values_.data();
  double* y = y_.data();
  const int* l_row = l_row_.data();
  const int* l_ptr = l_ptr_.data();
  const int* c_ptr = c_ptr_.data();
  const int* c_row = c_row_.data();
  const int* c_src = c_src_.data();
  const int* r_ptr = r_ptr_.data();
  const int* r_col = r_col_.data();
  const int* r_slot = r_slot_.data();
  const int* order = order_.data();
  double* l_val = l_val_.data();
  double* inv_d = inv_d_.data();
  const int n = n_;
  const int n_v = n_v_;
  for (int k = 0; k < n; ++k) {
    // scatter column k of upper(C); its diagonal is the last entry (rows ascending, row <= k,
    // and the constructor made every diagonal structural)
    const int c_last = c_ptr[k + 1] - 1;
    for (int p = c_ptr[k]; p < c_last; ++p) y[c_row[p]] = val[c_src[p]];
    double d = val[c_src[c_last]];
    const double diag = d;
    double scale = std::abs(d);
    const int r_end = r_ptr[k + 1];
    for (int r = r_ptr[k]; r < r_end; ++r) {
      const int i = r_col[r];
      const int slot = r_slot[r];
      const double yi = y[i];
      y[i] = 0.0;
      // entries of column i above `slot` are rows < k: the triangular solve's update of y
      for (int p = l_ptr[i]; p < slot; ++p) y[l_row[p]] -= l_val[p] * yi;
      const double lki = yi * inv_d[i];  // a multiply: divisions would dominate the row
      l_val[slot] = lki;
      const double term = lki * yi;
      d -= term;
      scale += std::abs(term);
    }
    inv_d[k] = 1.0 / d;
    // Pivot test (signs from the inertia argument in the constructor). A coordinate pivot is the
    // Schur complement of M(v,v) on the constrained subspace, 0 <= D_k <= M(v,v) in exact
    // arithmetic, so it is measured against M(v,v); a constraint pivot is a cancelling sum of
    // terms and is measured against their magnitude. Written so that NaN fails. Returning early
    // leaves y_ all zero: row k's loop consumed every entry the scatter wrote.
    const bool pivot_ok =
        order[k] < n_v ? diag > 0.0 && d > kPivotTol * diag : d < -kPivotTol * scale;
    if (!pivot_ok) return false;
  }
  factored_ = true;
  return true;
}

template <int W>
void SparseKkt::solve_in_place(double* x) const noexcept {
  // W right-hand sides interleaved (row i of column w at x[W i + w]): every statement applies the
  // one-column operation to each column in turn, with the same operands in the same order, so
  // each column is rounded exactly as if it were solved alone
  const int* l_row = l_row_.data();
  const int* l_ptr = l_ptr_.data();
  const double* l_val = l_val_.data();
  const double* inv_d = inv_d_.data();
  const int n = n_;
  // L z = P b (no test for x_i == 0: it was a fifth of solve() time, mispredicted)
  for (int i = 0; i < n; ++i) {
    std::array<double, W> xi;
    for (int w = 0; w < W; ++w) xi[w] = x[W * i + w];
    const int end = l_ptr[i + 1];
    for (int p = l_ptr[i]; p < end; ++p) {
      double* xr = x + W * l_row[p];
      for (int w = 0; w < W; ++w) xr[w] -= l_val[p] * xi[w];
    }
  }
  // D w = z
  for (int k = 0; k < n; ++k) {
    for (int w = 0; w < W; ++w) x[W * k + w] *= inv_d[k];
  }
  // L^T u = w
  for (int i = n - 1; i >= 0; --i) {
    std::array<double, W> si;
    for (int w = 0; w < W; ++w) si[w] = x[W * i + w];
    const int end = l_ptr[i + 1];
    for (int p = l_ptr[i]; p < end; ++p) {
      const double* xr = x + W * l_row[p];
      for (int w = 0; w < W; ++w) si[w] -= l_val[p] * xr[w];
    }
    for (int w = 0; w < W; ++w) x[W * i + w] = si[w];
  }
}

void SparseKkt::solve(VecCRef f, VecCRef c, VecRef a_out, VecRef lambda_out) noexcept {
  if (!factored_) {
    a_out.setConstant(std::numeric_limits<double>::quiet_NaN());
    lambda_out.setConstant(std::numeric_limits<double>::quiet_NaN());
    return;
  }
  for (int k = 0; k < n_; ++k) {
    const int src = order_[static_cast<std::size_t>(k)];
    x_[static_cast<std::size_t>(k)] = src < n_v_ ? f[src] : c[src - n_v_];
  }
  solve_in_place<1>(x_.data());
  for (int k = 0; k < n_; ++k) {
    const int dst = order_[static_cast<std::size_t>(k)];
    if (dst < n_v_) {
      a_out[dst] = x_[static_cast<std::size_t>(k)];
    } else {
      lambda_out[dst - n_v_] = x_[static_cast<std::size_t>(k)];
    }
  }
}

void SparseKkt::solve_correction(VecCRef r, VecRef dx_out) noexcept {
  if (!factored_) {
    dx_out.setConstant(std::numeric_limits<double>::quiet_NaN());
    return;
  }
  for (int k = 0; k < n_; ++k) {
    const int src = order_[static_cast<std::size_t>(k)];
    x_[static_cast<std::size_t>(k)] = src < n_v_ ? 0.0 : r[src - n_v_];
  }
  solve_in_place<1>(x_.data());
  for (int k = 0; k < n_; ++k) {
    const int dst = order_[static_cast<std::size_t>(k)];
    if (dst < n_v_) dx_out[dst] = x_[static_cast<std::size_t>(k)];
  }
}

void SparseKkt::solve_correction2(VecCRef r1, VecCRef r2, VecRef dx1_out, VecRef dx2_out) noexcept {
  if (!factored_) {
    dx1_out.setConstant(std::numeric_limits<double>::quiet_NaN());
    dx2_out.setConstant(std::numeric_limits<double>::quiet_NaN());
    return;
  }
  double* x = x2_.data();
  for (int k = 0; k < n_; ++k) {
    const int src = order_[static_cast<std::size_t>(k)];
    x[2 * k] = src < n_v_ ? 0.0 : r1[src - n_v_];
    x[2 * k + 1] = src < n_v_ ? 0.0 : r2[src - n_v_];
  }
  solve_in_place<2>(x);
  for (int k = 0; k < n_; ++k) {
    const int dst = order_[static_cast<std::size_t>(k)];
    if (dst < n_v_) {
      dx1_out[dst] = x[2 * k];
      dx2_out[dst] = x[2 * k + 1];
    }
  }
}

}  // namespace rtmb
