// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Rank of the constraint Jacobian and the System restricted to independent rows
// (engine/constraints/redundant_constraints.hpp). The rank comes from a rank-revealing sparse QR
// of G^T (engine/constraints/sparse_row_basis.hpp), O(nnz) for body models where the dense SVD it
// replaces was O(m n min(m, n)) (issue 16); its pivot threshold rel_tol * sigma_max is the rule of
// that singular-value count. Which rows to drop is decided as before, by the greedy max-norm
// column pivoting of a Householder QR of G^T (each pivot the row with the largest part orthogonal
// to the rows already chosen; Golub & Van Loan, Matrix Computations, §5.4.1), but only over the
// rows that take part in a dependency: the sparse QR's fill-reducing order would otherwise decide
// (on the spatial four-bar it drops the three quaternion normalization rows, whose equations the
// joint rows do not imply away from the assembled pose). A row outside every dependency (a coloop
// of the row matroid: not in the span of the others) is in every maximal independent set, so it
// is kept without being looked at; the rows inside are the union of the dependencies the sparse
// QR finds (dependent row + the kept rows it combines), which is every row in some dependency,
// and for local redundancy (a loop) a small dense problem. Removing dependent rows does not
// change the motion: on g = 0 their equations are implied by the kept ones, and G^T lambda ranges
// over the same space.
#include "engine/constraints/redundant_constraints.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "engine/constraints/sparse_row_basis.hpp"
#include "rtmb/state.hpp"

