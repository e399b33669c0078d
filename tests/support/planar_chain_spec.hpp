// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// The planar N-link chain of `rtmb gen chain --n N [--loop]` (apps/rtmb/gen_command.cpp) as a
// PlanarModelSpec, for the sparse-path tests and bench/sparse_step_bench.cpp: uniform links of
// 0.5 m and 1 kg (J = m L^2 / 12) on revolute joints, hung from the origin in a zigzag of
// +-30 degrees (a straight chain pinned at both ends would be fully stretched, where the loop's
// constraints lose rank), under gravity (0, -9.81); with `loop` the tip is pinned to the ground
// where it starts. Same numbers as the generator, so a generated file and this spec are the same
// model.

#include <cmath>
#include <numbers>
#include <string>

#include "rtmb/models/planar_multibody.hpp"

namespace rtmb::testing {

inline PlanarModelSpec planar_chain_spec(int n, bool loop) {
  constexpr double kLength = 0.5;
  constexpr double kMass = 1.0;
  constexpr double kZigzag = std::numbers::pi / 6.0;
  PlanarModelSpec spec;
  spec.name = std::string(loop ? "chain_loop_" : "chain_") + std::to_string(n);
  double x = 0.0;  // start point of the current link
  double y = 0.0;
  for (int k = 0; k < n; ++k) {
    const double theta = (k % 2 == 0) ? -kZigzag : kZigzag;
    PlanarBodySpec b;
    b.name = "link" + std::to_string(k);
    b.mass = kMass;
    b.inertia = kMass * kLength * kLength / 12.0;
    b.pose = {x + 0.5 * kLength * std::cos(theta), y + 0.5 * kLength * std::sin(theta), theta};
    spec.bodies.push_back(b);
    x += kLength * std::cos(theta);
    y += kLength * std::sin(theta);
  }
  const double half = 0.5 * kLength;
  for (int k = 0; k < n; ++k) {
    PlanarJointSpec j;
    j.name = "pivot" + std::to_string(k);
    j.body_i = k == 0 ? kGround : k - 1;
    j.point_i = k == 0 ? Eigen::Vector2d::Zero() : Eigen::Vector2d(half, 0.0);
    j.body_j = k;
    j.point_j = {-half, 0.0};
    spec.joints.push_back(j);
  }
  if (loop) {
    PlanarJointSpec j;
    j.name = "tip";
    j.body_i = n - 1;
    j.point_i = {half, 0.0};
    j.body_j = kGround;
    j.point_j = {x, y};
    spec.joints.push_back(j);
  }
  PlanarForceSpec g;
  g.name = "gravity";
  g.type = PlanarForceType::kGravity;
  g.vector = {0.0, -9.81};
  spec.forces.push_back(g);
  return spec;
}

}  // namespace rtmb::testing
