// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include <Eigen/Cholesky>

#include "rtmb/model.hpp"
#include "rtmb/status.hpp"
#include "rtmb/system.hpp"

namespace rtmb {

/// Chin's stabilized underlying vector fields (reference post-stabilization-chin1995.md §1.4,
/// thesis ch. 2). The correction direction S w of the index-2 form x' = F0(x) - gamma S g
/// (eq. 2.43) for the two choices that need only G:
///   kGgtInverse: S = G^T (G G^T)^-1  (eq. 2.45, the normal to the manifold, G S = I)
///   kGt:         S = G^T             (eq. 2.50, G S = G G^T symmetric positive definite)
/// G is n_lambda x n, w has n_lambda entries, out n. Returns false, leaving out alone, when
/// G G^T is not positive definite (rank loss of G); kGt never fails. RT-safe (scratch sized
/// once for n_lambda).
struct SvfScratch {
  explicit SvfScratch(int n_lambda);
  Mat ggt;  ///< G G^T, n_lambda x n_lambda
  Eigen::LLT<Mat> llt;
  Vec y;  ///< (G G^T)^-1 w, n_lambda
};
bool svf_direction(
    SvfVariant variant, MatCRef G, VecCRef w, SvfScratch& scratch, VecRef out) noexcept;

/// The stabilization term of the index-3 form (Chin eq. 2.58) for the multibody DAE
/// q' = v, M v' = f - G^T lambda, g(t, q) = 0, added to the acceleration a(t, q, v) of the
/// index-1 KKT solve (Dynamics) after that solve, the way the Baumgarte terms enter it:
///
///     v' = a - 2 gamma G^T mu - gamma^2 G^T eta,   G v + g_t = P1 mu,   g = P2 eta   (eq. 2.58)
///
/// Because G a = -L (the plain multiplier, eq. 2.58's second row), the constraint obeys
///     g'' + 2 gamma (G G^T) P1^-1 g' + gamma^2 (G G^T) P2^-1 g = 0                   (eq. 2.59)
///   kGgtInverse: P1 = P2 = G G^T, v' = a - G^T (G G^T)^-1 (2 gamma g' + gamma^2 g), so
///                g'' + 2 gamma g' + gamma^2 g = 0 (eq. 2.60): Baumgarte's B(2 gamma, gamma^2)
///                constraint ODE, but corrected along the normal G^T (G G^T)^-1 rather than
///                along M^-1 G^T (G M^-1 G^T)^-1;
///   kGt:         P1 = I, P2^-1 = G G^T, v' = a - G^T (2 gamma g' + gamma^2 (G G^T) g), so
///                g'' + 2 gamma (G G^T) g' + gamma^2 (G G^T)^2 g = 0 (eq. 2.61; Chin warns it
///                is not always stable).
/// On the manifold (g = 0, G v + g_t = 0) the term vanishes, so every solution of the DAE is a
/// solution of the stabilized field (Prop. 2.1). Sized once for the System; RT-safe.
class StabilizedVectorField {
 public:
  StabilizedVectorField(const System& system, double gamma, SvfVariant variant);

  /// Subtracts the stabilization term at (t, q, v) from vdot (size n_v). G is G(t, q) as the KKT
  /// solve just loaded it (Dynamics passes its own, so G is evaluated once per right-hand side).
  /// Sets StepFlag::kSingularKkt and leaves vdot alone when G G^T is singular. RT-safe.
  void correct(double t, VecCRef q, VecCRef v, MatCRef G, VecRef vdot, StepStatus& status) noexcept;

  [[nodiscard]] double gamma() const noexcept { return gamma_; }
  [[nodiscard]] SvfVariant variant() const noexcept { return variant_; }

 private:
  const System& system_;
  double gamma_;
  SvfVariant variant_;
  SvfScratch scratch_;
  Vec g_;   ///< g(t, q), n_lambda
  Vec gv_;  ///< G v + g_t, n_lambda
  Vec c_;   ///< the weighted invariants c of v' -= S c, n_lambda
  Vec dv_;  ///< correction of v', n_v
};

}  // namespace rtmb
