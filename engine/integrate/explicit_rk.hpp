// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include <array>

#include "engine/integrate/integrator.hpp"

namespace rtmb {

/// Butcher tableau of an explicit Runge-Kutta method with at most kMaxStages stages.
struct ButcherTableau {
  static constexpr int kMaxStages = 7;
  std::string_view name;
  int order;
  int stages;
  std::array<std::array<double, kMaxStages>, kMaxStages> a;  ///< strictly lower triangular
  std::array<double, kMaxStages> b;                          ///< weights
  std::array<double, kMaxStages> c;                          ///< nodes
};

/// Forward Euler (order 1).
[[nodiscard]] const ButcherTableau& euler_tableau() noexcept;
/// Heun's method, the explicit trapezoidal rule (order 2). Chin's Table 3.1 uses it: an
/// independent re-computation matched Heun and not explicit midpoint (reference §7.2).
[[nodiscard]] const ButcherTableau& heun_tableau() noexcept;
/// Classical fourth-order Runge-Kutta.
[[nodiscard]] const ButcherTableau& rk4_tableau() noexcept;
/// Dormand-Prince 5(4), the fifth-order weights b (Chin eq. 4.9 with the standard coefficients,
/// reference §2.1; the OCR's "35 348" is 35/384). Six stages: b_7 = 0, so the FSAL stage is only
/// needed for the error estimate (engine/integrate/adaptive_dopri5.cpp).
[[nodiscard]] const ButcherTableau& dopri5_tableau() noexcept;
/// Weights b^ of the embedded fourth-order solution, including b^_7 for the FSAL stage.
[[nodiscard]] const std::array<double, ButcherTableau::kMaxStages>&
dopri5_embedded_weights() noexcept;

/// Fixed-step explicit Runge-Kutta method for the second-order system q' = v, v' = a(t,q,v).
/// Stage derivatives are stored per stage in preallocated matrices (one column per stage).
class ExplicitRk final : public Integrator {
 public:
  ExplicitRk(const ButcherTableau& tableau, int n_q, int n_v);

  [[nodiscard]] std::string_view name() const noexcept override { return tableau_.name; }
  [[nodiscard]] int order() const noexcept override { return tableau_.order; }

  void advance(Dynamics& dynamics,
               const StepFrom& from,
               StepTo to,
               StepStatus& status) noexcept override;

 private:
  const ButcherTableau& tableau_;
  Mat kq_;              ///< stage velocities q'_i, n_q x stages
  Mat kv_;              ///< stage accelerations v'_i, n_v x stages
  StateScratch stage_;  ///< stage state Y_i
  Vec a_;               ///< stage acceleration output, n_v
};

}  // namespace rtmb
