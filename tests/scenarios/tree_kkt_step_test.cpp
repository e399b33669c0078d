// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The tree KKT path (solver tree: engine/kkt/tree_kkt.cpp with the articulated M^-1 of
// engine/multibody/articulated_solve.cpp) against the dense path (DenseKkt on CRBA's M) through
// the whole step, RK4 + PStab: the same closed-loop mechanism in joint space must reach the same
// state after 0.1 s to 1e-10, on the parallelogram arm (configs/urdf/parallelogram_arm.yaml: a
// URDF tree closed in YAML) and on a 20-link spatial chain in joint space with its tip pinned
// (tests/support/joint_space_chain_spec.hpp).
// The two paths share every System evaluation and differ only in the linear algebra, whose
// round-off (~1e-14 relative per solve) stays far below the tolerance over 100 steps.

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "rtmb/model.hpp"
#include "rtmb/models/joint_space_tree.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/step.hpp"
#include "tests/support/joint_space_chain_spec.hpp"

namespace rtmb {
namespace {

std::shared_ptr<const System> pinned_chain(int n) {
  return std::make_shared<JointSpaceTree>(testing::joint_space_chain_spec(n, true));
}

// the state after `steps` RK4 + PStab steps of dt with the given KKT solver
State run(const std::shared_ptr<const System>& system, KktSolver solver, double dt, int steps) {
  Settings settings;
  settings.method = Method::kRk4;
  settings.stabilizer = StabilizerKind::kPStab;
  settings.dt = dt;
  settings.solver = solver;
  const Model model(system, settings);
  EXPECT_EQ(model.solver(), solver);
  Workspace ws(model);
  State s = initial_state(model);
  for (int i = 0; i < steps; ++i) {
    const StepStatus status = step(model, s, ws);
    EXPECT_FALSE(has_flag(status.flags, StepFlag::kSingularKkt));
  }
  return s;
}

void expect_same_motion(const std::shared_ptr<const System>& system, double dt, int steps) {
  const State dense = run(system, KktSolver::kDense, dt, steps);
  const State tree = run(system, KktSolver::kTree, dt, steps);
  EXPECT_LT((tree.q - dense.q).cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_LT((tree.v - dense.v).cwiseAbs().maxCoeff(), 1e-10);
  // and it moved: the comparison is not of two states at rest
  const State start = run(system, KktSolver::kDense, dt, 0);
  EXPECT_GT((dense.q - start.q).cwiseAbs().maxCoeff(), 1e-3);
}

TEST(TreeKktStep, ParallelogramArmMovesAsOnTheDensePath) {
  const ModelFile file =
      load_model_file(std::string(RTMB_SOURCE_DIR) + "/configs/urdf/parallelogram_arm.yaml");
  expect_same_motion(std::shared_ptr<const System>(make_system(file)), 0.001, 100);
}

TEST(TreeKktStep, PinnedTwentyLinkChainMovesAsOnTheDensePath) {
  expect_same_motion(pinned_chain(20), 0.001, 100);
}

TEST(TreeKktStep, AutoTakesTheTreePathForLongChainsOnly) {
  Settings settings;
  settings.method = Method::kRk4;
  settings.stabilizer = StabilizerKind::kPStab;
  EXPECT_EQ(Model(pinned_chain(kTreeCrossoverNv), settings).solver(), KktSolver::kTree);
  EXPECT_EQ(Model(pinned_chain(kTreeCrossoverNv - 1), settings).solver(), KktSolver::kDense);
}

}  // namespace
}  // namespace rtmb
