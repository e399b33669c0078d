// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Issue 19, acceptance 5 (tree part): a joint-space tree keeps the step contract. The Barrett
// WAM of Debian's dart-doc (7 revolute joints, loaded from its URDF) x every method rtmb has x
// every stabilizer it can run with (the implicit index-3 methods: none): after the Workspace is
// built, no step allocates (1000 counted steps each; 50 in the sanitizer build). A combination the
// engine refuses at setup is listed with its reason, and most combinations must run. The
// evaluations themselves (CRBA, RNEA, energy) write only the per-simulation scratch the Workspace's
// own instance (System::for_simulation) allocated.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "rtmb/models/joint_space_tree.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/step.hpp"
#include "tests/support/alloc_counter.hpp"
#include "tests/support/step_allocations.hpp"

namespace rtmb {
namespace {

constexpr long kSteps = testing::kCountsViaSanitizerHooks ? 50 : 1000;

TEST(JointSpaceAllocations, WamEveryMethodAndStabilizerAllocatesNothing) {
  const ModelFile file = load_model_file("/usr/share/doc/dart/data/urdf/wam/wam.urdf");
  const std::shared_ptr<const System> sys = make_system(file);
  ASSERT_EQ(sys->n_v(), 7);
  const testing::StepAllocationSweep sweep = testing::sweep_step_allocations(
      sys, file.settings.dt, kSteps, "wam",
      [](Method method, StabilizerKind stabilizer, const testing::StepAllocationCounts& run) {
        EXPECT_EQ(run.counts.allocations, 0u)
            << to_string(method) << " + " << to_string(stabilizer);
        EXPECT_EQ(run.counts.deallocations, 0u)
            << to_string(method) << " + " << to_string(stabilizer);
        EXPECT_EQ(run.flagged, 0) << to_string(method) << " + " << to_string(stabilizer);
      });
  std::printf("wam (joint space): %d method x stabilizer runs of %ld steps, %d refused at setup\n",
              sweep.ran, kSteps, sweep.refused);
  EXPECT_GT(sweep.ran, 10 * sweep.refused);
}

TEST(JointSpaceAllocations, EvaluationsOfTheSimulationInstanceAllocateNothing) {
  const ModelFile file = load_model_file("/usr/share/doc/dart/data/urdf/wam/wam.urdf");
  const std::unique_ptr<System> shared = make_system(file);
  const std::unique_ptr<const System> own = shared->for_simulation();
  ASSERT_NE(own, nullptr);
  const auto& tree = dynamic_cast<const JointSpaceTree&>(*own);
  Vec q = Vec::Constant(7, 0.3);
  Vec v = Vec::Constant(7, -0.5);
  Vec a = Vec::Constant(7, 0.1);
  Vec out(7);
  Mat m(7, 7);
  double sink = 0.0;
  testing::AllocationCounts counts;
  {
    testing::AllocationScope scope;
    tree.mass(0.0, q, m);
    tree.forces(0.0, q, v, {}, out);
    tree.inverse_dynamics(q, v, a, out);
    sink += tree.energy(0.0, q, v, {});
    counts = scope.counts();
  }
  EXPECT_EQ(counts.allocations, 0u);
  EXPECT_EQ(counts.deallocations, 0u);
  EXPECT_TRUE(std::isfinite(sink + m.sum() + out.sum()));
}

}  // namespace
}  // namespace rtmb
