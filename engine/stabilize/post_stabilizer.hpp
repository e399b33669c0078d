// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include <optional>

#include "engine/kkt/kkt_backend.hpp"
#include "engine/stabilize/energy_stabilization.hpp"
#include "engine/stabilize/stabilizer.hpp"

namespace rtmb {

/// Post-stabilization in KKT form, Chin 1995 eq. (4.15) (seed 000_43485023299f7749.txt,
/// eqs. 3.63-3.69, Algorithm 3.3). With K = [M G^T; G 0] evaluated and factored ONCE at the
/// unstabilized point q~ and the correction c(r) = top(K^-1 [0; r]) = M^-1 G^T (G M^-1 G^T)^-1 r:
///
///     pass 1:  q^ = q~ - c(g(q~)),   v^ = v~ - c(G(q~) v~ + g_t)      (both residuals at q~, v~)
///     pass 2:  q  = q^ - c(g(q^)),   v  = v^ - c(G(q^) v^ + g_t)      (residuals at q^, v^)
///
/// Two passes ("S-both2", PStab) give (I - HF)^2 = 0 and drift O(h^(2(p+1))) (Chin Cor. 3.2);
/// one pass ("S-both") only O(h^(p+1)) at the velocity level. The matrix stays frozen at q~ in
/// pass 2 (pitfall 1: freezing it at the previous step's q_n is wrong); only the residuals are
/// re-evaluated. Four back-solves share one factorization.
///
/// datol > 0 skips the step's stabilization while max(||g||inf, ||G v + g_t||inf) <= datol
/// (Chin's DATOL, §2.3); 0 stabilizes every step.
///
/// With stabilize_energy, the energy invariant E(q, v) = E0 is post-stabilized after the passes
/// (and on a step DATOL skips): energy_stabilization.hpp.
///
/// With KktSolver::kSparse the factorization is BlockKkt's O(N) block LDL^T and G at the corrected
/// point is kept in CSC form (JacobianProduct): no n_lambda x n_v or (n_v + n_lambda)^2 storage.
class PostStabilizer final : public Stabilizer {
 public:
  PostStabilizer(const System& system,
                 int passes,
                 double datol,
                 KktSolver solver = KktSolver::kDense,
                 bool stabilize_energy = false,
                 InputValues channels = {});

  [[nodiscard]] std::string_view name() const noexcept override {
    return passes_ == 1 ? "sboth" : "pstab";
  }
  void apply(double t, VecRef q, VecRef v, StepStatus& status) noexcept override;

 private:
  const System& system_;
  int passes_;
  double datol_;
  KktBackend kkt_;
  JacobianProduct g_now_;                      ///< G at the current iterate (pass 2)
  Vec rg_;                                     ///< position residual g, n_lambda
  Vec rv_;                                     ///< velocity residual G v + g_t, n_lambda
  Vec dq_;                                     ///< position correction, n_v
  Vec dv_;                                     ///< velocity correction, n_v
  std::optional<EnergyStabilization> energy_;  ///< Settings::stabilize_energy
};

}  // namespace rtmb