namespace rtmb {

namespace {

// A combination coefficient counts when above this, relative to the largest (at least 1).
constexpr double kCoefficientTolerance = 1e-8;

std::vector<int> significant(const Vec& c, const std::vector<int>& rows) {
  const double scale = std::max(1.0, c.size() > 0 ? c.lpNorm<Eigen::Infinity>() : 0.0);
  std::vector<int> out;
  for (Eigen::Index j = 0; j < c.size(); ++j) {
    if (std::abs(c(j)) > kCoefficientTolerance * scale) {
      out.push_back(rows[static_cast<std::size_t>(j)]);
    }
  }
  return out;
}

}  // namespace

ConstraintRank constraint_rank(const System& system, VecCRef q, double rel_tol) {
  ConstraintRank out;
  const int m = system.n_lambda();
  if (m == 0) return out;
  const SparseMat G = sparse_jacobian(system, 0.0, q);
  out.tolerance = rel_tol * largest_singular_value(G);
  const SparseRowBasis basis(G, out.tolerance);
  out.rank = basis.rank();
  if (out.rank == m) {
    for (int r = 0; r < m; ++r) out.independent.push_back(r);
    return out;
  }
  // the rows in some dependency: each dependent row with the kept rows it combines
  std::vector<bool> involved(static_cast<std::size_t>(m), false);
  for (std::size_t k = 0; k < basis.dependent_in_pivot_order().size(); ++k) {
    involved[static_cast<std::size_t>(basis.dependent_in_pivot_order()[k])] = true;
    for (const int r :
         significant(basis.combination(static_cast<int>(k)), basis.kept_in_pivot_order())) {
      involved[static_cast<std::size_t>(r)] = true;
    }
  }
  std::vector<int> rows;  // ascending
  std::vector<int> local(static_cast<std::size_t>(m), -1);
  for (int r = 0; r < m; ++r) {
    if (!involved[static_cast<std::size_t>(r)]) continue;
    local[static_cast<std::size_t>(r)] = static_cast<int>(rows.size());
    rows.push_back(r);
  }
  // those rows of G, dense, over the coordinates they touch
  std::vector<int> columns;
  std::vector<Eigen::Triplet<double, int>> entries;
  for (int c = 0; c < G.outerSize(); ++c) {
    bool touched = false;
    for (SparseMat::InnerIterator it(G, c); it; ++it) {
      const int r = local[static_cast<std::size_t>(it.row())];
      if (r < 0) continue;
      entries.emplace_back(r, static_cast<int>(columns.size()), it.value());
      touched = true;
    }
    if (touched) columns.push_back(c);
  }
  Mat Gc =
      Mat::Zero(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(columns.size()));
  for (const auto& e : entries) Gc(e.row(), e.col()) = e.value();
  // their rank: the coloops are independent of them (a coloop is in no dependency)
  const int n_dependent = m - out.rank;
  const int kept_here = static_cast<int>(rows.size()) - n_dependent;
  std::vector<bool> dropped(static_cast<std::size_t>(m), false);
  if (Gc.cols() == 0) {  // only zero rows: all dependent
    for (const int r : rows) dropped[static_cast<std::size_t>(r)] = true;
  } else {
    const Mat Gct = Gc.transpose();
    const Eigen::ColPivHouseholderQR<Mat> qr(Gct);
    const auto& perm = qr.colsPermutation().indices();
    for (Eigen::Index k = std::max(kept_here, 0); k < perm.size(); ++k) {
      dropped[static_cast<std::size_t>(rows[static_cast<std::size_t>(perm(k))])] = true;
    }
  }
  std::vector<int> kept_rows;  // the kept rows among `rows`, local indices
  for (std::size_t k = 0; k < rows.size(); ++k) {
    if (!dropped[static_cast<std::size_t>(rows[k])]) kept_rows.push_back(static_cast<int>(k));
  }
  for (int r = 0; r < m; ++r) {
    (dropped[static_cast<std::size_t>(r)] ? out.dependent : out.independent).push_back(r);
  }
  // each dependent row as a least-squares combination of the kept rows: G_r^T = G_K^T c (a
  // dependency lies among the involved rows, so the kept ones among them suffice)
  Mat GK(Gc.cols(), static_cast<Eigen::Index>(kept_rows.size()));
  std::vector<int> kept_global;
  for (std::size_t k = 0; k < kept_rows.size(); ++k) {
    GK.col(static_cast<Eigen::Index>(k)) = Gc.row(kept_rows[k]).transpose();
    kept_global.push_back(rows[static_cast<std::size_t>(kept_rows[k])]);
  }
  const bool any_kept = GK.rows() > 0 && GK.cols() > 0;
  const Eigen::CompleteOrthogonalDecomposition<Mat> cod =
      any_kept ? Eigen::CompleteOrthogonalDecomposition<Mat>(GK)
               : Eigen::CompleteOrthogonalDecomposition<Mat>();
  for (const int r : out.dependent) {
    std::vector<int> group;  // a zero row depends on nothing
    if (any_kept) {
      group = significant(cod.solve(Vec(Gc.row(local[static_cast<std::size_t>(r)]).transpose())),
                          kept_global);
    }
    group.push_back(r);
    std::sort(group.begin(), group.end());
    out.groups.push_back(std::move(group));
  }
  return out;
}

namespace {

int checked_rows(const System& full, const std::vector<int>& rows) {
  for (std::size_t k = 0; k < rows.size(); ++k) {
    if (rows[k] < 0 || rows[k] >= full.n_lambda() || (k > 0 && rows[k] <= rows[k - 1])) {
      throw std::invalid_argument(
          "IndependentRowsSystem: rows must be ascending, unique and in "
          "range");
    }
  }
  return static_cast<int>(rows.size());
}

// The kept rows that are holonomic: rows are ascending and the full system's nonholonomic rows
// are its last ones (system.hpp), so the kept holonomic rows come first and the kept nonholonomic
// rows stay last, as the System interface requires.
int kept_holonomic(const System& full, const std::vector<int>& rows) {
  return static_cast<int>(
      std::count_if(rows.begin(), rows.end(), [&](int r) { return r < full.n_holonomic(); }));
}

}  // namespace

IndependentRowsSystem::IndependentRowsSystem(std::shared_ptr<const System> full,
                                             std::vector<int> rows)
    : System(full->n_q(), full->n_v(), checked_rows(*full, rows), kept_holonomic(*full, rows)),
      full_(std::move(full)),
      rows_(std::move(rows)),
      g_full_(Vec::Zero(full_->n_lambda())),
      G_full_(Mat::Zero(full_->n_lambda(), full_->n_v())),
      lambda_full_(Vec::Zero(full_->n_lambda())) {
  SparsePattern full_jacobian;
  sparse_ = full_->sparse_structure(mass_pattern_, full_jacobian);
  if (!sparse_) return;
  // keep the entries of kept rows, renumbered; remember where each came from
  std::vector<int> new_row(static_cast<std::size_t>(full_->n_lambda()), -1);
  for (std::size_t k = 0; k < rows_.size(); ++k) {
    new_row[static_cast<std::size_t>(rows_[k])] = static_cast<int>(k);
  }
  jacobian_pattern_.rows = n_lambda();
  jacobian_pattern_.cols = full_jacobian.cols;
  jacobian_pattern_.outer.push_back(0);
  for (int c = 0; c < full_jacobian.cols; ++c) {
    for (int s = full_jacobian.outer[static_cast<std::size_t>(c)];
         s < full_jacobian.outer[static_cast<std::size_t>(c) + 1]; ++s) {
      const int r =
          new_row[static_cast<std::size_t>(full_jacobian.inner[static_cast<std::size_t>(s)])];
      if (r < 0) continue;
      jacobian_pattern_.inner.push_back(r);
      kept_slots_.push_back(s);
    }
    jacobian_pattern_.outer.push_back(jacobian_pattern_.nonzeros());
  }
  values_full_.assign(static_cast<std::size_t>(full_jacobian.nonzeros()), 0.0);
}

void IndependentRowsSystem::initial_state(State& out) const {
  full_->initial_state(out);
}

bool IndependentRowsSystem::has_energy() const noexcept {
  return full_->has_energy();
}

double IndependentRowsSystem::energy(double t, VecCRef q, VecCRef v, InputValues u) const noexcept {
  return full_->energy(t, q, v, u);
}

void IndependentRowsSystem::mass(double t, VecCRef q, MatRef out_M) const noexcept {
  full_->mass(t, q, out_M);
}

std::unique_ptr<const System> IndependentRowsSystem::for_simulation() const {
  return std::make_unique<IndependentRowsSystem>(full_, rows_);
}

void IndependentRowsSystem::forces(
    double t, VecCRef q, VecCRef v, InputValues u, VecRef out_f) const noexcept {
  full_->forces(t, q, v, u, out_f);
}

void IndependentRowsSystem::constraints(double t, VecCRef q, VecRef out_g) const noexcept {
  full_->constraints(t, q, g_full_);
  for (std::size_t k = 0; k < rows_.size(); ++k)
    out_g(static_cast<Eigen::Index>(k)) = g_full_(rows_[k]);
}

void IndependentRowsSystem::jacobian(double t, VecCRef q, MatRef out_G) const noexcept {
  full_->jacobian(t, q, G_full_);
  for (std::size_t k = 0; k < rows_.size(); ++k) {
    out_G.row(static_cast<Eigen::Index>(k)) = G_full_.row(rows_[k]);
  }
}

void IndependentRowsSystem::constraint_rate(double t, VecCRef q, VecRef out_gt) const noexcept {
  full_->constraint_rate(t, q, g_full_);
  for (std::size_t k = 0; k < rows_.size(); ++k)
    out_gt(static_cast<Eigen::Index>(k)) = g_full_(rows_[k]);
}

void IndependentRowsSystem::curvature(double t, VecCRef q, VecCRef v, VecRef out_L) const noexcept {
  full_->curvature(t, q, v, g_full_);
  for (std::size_t k = 0; k < rows_.size(); ++k)
    out_L(static_cast<Eigen::Index>(k)) = g_full_(rows_[k]);
}

void IndependentRowsSystem::velocity_constraint_jacobian(double t,
                                                         VecCRef q,
                                                         VecCRef v,
                                                         MatRef out_Gv_q) const noexcept {
  full_->velocity_constraint_jacobian(t, q, v, G_full_);
  for (std::size_t k = 0; k < rows_.size(); ++k) {
    out_Gv_q.row(static_cast<Eigen::Index>(k)) = G_full_.row(rows_[k]);
  }
}

bool IndependentRowsSystem::force_jacobians(
    double t, VecCRef q, VecCRef v, MatRef out_fq, MatRef out_fv) const noexcept {
  return full_->force_jacobians(t, q, v, out_fq, out_fv);
}

bool IndependentRowsSystem::constraint_force_jacobian(double t,
                                                      VecCRef q,
                                                      VecCRef lambda,
                                                      MatRef out_H) const noexcept {
  // G_K^T lambda_K = G^T lambda_full with zeros in the removed rows
  lambda_full_.setZero();
  for (std::size_t k = 0; k < rows_.size(); ++k)
    lambda_full_(rows_[k]) = lambda(static_cast<Eigen::Index>(k));
  return full_->constraint_force_jacobian(t, q, lambda_full_, out_H);
}

bool IndependentRowsSystem::inertia_jacobian(double t,
                                             VecCRef q,
                                             VecCRef a,
                                             MatRef out_K) const noexcept {
  return full_->inertia_jacobian(t, q, a, out_K);
}

bool IndependentRowsSystem::sparse_structure(SparsePattern& mass_lower,
                                             SparsePattern& jacobian) const {
  if (!sparse_) return false;
  mass_lower = mass_pattern_;
  jacobian = jacobian_pattern_;
  return true;
}

void IndependentRowsSystem::mass_values(double t, VecCRef q, std::span<double> out) const noexcept {
  full_->mass_values(t, q, out);
}

void IndependentRowsSystem::jacobian_values(double t,
                                            VecCRef q,
                                            std::span<double> out) const noexcept {
  full_->jacobian_values(t, q, values_full_);
  for (std::size_t k = 0; k < kept_slots_.size(); ++k) {
    out[k] = values_full_[static_cast<std::size_t>(kept_slots_[k])];
  }
}

// The full system's fused evaluations (its rotations computed once), then the same selection of
// entries and rows as jacobian_values() and curvature() / constraints(): bit-identical to those.
void IndependentRowsSystem::jacobian_values_and_curvature(
    double t, VecCRef q, VecCRef v, std::span<double> out_jacobian, VecRef out_L) const noexcept {
  full_->jacobian_values_and_curvature(t, q, v, values_full_, g_full_);
  select(out_jacobian, out_L);
}

void IndependentRowsSystem::jacobian_values_and_constraints(double t,
                                                            VecCRef q,
                                                            std::span<double> out_jacobian,
                                                            VecRef out_g) const noexcept {
  full_->jacobian_values_and_constraints(t, q, values_full_, g_full_);
  select(out_jacobian, out_g);
}

void IndependentRowsSystem::select(std::span<double> out_jacobian, VecRef out_rows) const noexcept {
  for (std::size_t k = 0; k < kept_slots_.size(); ++k) {
    out_jacobian[k] = values_full_[static_cast<std::size_t>(kept_slots_[k])];
  }
  for (std::size_t k = 0; k < rows_.size(); ++k)
    out_rows(static_cast<Eigen::Index>(k)) = g_full_(rows_[k]);
}

}  // namespace rtmb
