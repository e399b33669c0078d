// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include "engine/implicit/dense_lu.hpp"
#include "engine/implicit/implicit_integrator.hpp"
#include "engine/implicit/iteration_blocks.hpp"
#include "rtmb/model.hpp"
#include "rtmb/system.hpp"

namespace rtmb {

/// Gear-Gupta-Leimkuhler stabilized index-2 formulation (GGL 1985; reference
/// index-reduction-poell2015.md §5 item 7, a standard form, not extracted from the seed)
///     q' = v - G(q)^T mu,   M v' = f - G(q)^T lambda,   0 = g(t,q),   0 = G(q) v + g_t
/// integrated with the implicit midpoint rule (the choice of this engine, documented in
/// docs/architecture.md): with q~ = (q_n + q_{n+1})/2, v~ = (v_n + v_{n+1})/2, t~ = t_n + h/2,
///     r1 = q_{n+1} - q_n - h v~ + G(t~,q~)^T X                       = 0
///     r2 = M(t~,q~) (v_{n+1} - v_n) - h f(t~,q~,v~) + G(t~,q~)^T L    = 0
///     r3 = g(t_{n+1}, q_{n+1})                                         = 0
///     r4 = G(t_{n+1}, q_{n+1}) v_{n+1} + g_t(t_{n+1}, q_{n+1})         = 0
/// with the impulses L = h lambda, X = h mu. Both constraint levels hold at the step end to the
/// Newton tolerance (no drift in g or G v), the midpoint rule keeps it second order, and the
/// midpoint evaluation of M, f and G mirrors Hoitink's option 2 (parameters inside). The Newton
/// matrix in the unknowns (q_{n+1}, v_{n+1}, L, X) is
///     [ I + H(q~,X)/2                      -h/2 I          0     G~^T ]
///     [ (dMa/dq - h df/dq + H(q~,L))/2      M~ - h/2 df/dv  G~^T  0    ]
///     [ G_{n+1}                            0               0     0    ]
///     [ d(Gv)/dq_{n+1}                     G_{n+1}         0     0    ]
/// (dMa/dq at a = v_{n+1} - v_n). Stop when ||increment||inf < newton_tolerance, or
/// (newton_round_off_floor) when the increments have stopped contracting and every residual block
/// is at round-off (a nearly singular Newton matrix near a singular position amplifies the
/// residual's round-off into increments above the tolerance).
class GglIntegrator final : public ImplicitIntegrator {
 public:
  GglIntegrator(const System& system, const ImplicitSettings& settings);

  [[nodiscard]] bool step(const StepFrom& from, StepTo to, StepStatus& status) noexcept override;

  /// Multiplier lambda = L/h of the last step (at t_{n+1/2}), size n_lambda.
  [[nodiscard]] const Vec& lambda() const noexcept { return lambda_; }
  /// The GGL multiplier mu = X/h of the last step; zero for the exact solution, O(h^2) here.
  [[nodiscard]] const Vec& mu() const noexcept { return mu_; }

 private:
  /// True when -r (rhs_, before the solve) is at the round-off level of its terms in every block
  /// r1..r4 at the iterate (q1, v1, L, X) of the step from qn with h. RT-safe.
  [[nodiscard]] bool residual_at_round_off(
      VecCRef qn, double h, VecCRef q1, VecCRef v1, VecCRef L, VecCRef X) const noexcept;

  const System& sys_;
  ImplicitSettings settings_;
  int n_;
  int m_;
  DenseLu lu_;  ///< (2 n + 2 m)^2
  BlockScratch scratch_;
  Vec x_;    ///< unknowns [q_{n+1}; v_{n+1}; L; X]
  Vec rhs_;  ///< -residual, then the increment
  Vec qm_, vm_, dv_, f_, g_;
  Mat M_, fq_, fv_, Kin_, H_, Gm_, G1_, Gvq_;
  Vec lambda_, mu_;
  Vec dv_last_;  ///< v_{n+1} - v_n of the last step: predictor of the next one
  Vec q_last_, v_last_;
  double t_last_ = 0.0;
  bool has_history_ = false;
};

}  // namespace rtmb
