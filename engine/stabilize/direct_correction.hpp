// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include "engine/kkt/dense_kkt.hpp"
#include "engine/stabilize/stabilizer.hpp"

namespace rtmb {

/// Which rows the direct correction enforces (Zhang, Rui, Zhang, Gu & Zhang 2023,
/// Mathematics 11(6):1510, scenarios (b)-(d); seed 004_24ffa321444869ee.txt).
enum class DirectCorrectionVariant {
  kSequential,          ///< (b): Newton on g(q) = 0, then one linear velocity step (eq. 3-4)
  kSimultaneous,        ///< (c): Newton on [g; G v + g_t] in x = (q, v) (eq. 18-21)
  kSimultaneousEnergy,  ///< (d): (c) plus the row E(q, v) - E0 (eq. 28-37)
};

/// Metric of the minimum-norm correction steps.
enum class CorrectionMetric {
  kEuclidean,  ///< dx = -J^T (J J^T)^-1 r, the unweighted minimum-norm step (the paper's equations)
  kMass,       ///< dx = -W^-1 J^T (J W^-1 J^T)^-1 r, W = M (positions) or diag(M, M) (states)
};

/// Direct correction of position, velocity and energy violations after each step, on any System
/// (no planar or revolute assumption: the rows and Jacobians come from the System interface).
///
///   (b) positions: q <- q - W^-1 G^T (G W^-1 G^T)^-1 g(q), full Newton (G re-evaluated), until
///       ||g||inf <= tolerance or max_iterations; then velocities once at the corrected q:
///       v <- v - W^-1 G^T (G W^-1 G^T)^-1 (G v + g_t). With the Euclidean metric this is the
///       orthogonal projection positions-then-velocities ("orthproj"), with the M metric
///       the M-orthogonal one ("orthproj-m").
///   (c) x = (q, v), r = [g; G v + g_t], J = [[G, 0], [d(G v + g_t)/dq, G]] (eq. 21), full
///       Newton x <- x - W^-1 J^T (J W^-1 J^T)^-1 r until ||r||inf <= tolerance.
///   (d) (c) with the extra row r_E = E(q, v) - E0 and J_E = [E_q, E_v] (eq. 28-37);
///       E_v = (M v)^T exactly (T = 1/2 v^T M v), E_q by central differences of System::energy
///       (any System; error ~1e-9 relative, which only slows the Newton contraction to ~1e-9 per
///       iteration). E0 is the energy of System::initial_state, taken at construction at the input
///       channel values `channels` (the simulation's, input_values(ws), which every later energy()
///       reads too) ("E0 = E(q(0), q'(0))", reference §7(d)); a system without energy() gets (c).
///
/// All solves go through DenseKkt on [W J^T; J 0], so W may be singular where it is positive
/// definite on ker J (the double pendulum's M). Rows are not rescaled (the paper does not); rad,
/// rad/s and J are mixed as in eq. 21/36 (reference §13 item 4).
///
/// Fallback (issue 6): when the stacked (c)/(d) system is numerically singular (rank loss of J
/// at change points of the linkage, reference §13 item 7) the step sets
/// StepFlag::kCorrectionSingular and applies (b) instead; if (b) is singular too, kSingularKkt is
/// set and the state is left as the integrator produced it. Iterations are bounded by
/// max_iterations; not reaching the tolerance sets kStabilizerNotConverged.
class DirectCorrection final : public Stabilizer {
 public:
  DirectCorrection(const System& system,
                   DirectCorrectionVariant variant,
                   CorrectionMetric metric,
                   double tolerance,
                   int max_iterations,
                   InputValues channels = {});

  [[nodiscard]] std::string_view name() const noexcept override;
  void apply(double t, VecRef q, VecRef v, StepStatus& status) noexcept override;

  /// The energy the (d) row holds the state to [J].
  [[nodiscard]] double energy_reference() const noexcept { return e0_; }
  void set_energy_reference(double e0) noexcept { e0_ = e0; }

 private:
  /// Writes W (M or I) and G at q into kkt_pos_ and factors it (counted; kSingularKkt on
  /// failure).
  bool factor_positions(double t, VecCRef q, StepStatus& status) noexcept;
  /// (b); returns false when a factorization failed.
  bool sequential(double t, VecRef q, VecRef v, StepStatus& status) noexcept;
  /// (c)/(d); returns false when the stacked system was singular (state untouched by that step).
  bool simultaneous(double t, VecRef q, VecRef v, bool energy, StepStatus& status) noexcept;
  void energy_gradient(double t, VecCRef q, VecCRef v) noexcept;

  const System& system_;
  DirectCorrectionVariant variant_;
  CorrectionMetric metric_;
  double tolerance_;
  int max_iterations_;
  double e0_ = 0.0;
  bool has_energy_;
  InputValues channels_;  ///< the simulation's named input values, read by System::energy
  DenseKkt kkt_pos_;      ///< [W G^T; G 0], n_v + n_lambda
  DenseKkt kkt_full_;     ///< [diag(W, W) J^T; J 0], 2 n_v + rows
  Mat m_;                 ///< M(t, q), n_v x n_v
  Vec r_pos_;             ///< n_lambda
  Vec dq_;                ///< n_v
  Vec r_full_;            ///< 2 n_lambda (+1)
  Vec dx_;                ///< 2 n_v
  Vec e_q_;               ///< n_v
  Vec e_v_;               ///< n_v
  Vec q_fd_;              ///< n_q scratch for the energy differences
  Vec gt_;                ///< n_lambda
};

}  // namespace rtmb
