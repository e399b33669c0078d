// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Issue 17 (beam bodies in a PlanarMultibody, engine/multibody/planar_beam_body.hpp): zero
// allocations in each evaluation and in the step of Chin's deformable slider-crank built from
// bodies (a rigid crank, a two-element simply supported beam rod, a light slider: every mass > 0,
// so the explicit methods take the sparse path with the beam's dense block of M), for every
// method x stabilizer. Step 1 us as in floating_frame_beam_alloc_test.cpp (the rod's highest
// elastic frequency is about 3e5 rad/s). And the outputs on a beam (its deflection at a station,
// the deformed point and its velocity, a reaction with the deformed arm) evaluate without
// allocating: they run on the loop's thread after every tick; so do force elements at material
// points of a beam.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include "rtmb/model.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/models/planar_multibody.hpp"
#include "rtmb/step.hpp"
#include "tests/support/alloc_counter.hpp"
#include "tests/support/beam_slider_crank.hpp"
#include "tests/support/step_allocations.hpp"

namespace rtmb {
namespace {

constexpr long kBeamSteps = testing::kCountsViaSanitizerHooks ? 20 : 200;
constexpr double kDt = 1e-6;  // [s]

// Table 5.1 (inch, lb, s): crank r = 6, rod l = 12, D = 0.25, E = 30e6, rho = 0.0007331, J = 1
PlanarModelSpec beam_slider_crank() {
  const double r = 6.0;
  const double l = 12.0;
  const double d = 0.25;
  const double w = 180.0;
  PlanarModelSpec s;
  PlanarBodySpec crank;
  crank.name = "crank";
  crank.mass = 1.0;
  crank.inertia = 1.0;
  crank.velocity = {0.0, 0.0, w};
  PlanarBodySpec rod;
  rod.name = "rod";
  rod.kind = PlanarBodyKind::kBeam;
  rod.beam = {l,
              30e6,
              0.0007331,
              std::numbers::pi * d * d / 4.0,
              std::numbers::pi * std::pow(d, 4) / 64.0,
              2,
              PlanarBeamSupport::kSimplySupported};
  rod.pose = {r, 0.0, 0.0};
  rod.velocity = {0.0, r * w, -r * w / l};
  PlanarBodySpec slider;
  slider.name = "slider";
  slider.mass = 1e-3;
  slider.inertia = 1e-3;
  slider.pose = {r + l, 0.0, 0.0};
  s.bodies = {crank, rod, slider};
  const auto joint = [&s](PlanarJointType type, int i, int j, double xi) {
    PlanarJointSpec jt;
    jt.name = "j" + std::to_string(s.joints.size());
    jt.type = type;
    jt.body_i = i;
    jt.body_j = j;
    jt.point_i = {xi, 0.0};
    s.joints.push_back(jt);
  };
  joint(PlanarJointType::kRevolute, kGround, 0, 0.0);
  joint(PlanarJointType::kRevolute, 0, 1, r);
  joint(PlanarJointType::kRevolute, 1, 2, l);
  joint(PlanarJointType::kPrismatic, kGround, 2, 0.0);
  PlanarForceSpec g;
  g.name = "gravity";
  g.type = PlanarForceType::kGravity;
  g.vector = {0.0, -386.4};
  s.forces = {g};
  return s;
}

TEST(PlanarBeamBodyAllocations, EvaluationsAllocateNothing) {
  const PlanarMultibody sys(beam_slider_crank());
  const testing::EvaluationAllocations run = testing::count_evaluation_allocations(sys, kDt);
  EXPECT_EQ(run.counts.allocations, 0u);
  EXPECT_EQ(run.counts.deallocations, 0u);
  EXPECT_TRUE(run.forces_finite);
}

// every method x stabilizer, kBeamSteps steps each: no heap call in any
void expect_every_method_allocates_nothing(const std::shared_ptr<const System>& sys,
                                           const char* name) {
  const testing::StepAllocationSweep sweep = testing::sweep_step_allocations(
      sys, kDt, kBeamSteps, name,
      [&](Method method, StabilizerKind stabilizer, const testing::StepAllocationCounts& run) {
        const std::string combo =
            std::string(to_string(method)) + " + " + std::string(to_string(stabilizer));
        EXPECT_EQ(run.counts.allocations, 0u) << combo;
        EXPECT_EQ(run.counts.deallocations, 0u) << combo;
      });
  std::printf("%s: %d method x stabilizer runs of %ld steps, %d refused\n", name, sweep.ran,
              kBeamSteps, sweep.refused);
  EXPECT_GT(sweep.ran, 0);
}

TEST(PlanarBeamBodyAllocations, EveryMethodAndStabilizerAllocatesNothingPerStep) {
  expect_every_method_allocates_nothing(
      std::make_shared<const PlanarMultibody>(beam_slider_crank()), "beam_slider_crank (bodies)");
}

TEST(PlanarBeamBodyAllocations, PointForcesOnTheBeamAllocateNothing) {
  // a force, a spring, a coupling and a wall at material points of the rod: J^T F per element
  const std::string gravity = "  - {type: gravity, vector: [0, -386.4]}\n";
  std::string text = testing::kBeamSliderCrankYaml;
  text.replace(text.find(gravity), gravity.size(),
               gravity + R"(  - {type: force, body: rod, point: [4, 0], force: [30, -50]}
  - {type: spring_damper, body_i: ground, body_j: rod, point_i: [10, 5], point_j: [8, 0], stiffness: 400, damping: 1}
  - {type: coupling, body: rod, point: [10, 0], stiffness: 900, damping: 1}
  - {type: wall, body: rod, point: [12, 0], origin: [11, 0], normal: [-1, 0], stiffness: 5000, damping: 1}
)");
  const ModelFile file = parse_model_file(text, "rig.yaml");
  const std::shared_ptr<const System> sys = make_system(file);
  const testing::EvaluationAllocations run = testing::count_evaluation_allocations(*sys, kDt);
  EXPECT_EQ(run.counts.allocations, 0u);
  EXPECT_EQ(run.counts.deallocations, 0u);
  EXPECT_TRUE(run.forces_finite);
}

// A flexible link: a beam welded to a pinned hub at x = 0 and to a tip mass at x = L (fixed
// joints on a beam: the point rows and the cross-section's angle row)
TEST(PlanarBeamBodyAllocations, FixedJointsOnTheBeamAllocateNothing) {
  const ModelFile file = parse_model_file(R"(bodies:
  - {name: hub, mass: 2, inertia: 0.05, velocity: [0, 0, 1]}
  - {name: link, kind: beam, length: 1.3, youngs_modulus: 2.1e11, density: 7800, area: 3.0e-4,
     second_moment: 2.5e-8, elements: 3, support: simply_supported, velocity: [0, 0, 1]}
  - {name: tip, mass: 0.5, inertia: 0.01, pose: [1.3, 0, 0], velocity: [0, 1.3, 1]}
joints:
  - {name: pin, type: revolute, body_i: ground, body_j: hub}
  - {name: root, type: fixed, body_i: hub, body_j: link}
  - {name: end, type: fixed, body_i: link, body_j: tip, point_i: [1.3, 0]}
forces:
  - {type: gravity, vector: [0, -9.81]}
)",
                                          "link.yaml");
  const std::shared_ptr<const System> sys = make_system(file);
  const testing::EvaluationAllocations run = testing::count_evaluation_allocations(*sys, kDt);
  EXPECT_EQ(run.counts.allocations, 0u);
  EXPECT_EQ(run.counts.deallocations, 0u);
  EXPECT_TRUE(run.forces_finite);
  expect_every_method_allocates_nothing(sys, "flexible_link");
}

TEST(PlanarBeamBodyAllocations, BeamOutputsAllocateNothing) {
  const ModelFile file = parse_model_file(testing::kBeamSliderCrankYaml + R"(integration:
  method: rk4
  stabilizer: pstab
  dt: 1.0e-6
outputs:
  channels:
    - {name: mid, kind: beam_deflection, body: rod, station: 6}
    - {name: quarter, kind: point_position, body: rod, point: [3, 0]}
    - {name: quarter_rate, kind: point_velocity, body: rod, point: [3, 0]}
    - {name: A, kind: reaction, joint: A}
    - {name: e, kind: energy}
)",
                                          "rig.yaml");
  const std::shared_ptr<const System> sys = make_system(file);
  const std::unique_ptr<OutputEvaluator> evaluator = make_output_evaluator(file, *sys);
  const Model model(sys, file.settings);
  Workspace ws(model);
  State s = initial_state(model);
  std::vector<double> out(static_cast<std::size_t>(evaluator->count()));
  testing::AllocationCounts counts;
  {
    testing::AllocationScope scope;
    for (int k = 0; k < 20; ++k) {
      (void)step(model, s, ws);
      evaluator->evaluate(s, ws, out);
    }
    counts = scope.counts();
  }
  EXPECT_EQ(counts.allocations, 0u);
  EXPECT_EQ(counts.deallocations, 0u);
  EXPECT_EQ(out.size(), 2u + 2u + 2u + 3u + 1u);
  EXPECT_GT(std::abs(out[1]), 0.0);  // the rod bends from the first steps on
  EXPECT_TRUE(std::isfinite(out.back()));
}

}  // namespace
}  // namespace rtmb
