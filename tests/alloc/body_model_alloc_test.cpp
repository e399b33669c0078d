// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Compiled body models (rtmb/models/planar_multibody.hpp) keep the step contract: after
// construction neither the System's evaluations nor a step allocate. Counted by the malloc-family
// interposer over 10 000 steps of each body-model example file for every fixed-step method x
// stabilizer, and around direct calls of every System evaluation.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <tuple>

#include "rtmb/models/model_file.hpp"
#include "rtmb/models/planar_multibody.hpp"
#include "rtmb/step.hpp"
#include "tests/support/alloc_counter.hpp"
#include "tests/support/step_allocations.hpp"

namespace rtmb {
namespace {

using testing::AllocationCounts;
using testing::AllocationScope;

const char* const kFiles[] = {"pendulum_body.yaml", "slider_crank_body.yaml", "four_bar.yaml"};

std::shared_ptr<const System> load(const char* file) {
  return make_system(load_model_file(std::string(RTMB_SOURCE_DIR) + "/configs/" + file));
}

using Combo = std::tuple<int, Method, StabilizerKind>;

class BodyModelStepAllocations : public ::testing::TestWithParam<Combo> {};

TEST_P(BodyModelStepAllocations, TenThousandStepsAllocateNothing) {
  const auto [file, method, stabilizer] = GetParam();
  const Model model(load(kFiles[file]),
                    testing::step_allocation_settings(method, stabilizer, 1e-3));
  const testing::StepAllocationCounts run = testing::count_step_allocations(model, 10, 10'000);
  EXPECT_EQ(run.counts.allocations, 0u);
  EXPECT_EQ(run.counts.deallocations, 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Files,
    BodyModelStepAllocations,
    ::testing::Combine(
        ::testing::Range(0, static_cast<int>(std::size(kFiles))),
        ::testing::Values(Method::kEuler, Method::kHeun, Method::kRk4, Method::kDopri5),
        ::testing::Values(StabilizerKind::kNone,
                          StabilizerKind::kBaumgarte,
                          StabilizerKind::kPStab,
                          StabilizerKind::kSBoth,
                          StabilizerKind::kSFull,
                          StabilizerKind::kProject)),
    [](const ::testing::TestParamInfo<Combo>& p) {
      std::string name = kFiles[std::get<0>(p.param)];
      name = name.substr(0, name.find('.'));
      return name + "_" + std::string(to_string(std::get<1>(p.param))) + "_" +
             std::string(to_string(std::get<2>(p.param)));
    });

TEST(BodyModelAllocations, EveryEvaluationAllocatesNothing) {
  for (const char* file : kFiles) {
    const std::shared_ptr<const System> sys = load(file);
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
        e += sys->energy(0.0, s.q, s.v, {});
      }
      counts = scope.counts();
    }
    EXPECT_EQ(counts.allocations, 0u) << file;
    EXPECT_TRUE(std::isfinite(e));
  }
}

TEST(BodyModelAllocations, CounterSeesTheLoaderAllocate) {
  // negative control: loading and compiling a model must allocate, and the counter must see it
  AllocationCounts counts;
  {
    AllocationScope scope;
    const std::shared_ptr<const System> sys = load("four_bar.yaml");
    counts = scope.counts();
  }
  EXPECT_GT(counts.allocations, 10u);
}

}  // namespace
}  // namespace rtmb
