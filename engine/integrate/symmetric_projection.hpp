// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include <Eigen/Cholesky>
#include <memory>

#include "engine/integrate/integrator.hpp"
#include "engine/kkt/dense_kkt.hpp"

namespace rtmb {

/// Hairer's symmetric projection (Hairer 2000, BIT 40:726; Hairer-Lubich-Wanner Geometric Numerical
/// Integration §V.4.1) around a one-step base method Phi_h, on the
/// invariant manifold of y = (q, v): c(t, y) = [g(t, q); G(t, q) v + g_t] = 0, with
/// C(y) = dc/dy = [[G, 0], [d(G v + g_t)/dq, G]]:
///     y^ = y_n + C(y_n)^T mu
///     y~ = Phi_h(y^)
///     y_{n+1} = y~ + C(y_{n+1})^T mu,    c(t + h, y_{n+1}) = 0,
/// the same mu in the first and third line. Euclidean metric as written; with mass_metric the
/// directions are W(y)^-1 C(y)^T mu with W = diag(M(q), M(q)) at y_n and at y_{n+1} respectively
/// (M must then be positive definite: a singular M, e.g. the double pendulum's, sets
/// kSingularKkt and leaves the step at the last iterate). With a symmetric Phi_h the whole
/// step is symmetric, so on reversible problems the energy error stays bounded instead of
/// drifting as it does under the (non-symmetric) orthogonal projection.
///
/// (y_{n+1}, mu) is solved by simplified Newton with Phi_h' ~ I and C(y_{n+1}) ~ C(y_n) in the
/// matrix, [[I, -2 W_n^-1 C_n^T], [C_n, 0]], factored once per step as the KKT matrix
/// [W_n C_n^T; C_n 0] (DenseKkt): for residuals F1 = y - y~ - W(y)^-1 C(y)^T mu, F2 = c(y), the
/// solve K [x; z] = [W_n F1; F2] gives dy = -x, dmu = z / 2. Each iteration costs one base step.
/// The approximation Phi_h' ~ I needs h ||F'|| small: on stiff models (Andrews at its default
/// dt) the iteration does not converge (kStabilizerNotConverged) and the run can fail. Stops when
/// ||c||inf and ||dy||inf are <= tolerance, or after max_iterations (kStabilizerNotConverged).
///
/// Used as an Integrator that wraps the base: StabilizerKind::kSymProj makes step() run it in
/// place of the plain integrator, with no post-step stabilizer.
class SymmetricProjection final : public Integrator {
 public:
  SymmetricProjection(std::unique_ptr<Integrator> base,
                      const System& system,
                      double tolerance,
                      int max_iterations,
                      bool mass_metric = false);

  [[nodiscard]] std::string_view name() const noexcept override { return base_->name(); }
  [[nodiscard]] int order() const noexcept override { return base_->order(); }
  void reset() noexcept override { base_->reset(); }

  void advance(Dynamics& dynamics,
               const StepFrom& from,
               StepTo to,
               StepStatus& status) noexcept override;

 private:
  /// Writes c(t, y) into c and C(t, y) into the KKT's Jacobian block or `jac` (all but its
  /// top-right block dg/dv, which is zero from construction and never written).
  void constraint_and_jacobian(double t, VecCRef q, VecCRef v, VecRef c, MatRef jac) noexcept;

  /// W(y)^-1 C^T mu at (t, q) into out_dq, out_dv; false when M(q) is not positive definite.
  bool direction(double t, VecCRef q, MatCRef c, VecRef out_dq, VecRef out_dv) noexcept;

  std::unique_ptr<Integrator> base_;
  const System& system_;
  bool mass_metric_;
  double tolerance_;
  int max_iterations_;
  DenseKkt kkt_;        ///< [I C_n^T; C_n 0], 2 n_v + 2 n_lambda
  Mat c1_;              ///< C(y_{n+1}) of the current iterate, 2 n_lambda x 2 n_v
  Vec mu_;              ///< 2 n_lambda
  Vec dmu_;             ///< 2 n_lambda
  StateScratch hat_;    ///< y^
  StateScratch tilde_;  ///< y~
  Vec f1_;              ///< 2 n_v
  Vec f2_;              ///< 2 n_lambda
  Vec dy_;              ///< 2 n_v
  Vec gt_;              ///< n_lambda
  Vec w_;               ///< C^T mu, 2 n_v
  Vec dq_, dv_;         ///< projection direction, n_v each
  Vec rhs_;             ///< W_n F1, 2 n_v
  Mat m_;               ///< M(q), n_v x n_v
  Mat mn_;              ///< M(y_n), n_v x n_v
  Eigen::LLT<Mat> llt_;
};

}  // namespace rtmb
