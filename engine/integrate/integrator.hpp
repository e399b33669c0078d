// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include <string_view>

#include "engine/dynamics/dynamics.hpp"

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

  /// Writes the unstabilized result of a step of size h into out_q, out_v (which must not alias
  /// q, v). RT-safe.
  virtual void advance(Dynamics& dynamics,
                       double t,
                       VecCRef q,
                       VecCRef v,
                       double h,
                       VecRef out_q,
                       VecRef out_v,
                       StepStatus& status) noexcept = 0;

  /// Forgets any history carried between steps (multistep methods); one-step methods have none.
  /// RT-safe.
  virtual void reset() noexcept {}
};

}  // namespace rtmb
