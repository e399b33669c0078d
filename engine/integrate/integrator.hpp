// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include <string_view>

#include "engine/dynamics/dynamics.hpp"
#include "engine/integrate/step_endpoints.hpp"

namespace rtmb {

/// Pipeline stage 2: one unstabilized step of a one-step method
///     (q~, v~) = (q, v) + phi(t, q, v, h)            (Chin 1995 eq. 3.22)
/// on the ODE q' = v, v' = a(t, q, v) given by Dynamics. The stabilizer runs afterwards.
class Integrator {
 public:
  virtual ~Integrator() = default;

  [[nodiscard]] virtual std::string_view name() const noexcept = 0;
  /// Classical order p; post-stabilized drift is O(h^(2(p+1))) (Chin Thm 3.5).
  [[nodiscard]] virtual int order() const noexcept = 0;

  /// Writes the unstabilized result of the step from (t, q, v) over h into `to` (which must not
  /// alias from.q, from.v). RT-safe.
  virtual void advance(Dynamics& dynamics,
                       const StepFrom& from,
                       StepTo to,
                       StepStatus& status) noexcept = 0;

  /// Forgets any history carried between steps (multistep methods); one-step methods have none.
  /// RT-safe.
  virtual void reset() noexcept {}
};

}  // namespace rtmb
