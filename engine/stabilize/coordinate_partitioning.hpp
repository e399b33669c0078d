// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include <Eigen/LU>

#include "engine/stabilize/stabilizer.hpp"

namespace rtmb {

/// Generalized coordinate partitioning (Wehage & Haug 1982) as a post-step correction: the
/// local state-space (coordinate) method of Pöll & Hafner 2015's class (vi)
/// (Hairer & Wanner, Solving ODEs II §VII.2, standard form, not extracted from the paper,
/// whose seed text stops before its methods). q is split into n - m independent coordinates z, kept
/// as the integrator produced them, and m dependent coordinates u, recovered from the constraints:
///     positions:  g(t, z, u) = 0 for u by Newton with G_u = dg/du (z fixed);
///     velocities: G_u v_u = -(G_z v_z + g_t) (v_z fixed), one linear solve.
/// So the independent coordinates follow the integrated ODE and the state is on the manifold to
/// `limits.tolerance` (kStabilizerNotConverged after limits.max_iterations Newton steps).
///
/// The partition comes from Gaussian elimination with complete pivoting on G: the pivot columns
/// are the dependent coordinates. It is re-chosen when it degrades: every step the smallest LU
/// pivot of the current G_u is compared with that of the best partition at this q, and the
/// partition switches when it is below `repartition_ratio` (0.1) times the best (the hysteresis
/// keeps it from chattering between two near-equal choices). The number of switches is counted.
class CoordinatePartitioning final : public Stabilizer {
 public:
  CoordinatePartitioning(const System& system, NewtonLimits limits, double repartition_ratio = 0.1);

  [[nodiscard]] std::string_view name() const noexcept override { return "partition"; }
  void apply(double t, VecRef q, VecRef v, StepStatus& status) noexcept override;

  /// True for the dependent coordinates of the current partition.
  [[nodiscard]] bool dependent(int i) const noexcept { return is_dependent_(i) != 0; }
  /// Partition changes since construction (the first choice not counted).
  [[nodiscard]] long repartitions() const noexcept { return repartitions_; }

 private:
  /// Complete-pivoting elimination on G_ (copied into work_): pivot columns into best_, returns
  /// the smallest |pivot|.
  double best_partition() noexcept;
  /// Copies the dependent columns of G_ into gu_ and factors it; returns the smallest |U_ii|.
  double factor_dependent() noexcept;

  const System& system_;
  NewtonLimits limits_;
  double repartition_ratio_;
  bool have_partition_ = false;
  long repartitions_ = 0;
  Mat g_jac_;                     ///< G, m x n
  Mat work_;                      ///< elimination scratch, m x n
  Mat gu_;                        ///< G_u, m x m
  Eigen::PartialPivLU<Mat> lu_;   ///< of G_u
  Eigen::VectorXi dep_;           ///< dependent coordinate indices, m
  Eigen::VectorXi best_;          ///< best dependent set at this q, m
  Eigen::VectorXi is_dependent_;  ///< n, 0/1
  Eigen::VectorXi row_used_;      ///< m, elimination scratch
  Eigen::VectorXi col_used_;      ///< n, elimination scratch
  Vec r_;                         ///< residual, m
  Vec du_;                        ///< correction, m
};

}  // namespace rtmb
