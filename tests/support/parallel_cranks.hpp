// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// A linkage whose constraint rank changes along its motion (issue 16, acceptance 3), shared by
// the scenario test (tests/scenarios/parallel_cranks_test.cpp) and the allocation test of the
// rank-deficient path (tests/alloc/rank_deficient_alloc_test.cpp).
//
// Three parallel cranks of length r = 1 pivoted on the ground at (0, 0), (1, 0), (2, 0) and one
// coupler pinned to their tips at its points (-1, 0), (0, 0), (1, 0): the double-supported
// four-bar of tests/support/redundant_models.hpp, turning full circles. 12 coordinates, 12 rows;
// G has rank 11 at a generic pose (the third crank repeats the parallelogram), so the model says
// `redundant_constraints: remove` and the loader drops one row at the initial pose. Where the
// cranks are horizontal (crank angle theta = 0 or pi) every link lies on the ground line and the
// kept rows lose one more rank: at that pose the cranks' tips can move vertically by different
// amounts to first order (u = 0, w + Omega (x_i - x_c) = r omega_i for the coupler's velocity
// (u, w), spin Omega and the crank rates omega_i: 3 equations in 5 unknowns, 2 degrees of freedom
// instead of 1). The KKT matrix is singular there, and the motion passes such a pose twice per
// turn.
//
// Closed form of the motion (the reference, derived independently of the engine): on the
// parallelogram branch every crank has the same angle theta and the coupler translates without
// turning, crank i's centre of mass at (i + (r/2) cos theta, (r/2) sin theta), the coupler's at
// (1 + r cos theta, r sin theta). One generalized coordinate theta; the kinetic energy is
//   T = 1/2 (3 (J + m r^2 / 4) + m_c r^2) theta'^2
// (each crank turns about its pivot, moment J + m (r/2)^2; the coupler's centre runs on a circle
// of radius r), constant in theta, and there are no forces (no gravity), so Lagrange's equation
// is I theta'' = 0: theta(t) = theta0 + omega t, uniform rotation through every singular pose.
// With theta0 = pi/2 and omega = 2 pi the cranks are horizontal at t = 1/4 + k/2.

#include <cmath>
#include <cstdio>
#include <string>

#include "rtmb/types.hpp"
#include "tests/support/redundant_models.hpp"

namespace rtmb::testing {

inline constexpr double kCrankOmega = 2.0 * 3.14159265358979323846;  ///< [rad/s], one turn/s
inline constexpr double kCrankTheta0 = 1.57079632679489661923;       ///< cranks vertical at t = 0

/// The model file text: cranks m = 1 kg, J = 1/12 kg m^2, coupler m_c = 2 kg, J_c = 2/3 kg m^2,
/// at theta0 with every velocity of the closed form at t = 0.
inline std::string parallel_cranks_yaml() {
  const double w = kCrankOmega;
  const double c = std::cos(kCrankTheta0);
  const double s = std::sin(kCrankTheta0);
  std::string text = "name: parallel_cranks\nredundant_constraints: remove\nbodies:\n";
  char line[256];
  for (int i = 0; i < 3; ++i) {
    std::snprintf(line, sizeof line,
                  "  - {name: crank%d, mass: 1.0, inertia: 0.08333333333333333, pose: [%.17g, "
                  "%.17g, %.17g], velocity: [%.17g, %.17g, %.17g]}\n",
                  i + 1, i + 0.5 * c, 0.5 * s, kCrankTheta0, -0.5 * w * s, 0.5 * w * c, w);
    text += line;
  }
  std::snprintf(line, sizeof line,
                "  - {name: coupler, mass: 2.0, inertia: 0.6666666666666666, pose: [%.17g, %.17g, "
                "0.0], velocity: [%.17g, %.17g, 0.0]}\n",
                1.0 + c, s, -w * s, w * c);
  text += line;
  text += kThreeParallelCranksJoints;
  return text;
}

/// q(t) of the closed form: (x, y, theta) of crank1..3, then of the coupler.
inline Vec parallel_cranks_exact_q(double t) {
  const double th = kCrankTheta0 + kCrankOmega * t;
  Vec q(12);
  for (int i = 0; i < 3; ++i) {
    q.segment<3>(3 * i) << i + 0.5 * std::cos(th), 0.5 * std::sin(th), th;
  }
  q.segment<3>(9) << 1.0 + std::cos(th), std::sin(th), 0.0;
  return q;
}

}  // namespace rtmb::testing
