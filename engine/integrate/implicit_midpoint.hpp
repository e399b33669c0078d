// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include "engine/implicit/dense_lu.hpp"
#include "engine/integrate/integrator.hpp"

namespace rtmb {

/// Implicit midpoint rule on Y = (q, v), Y' = F(t, Y) = (v, a(t, q, v)):
///     Y1 = Y0 + h K,   K = F(t + h/2, Y0 + h/2 K),
/// with K found by fixed-point iteration from K = F(t, Y0) until the update of h K is below
/// 1e-15 max(1, ||Y0||inf), or stops shrinking within 1e3 times that (the round-off floor), or
/// max_iterations (then StepFlag::kNotConverged). Order 2 and
/// symmetric (Phi_{-h} = Phi_h^{-1}) for any ODE, which is what the symmetric projection needs
/// around it (Hairer 2000, BIT 40:726; Hairer-Lubich-Wanner GNI §V.4.1). Fixed-point
/// iteration keeps it explicit in structure (no Jacobian, no allocation); it converges while
/// h * Lipschitz(F) < 2, i.e. for non-stiff steps.
///
/// Where it does not (near a singular position the index-1 field's Lipschitz constant grows like
/// 1/sin^2 of the angle between dependent rows, Chin 1995 §4.5), the step falls back to Newton's
/// method on the same equations, from the same start: with Kq = v0 + h/2 Kv the unknown is Kv,
///     R(Kv) = Kv - a(t + h/2, q0 + h/2 v0 + h^2/4 Kv, v0 + h/2 Kv) = 0,
/// its Jacobian I - h^2/4 da/dq - h/2 da/dv by forward differences of R (n_v evaluations), solved
/// by DenseLu, at most 20 iterations. The fallback runs only on steps the fixed-point iteration
/// could not finish, so steps it finishes are unchanged. Same tolerance; kNotConverged only when
/// both fail (then the step keeps the last fixed-point iterate, as before). Newton gives up at
/// once when the step's start is singular or not finite, and when an iterate does not shrink the
/// residual: each iteration costs n_v + 1 evaluations.
class ImplicitMidpoint final : public Integrator {
 public:
  ImplicitMidpoint(int n_q, int n_v, int max_iterations = 100);

  [[nodiscard]] std::string_view name() const noexcept override { return "midpoint"; }
  [[nodiscard]] int order() const noexcept override { return 2; }

  void advance(Dynamics& dynamics,
               const StepFrom& from,
               StepTo to,
               StepStatus& status) noexcept override;

 private:
  // Kv - a(midpoint of Kv) into out (the Newton residual); false on a non-finite evaluation
  bool residual(Dynamics& dynamics,
                const StepFrom& from,
                VecCRef kv,
                VecRef out,
                StepStatus& status) noexcept;
  // the Newton fallback (see above); leaves K in k_ and returns whether it converged
  bool newton(Dynamics& dynamics, const StepFrom& from, double tol, StepStatus& status) noexcept;

  int max_iterations_;
  StateScratch k_;    ///< stage derivative K
  StateScratch mid_;  ///< midpoint state Y0 + h/2 K
  Vec a_;             ///< acceleration at the midpoint
  // Newton fallback scratch, n_v each
  Vec kv_;
  Vec r_;
  Vec r_probe_;
  Vec kv_probe_;
  DenseLu lu_;
};

}  // namespace rtmb
