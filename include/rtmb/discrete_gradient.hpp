// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Energy-consistent forces of the implicit midpoint family (issue 17).
//
// The GSSSS members with W1 = 1/2 (V0(1,1,0) = `midpoint`, U0/V0(1,1,1)) evaluate f at the
// midpoint u~ = (q_n + q_{n+1})/2. For a potential V at most quadratic in q that force does the
// work -f . (q_{n+1} - q_n) = V(q_{n+1}) - V(q_n), so the step conserves energy; for a nonlinear
// internal force (Green-strain trusses, bending elements) it does not. A discrete gradient
// (LaBudde-Greenspan; Hoitink 2011 eq. 4.44-4.45, reference gsssss-hoitink2011.md §3, §4.3)
// restores it: a force built from both end points with P . (q_{n+1} - q_n) = V(q_{n+1}) - V(q_n)
// exactly, which tends to the midpoint gradient as q_{n+1} -> q_n.
//
// A System that has such forces also derives from DiscreteGradientForces, side by side (as the
// built-in mechanisms derive from JointPoints); the integrator finds it once at setup with
// discrete_gradient_of(). A System without it (every other one) keeps the midpoint forces.

#include "rtmb/system.hpp"
#include "rtmb/types.hpp"

namespace rtmb {

class DiscreteGradientForces {
 public:
  virtual ~DiscreteGradientForces() = default;
  DiscreteGradientForces(const DiscreteGradientForces&) = delete;
  DiscreteGradientForces& operator=(const DiscreteGradientForces&) = delete;

  /// The generalized force of one midpoint-family step from q0 = q_n to q1 = q_{n+1}: the
  /// conservative internal forces as discrete gradients between q0 and q1, everything else as
  /// System::forces would give it at (t, (q0 + q1)/2, v, u); out_f.size() == n_v. The Newton
  /// matrix keeps System::force_jacobians at the midpoint, an approximation of this force's
  /// derivative that changes the iteration count only. RT-safe.
  virtual void discrete_gradient_forces(
      double t, VecCRef q0, VecCRef q1, VecCRef v, InputValues u, VecRef out_f) const noexcept = 0;

 protected:
  DiscreteGradientForces() = default;
};

/// The discrete-gradient forces of `system` when it has them, else nullptr. Setup-only.
[[nodiscard]] inline const DiscreteGradientForces* discrete_gradient_of(
    const System& system) noexcept {
  // a cross cast: such a System derives from System and DiscreteGradientForces side by side
  return dynamic_cast<const DiscreteGradientForces*>(&system);
}

}  // namespace rtmb
