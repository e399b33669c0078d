// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Spatial body models (rtmb/models/spatial_multibody.hpp) and the redundant-row wrapper
// (engine/constraints/redundant_constraints.hpp) keep the step contract: after construction neither
// their evaluations nor a step allocate. Counted by the malloc-family interposer over 1000 steps of
// arm6.yaml (6 revolute joints, damping, gravity) and spatial_four_bar.yaml (IndependentRowsSystem
// over a SpatialMultibody) for every explicit method x {none, baumgarte, pstab, project,
// orthproj}, the implicit methods (finite-difference force Jacobians) on arm6, and around direct
// calls of every evaluation, dense and sparse, of a model with every joint and force type.
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
#include "tests/support/step_allocations.hpp"

namespace rtmb {
namespace {

using testing::AllocationCounts;
using testing::AllocationScope;

const char* const kFiles[] = {"arm6.yaml", "spatial_four_bar.yaml"};

std::shared_ptr<const System> load(const char* file) {
  return make_system(load_model_file(std::string(RTMB_SOURCE_DIR) + "/configs/" + file));
}

using Combo = std::tuple<int, Method, StabilizerKind>;

class SpatialStepAllocations : public ::testing::TestWithParam<Combo> {};

TEST_P(SpatialStepAllocations, ThousandStepsAllocateNothing) {
  const auto [file, method, stabilizer] = GetParam();
  const Model model(load(kFiles[file]),
                    testing::step_allocation_settings(method, stabilizer, 1e-3));
  const testing::StepAllocationCounts run = testing::count_step_allocations(model, 10, 1000);
  EXPECT_EQ(run.counts.allocations, 0u);
  EXPECT_EQ(run.counts.deallocations, 0u);
  EXPECT_EQ(run.flagged, 0);
}

std::string combo_name(const ::testing::TestParamInfo<Combo>& p) {
  std::string name = kFiles[std::get<0>(p.param)];
  name = name.substr(0, name.find('.'));
  std::string out = name + "_" + std::string(to_string(std::get<1>(p.param))) + "_" +
                    std::string(to_string(std::get<2>(p.param)));
  for (char& c : out) {
    if (c == '-') c = '_';
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Explicit,
                         SpatialStepAllocations,
                         ::testing::Combine(::testing::Range(0,
                                                             static_cast<int>(std::size(kFiles))),
                                            ::testing::Values(Method::kEuler,
                                                              Method::kHeun,
                                                              Method::kRk4,
                                                              Method::kDopri5,
                                                              Method::kAmpc3,
                                                              Method::kAmpc4,
                                                              Method::kAmpc5,
                                                              Method::kMampc3,
                                                              Method::kMampc4,
                                                              Method::kMampc5,
                                                              Method::kOdeMidpoint),
                                            ::testing::Values(StabilizerKind::kNone,
                                                              StabilizerKind::kBaumgarte,
                                                              StabilizerKind::kPStab,
                                                              StabilizerKind::kProject,
                                                              StabilizerKind::kOrthProj)),
                         combo_name);

INSTANTIATE_TEST_SUITE_P(Implicit,
                         SpatialStepAllocations,
                         ::testing::Combine(::testing::Values(0),
                                            ::testing::Values(Method::kMidpoint,
                                                              Method::kNewmark,
                                                              Method::kGenAlpha,
                                                              Method::kGgl),
                                            ::testing::Values(StabilizerKind::kNone)),
                         combo_name);

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
    State s;
    sys->initial_state(s);
    s.v.setConstant(0.3);
    Mat M(sys->n_v(), sys->n_v());
    Mat G(sys->n_lambda(), sys->n_v());
    Mat H(sys->n_lambda(), sys->n_q());
    Mat K(sys->n_v(), sys->n_q());
    Vec f(sys->n_v());
    Vec g(sys->n_lambda());
    Vec L(sys->n_lambda());
    Vec gt(sys->n_lambda());
    Vec lambda = Vec::Ones(sys->n_lambda());
    SparsePattern mp;
    SparsePattern gp;
    ASSERT_TRUE(sys->sparse_structure(mp, gp));
    std::vector<double> mv(static_cast<std::size_t>(mp.nonzeros()));
    std::vector<double> gv(static_cast<std::size_t>(gp.nonzeros()));
    double e = 0.0;
    AllocationCounts counts;
    {
      AllocationScope scope;
      for (int i = 0; i < 100; ++i) {
        sys->mass(0.0, s.q, M);
        sys->forces(0.0, s.q, s.v, {}, f);
        sys->constraints(0.0, s.q, g);
        sys->jacobian(0.0, s.q, G);
        sys->constraint_rate(0.0, s.q, gt);
        sys->curvature(0.0, s.q, s.v, L);
        sys->velocity_constraint_jacobian(0.0, s.q, s.v, H);
        (void)sys->inertia_jacobian(0.0, s.q, f, K);
        (void)sys->constraint_force_jacobian(0.0, s.q, lambda, K);
        sys->mass_values(0.0, s.q, mv);
        sys->jacobian_values(0.0, s.q, gv);
        e += sys->energy(0.0, s.q, s.v, {});
      }
      counts = scope.counts();
    }
    EXPECT_EQ(counts.allocations, 0u) << sys->n_lambda();
    EXPECT_TRUE(std::isfinite(e));
    EXPECT_TRUE(f.allFinite());
  }
}

TEST(SpatialAllocations, CounterSeesTheLoaderAllocate) {
  // negative control: loading a spatial model must allocate, and the counter must see it
  AllocationCounts counts;
  {
    AllocationScope scope;
    const std::shared_ptr<const System> sys = load("spatial_four_bar.yaml");
    counts = scope.counts();
  }
  EXPECT_GT(counts.allocations, 10u);
}

}  // namespace
}  // namespace rtmb
