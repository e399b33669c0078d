// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The live view evaluates a built-in mechanism's joint points from every frame's q on its network
// thread (net/view_server.cpp; rtmb/models/joint_points.hpp): that evaluation allocates nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "rtmb/models/joint_points.hpp"
#include "rtmb/models/mechanisms.hpp"
#include "rtmb/state.hpp"
#include "tests/support/alloc_counter.hpp"

namespace rtmb {
namespace {

using testing::AllocationCounts;
using testing::AllocationScope;

TEST(JointPointsAllocations, EveryBuiltInMechanismsPointsAllocateNothing) {
  for (const MechanismInfo& info : mechanisms()) {
    const std::unique_ptr<System> system = make_mechanism(info.name);
    const JointPoints* joints = joint_points_of(*system);
    ASSERT_NE(joints, nullptr) << info.name;
    State s;
    system->initial_state(s);
    std::vector<Eigen::Vector3d> points(static_cast<std::size_t>(joints->n_joint_points()));
    double sum = 0.0;
    AllocationCounts counts;
    {
      AllocationScope scope;
      for (int k = 0; k < 1000; ++k) {
        s.q(0) += 1e-4;
        joints->joint_points(1e-3 * k, s.q, points);
        sum += points.back().x();
      }
      counts = scope.counts();
    }
    EXPECT_EQ(counts.allocations, 0u) << info.name;
    EXPECT_EQ(counts.deallocations, 0u) << info.name;
    EXPECT_TRUE(std::isfinite(sum)) << info.name;  // the points were really computed
  }
}

}  // namespace
}  // namespace rtmb
