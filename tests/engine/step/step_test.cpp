// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#include "rtmb/step.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <stdexcept>

#include "tests/support/test_systems.hpp"

namespace rtmb {
namespace {

TEST(Step, NonFiniteResultKeepsLastGoodStateAndFlags) {
  auto sys = std::make_shared<testing::PoisonedPendulum>(0.05);
  Settings st;
  st.dt = 0.01;
  const Model model(sys, st);
  Workspace ws(model);
  State s = initial_state(model);
  StepStatus status;
  int good = 0;
  for (int i = 0; i < 20; ++i) {
    status = step(model, s, ws);
    if (!status.ok()) break;
    ++good;
  }
  EXPECT_TRUE(has_flag(status.flags, StepFlag::kNonFinite));
  EXPECT_EQ(good, 5);  // steps ending at t <= 0.05 only evaluate finite forces
  EXPECT_TRUE(s.q.allFinite());
  EXPECT_TRUE(s.v.allFinite());
  EXPECT_NEAR(s.t, 0.05, 1e-15);  // time did not advance past the last good state
}

TEST(Step, StatusReportsDriftEnergyAndCounts) {
  auto sys = std::make_shared<testing::CircleTrack>();
  Settings st;
  st.method = Method::kRk4;
  st.stabilizer = StabilizerKind::kPStab;
  st.dt = 0.01;
  const Model model(sys, st);
  Workspace ws(model);
  State s = initial_state(model);
  const StepStatus status = step(model, s, ws);
  EXPECT_TRUE(status.ok());
  EXPECT_EQ(status.rhs_evaluations, 4);
  EXPECT_EQ(status.stabilizer_iterations, 2);
  EXPECT_EQ(status.kkt_factorizations, 5);  // 4 stages + 1 shared by the 4 PStab solves
  EXPECT_GE(status.position_drift, 0.0);
  EXPECT_LT(status.position_drift, 1e-14);
  EXPECT_LT(status.velocity_drift, 1e-12);
  EXPECT_TRUE(std::isnan(status.energy));  // CircleTrack defines no energy
}

// The count takes as many steps as fit, the last one ending within 1e-9 dt of t_end: a span whose
// quotient rounds to just above a whole number (0.07 / 0.01 = 7.000000000000001) is that many
// steps, not one more; a span that is not a whole number of steps takes one more (ending past t_end
// by less than dt).
TEST(Step, FixedStepCountEndsOnTheStepNearestTEnd) {
  ASSERT_GT(0.07 / 0.01, 7.0);  // the rounding the 1e-9 slack exists for
  EXPECT_EQ(fixed_step_count(0.0, 0.07, 0.01), 7);
  EXPECT_EQ(fixed_step_count(0.0, 1.0, 1e-3), 1000);
  EXPECT_EQ(fixed_step_count(0.0, 0.3, 0.1), 3);  // 0.3 / 0.1 = 2.9999999999999996
  EXPECT_EQ(fixed_step_count(0.0, 1.05, 0.1), 11);
  EXPECT_EQ(fixed_step_count(0.5, 1.0, 0.25), 2);
  EXPECT_EQ(fixed_step_count(0.0, 1.0 + 1e-13, 1e-3), 1000);  // within 1e-9 dt of a step
  EXPECT_EQ(fixed_step_count(1.0, 1.0, 1e-3), 0);
  EXPECT_EQ(fixed_step_count(2.0, 1.0, 1e-3), 0);
}

TEST(Model, RejectsInvalidSettingsNamingTheField) {
  auto sys = std::make_shared<testing::CircleTrack>();
  Settings st;
  st.dt = -1.0;
  try {
    const Model model(sys, st);
    FAIL() << "negative dt accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("dt"), std::string::npos) << e.what();
  }
  st.dt = 1e-3;
  st.gamma2 = -5.0;
  EXPECT_THROW(Model(sys, st), std::invalid_argument);
}

TEST(Model, NamesRoundTrip) {
  for (Method m : {Method::kEuler, Method::kHeun, Method::kRk4, Method::kDopri5}) {
    EXPECT_EQ(parse_method(to_string(m)), m);
  }
  for (StabilizerKind k :
       {StabilizerKind::kNone, StabilizerKind::kBaumgarte, StabilizerKind::kPStab,
        StabilizerKind::kSBoth, StabilizerKind::kSFull, StabilizerKind::kProject}) {
    EXPECT_EQ(parse_stabilizer(to_string(k)), k);
  }
  EXPECT_FALSE(parse_method("leapfrog").has_value());
}

}  // namespace
}  // namespace rtmb
