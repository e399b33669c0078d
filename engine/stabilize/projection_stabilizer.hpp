// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include "engine/kkt/kkt_backend.hpp"
#include "engine/stabilize/stabilizer.hpp"

namespace rtmb {

/// Iterated orthogonal coordinate projection in the M metric (Chin §3.6, eq. 3.79; Hairer-Lubich-
/// Wanner's standard projection), positions first, then velocities:
///
///   positions:  q = q~ - M^-1 G(q~)^T mu  with g(q) = 0, solved by simplified Newton with
///               K(q~) = [M G^T; G 0] factored once: q <- q - top(K^-1 [0; g(q)]) until
///               ||g(q)||inf <= limits.tolerance or limits.max_iterations corrections (then the
///               kStabilizerNotConverged flag is set);
///   velocities: the constraint is linear in v, so one solve with K refactored at the projected q
///               makes G(q) v + g_t = 0 exactly.
///
/// Unlike PStab this converges to the manifold to a tolerance, at the cost of extra residual
/// evaluations and a second factorization.
class ProjectionStabilizer final : public Stabilizer {
 public:
  /// solver: the KKT solver of both factorizations (Model::solver(), dense or sparse).
  ProjectionStabilizer(const System& system,
                       NewtonLimits limits,
                       KktSolver solver = KktSolver::kDense);

  [[nodiscard]] std::string_view name() const noexcept override { return "project"; }
  void apply(double t, VecRef q, VecRef v, StepStatus& status) noexcept override;

 private:
  const System& system_;
  NewtonLimits limits_;
  KktBackend kkt_;
  Vec r_;   ///< residual, n_lambda
  Vec dq_;  ///< correction, n_v
};

}  // namespace rtmb
