// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include <limits>

#include "rtmb/status.hpp"
#include "rtmb/system.hpp"
#include "rtmb/types.hpp"

namespace rtmb {

/// Post-stabilization of the energy invariant h(q, v) = E(q, v) - E0 (Settings::stabilize_energy,
/// issue 16), applied after PStab's constraint passes (post_stabilizer.hpp).
///
/// Chin 1995 §1.4/§1.5 (reference post-stabilization-chin1995.md eq. 2.30 and the scheme 3.45):
/// an invariant h of the ODE is post-stabilized by z <- z - F h(z) with F = D (H D)^-1, H = h_z,
/// for any D with H D nonsingular. Here H = [E_q, E_v] and we take D = (0, M^-1 E_v^T): the
/// velocity part of the invariant's gradient in the mass metric. For a mechanical energy
/// E = T + V(q), T = v^T M v / 2, that is E_v = (M v)^T and D = (0, v), H D = 2 T. So the
/// correction only rescales the velocity, v <- s v, and along that direction the invariant is
/// solved exactly instead of by one Newton step: E(q, s v) = s^2 T + V = E0 gives
///     s = sqrt((E0 - V) / T),   V = E(q, 0),   T = E(q, v) - V.
/// Why this direction: it leaves q alone (PStab's position pass stays as it was) and, for
/// scleronomic rows (g_t = 0, a = 0), keeps G v + g_t = s G v = 0 exactly, so the constraint
/// invariants PStab just restored are not disturbed; the correction is as small as the energy
/// error, O(h^(p+1)) per step, so the method's order is kept (Chin Thm 3.2).
///
/// Only for conservative, scleronomic systems whose energy() is quadratic in v (Model refuses it
/// for a system without energy() or with g_t != 0 at the initial state). Where the equation has
/// no root (the invariant's gradient in this direction, H D = 2 T, is zero: at rest; or V > E0;
/// or an energy is not finite) v is left unchanged and, unless E = E0 already holds to round-off
/// (at rest at the reference energy), the step's status gets StepFlag::kStabilizerNotConverged:
/// the stabilizer did not reach its invariant. RT-safe after construction.
class EnergyStabilization {
 public:
  /// E0 = E(initial_state) at the channel values `channels` (the Workspace's inputs, which the
  /// later evaluations read too). Setup-only (allocates).
  EnergyStabilization(const System& system, InputValues channels);

  /// v <- s v with E(q, s v) = E0. Where there is no root: v unchanged, returns false and sets
  /// kStabilizerNotConverged in `status` (true, no flag, when E = E0 to round-off). RT-safe.
  bool apply(double t, VecCRef q, VecRef v, StepStatus& status) noexcept;

  [[nodiscard]] double reference() const noexcept { return e0_; }

 private:
  const System& system_;
  InputValues channels_;
  double e0_ = 0.0;
  Vec zero_;  ///< v = 0, for V = E(q, 0)
  /// |E - E0| <= kRoundOff (|E0| + |V| + |T|): the invariant holds, nothing to correct
  static constexpr double kRoundOff = 64.0 * std::numeric_limits<double>::epsilon();
};

}  // namespace rtmb
