// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// A spatial N-link chain in joint space with its tip pinned (issue 19, acceptance 4), for the
// tree KKT tests and bench/sparse_step_bench.cpp's joint_space_loop family: links of 0.3 m and
// 1 kg (a rod's inertia about its centre, 0.001 about its own axis) hanging from the world on
// revolute joints about x, y, z in turn, every joint at 0.1 rad (so the chain coils out of every
// plane and is nowhere stretched, where the pin's rows would lose rank), under gravity -9.81 z;
// with `loop` a spherical closure pins the tip to the world where it starts (3 rows). Joint 0
// starts at 0.5 rad/s (projected onto G v = 0 by initial_state), so the chain moves at once.

#include <Eigen/Core>
#include <string>

#include "rtmb/models/joint_space_tree.hpp"

namespace rtmb::testing {

inline JointSpaceSpec joint_space_chain_spec(int n, bool loop) {
  constexpr double kLength = 0.3;
  constexpr double kMass = 1.0;
  JointSpaceSpec s;
  s.name = std::string(loop ? "joint_space_chain_loop_" : "joint_space_chain_") + std::to_string(n);
  for (int l = 0; l < n; ++l) {
    TreeLinkSpec link;
    link.name = "l" + std::to_string(l);
    link.mass = kMass;
    link.com = {0.0, 0.0, -0.5 * kLength};
    const double transverse = kMass * kLength * kLength / 12.0;
    link.inertia =
        Eigen::Vector3d(transverse, transverse, 1e-3 * kMass * kLength * kLength).asDiagonal();
    s.links.push_back(link);
    TreeJointSpec j;
    j.name = "j" + std::to_string(l);
    j.parent = l - 1;
    j.child = l;
    j.origin_xyz = l == 0 ? Eigen::Vector3d::Zero() : Eigen::Vector3d(0.0, 0.0, -kLength);
    j.axis = Eigen::Vector3d::Unit(l % 3);
    j.initial_position = 0.1;
    j.initial_velocity = l == 0 ? 0.5 : 0.0;
    s.joints.push_back(j);
  }
  if (loop) {
    const JointSpaceTree open(s);
    TreeClosureSpec pin;
    pin.name = "pin";
    pin.type = TreeClosureType::kSpherical;
    pin.link_a = -1;
    pin.point_a = open.point_position(Eigen::VectorXd::Constant(n, 0.1), n - 1,
                                      Eigen::Vector3d(0.0, 0.0, -kLength));
    pin.link_b = n - 1;
    pin.point_b = {0.0, 0.0, -kLength};
    s.closures.push_back(pin);
  }
  return s;
}

}  // namespace rtmb::testing
