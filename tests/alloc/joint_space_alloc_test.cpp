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

#include "rtmb/models/joint_space_outputs.hpp"
#include "rtmb/models/joint_space_tree.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/step.hpp"
#include "tests/support/alloc_counter.hpp"
#include "tests/support/model_lookup.hpp"
#include "tests/support/step_allocations.hpp"

namespace rtmb {
namespace {

constexpr long kSteps = testing::kCountsViaSanitizerHooks ? 50 : 1000;
// the closed loop's sweep: the WAM's above already runs every method 1000 steps, and CI time is
// short; 200 steps per combination still step through every code path many times
constexpr long kClosedLoopSteps = testing::kCountsViaSanitizerHooks ? 50 : 200;
// the floating-base sweep (14 coordinates and a normalization row): CI time again
constexpr long kFloatingBaseSteps = testing::kCountsViaSanitizerHooks ? 50 : 100;

// Every method x stabilizer on sys, `steps` counted steps each: no heap call and no flagged step
// in any run that the engine accepts, and most combinations run; prints the tally under `label`.
// solver: the KKT solver of every run (auto: the Model's choice; tree: the articulated M^-1 and
// G M^-1 G^T of engine/kkt/tree_kkt.hpp).
void expect_clean_sweep(const std::shared_ptr<const System>& sys,
                        double dt,
                        long steps,
                        const char* label,
                        KktSolver solver = KktSolver::kAuto) {
  const testing::StepAllocationSweep sweep = testing::sweep_step_allocations(
      sys, dt, steps, label,
      [](Method method, StabilizerKind stabilizer, const testing::StepAllocationCounts& run) {
        EXPECT_EQ(run.counts.allocations, 0u)
            << to_string(method) << " + " << to_string(stabilizer);
        EXPECT_EQ(run.counts.deallocations, 0u)
            << to_string(method) << " + " << to_string(stabilizer);
        EXPECT_EQ(run.flagged, 0) << to_string(method) << " + " << to_string(stabilizer);
      },
      solver);
  std::printf("%s: %d method x stabilizer runs of %ld steps, %d refused at setup\n", label,
              sweep.ran, steps, sweep.refused);
  EXPECT_GT(sweep.ran, 10 * sweep.refused);
}

TEST(JointSpaceAllocations, WamEveryMethodAndStabilizerAllocatesNothing) {
  const ModelFile file = load_model_file("/usr/share/doc/dart/data/urdf/wam/wam.urdf");
  const std::shared_ptr<const System> sys = make_system(file);
  ASSERT_EQ(sys->n_v(), 7);
  expect_clean_sweep(sys, file.settings.dt, kSteps, "wam");
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

// Issue 19, acceptance 5 with loop closures: configs/urdf/parallelogram_arm.yaml (a URDF tree
// closed by a planar revolute closure, 2 constraint rows) x every method x every stabilizer.
TEST(JointSpaceAllocations, ClosedLoopEveryMethodAndStabilizerAllocatesNothing) {
  const ModelFile file = load_model_file(testing::config_path("urdf/parallelogram_arm.yaml"));
  const std::shared_ptr<const System> sys = make_system(file);
  ASSERT_EQ(sys->n_lambda(), 2);
  expect_clean_sweep(sys, file.settings.dt, kClosedLoopSteps, "parallelogram_arm");
}

// Floating base (issue 19 item 1): configs/urdf/wam_floating.yaml, the WAM on a floating joint
// (14 coordinates, the normalization row) x every method x every stabilizer.
TEST(JointSpaceAllocations, FloatingBaseEveryMethodAndStabilizerAllocatesNothing) {
  const ModelFile file = load_model_file(testing::config_path("urdf/wam_floating.yaml"));
  const std::shared_ptr<const System> sys = make_system(file);
  ASSERT_EQ(sys->n_v(), 14);
  ASSERT_EQ(sys->n_lambda(), 1);
  expect_clean_sweep(sys, file.settings.dt, kFloatingBaseSteps, "wam_floating");
}

// Issue 19 acceptance 6: configs/urdf/wam_haptic.yaml, the WAM with a virtual coupling on its
// flange (J_p^T F in every force evaluation) and its named channels, x every method x every
// stabilizer, the channels set so that the coupling is stretched; then its outputs (the haptic
// force through the safety filter, the linearization's KKT solves) evaluate without allocating.
TEST(JointSpaceAllocations, HapticCouplingEveryMethodAndStabilizerAllocatesNothing) {
  const ModelFile file = load_model_file(testing::config_path("urdf/wam_haptic.yaml"));
  const std::shared_ptr<const System> sys = make_system(file);
  ASSERT_EQ(sys->n_inputs(), 4);
  expect_clean_sweep(sys, file.settings.dt, kFloatingBaseSteps, "wam_haptic");
  const auto& tree = dynamic_cast<const JointSpaceTree&>(*sys);
  JointSpaceOutputs evaluator(*sys, tree, file.joint_space_outputs);
  const Model model(sys, file.settings);
  Workspace ws(model);
  State s;
  sys->initial_state(s);
  const Eigen::Vector3d target = file.joint_space->couplings[0].target;
  std::vector<double> out(static_cast<std::size_t>(evaluator.count()));
  testing::AllocationCounts counts;
  {
    testing::AllocationScope scope;
    for (int k = 0; k < 20; ++k) {
      const double u[4] = {target.x() + 1e-3 * k, target.y(), target.z(), 0.5};
      set_inputs(ws, u);
      (void)step(model, s, ws);
      evaluator.evaluate(s, ws, out);
    }
    counts = scope.counts();
  }
  EXPECT_EQ(counts.allocations, 0u);
  EXPECT_EQ(counts.deallocations, 0u);
  EXPECT_TRUE(std::isfinite(out[0]) && std::isfinite(out.back()));
}

// The tree KKT path (solver tree, issue 19 acceptance 4): the closed-loop arm and the floating-base
// WAM (a floating joint's 7 x 7 D_i and c e e^T) x every explicit method x every stabilizer (the
// implicit methods have no tree path and are refused at setup, counted).
TEST(JointSpaceAllocations, TreeKktPathEveryMethodAndStabilizerAllocatesNothing) {
  const ModelFile arm = load_model_file(testing::config_path("urdf/parallelogram_arm.yaml"));
  expect_clean_sweep(make_system(arm), arm.settings.dt, kFloatingBaseSteps,
                     "parallelogram_arm/tree", KktSolver::kTree);
  const ModelFile floating = load_model_file(testing::config_path("urdf/wam_floating.yaml"));
  expect_clean_sweep(make_system(floating), floating.settings.dt, kFloatingBaseSteps,
                     "wam_floating/tree", KktSolver::kTree);
}

// Every closure type's rows, the springs and the joint-named outputs evaluate without allocating.
TEST(JointSpaceAllocations, ClosureRowsSpringsAndOutputsAllocateNothing) {
  JointSpaceSpec spec;
  for (int l = 0; l < 4; ++l) {
    TreeLinkSpec link;
    link.name = "l" + std::to_string(l);
    link.mass = 1.0;
    link.com = {0.2, 0.0, 0.0};
    link.inertia = Eigen::Matrix3d::Identity() * 0.01;
    spec.links.push_back(link);
    TreeJointSpec j;
    j.name = "j" + std::to_string(l);
    j.parent = l - 1;
    j.child = l;
    j.origin_xyz = {0.4, 0.0, 0.0};
    j.axis = l % 2 == 0 ? Eigen::Vector3d::UnitZ() : Eigen::Vector3d::UnitY();
    spec.joints.push_back(j);
  }
  TreeClosureSpec c;
  c.type = TreeClosureType::kSpherical;
  c.link_b = 3;
  spec.closures.push_back(c);
  c.type = TreeClosureType::kRevolute;
  c.link_a = 1;
  spec.closures.push_back(c);
  c.type = TreeClosureType::kPlanarRevolute;
  c.link_a = 0;
  spec.closures.push_back(c);
  c.type = TreeClosureType::kMimic;
  c.joint = 1;
  c.mimicked = 0;
  spec.closures.push_back(c);
  TreePointSpringSpec sp;
  sp.link_b = 2;
  sp.stiffness = 10.0;
  spec.springs.push_back(sp);
  const JointSpaceTree shared(spec);
  const std::unique_ptr<const System> own = shared.for_simulation();
  const auto& tree = dynamic_cast<const JointSpaceTree&>(*own);
  std::vector<JointSpaceOutputSpec> outputs(4);
  outputs[0].type = JointSpaceOutputType::kJointVelocity;
  outputs[0].joint = 2;
  outputs[1].type = JointSpaceOutputType::kPointVelocity;
  outputs[1].link = 3;
  outputs[2].type = JointSpaceOutputType::kPose;
  outputs[2].link = 2;
  outputs[3].type = JointSpaceOutputType::kVelocityDrift;
  JointSpaceOutputs evaluator(shared, shared, outputs);
  // a Workspace for the evaluator's input values: the open tree's (11 rows on 4 coordinates are
  // for evaluation only, they do not assemble)
  JointSpaceSpec open = spec;
  open.closures.clear();
  Settings settings = testing::rk4_pstab(1e-3);
  settings.stabilizer = StabilizerKind::kNone;
  const Model model(std::make_shared<JointSpaceTree>(open), settings);
  const Workspace ws(model);
  const int m = tree.n_lambda();
  Vec q = Vec::Constant(4, 0.3);
  Vec v = Vec::Constant(4, -0.5);
  Vec f(4);
  Vec g(m);
  Mat jac(m, 4);
  Mat gv_q(m, 4);
  State s(4, 4);
  s.q = q;
  s.v = v;
  std::vector<double> out(static_cast<std::size_t>(evaluator.count()));
  testing::AllocationCounts counts;
  {
    testing::AllocationScope scope;
    tree.constraints(0.0, q, g);
    tree.jacobian(0.0, q, jac);
    tree.curvature(0.0, q, v, g);
    tree.velocity_constraint_jacobian(0.0, q, v, gv_q);
    tree.forces(0.0, q, v, {}, f);
    evaluator.evaluate(s, ws, out);
    counts = scope.counts();
  }
  EXPECT_EQ(counts.allocations, 0u);
  EXPECT_EQ(counts.deallocations, 0u);
  EXPECT_TRUE(std::isfinite(g.sum() + jac.sum() + gv_q.sum() + f.sum() + out[0]));
}

}  // namespace
}  // namespace rtmb
