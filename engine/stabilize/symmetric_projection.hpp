// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include <memory>

#include "engine/integrate/integrator.hpp"
#include "engine/kkt/dense_kkt.hpp"

namespace rtmb {

/// Hairer's symmetric projection (Hairer 2000, BIT 40:726; Hairer-Lubich-Wanner GNI §V.4.1;
/// reference/index-reduction-poell2015.md §5 item 5) around a one-step base method Phi_h, on the
/// invariant manifold of y = (q, v): c(t, y) = [g(t, q); G(t, q) v + g_t] = 0, with
/// C(y) = dc/dy = [[G, 0], [d(G v + g_t)/dq, G]]:
///     y^ = y_n + C(y_n)^T mu
///     y~ = Phi_h(y^)
///     y_{n+1} = y~ + C(y_{n+1})^T mu,    c(t + h, y_{n+1}) = 0,
/// the same mu in the first and third line (Euclidean metric). With a symmetric Phi_h the whole
/// step is symmetric, so on reversible problems the energy error stays bounded instead of
/// drifting as it does under the (non-symmetric) orthogonal projection.
///
/// (y_{n+1}, mu) is solved by simplified Newton with Phi_h' ~ I and C(y_{n+1}) ~ C(y_n) in the
/// matrix, [[I, -2 C_n^T], [C_n, 0]], factored once per step as the KKT matrix
/// [I C_n^T; C_n 0] (DenseKkt): for residuals F1 = y - y~ - C(y)^T mu, F2 = c(y), the solve
/// K [x; z] = [F1; F2] gives dy = -x, dmu = z / 2. Each iteration costs one base step. Stops when
/// ||c||inf and ||dy||inf are <= tolerance, or after max_iterations (kStabilizerNotConverged).
///
/// Used as an Integrator that wraps the base: StabilizerKind::kSymProj makes step() run it in
/// place of the plain integrator, with no post-step stabilizer.
class SymmetricProjection final : public Integrator {
 public:
  SymmetricProjection(std::unique_ptr<Integrator> base,
                      const System& system,
                      double tolerance,
                      int max_iterations);

  [[nodiscard]] std::string_view name() const noexcept override { return base_->name(); }
  [[nodiscard]] int order() const noexcept override { return base_->order(); }
  void reset() noexcept override { base_->reset(); }

  void advance(Dynamics& dynamics,
               double t,
               VecCRef q,
               VecCRef v,
               double h,
               VecRef out_q,
               VecRef out_v,
               StepStatus& status) noexcept override;

 private:
  /// Writes c(t, y) into c and C(t, y) into the KKT's Jacobian block or `jac`.
  void constraint_and_jacobian(double t, VecCRef q, VecCRef v, VecRef c, MatRef jac) noexcept;

  std::unique_ptr<Integrator> base_;
  const System& system_;
  double tolerance_;
  int max_iterations_;
  DenseKkt kkt_;  ///< [I C_n^T; C_n 0], 2 n_v + 2 n_lambda
  Mat c1_;        ///< C(y_{n+1}) of the current iterate, 2 n_lambda x 2 n_v
  Vec mu_;        ///< 2 n_lambda
  Vec dmu_;       ///< 2 n_lambda
  Vec qh_, vh_;   ///< y^
  Vec qt_, vt_;   ///< y~
  Vec f1_;        ///< 2 n_v
  Vec f2_;        ///< 2 n_lambda
  Vec dy_;        ///< 2 n_v
  Vec gt_;        ///< n_lambda
};

}  // namespace rtmb
