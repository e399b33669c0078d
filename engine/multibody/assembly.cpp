// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Assembly of initial conditions (engine/multibody/assembly.hpp). The Newton and velocity steps
// are G^+ b, the minimum-norm least-squares solution: redundant joints do not break it, and
// joints that cannot all hold share the residual, so the failure names each of them. Small
// models (G up to kDenseEntries entries) take it from a dense complete orthogonal decomposition,
// as before issue 16: bit for bit the same initial states, which every trajectory of configs/
// starts from (tests/scenarios/behaviour_hashes_test.cpp locks them). Larger ones keep G sparse
// (the dense m x n G of a 1000-body spatial chain was 224 MB) and solve through the rank-revealing
// sparse QR of G^T (engine/constraints/sparse_row_basis.hpp), O(nnz) work and memory.
#include "engine/multibody/assembly.hpp"

#include <Eigen/Dense>
#include <utility>

#include "engine/constraints/redundant_constraints.hpp"
#include "engine/constraints/sparse_row_basis.hpp"
#include "rtmb/models/planar_multibody.hpp"

namespace rtmb::detail {

namespace {

// 2^18 entries (2 MB): every model of configs/ is far below, a 100-body spatial chain above
constexpr double kDenseEntries = 262144.0;

// G at (0, q), dense for small models and sparse for large ones, and what assembly asks of it.
class Linearization {
 public:
  Linearization(const System& sys, const Vec& q)
      : dense_(static_cast<double>(sys.n_lambda()) * sys.n_v() <= kDenseEntries) {
    if (dense_) {
      dense_G_.resize(sys.n_lambda(), sys.n_v());
      sys.jacobian(0.0, q, dense_G_);
    } else {
      sparse_G_ = sparse_jacobian(sys, 0.0, q);
    }
  }

  // G v + w, in the dense path the very expression of before (Eigen adds the product into w)
  [[nodiscard]] Vec times_plus(const Vec& v, const Vec& w) const {
    return dense_ ? Vec(dense_G_ * v + w) : Vec(sparse_G_ * v + w);
  }

  // G^+ b; in the sparse path a row whose part orthogonal to the rows kept before it is below
  // kDependentRowTolerance sigma_max counts as dependent, as in the redundancy check
  [[nodiscard]] Vec pseudo_inverse_times(const Vec& b) const {
    if (dense_) return dense_G_.completeOrthogonalDecomposition().solve(b);
    const SparseRowBasis basis(sparse_G_,
                               kDependentRowTolerance * largest_singular_value(sparse_G_));
    return basis.min_norm_solve(b);
  }

 private:
  bool dense_;
  Mat dense_G_;
  SparseMat sparse_G_;
};

}  // namespace

std::vector<std::string> assemble_state(const System& sys,
                                        const std::vector<JointRows>& joints,
                                        State& s,
                                        double tolerance,
                                        int max_iterations) {
  std::vector<std::string> notes;
  if (sys.n_lambda() == 0) return notes;
  Vec g(sys.n_lambda());
  sys.constraints(0.0, s.q, g);
  const double g0 = g.lpNorm<Eigen::Infinity>();
  int iterations = 0;
  while (g.lpNorm<Eigen::Infinity>() > tolerance && iterations < max_iterations) {
    s.q -= Linearization(sys, s.q).pseudo_inverse_times(g);
    sys.constraints(0.0, s.q, g);
    ++iterations;
  }
  if (!(g.lpNorm<Eigen::Infinity>() <= tolerance)) {
    std::vector<std::string> bad;
    std::string list;
    for (const JointRows& j : joints) {
      if (!(g.segment(j.row, j.rows).lpNorm<Eigen::Infinity>() <= tolerance)) {
        bad.push_back(j.name);
        list += (list.empty() ? "" : ", ") + j.name;
      }
    }
    throw AssemblyError(
        "assembly failed: after " + std::to_string(iterations) +
            " Newton iterations the constraints of joint(s) " + list +
            " remain violated (|g|_inf = " + std::to_string(g.lpNorm<Eigen::Infinity>()) + ")",
        std::move(bad));
  }
  if (iterations > 0) {
    notes.push_back("initial pose assembled: |g|_inf " + std::to_string(g0) + " -> " +
                    std::to_string(g.lpNorm<Eigen::Infinity>()) + " in " +
                    std::to_string(iterations) + " Newton iteration(s)");
  }
  // velocities: the minimum-norm change that satisfies G v + g_t = 0 (g_t = -f'(0) of drivers)
  const Linearization G(sys, s.q);
  Vec gt(sys.n_lambda());
  sys.constraint_rate(0.0, s.q, gt);
  const Vec gv = G.times_plus(s.v, gt);
  if (gv.lpNorm<Eigen::Infinity>() > tolerance) {
    s.v -= G.pseudo_inverse_times(gv);
    notes.push_back("initial velocity projected onto G v + g_t = 0: |G v + g_t|_inf " +
                    std::to_string(gv.lpNorm<Eigen::Infinity>()) + " -> " +
                    std::to_string(G.times_plus(s.v, gt).lpNorm<Eigen::Infinity>()));
  }
  return notes;
}

}  // namespace rtmb::detail
