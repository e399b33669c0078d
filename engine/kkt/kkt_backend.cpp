// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#include "engine/kkt/kkt_backend.hpp"

#include <stdexcept>
#include <string>

namespace rtmb {

namespace {

// The sparse solvers read Eigen patterns: the same CSC arrays with dummy values (order preserved,
// so the solver's value slots are the System's slots)
SparseKkt::Pattern to_eigen(const SparsePattern& p) {
  const std::vector<double> ones(p.inner.size(), 1.0);
  const Eigen::Map<const SparseKkt::Pattern> map(p.rows, p.cols, p.nonzeros(), p.outer.data(),
                                                 p.inner.data(), ones.data());
  return SparseKkt::Pattern(map);
}

BlockKkt make_sparse_kkt(const SparsePattern& m, const SparsePattern& g) {
  return BlockKkt(to_eigen(m), to_eigen(g));
}

}  // namespace

void sparse_patterns(const System& system, SparsePattern& mass_lower, SparsePattern& jacobian) {
  if (!system.sparse_structure(mass_lower, jacobian)) {
    throw std::invalid_argument("system '" + std::string(system.name()) +
                                "' has no sparse structure");
  }
  const auto check = [](const SparsePattern& p, int rows, int cols, const char* what) {
    if (p.rows != rows || p.cols != cols || p.outer.size() != static_cast<std::size_t>(cols) + 1 ||
        p.outer.back() != p.nonzeros()) {
      throw std::invalid_argument(std::string("sparse_structure: malformed ") + what + " pattern");
    }
  };
  check(mass_lower, system.n_v(), system.n_v(), "mass");
  check(jacobian, system.n_lambda(), system.n_v(), "jacobian");
}

void csc_multiply_add(const std::vector<int>& outer,
                      const std::vector<int>& inner,
                      const double* values,
                      VecCRef v,
                      VecRef out) noexcept {
  const int cols = static_cast<int>(outer.size()) - 1;
  for (int c = 0; c < cols; ++c) {
    const double vc = v[c];
    for (int p = outer[static_cast<std::size_t>(c)]; p < outer[static_cast<std::size_t>(c) + 1];
         ++p) {
      out[inner[static_cast<std::size_t>(p)]] += values[p] * vc;
    }
  }
}

KktBackend::KktBackend(const System& system, KktSolver solver) : system_(system) {
  if (solver == KktSolver::kSparse) {
    SparsePattern m;
    SparsePattern g;
    sparse_patterns(system, m, g);
    sparse_.emplace(make_sparse_kkt(m, g));
    g_outer_ = std::move(g.outer);
    g_inner_ = std::move(g.inner);
  } else if (solver == KktSolver::kTree) {
    tree_.emplace(system);
  } else {
    dense_.emplace(system.n_v(), system.n_lambda());
  }
}

void KktBackend::load(double t, VecCRef q) noexcept {
  if (sparse_) {
    system_.mass_values(t, q, sparse_->mass_values());
    system_.jacobian_values(t, q, sparse_->jacobian_values());
  } else if (tree_) {
    tree_->load_mass(t, q);  // M is factored here: the articulated inertias need only q
    system_.jacobian(t, q, tree_->jacobian_block());
  } else {
    system_.mass(t, q, dense_->mass_block());
    system_.jacobian(t, q, dense_->jacobian_block());
  }
}

// The fused System evaluations (system.hpp) share each body's rotation between G and L or g;
// they are bit-identical to the separate calls, which the dense path keeps.
void KktBackend::load_with_curvature(double t, VecCRef q, VecCRef v, VecRef out_L) noexcept {
  if (sparse_) {
    system_.mass_values(t, q, sparse_->mass_values());
    system_.jacobian_values_and_curvature(t, q, v, sparse_->jacobian_values(), out_L);
  } else {
    load(t, q);
    system_.curvature(t, q, v, out_L);
  }
}

void KktBackend::load_with_constraints(double t, VecCRef q, VecRef out_g) noexcept {
  if (sparse_) {
    system_.mass_values(t, q, sparse_->mass_values());
    system_.jacobian_values_and_constraints(t, q, sparse_->jacobian_values(), out_g);
  } else {
    load(t, q);
    system_.constraints(t, q, out_g);
  }
}

bool KktBackend::factor() noexcept {
  if (tree_) return tree_->factor();
  return sparse_ ? sparse_->factor() : dense_->factor();
}

bool KktBackend::factor_at(double t, VecCRef q, StepStatus& status) noexcept {
  load(t, q);
  ++status.kkt_factorizations;
  if (factor()) {
    if (rank_deficient()) status.set(StepFlag::kRankDeficient);
    return true;
  }
  status.set(StepFlag::kSingularKkt);
  return false;
}

bool KktBackend::factor_solve(VecCRef a, VecCRef b, VecRef out_x, VecRef out_mu) noexcept {
  if (sparse_) return sparse_->factor_solve(a, b, out_x, out_mu);
  if (tree_) {
    const bool ok = tree_->factor();
    tree_->solve(a, b, out_x, out_mu);
    return ok;
  }
  const bool ok = dense_->factor();
  dense_->solve(a, b, out_x, out_mu);
  return ok;
}

void KktBackend::solve(VecCRef a, VecCRef b, VecRef out_x, VecRef out_mu) noexcept {
  if (sparse_) {
    sparse_->solve(a, b, out_x, out_mu);
  } else if (tree_) {
    tree_->solve(a, b, out_x, out_mu);
  } else {
    dense_->solve(a, b, out_x, out_mu);
  }
}

void KktBackend::solve_correction(VecCRef r, VecRef out_dx) noexcept {
  if (sparse_) {
    sparse_->solve_correction(r, out_dx);
  } else if (tree_) {
    tree_->solve_correction(r, out_dx);
  } else {
    dense_->solve_correction(r, out_dx);
  }
}

void KktBackend::solve_correction2(VecCRef r1,
                                   VecCRef r2,
                                   VecRef out_dx1,
                                   VecRef out_dx2) noexcept {
  if (sparse_) {
    sparse_->solve_correction2(r1, r2, out_dx1, out_dx2);
  } else if (tree_) {
    tree_->solve_correction(r1, out_dx1);
    tree_->solve_correction(r2, out_dx2);
  } else {
    dense_->solve_correction2(r1, r2, out_dx1, out_dx2);
  }
}

void KktBackend::add_jacobian_product(VecCRef v, VecRef out) const noexcept {
  if (sparse_) {
    csc_multiply_add(g_outer_, g_inner_, sparse_->jacobian_values().data(), v, out);
  } else if (tree_) {
    out.noalias() += tree_->jacobian() * v;
  } else {
    out.noalias() += dense_->jacobian() * v;
  }
}

JacobianProduct::JacobianProduct(const System& system, KktSolver solver)
    : system_(system), sparse_(solver == KktSolver::kSparse) {
  if (sparse_) {
    SparsePattern m;
    SparsePattern g;
    sparse_patterns(system, m, g);
    values_.assign(g.inner.size(), 0.0);
    outer_ = std::move(g.outer);
    inner_ = std::move(g.inner);
  } else {
    dense_ = Mat::Zero(system.n_lambda(), system.n_v());
  }
}

void JacobianProduct::add(double t, VecCRef q, VecCRef v, VecRef out) noexcept {
  if (sparse_) {
    system_.jacobian_values(t, q, values_);
    csc_multiply_add(outer_, inner_, values_.data(), v, out);
  } else {
    system_.jacobian(t, q, dense_);
    out.noalias() += dense_ * v;
  }
}

void JacobianProduct::add_with_constraints(
    double t, VecCRef q, VecCRef v, VecRef out, VecRef out_g) noexcept {
  if (sparse_) {
    system_.jacobian_values_and_constraints(t, q, values_, out_g);
    csc_multiply_add(outer_, inner_, values_.data(), v, out);
  } else {
    add(t, q, v, out);
    system_.constraints(t, q, out_g);
  }
}

}  // namespace rtmb
