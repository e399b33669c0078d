// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include <string_view>

#include "rtmb/status.hpp"
#include "rtmb/system.hpp"

namespace rtmb {

/// When a stabilizer's Newton iteration on the position constraints g(t, q) = 0 stops: at
/// ||g||inf <= tolerance, or after max_iterations corrections (then kStabilizerNotConverged).
struct NewtonLimits {
  double tolerance;
  int max_iterations;
};

/// The position loop of the projecting stabilizers (ProjectionStabilizer, CoordinatePartitioning):
/// r = g(t, q); stop as NewtonLimits says; else correct(it) moves q (Newton step it, 0-based)
/// and counts one stabilizer iteration in status. r must hold n_lambda entries. RT-safe when
/// correct is.
template <class Correct>
void newton_on_positions(const System& system,
                         double t,
                         VecCRef q,
                         VecRef r,
                         NewtonLimits limits,
                         StepStatus& status,
                         Correct&& correct) noexcept {
  for (int it = 0;; ++it) {
    system.constraints(t, q, r);
    if (r.lpNorm<Eigen::Infinity>() <= limits.tolerance) break;
    if (it == limits.max_iterations) {
      status.set(StepFlag::kStabilizerNotConverged);
      break;
    }
    correct(it);
    ++status.stabilizer_iterations;
  }
}

/// Pipeline stage 3: post-stabilization. Moves the unstabilized step result (q~, v~) at time t
/// back towards the invariant manifold {g(t,q) = 0, G(t,q) v + g_t = 0} (Chin 1995 eq. 3.22/3.45:
/// z_{k+1} = z~_{k+1} - F(z~) h(z~)). Works in place. RT-safe: no allocation.
class Stabilizer {
 public:
  virtual ~Stabilizer() = default;
  [[nodiscard]] virtual std::string_view name() const noexcept = 0;
  virtual void apply(double t, VecRef q, VecRef v, StepStatus& status) noexcept = 0;
};

/// Leaves the state alone (used for no stabilization and for Baumgarte, which acts inside the
/// right-hand side instead).
class NoStabilizer final : public Stabilizer {
 public:
  [[nodiscard]] std::string_view name() const noexcept override { return "none"; }
  void apply(double, VecRef, VecRef, StepStatus&) noexcept override {}
};

}  // namespace rtmb
