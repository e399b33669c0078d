// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include <optional>
#include <vector>

#include "engine/kkt/block_kkt.hpp"
#include "engine/kkt/dense_kkt.hpp"
#include "engine/kkt/sparse_kkt.hpp"
#include "engine/kkt/tree_kkt.hpp"
#include "rtmb/model.hpp"
#include "rtmb/status.hpp"
#include "rtmb/system.hpp"

namespace rtmb {

/// The KKT solver of one pipeline stage, DenseKkt, BlockKkt or TreeKkt (Settings::solver,
/// resolved by Model). Why a switch and not a virtual interface: there are exactly three solvers,
/// the callers are few (Dynamics, PostStabilizer, ProjectionStabilizer), and a branch that never
/// changes is free next to a factorization; the storage of the solvers not chosen is never
/// allocated (a sparse or tree workspace holds no (n_v + n_lambda)^2 matrix).
///
/// Per evaluation: load(t, q) writes M(t,q) and G(t,q) (dense blocks, or the values of the
/// System's sparse_structure() in CSC order), factor(), then solve()/solve_correction() any
/// number of times. Everything after construction is allocation-free.
class KktBackend {
 public:
  /// solver is KktSolver::kDense, kSparse or kTree (Model resolves kAuto). Sparse needs
  /// system.sparse_structure(), tree system.mass_factor() (std::invalid_argument otherwise).
  /// Setup-only.
  KktBackend(const System& system, KktSolver solver);

  [[nodiscard]] bool is_sparse() const noexcept { return sparse_.has_value(); }

  /// Writes M(t,q) and G(t,q) into the matrix the next factor() factors. RT-safe.
  void load(double t, VecCRef q) noexcept;
  /// load(t, q) and System::curvature(t, q, v, out_L) (sparse: one fused System call). RT-safe.
  void load_with_curvature(double t, VecCRef q, VecCRef v, VecRef out_L) noexcept;
  /// load(t, q) and System::constraints(t, q, out_g) (sparse: one fused System call). RT-safe.
  void load_with_constraints(double t, VecCRef q, VecRef out_g) noexcept;
  /// Factors the loaded K; false when singular (then solve() gives NaN or garbage). RT-safe.
  [[nodiscard]] bool factor() noexcept;
  /// True when the last factorization dropped rows of G found dependent at its configuration
  /// (zero multipliers; DenseKkt / BlockKkt dropped_rows()): the caller flags kRankDeficient.
  [[nodiscard]] bool rank_deficient() const noexcept {
    if (tree_) return tree_->rank_deficient();
    return sparse_ ? sparse_->rank_deficient() : dense_->rank_deficient();
  }
  /// load(t, q), factor(), counting the factorization in status and flagging kSingularKkt
  /// (kRankDeficient when rows were dropped).
  [[nodiscard]] bool factor_at(double t, VecCRef q, StepStatus& status) noexcept;
  /// factor() then solve(a, b, ...), bit-identical to the two calls, in one sweep on the sparse
  /// path (BlockKkt::factor_solve); false when singular. RT-safe.
  [[nodiscard]] bool factor_solve(VecCRef a, VecCRef b, VecRef out_x, VecRef out_mu) noexcept;
  /// K [x; mu] = [a; b] with the last factorization. RT-safe.
  void solve(VecCRef a, VecCRef b, VecRef out_x, VecRef out_mu) noexcept;
  /// top(K^-1 [0; r]) = M^-1 G^T (G M^-1 G^T)^-1 r (Chin eq. 4.15). RT-safe.
  void solve_correction(VecCRef r, VecRef out_dx) noexcept;
  /// solve_correction() of r1 and r2 (bit-identical to two calls; one sweep on the sparse
  /// path, BlockKkt::solve_correction2). RT-safe.
  void solve_correction2(VecCRef r1, VecCRef r2, VecRef out_dx1, VecRef out_dx2) noexcept;
  /// out += G v with the G of the last load(). RT-safe.
  void add_jacobian_product(VecCRef v, VecRef out) const noexcept;
  /// The G of the last load() as a dense n_lambda x n_v block (it stays valid after factor()).
  /// Dense and tree paths only: a caller that needs G itself (the stabilized vector field) is
  /// refused the sparse path by sparse_unsupported_reason(). RT-safe.
  [[nodiscard]] MatCRef dense_jacobian() const noexcept {
    return tree_ ? tree_->jacobian() : MatCRef(dense_->jacobian());
  }

 private:
  const System& system_;
  std::optional<DenseKkt> dense_;
  std::optional<BlockKkt> sparse_;
  std::optional<TreeKkt> tree_;
  std::vector<int> g_outer_;  ///< sparse: CSC column starts of G
  std::vector<int> g_inner_;  ///< sparse: CSC row indices of G
};

/// G(t, q) v without a factorization, for the drift monitor and PStab's second pass: a dense
/// n_lambda x n_v buffer on the dense path, the CSC values of sparse_structure() on the sparse
/// path (O(nnz), no n_lambda x n_v storage). RT-safe after construction.
class JacobianProduct {
 public:
  JacobianProduct(const System& system, KktSolver solver);
  /// out += G(t, q) v. RT-safe.
  void add(double t, VecCRef q, VecCRef v, VecRef out) noexcept;
  /// add(t, q, v, out) and System::constraints(t, q, out_g) (sparse: one fused System call).
  /// RT-safe.
  void add_with_constraints(double t, VecCRef q, VecCRef v, VecRef out, VecRef out_g) noexcept;

 private:
  const System& system_;
  bool sparse_;
  Mat dense_;                   ///< dense: G, n_lambda x n_v
  std::vector<int> outer_;      ///< sparse: CSC column starts
  std::vector<int> inner_;      ///< sparse: CSC row indices
  std::vector<double> values_;  ///< sparse: values of G
};

/// The System's sparse structure as sparse-solver patterns; throws std::invalid_argument when it
/// has none. Setup-only.
void sparse_patterns(const System& system, SparsePattern& mass_lower, SparsePattern& jacobian);

/// out += G v for G given by its CSC structure and values. RT-safe.
void csc_multiply_add(const std::vector<int>& outer,
                      const std::vector<int>& inner,
                      const double* values,
                      VecCRef v,
                      VecRef out) noexcept;

}  // namespace rtmb
