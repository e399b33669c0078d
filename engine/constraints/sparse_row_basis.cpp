// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Rank-revealing sparse QR of G^T (engine/constraints/sparse_row_basis.hpp). With G^T E = Q R and
// R = [R11 R12] (rank rows; Golub & Van Loan, Matrix Computations, §5.4.1, the rank-deficient
// least squares problem; here the column selection is SuiteSparseQR's threshold pivoting, not the
// greedy max-norm one): the kept rows satisfy G_K^T = Q1 R11 and a dependent row
// G_d^T = Q1 R12(:, k) up to a residual below the threshold, so its combination of kept rows is
// R11^-1 R12(:, k).
#include "engine/constraints/sparse_row_basis.hpp"

#include <SuiteSparseQR.hpp>
#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

namespace rtmb {

SparseMat sparse_jacobian(const System& system, double t, VecCRef q) {
  const int m = system.n_lambda();
  const int n = system.n_v();
  SparseMat G(m, n);
  SparsePattern mass_pattern;
  SparsePattern pattern;
  if (system.sparse_structure(mass_pattern, pattern)) {
    std::vector<double> values(static_cast<std::size_t>(pattern.nonzeros()));
    system.jacobian_values(t, q, values);
    std::vector<Eigen::Triplet<double, int>> entries;
    entries.reserve(values.size());
    for (int c = 0; c < pattern.cols; ++c) {
      for (int s = pattern.outer[static_cast<std::size_t>(c)];
           s < pattern.outer[static_cast<std::size_t>(c) + 1]; ++s) {
        const double v = values[static_cast<std::size_t>(s)];
        // structural entries that are zero at this q carry no information about the rank
        if (v != 0.0) entries.emplace_back(pattern.inner[static_cast<std::size_t>(s)], c, v);
      }
    }
    G.setFromTriplets(entries.begin(), entries.end());
  } else {
    Mat dense(m, n);
    system.jacobian(t, q, dense);
    G = dense.sparseView(1.0, 0.0);  // exact zeros only
  }
  G.makeCompressed();
  return G;
}

double largest_singular_value(const SparseMat& G) {
  if (G.nonZeros() == 0) return 0.0;
  // a row's norm is a lower bound (sigma_max >= |G G_r^T| / |G_r| >= |G_r|)
  Vec row_sq = Vec::Zero(G.rows());
  for (int c = 0; c < G.outerSize(); ++c) {
    for (SparseMat::InnerIterator it(G, c); it; ++it) row_sq(it.row()) += it.value() * it.value();
  }
  const double floor = std::sqrt(row_sq.maxCoeff());
  // power iteration on G^T G from a start with a component along every coordinate
  Vec x = Vec::LinSpaced(G.cols(), 1.0, 2.0);
  x.normalize();
  double sigma = 0.0;
  for (int k = 0; k < 100; ++k) {
    const Vec y = G * x;
    const double next = y.norm();  // |G x| with |x| = 1: a lower bound that grows to sigma_max
    const Vec z = G.transpose() * y;
    const double nz = z.norm();
    if (nz == 0.0) break;
    x = z / nz;
    const bool settled = std::abs(next - sigma) <= 1e-6 * next;
    sigma = next;
    if (settled) break;
  }
  return std::max(sigma, floor);
}

namespace {

using Long = SuiteSparse_long;

// cholmod's workspace, started and finished with the factorization
struct Cholmod {
  Cholmod() { cholmod_l_start(&cc); }
  ~Cholmod() { cholmod_l_finish(&cc); }
  Cholmod(const Cholmod&) = delete;
  Cholmod& operator=(const Cholmod&) = delete;
  cholmod_common cc;
};

}  // namespace

SparseRowBasis::SparseRowBasis(const SparseMat& G, double pivot_threshold)
    : n_(static_cast<int>(G.cols())) {
  const int m = static_cast<int>(G.rows());
  if (m == 0) return;
  // A = G^T (n x m), compressed column storage with cholmod's long indices
  const SparseMat Gt = G.transpose();
  std::vector<Long> p(Gt.outerIndexPtr(), Gt.outerIndexPtr() + m + 1);
  std::vector<Long> i(Gt.innerIndexPtr(), Gt.innerIndexPtr() + Gt.nonZeros());
  std::vector<double> x(Gt.valuePtr(), Gt.valuePtr() + Gt.nonZeros());
  cholmod_sparse A{};
  A.nrow = static_cast<std::size_t>(n_);
  A.ncol = static_cast<std::size_t>(m);
  A.nzmax = x.size();
  A.p = p.data();
  A.i = i.data();
  A.x = x.data();
  A.stype = 0;
  A.itype = CHOLMOD_LONG;
  A.xtype = CHOLMOD_REAL;
  A.dtype = CHOLMOD_DOUBLE;
  A.sorted = 1;
  A.packed = 1;
  Cholmod chol;
  chol.cc.SPQR_nthreads = 1;  // setup on the caller's thread only
  cholmod_sparse* R = nullptr;
  Long* E = nullptr;
  // econ = 0: R has rank rows ("squeezed": R(:, 1:rank) upper triangular, dead columns last)
  const Long rank =
      SuiteSparseQR<double>(SPQR_ORDERING_DEFAULT, pivot_threshold, 0, &A, &R, &E, &chol.cc);
  if (R == nullptr || rank < 0) {
    throw std::runtime_error("sparse QR of the constraint Jacobian failed (SuiteSparseQR status " +
                             std::to_string(chol.cc.status) + ")");
  }
  rank_ = static_cast<int>(rank);
  for (int k = 0; k < m; ++k) {
    const int row = E == nullptr ? k : static_cast<int>(E[k]);
    (k < rank_ ? kept_ : dependent_).push_back(row);
  }
  // R (rank x m, columns in the order of E) into R11 and R12, sorted
  std::vector<Eigen::Triplet<double, int>> t11;
  std::vector<Eigen::Triplet<double, int>> t12;
  const auto* rp = static_cast<const Long*>(R->p);
  const auto* ri = static_cast<const Long*>(R->i);
  const auto* rx = static_cast<const double*>(R->x);
  for (Long c = 0; c < static_cast<Long>(R->ncol); ++c) {
    for (Long s = rp[c]; s < rp[c + 1]; ++s) {
      if (ri[s] >= rank) continue;
      if (c < rank) {
        t11.emplace_back(static_cast<int>(ri[s]), static_cast<int>(c), rx[s]);
      } else {
        t12.emplace_back(static_cast<int>(ri[s]), static_cast<int>(c - rank), rx[s]);
      }
    }
  }
  cholmod_l_free_sparse(&R, &chol.cc);
  if (E != nullptr) cholmod_l_free(static_cast<std::size_t>(m), sizeof(Long), E, &chol.cc);
  r11_.resize(rank_, rank_);
  r11_.setFromTriplets(t11.begin(), t11.end());
  r12_.resize(rank_, m - rank_);
  r12_.setFromTriplets(t12.begin(), t12.end());
  // G_K^T: column j is row kept_[j] of G
  std::vector<Eigen::Triplet<double, int>> tk;
  std::vector<int> position(static_cast<std::size_t>(m), -1);
  for (int j = 0; j < rank_; ++j)
    position[static_cast<std::size_t>(kept_[static_cast<std::size_t>(j)])] = j;
  for (int c = 0; c < n_; ++c) {
    for (SparseMat::InnerIterator it(G, c); it; ++it) {
      const int j = position[static_cast<std::size_t>(it.row())];
      if (j >= 0) tk.emplace_back(c, j, it.value());
    }
  }
  gkt_.resize(n_, rank_);
  gkt_.setFromTriplets(tk.begin(), tk.end());
  if (dependent_.empty() || rank_ == 0) return;
  // C, without the round-off entries of each combination (below 1e-14 of its largest)
  std::vector<Eigen::Triplet<double, int>> tc;
  for (int k = 0; k < static_cast<int>(dependent_.size()); ++k) {
    const Vec c = combination(k);
    const double scale = std::max(1.0, c.lpNorm<Eigen::Infinity>());
    for (Eigen::Index j = 0; j < c.size(); ++j) {
      if (std::abs(c(j)) > 1e-14 * scale) tc.emplace_back(k, static_cast<int>(j), c(j));
    }
  }
  c_.resize(static_cast<Eigen::Index>(dependent_.size()), rank_);
  c_.setFromTriplets(tc.begin(), tc.end());
  SparseMat identity(rank_, rank_);
  identity.setIdentity();
  const SparseMat normal = identity + SparseMat(c_.transpose() * c_);
  normal_ = std::make_unique<Eigen::SimplicialLDLT<SparseMat>>(normal);
  if (normal_->info() != Eigen::Success) {
    throw std::runtime_error("sparse QR of the constraint Jacobian: I + C^T C not factored");
  }
}

Vec SparseRowBasis::combination(int k) const {
  Vec c = Vec(r12_.col(k));
  r11_.triangularView<Eigen::Upper>().solveInPlace(c);
  return c;
}

Vec SparseRowBasis::normal_solve(const Vec& b) const {
  Vec w = b;
  r11_.transpose().triangularView<Eigen::Lower>().solveInPlace(w);
  r11_.triangularView<Eigen::Upper>().solveInPlace(w);
  return w;
}

Vec SparseRowBasis::min_norm_solve(const Vec& b) const {
  if (rank_ == 0) return Vec::Zero(n_);
  Vec bk(rank_);
  for (int j = 0; j < rank_; ++j) bk(j) = b(kept_[static_cast<std::size_t>(j)]);
  if (normal_) {  // y = G_K x of the least-squares fit of every row
    Vec bd(static_cast<Eigen::Index>(dependent_.size()));
    for (std::size_t k = 0; k < dependent_.size(); ++k) {
      bd(static_cast<Eigen::Index>(k)) = b(dependent_[k]);
    }
    bk = normal_->solve(Vec(bk + c_.transpose() * bd));
  }
  Vec x = gkt_ * normal_solve(bk);
  // one refinement step on the residual of the kept rows
  const Vec r = bk - gkt_.transpose() * x;
  x += gkt_ * normal_solve(r);
  return x;
}

}  // namespace rtmb
