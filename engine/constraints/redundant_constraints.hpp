// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Redundant constraints (issue 4). A closed loop whose joints over-determine it, e.g. a
// four-bar of four parallel revolute axes in space (3 rows too many) or a planar parallelogram
// with a third crank, has a Jacobian G of deficient row rank: the KKT matrix [M G^T; G 0] is then
// singular and the multipliers are not unique. The model loader detects this at the assembled
// pose (constraint_rank, a sparse rank-revealing QR) and either refuses the model, naming the
// joints of the dependent rows, or (`redundant_constraints: remove`) wraps the System in
// IndependentRowsSystem, which keeps only a maximal independent set of rows chosen by the pivoting.

#include <memory>
#include <string_view>
#include <vector>

#include "rtmb/system.hpp"
#include "rtmb/system_overrides.hpp"

namespace rtmb {

/// The row rank of G(0, q) and a maximal set of independent rows.
struct ConstraintRank {
  int rank = 0;
  double tolerance = 0.0;  ///< pivots (a row's part orthogonal to the kept rows) <= this are zero
  std::vector<int> independent;  ///< rows kept, ascending (size rank)
  std::vector<int> dependent;    ///< the other rows, ascending
  /// For each dependent row (same order): the independent rows it is a combination of (plus
  /// itself), ascending; the loader names the joints owning them.
  std::vector<std::vector<int>> groups;
};

/// A row of G is dependent when its part orthogonal to the rows before it is at most this times
/// sigma_max(G): the redundancy check's default and the sparse assembly's rank decision.
inline constexpr double kDependentRowTolerance = 1e-9;

/// Rank of G = dg/dq at (0, q) by a rank-revealing sparse QR of G^T (SparseRowBasis): a row is
/// dependent when its part orthogonal to the rows kept before it is <= rel_tol * sigma_max(G),
/// the threshold of the singular-value count it replaces. The rows dropped are the last pivots
/// of a dense column-pivoted Householder QR of G^T (greedy max-norm, as before issue 16) over the
/// rows that take part in a dependency only; the others are always independent. O(nnz(G)) plus
/// the dense work on the dependent rows' loops. Setup-only (allocates).
[[nodiscard]] ConstraintRank constraint_rank(const System& system,
                                             VecCRef q,
                                             double rel_tol = kDependentRowTolerance);

/// A System with the constraint rows of `full` restricted to `rows` (ascending, unique): g, G,
/// g_t, L, d(Gv)/dq and the sparse G keep only those rows; M, f, energy and the named input
/// channels are forwarded. Nonholonomic rows of `full` (its last rows, system.hpp) stay
/// nonholonomic: n_holonomic() counts the kept rows below full.n_holonomic(), so that the
/// consumers that treat those rows apart (Model's refusal of the implicit methods, PStab's
/// velocity-only pass) still see them. Evaluations write the full-size results into buffers
/// preallocated at construction and copy the kept rows, so they stay allocation-free. The buffers
/// make an instance usable by one thread at a time: a Workspace therefore never evaluates the
/// Model's instance but its own, for_simulation() (same full system and rows, scratch of its own),
/// so one Model serves simulations in several threads; the Model's instance is evaluated at setup
/// only. Setup-only construction.
class IndependentRowsSystem final : public System {
 public:
  IndependentRowsSystem(std::shared_ptr<const System> full, std::vector<int> rows);

  [[nodiscard]] const System& full() const noexcept { return *full_; }
  [[nodiscard]] const std::vector<int>& rows() const noexcept { return rows_; }

  [[nodiscard]] std::string_view name() const noexcept override { return full_->name(); }
  RTMB_SYSTEM_EVALUATION_OVERRIDES;
  void constraint_rate(double t, VecCRef q, VecRef out_gt) const noexcept override;
  RTMB_SYSTEM_ITERATION_BLOCK_OVERRIDES;
  // the fused evaluations make the full system's fused call, then select the kept entries and rows
  RTMB_SYSTEM_SPARSE_OVERRIDES;
  /// A new IndependentRowsSystem over the same full system and rows, with its own scratch.
  [[nodiscard]] std::unique_ptr<const System> for_simulation() const override;
  [[nodiscard]] int n_inputs() const noexcept override { return full_->n_inputs(); }
  [[nodiscard]] double initial_input(int i) const noexcept override {
    return full_->initial_input(i);
  }
  [[nodiscard]] bool has_energy() const noexcept override;
  [[nodiscard]] double energy(double t,
                              VecCRef q,
                              VecCRef v,
                              InputValues u) const noexcept override;

 private:
  /// The kept entries of values_full_ and rows of g_full_ (after a fused evaluation). RT-safe.
  void select(std::span<double> out_jacobian, VecRef out_rows) const noexcept;

  std::shared_ptr<const System> full_;
  std::vector<int> rows_;
  bool sparse_ = false;
  SparsePattern mass_pattern_;
  SparsePattern jacobian_pattern_;
  std::vector<int> kept_slots_;  // for each kept entry of G's pattern, its slot in the full one
  // evaluation scratch, one instance per simulation (for_simulation; see the class comment)
  mutable Vec g_full_;
  mutable Mat G_full_;
  mutable Vec lambda_full_;
  mutable std::vector<double> values_full_;
};

/// The model a System evaluates: the full system under an IndependentRowsSystem (`redundant_
/// constraints: remove`, which keeps q and v), else sys itself. Setup-only use (dynamic_cast).
[[nodiscard]] inline const System& underlying_system(const System& sys) noexcept {
  const auto* rows = dynamic_cast<const IndependentRowsSystem*>(&sys);
  return rows != nullptr ? rows->full() : sys;
}

}  // namespace rtmb
