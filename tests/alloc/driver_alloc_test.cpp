// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Drivers (rtmb/models/planar_multibody.hpp, rtmb/models/time_function.hpp) keep the step contract:
// a body model with every time function (constant, ramp, sine, polynomial, table) on revolute and
// prismatic drivers (and an axial spring-damper on a driven prismatic joint) steps 10 000 times,
// and calls every System evaluation, without touching the heap.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <tuple>

#include "rtmb/models/model_file.hpp"
#include "rtmb/models/planar_multibody.hpp"
#include "rtmb/step.hpp"
#include "tests/support/alloc_counter.hpp"
#include "tests/support/param_names.hpp"
#include "tests/support/step_allocations.hpp"

namespace rtmb {
namespace {

// five bodies, each placed entirely by its joint and driver (the table lasts 20 s, longer than
// the 10 s counted, so its spline search runs at every step)
constexpr const char* kDrivenModel = R"(
bodies:
  - {name: a, mass: 1, inertia: 0.1, pose: [0.5, 0, 0]}
  - {name: b, mass: 1, inertia: 0.1, pose: [0, 1, 0]}
  - {name: c, mass: 1, inertia: 0.1, pose: [0.5, 1, 0]}
  - {name: d, mass: 1, inertia: 0.1, pose: [0, 2, 0]}
  - {name: e, mass: 1, inertia: 0.1, pose: [0.5, 3, 0]}
joints:
  - name: ja
    type: revolute
    body_i: ground
    body_j: a
    point_j: [-0.5, 0]
    driver: {type: table, points: [[0, 0], [3, 1], [7, -0.5], [12, 0.3], [20, 0]]}
  - name: jb
    type: prismatic
    body_i: ground
    point_i: [0, 1]
    body_j: b
    axis: [0.6, 0.8]
    driver: {type: sine, amplitude: 0.2, frequency: 0.5}
  - name: jc
    type: revolute
    body_i: b
    body_j: c
    point_j: [-0.5, 0]
    driver: {type: polynomial, coefficients: [0, 0.1, -0.01]}
  - name: jd
    type: prismatic
    body_i: ground
    point_i: [0, 2]
    body_j: d
    driver: {type: ramp, start: 1, rate: 0.05}
  - name: je
    type: revolute
    body_i: ground
    point_i: [0, 3]
    body_j: e
    point_j: [-0.5, 0]
    driver: {type: constant, value: 0.2}
forces:
  - {type: gravity, vector: [0, -9.81]}
  - {type: prismatic_spring_damper, joint: jb, stiffness: 10, damping: 0.5, rest_position: 0.1}
)";

std::shared_ptr<const System> driven() {
  return make_system(parse_model_file(kDrivenModel, "driven.yaml"));
}

using Combo = std::tuple<Method, StabilizerKind>;

class DriverStepAllocations : public ::testing::TestWithParam<Combo> {};

TEST_P(DriverStepAllocations, TenThousandStepsAllocateNothing) {
  const auto [method, stabilizer] = GetParam();
  const Model model(driven(), testing::step_allocation_settings(method, stabilizer, 1e-3));
  const testing::StepAllocationCounts run = testing::count_step_allocations(model, 10, 10'000);
  EXPECT_EQ(run.counts.allocations, 0u);
  EXPECT_EQ(run.counts.deallocations, 0u);
  EXPECT_EQ(run.flagged, 0);
}

const Method kDriverMethods[] = {Method::kHeun, Method::kRk4, Method::kDopri5};
const StabilizerKind kDriverStabilizers[] = {StabilizerKind::kNone, StabilizerKind::kBaumgarte,
                                             StabilizerKind::kPStab, StabilizerKind::kSFull,
                                             StabilizerKind::kProject};

INSTANTIATE_TEST_SUITE_P(Methods,
                         DriverStepAllocations,
                         ::testing::Combine(::testing::ValuesIn(kDriverMethods),
                                            ::testing::ValuesIn(kDriverStabilizers)),
                         testing::method_stabilizer_param_name);

TEST(DriverAllocations, EveryEvaluationAllocatesNothing) {
  // at t = 0, 0.2, ..., 19.8 s: across every table interval and the ramp's start
  const testing::EvaluationAllocations run = testing::count_evaluation_allocations(*driven(), 0.2);
  EXPECT_EQ(run.counts.allocations, 0u);
  EXPECT_TRUE(std::isfinite(run.sum));
}

}  // namespace
}  // namespace rtmb
