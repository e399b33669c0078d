// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include <array>
#include <string_view>

#include "engine/integrate/explicit_rk.hpp"
#include "engine/integrate/integrator.hpp"

namespace rtmb {

/// Which corrector output an Adams predictor-corrector step keeps (Wu, Chiou & Lin 2000,
/// Mech. Struct. & Mach. 28:201-218, eq. 27a-c; seed 002_b80ca893801d8a0f.txt).
enum class AdamsVariant {
  kAmpc,   ///< Y = Y^C: PECE(AB m-step, AM (m-1)-step), order m (the paper's "AMPC_m"/"ABMPC_m")
  kMampc,  ///< Y = w_AB Y^P + w_AM Y^C (eq. 27c, Theorem 1), order m + 1
};

/// Ordinate-form coefficients of one AMPC_m / MAMPC_m method, m = 3, 4, 5.
struct AdamsCoefficients {
  static constexpr int kMaxSteps = 5;
  int steps;                                ///< m: derivative values the predictor uses
  std::array<double, kMaxSteps> predictor;  ///< AB m-step b_j on F_{i-j} (appendix A2-A4)
  std::array<double, kMaxSteps> corrector;  ///< AM (m-1)-step: c_0 on F^P, c_j on F_{i+1-j}
  double w_ab;                              ///< W1 / (W1 + W2) = -gamma*_m / gamma_{m-1}
  double w_am;                              ///< W2 / (W1 + W2) = gamma_m / gamma_{m-1}
};

/// Coefficients for m = 3, 4, 5 (Wu eq. A2-A7 and §4 weights). Throws std::invalid_argument for
/// another m. Setup-only.
[[nodiscard]] const AdamsCoefficients& adams_coefficients(int steps);

/// Fixed-step Adams-Bashforth-Moulton predictor-corrector in PECE form (Wu eq. 27a-c) on
/// Y = (q, v), Y' = (v, a(t, q, v)):
///   E  F_i = f(t_i, Y_i)                       at the accepted, possibly stabilized state
///   P  Y^P = Y_i + h sum_j b_j F_{i-j}          (27a)
///   E  F^P = f(t_{i+1}, Y^P)
///   C  Y^C = Y_i + h (c_0 F^P + sum_j c_j F_{i+1-j})   (27b)
///   L  Y_{i+1} = Y^C (AMPC) or w_AB Y^P + w_AM Y^C (MAMPC, 27c)
/// The final E of the paper's PECE is done at the start of the next step, at the state the
/// caller hands back. Without a stabilizer this is the same evaluation; with one (PStab,
/// projection) the history holds f at the corrected state, so the history is never
/// inconsistent with the trajectory (reference §5 step 5; Pöll §5 item 4 "cons"). Two
/// evaluations per step.
///
/// Start-up and restart: the derivative history lives in fixed ring buffers (m columns). While it
/// holds fewer than m values, a step is classical RK4 over `starter_substeps` substeps (the paper
/// uses RKF45 at 1e-15; RK4 with substeps accurate to ~1e-13 reproduces its tables, reference
/// §5). The history restarts by itself when a step does not continue the previous one: t differs
/// from the previous t + h, or h changed (a state set from outside with a new t, a time reset).
/// reset() restarts it explicitly, e.g. after changing q or v at the same t. A call with the same
/// t and h as the previous call retakes that step from the new (q, v): F_i is replaced, the older
/// history kept (the symmetric projection iterates the base step this way).
class AdamsPece final : public Integrator {
 public:
  AdamsPece(int steps, AdamsVariant variant, int starter_substeps, int n_q, int n_v);

  [[nodiscard]] std::string_view name() const noexcept override { return name_; }
  /// m for AMPC_m, m + 1 for MAMPC_m (reference §6).
  [[nodiscard]] int order() const noexcept override;

  void advance(Dynamics& dynamics,
               const StepFrom& from,
               StepTo to,
               StepStatus& status) noexcept override;

  /// Forgets the derivative history; the next steps use the RK4 starter. RT-safe.
  void reset() noexcept override { count_ = 0; }

  /// Derivative values currently held (0..m).
  [[nodiscard]] int history_size() const noexcept { return count_; }

 private:
  /// Column of the ring holding F_{i-j} (j = 0: newest).
  [[nodiscard]] int slot(int j) const noexcept;

  const AdamsCoefficients& coeffs_;
  AdamsVariant variant_;
  int starter_substeps_;
  std::string_view name_;
  ExplicitRk starter_;
  Mat fq_;                ///< ring of q' = v history, n_q x m
  Mat fv_;                ///< ring of v' = a history, n_v x m
  int head_ = 0;          ///< column of the newest value
  int count_ = 0;         ///< values held
  double t_start_ = 0.0;  ///< t of the previous call: a call from it again is a retake
  double t_next_ = 0.0;   ///< t + h of the previous step: the t a continuing step starts at
  double h_prev_ = 0.0;
  Vec a_;                   ///< acceleration scratch, n_v
  StateScratch predictor_;  ///< Y^P
  StateScratch substep_;    ///< start of the starter's current substep
};

}  // namespace rtmb
