// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// The virtual coupling's spring-damper (issue 4; the `coupling` force element of planar body
// models and joint-space trees): the force on the coupled point p of a body,
//   F = -k (p - p*) - c p',
// with p* the target the device streams. The target is a position only (no target velocity is
// streamed), so the damper acts on the absolute point velocity, a dissipative term towards rest
// (Colgate, Stanley & Brown, "Issues in the haptic display of tool use", IROS 1995: the virtual
// coupling between the device and the simulated tool). One definition for every model, of any
// dimension (Eigen fixed-size vectors). RT-safe.

#include <Eigen/Core>

namespace rtmb::detail {

template <class Vector>
[[nodiscard]] Vector virtual_coupling_force(double stiffness,
                                            double damping,
                                            const Vector& point,
                                            const Vector& target,
                                            const Vector& point_velocity) noexcept {
  return -stiffness * (point - target) - damping * point_velocity;
}

}  // namespace rtmb::detail
