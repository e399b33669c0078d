// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Issue 16, acceptance 5 (the rolling joints): zero allocations per step for a model with a
// rolling wheel (configs/rolling_wheel.yaml: a holonomic contact row and a nonholonomic no-slip
// row), one with knife edges (a sled and a trailer hitched to it, each on a blade) and the spatial
// rolling disc (configs/rolling_disc_body.yaml: a contact row and two no-slip rows), for every
// explicit method x {pstab, sboth, project, baumgarte}, with the sparse KKT path (auto) and the
// dense one; and for the energy pass of PStab and S-both (Settings::stabilize_energy). Every
// counted step must also be unflagged.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>
#include <utility>

#include "rtmb/models/mechanisms.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/step.hpp"
#include "tests/support/alloc_counter.hpp"
#include "tests/support/reference_mechanisms.hpp"
#include "tests/support/step_allocations.hpp"

namespace rtmb {
namespace {

constexpr long kSteps = testing::kCountsViaSanitizerHooks ? 50 : 500;

constexpr const char* kSleds =
    "bodies:\n"
    "  - {name: sled, mass: 2, inertia: 0.1, pose: [0, 0, 0], velocity: [0.8, 0, 0.7]}\n"
    "  - {name: trailer, mass: 1, inertia: 0.05, pose: [-0.8, 0, 0], velocity: [0.8, 0, 0]}\n"
    "joints:\n"
    "  - {name: sled_blade, type: knife_edge, body: sled, point: [-0.2, 0]}\n"
    "  - {name: trailer_blade, type: knife_edge, body: trailer, point: [-0.1, 0]}\n"
    "  - {name: hitch, type: revolute, body_i: sled, point_i: [-0.4, 0], body_j: trailer, "
    "point_j: [0.4, 0]}\n"
    "forces:\n"
    "  - {type: torque, body: sled, torque: 0.3}\n";

TEST(RollingJointsAllocations, EveryExplicitMethodWithEachStabilizerAllocatesNothing) {
  const std::shared_ptr<const System> wheel = testing::load_config_system("rolling_wheel.yaml");
  const std::shared_ptr<const System> sleds = make_system(parse_model_file(kSleds, "sleds.yaml"));
  ASSERT_EQ(wheel->n_nonholonomic(), 1);
  ASSERT_EQ(sleds->n_nonholonomic(), 2);
  const std::shared_ptr<const System> disc = testing::load_config_system("rolling_disc_body.yaml");
  ASSERT_EQ(disc->n_nonholonomic(), 2);
  int runs = 0;
  for (const auto& [name, sys] : {std::pair{"rolling_wheel", wheel}, std::pair{"sleds", sleds},
                                  std::pair{"rolling_disc_body", disc}}) {
    for (const Method method : testing::kExplicitMethods) {
      for (const StabilizerKind stabilizer :
           {StabilizerKind::kPStab, StabilizerKind::kSBoth, StabilizerKind::kProject,
            StabilizerKind::kBaumgarte}) {
        for (const KktSolver solver : {KktSolver::kAuto, KktSolver::kDense}) {
          Settings settings = testing::step_allocation_settings(method, stabilizer, 1e-3);
          settings.solver = solver;
          const Model model(sys, settings);
          const testing::StepAllocationCounts run =
              testing::count_step_allocations(model, 5, kSteps);
          const std::string combo = std::string(name) + " " + std::string(to_string(method)) +
                                    " + " + std::string(to_string(stabilizer)) + " " +
                                    std::string(to_string(model.solver()));
          EXPECT_EQ(run.counts.allocations, 0u) << combo;
          EXPECT_EQ(run.counts.deallocations, 0u) << combo;
          EXPECT_EQ(run.flagged, 0) << combo;
          ++runs;
        }
      }
    }
  }
  std::printf("rolling joints: %d runs of %ld steps, no allocation\n", runs, kSteps);
}

// Settings::stabilize_energy (engine/stabilize/energy_stabilization.hpp), the energy pass after
// PStab's and S-both's: on the rolling disc (dense) and the rolling wheel (sparse path), every
// explicit method
TEST(RollingJointsAllocations, EnergyStabilizationAllocatesNothing) {
  const std::shared_ptr<const System> disc = make_mechanism("rolling_disc");
  const std::shared_ptr<const System> wheel = testing::load_config_system("rolling_wheel.yaml");
  int runs = 0;
  for (const auto& sys : {disc, wheel}) {
    for (const Method method : testing::kExplicitMethods) {
      for (const StabilizerKind stabilizer : {StabilizerKind::kPStab, StabilizerKind::kSBoth}) {
        Settings settings = testing::step_allocation_settings(method, stabilizer, 1e-3);
        settings.stabilize_energy = true;
        const Model model(sys, settings);
        const testing::StepAllocationCounts run = testing::count_step_allocations(model, 5, kSteps);
        const std::string combo = std::string(sys->name()) + " " + std::string(to_string(method)) +
                                  " + " + std::string(to_string(stabilizer));
        EXPECT_EQ(run.counts.allocations, 0u) << combo;
        EXPECT_EQ(run.counts.deallocations, 0u) << combo;
        EXPECT_EQ(run.flagged, 0) << combo;
        ++runs;
      }
    }
  }
  std::printf("energy stabilization: %d runs of %ld steps, no allocation\n", runs, kSteps);
}

}  // namespace
}  // namespace rtmb
