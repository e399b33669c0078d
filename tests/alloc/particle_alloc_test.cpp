// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The step contract for point-mass models with trusses and bending elements (issue 17):
// every System evaluation of a ParticleSystem, its discrete-gradient forces and force Jacobians,
// and every method x stabilizer step on configs/four_mass.yaml (the implicit midpoint family
// through its discrete-gradient path) allocate nothing after setup.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "rtmb/models/particle_system.hpp"
#include "rtmb/step.hpp"
#include "tests/support/alloc_counter.hpp"
#include "tests/support/step_allocations.hpp"

namespace rtmb {
namespace {

using testing::AllocationCounts;
using testing::AllocationScope;

// a planar particle chain with a rod to a fixed point, a linear truss and a bending element, so
// that every element type is evaluated (the four-mass file has rods and Green trusses only)
std::shared_ptr<const System> planar_particles() {
  ParticleModelSpec s;
  s.dimension = 2;
  s.particles = {{"a", 1.0, {1.0, 0.0, 0.0}, {0.0, 0.3, 0.0}},
                 {"b", 0.5, {2.0, 0.1, 0.0}, {0.0, 0.0, 0.0}},
                 {"c", 0.5, {3.0, 0.0, 0.0}, {0.0, -0.2, 0.0}}};
  s.rods = {{"pin", kFixedPoint, 0, Eigen::Vector3d::Zero(), 1.0}};
  s.trusses = {{"ab", 0, 1, 50.0, 1.0, StrainMeasure::kLinear},
               {"bc", 1, 2, 50.0, 1.0, StrainMeasure::kGreen}};
  s.bendings = {{"abc", 0, 2, 1, 0.5}};
  s.gravity = Eigen::Vector3d(0.0, -9.81, 0.0);
  return std::make_shared<ParticleSystem>(s);
}

TEST(ParticleAllocations, EvaluationsAllocateNothing) {
  for (const auto& sys : {testing::load_config_system("four_mass.yaml"), planar_particles()}) {
    const testing::EvaluationAllocations e = testing::count_evaluation_allocations(*sys, 0.0, true);
    EXPECT_EQ(e.counts.allocations, 0u) << sys->name();
    EXPECT_TRUE(e.forces_finite);
    const DiscreteGradientForces* dg = discrete_gradient_of(*sys);
    ASSERT_NE(dg, nullptr);
    State s;
    sys->initial_state(s);
    const Vec q1 = s.q + 0.01 * Vec::Ones(sys->n_q());
    Vec f(sys->n_v());
    Mat fq(sys->n_v(), sys->n_q());
    Mat fv(sys->n_v(), sys->n_v());
    AllocationCounts counts;
    {
      AllocationScope scope;
      for (int i = 0; i < 100; ++i) {
        dg->discrete_gradient_forces(0.0, s.q, q1, s.v, {}, f);
        (void)sys->force_jacobians(0.0, s.q, s.v, fq, fv);
      }
      counts = scope.counts();
    }
    EXPECT_EQ(counts.allocations, 0u) << sys->name();
    EXPECT_EQ(counts.deallocations, 0u) << sys->name();
  }
}

TEST(ParticleAllocations, EveryMethodAndStabilizerStepsWithoutHeap) {
  for (const auto& sys : {testing::load_config_system("four_mass.yaml"), planar_particles()}) {
    const std::string name(sys->name());
    const testing::StepAllocationSweep sweep = testing::sweep_step_allocations(
        sys, 0.01, 200, name,
        [&](Method method, StabilizerKind stabilizer, const testing::StepAllocationCounts& run) {
          EXPECT_EQ(run.counts.allocations, 0u)
              << name << " " << to_string(method) << " + " << to_string(stabilizer);
          EXPECT_EQ(run.counts.deallocations, 0u)
              << name << " " << to_string(method) << " + " << to_string(stabilizer);
        });
    EXPECT_GT(sweep.ran, 20) << name;
  }
}

}  // namespace
}  // namespace rtmb
