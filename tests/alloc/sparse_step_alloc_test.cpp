// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The sparse KKT path keeps the step contract: after Model and Workspace construction no step
// allocates. Counted by the malloc-family interposer over 5 000 steps of four_bar.yaml with
// solver sparse for every explicit method x every stabilizer with a sparse path, over 2 000
// steps of a 1000-link pinned chain (RK4 + PStab and MAMPC4 + S-both), over 1 000 steps of the
// 200-element particle beam of `rtmb gen beam` (RK4 + PStab), and around the sparse
// System evaluations themselves (the fused ones included).
#include <gtest/gtest.h>

#include <initializer_list>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "rtmb/models/chain_models.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/models/planar_multibody.hpp"
#include "rtmb/step.hpp"
#include "rtmb/system.hpp"
#include "tests/support/alloc_counter.hpp"
#include "tests/support/param_names.hpp"
#include "tests/support/planar_chain_spec.hpp"
#include "tests/support/reference_mechanisms.hpp"
#include "tests/support/sparse_models.hpp"
#include "tests/support/step_allocations.hpp"

namespace rtmb {
namespace {

using testing::AllocationCounts;
using testing::AllocationScope;

Settings sparse_settings(Method method, StabilizerKind stabilizer) {
  Settings s = testing::step_allocation_settings(method, stabilizer, 1e-3);
  s.solver = KktSolver::kSparse;
  return s;
}

using Combo = std::tuple<Method, StabilizerKind>;

class SparseStepAllocations : public ::testing::TestWithParam<Combo> {};

TEST_P(SparseStepAllocations, FourBarFiveThousandStepsAllocateNothing) {
  const auto [method, stabilizer] = GetParam();
  const Model model(
      make_system(load_model_file(std::string(RTMB_SOURCE_DIR) + "/configs/four_bar.yaml")),
      sparse_settings(method, stabilizer));
  ASSERT_EQ(model.solver(), KktSolver::kSparse);
  const testing::StepAllocationCounts run = testing::count_step_allocations(model, 10, 5'000);
  EXPECT_EQ(run.counts.allocations, 0u);
  EXPECT_EQ(run.counts.deallocations, 0u);
  EXPECT_EQ(run.flagged, 0);
}

const StabilizerKind kSparseStabilizers[] = {StabilizerKind::kNone, StabilizerKind::kBaumgarte,
                                             StabilizerKind::kPStab, StabilizerKind::kSBoth,
                                             StabilizerKind::kProject};

INSTANTIATE_TEST_SUITE_P(ExplicitMethods,
                         SparseStepAllocations,
                         ::testing::Combine(::testing::ValuesIn(testing::kExplicitMethods),
                                            ::testing::ValuesIn(kSparseStabilizers)),
                         testing::method_stabilizer_param_name);

// `steps` sparse steps of `sys` with each method + stabilizer allocate and free nothing and are
// never flagged
void expect_sparse_steps_allocate_nothing(const std::shared_ptr<const System>& sys,
                                          std::initializer_list<Combo> combos,
                                          long steps) {
  for (const auto& [method, stabilizer] : combos) {
    const Model model(sys, sparse_settings(method, stabilizer));
    ASSERT_EQ(model.solver(), KktSolver::kSparse) << sys->name();
    const testing::StepAllocationCounts run = testing::count_step_allocations(model, 5, steps);
    EXPECT_EQ(run.counts.allocations, 0u) << sys->name() << " " << to_string(method);
    EXPECT_EQ(run.counts.deallocations, 0u) << sys->name() << " " << to_string(method);
    EXPECT_EQ(run.flagged, 0) << sys->name() << " " << to_string(method);
  }
}

TEST(SparseStepAllocations, ThousandLinkChainAllocatesNothing) {
  expect_sparse_steps_allocate_nothing(
      std::make_shared<PlanarMultibody>(testing::planar_chain_spec(1000, true)),
      {Combo{Method::kRk4, StabilizerKind::kPStab}, Combo{Method::kMampc4, StabilizerKind::kSBoth}},
      2'000);
}

TEST(SparseStepAllocations, TwoHundredElementParticleBeamAllocatesNothing) {
  // issue 17, acceptance 5: the beam of `rtmb gen beam --n 200` with the benchmark's (and its
  // model file's) RK4 + PStab at dt = 1 ms (bench/sparse_step_bench.cpp,
  // BM_ChainStep/particle_beam). Not the Adams methods: the beam's highest bending frequency,
  // 1600 rad/s, is outside their stability region at this step (their steps get flagged).
  expect_sparse_steps_allocate_nothing(
      make_system(parse_model_file(beam_model_yaml(200), "beam_200")),
      {Combo{Method::kRk4, StabilizerKind::kPStab}}, 1'000);
}

TEST(SparseStepAllocations, SparseEvaluationsAllocateNothing) {
  const auto chain = std::make_shared<PlanarMultibody>(testing::planar_chain_spec(100, true));
  SparsePattern m;
  SparsePattern g;
  ASSERT_TRUE(chain->sparse_structure(m, g));
  std::vector<double> mv(static_cast<std::size_t>(m.nonzeros()));
  std::vector<double> gv(static_cast<std::size_t>(g.nonzeros()));
  State s;
  chain->initial_state(s);
  AllocationCounts counts;
  {
    AllocationScope scope;
    for (int i = 0; i < 100; ++i) {
      chain->mass_values(0.0, s.q, mv);
      chain->jacobian_values(0.0, s.q, gv);
    }
    counts = scope.counts();
  }
  EXPECT_EQ(counts.allocations, 0u);
}

TEST(SparseStepAllocations, FusedEvaluationsAllocateNothing) {
  // System::jacobian_values_and_curvature / _and_constraints (the step's fused calls) on every
  // sparse configs/ model (planar with drivers, spatial, a reduced IndependentRowsSystem) and a
  // pinned chain
  std::vector<testing::NamedSystem> models = testing::sparse_config_models();
  ASSERT_GE(models.size(), 3u);
  models.push_back(
      {"chain_loop_100", std::make_shared<PlanarMultibody>(testing::planar_chain_spec(100, true))});
  for (const auto& [name, sys, dt] : models) {
    SparsePattern m;
    SparsePattern g;
    ASSERT_TRUE(sys->sparse_structure(m, g));
    std::vector<double> gv(static_cast<std::size_t>(g.nonzeros()));
    Vec rows(sys->n_lambda());
    State s;
    sys->initial_state(s);
    AllocationCounts counts;
    {
      AllocationScope scope;
      for (int i = 0; i < 50; ++i) {
        sys->jacobian_values_and_curvature(0.01 * i, s.q, s.v, gv, rows);
        sys->jacobian_values_and_constraints(0.01 * i, s.q, gv, rows);
      }
      counts = scope.counts();
    }
    EXPECT_EQ(counts.allocations, 0u) << name;
  }
}

TEST(SparseStepAllocations, CounterSeesTheSparseSetupAllocate) {
  // negative control: building the sparse workspace allocates, and the counter sees it
  const auto chain = std::make_shared<PlanarMultibody>(testing::planar_chain_spec(10, true));
  const Model model(chain, sparse_settings(Method::kRk4, StabilizerKind::kPStab));
  AllocationCounts counts;
  {
    AllocationScope scope;
    const Workspace ws(model);
    counts = scope.counts();
  }
  EXPECT_GT(counts.allocations, 10u);
}

}  // namespace
}  // namespace rtmb
