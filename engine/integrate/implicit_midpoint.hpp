// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

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
  int max_iterations_;
  StateScratch k_;    ///< stage derivative K
  StateScratch mid_;  ///< midpoint state Y0 + h/2 K
  Vec a_;             ///< acceleration at the midpoint
};

}  // namespace rtmb
