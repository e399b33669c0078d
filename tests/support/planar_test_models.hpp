// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Small planar models with every joint type, for tests that check an evaluation on all of them
// (sparse values, fused evaluations): bodies with distinct masses, inertias and poses, and joints
// with generic points, axis, angle and length. Not assembled: the identities those tests check
// hold at any q.

#include <string>
#include <utility>

#include "rtmb/models/planar_multibody.hpp"
#include "rtmb/models/time_function.hpp"

namespace rtmb::testing {

/// A body with a name, mass and inertia, at rest at the origin.
inline PlanarBodySpec test_body(std::string name, double mass, double inertia) {
  PlanarBodySpec b;
  b.name = std::move(name);
  b.mass = mass;
  b.inertia = inertia;
  return b;
}

/// n bodies b0 .. b(n-1): mass 1 + b, inertia 0.1 + 0.05 b, pose (0.3 b, -0.2 b, 0.4 b - 0.5).
inline PlanarModelSpec test_bodies(int n, std::string name) {
  PlanarModelSpec s;
  s.name = std::move(name);
  for (int b = 0; b < n; ++b) {
    PlanarBodySpec body = test_body("b" + std::to_string(b), 1.0 + b, 0.1 + 0.05 * b);
    body.pose = {0.3 * b, -0.2 * b, 0.4 * b - 0.5};
    s.bodies.push_back(body);
  }
  return s;
}

/// A joint of `type` between bodies i and j (kGround for the ground) at the given points, axis
/// (0.6, 0.8); a driver follows `motion`. Angle and length keep their defaults.
inline PlanarJointSpec test_joint(std::string name,
                                  PlanarJointType type,
                                  int i,
                                  int j,
                                  const Eigen::Vector2d& point_i,
                                  const Eigen::Vector2d& point_j,
                                  TimeFunction motion = {}) {
  PlanarJointSpec jt;
  jt.name = std::move(name);
  jt.type = type;
  jt.body_i = i;
  jt.body_j = j;
  jt.point_i = point_i;
  jt.point_j = point_j;
  jt.axis = {0.6, 0.8};
  jt.motion = std::move(motion);
  return jt;
}

/// Adds joint j<k> of `type` between bodies i and j (kGround for the ground), at points
/// (0.2, -0.1) on i and (-0.3, 0.15) on j, axis (0.6, 0.8), angle 0.1, length 0.7; a driver
/// follows `motion`.
inline void add_test_joint(
    PlanarModelSpec& s, PlanarJointType type, int i, int j, TimeFunction motion = {}) {
  PlanarJointSpec jt = test_joint("j" + std::to_string(s.joints.size()), type, i, j, {0.2, -0.1},
                                  {-0.3, 0.15}, std::move(motion));
  jt.angle = 0.1;
  jt.length = 0.7;
  s.joints.push_back(jt);
}

}  // namespace rtmb::testing
