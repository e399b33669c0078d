// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Spatial body models (rtmb/models/spatial_multibody.hpp) and the redundant-row wrapper
// (engine/constraints/redundant_constraints.hpp) keep the step contract: after construction neither
// their evaluations nor a step allocate. Counted by the malloc-family interposer over 1000 steps
// (100 in the sanitizer build) of arm6.yaml (6 revolute joints, damping, gravity) and
// spatial_four_bar.yaml (IndependentRowsSystem over a SpatialMultibody) for every explicit method x
// {none, baumgarte, pstab, project, orthproj}, the implicit methods (finite-difference force
// Jacobians) on arm6, and around direct calls of every evaluation, dense and sparse, of a model
// with every joint and force type. (The negative control, loading spatial_four_bar.yaml, is in
// body_model_alloc_test.cpp.)
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "engine/constraints/redundant_constraints.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/models/spatial_multibody.hpp"
#include "rtmb/step.hpp"
#include "tests/support/alloc_counter.hpp"
#include "tests/support/param_names.hpp"
#include "tests/support/reference_mechanisms.hpp"
#include "tests/support/step_allocations.hpp"

namespace rtmb {
namespace {

const char* const kFiles[] = {"arm6.yaml", "spatial_four_bar.yaml"};

// 1000 counted steps; 100 in the sanitizer build, whose hooks see the same calls (the implicit
// arm6 combinations took 70-90 s each there at 1000)
constexpr long kSpatialSteps = testing::kCountsViaSanitizerHooks ? 100 : 1000;

class SpatialStepAllocations : public ::testing::TestWithParam<testing::FileCombo> {};

TEST_P(SpatialStepAllocations, ThousandStepsAllocateNothing) {
  EXPECT_TRUE(testing::config_steps_without_heap(kFiles, GetParam(), kSpatialSteps, false));
}

const StabilizerKind kSpatialStabilizers[] = {StabilizerKind::kNone, StabilizerKind::kBaumgarte,
                                              StabilizerKind::kPStab, StabilizerKind::kProject,
                                              StabilizerKind::kOrthProj};

INSTANTIATE_TEST_SUITE_P(Explicit,
                         SpatialStepAllocations,
                         ::testing::Combine(::testing::Range(0,
                                                             static_cast<int>(std::size(kFiles))),
                                            ::testing::ValuesIn(testing::kExplicitMethods),
                                            ::testing::ValuesIn(kSpatialStabilizers)),
                         testing::FileComboName{kFiles});

const Method kImplicitMethods[] = {Method::kMidpoint, Method::kNewmark, Method::kGenAlpha,
                                   Method::kGgl};

INSTANTIATE_TEST_SUITE_P(Implicit,
                         SpatialStepAllocations,
                         ::testing::Combine(::testing::Values(0),
                                            ::testing::ValuesIn(kImplicitMethods),
                                            ::testing::Values(StabilizerKind::kNone)),
                         testing::FileComboName{kFiles});

// every joint type and every force element in one model
std::shared_ptr<const System> everything() {
  SpatialModelSpec s;
  for (int b = 0; b < 4; ++b) {
    SpatialBodySpec body;
    body.name = "b" + std::to_string(b);
    body.mass = 1.0 + b;
    body.inertia = Eigen::Vector3d(0.1, 0.2, 0.3).asDiagonal();
    body.position = {0.3 * b, -0.1 * b, 0.2};
    s.bodies.push_back(body);
  }
  const SpatialJointType types[] = {SpatialJointType::kSpherical, SpatialJointType::kRevolute,
                                    SpatialJointType::kUniversal, SpatialJointType::kCylindrical,
                                    SpatialJointType::kPrismatic, SpatialJointType::kFixed,
                                    SpatialJointType::kDistance,  SpatialJointType::kPlanar};
  const int pairs[][2] = {{kGround, 0}, {0, 1}, {1, 2}, {2, 3},
                          {kGround, 3}, {0, 2}, {1, 3}, {kGround, 1}};
  for (int k = 0; k < 8; ++k) {
    SpatialJointSpec j;
    j.name = "j" + std::to_string(k);
    j.type = types[k];
    j.body_i = pairs[k][0];
    j.body_j = pairs[k][1];
    j.point_i = {0.1, 0.0, 0.05};
    j.point_j = {-0.1, 0.02, 0.0};
    j.axis_i = {0.0, 0.3, 1.0};
    j.axis_j = {1.0, 0.0, 0.0};
    j.length = 0.5;
    s.joints.push_back(j);
  }
  SpatialForceSpec f;
  f.type = SpatialForceType::kGravity;
  f.vector = {0.0, 0.0, -9.81};
  s.forces.push_back(f);
  f.type = SpatialForceType::kSpringDamper;
  f.body_i = 0;
  f.body_j = 3;
  f.stiffness = 10.0;
  f.damping = 0.5;
  f.rest = 0.2;
  s.forces.push_back(f);
  f.type = SpatialForceType::kForce;
  f.body_i = 2;
  f.vector = {1.0, 2.0, 3.0};
  s.forces.push_back(f);
  f.body_frame = true;
  s.forces.push_back(f);
  f.type = SpatialForceType::kTorque;
  s.forces.push_back(f);
  f.body_frame = false;
  s.forces.push_back(f);
  f.type = SpatialForceType::kRotationalSpring;
  f.joint = 1;
  s.forces.push_back(f);
  return std::make_shared<SpatialMultibody>(s);
}

TEST(SpatialAllocations, EveryEvaluationAllocatesNothing) {
  const std::shared_ptr<const System> full = everything();
  std::vector<int> rows;
  for (int r = 0; r < full->n_lambda(); r += 2) rows.push_back(r);
  const std::shared_ptr<const System> reduced = std::make_shared<IndependentRowsSystem>(full, rows);
  for (const std::shared_ptr<const System>& sys : {full, reduced}) {
    const testing::EvaluationAllocations run =
        testing::count_evaluation_allocations(*sys, 0.0, /*with_sparse=*/true);
    ASSERT_TRUE(run.sparse_structure);
    EXPECT_EQ(run.counts.allocations, 0u) << sys->n_lambda();
    EXPECT_TRUE(std::isfinite(run.sum));
    EXPECT_TRUE(run.forces_finite);
  }
}

}  // namespace
}  // namespace rtmb
