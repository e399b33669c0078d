// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Hoitink 2011 §4.2.1, the four-mass system of Gonzalez (seed 001_95e1ee7b0cc35f6b.txt; reference
// gsssss-hoitink2011.md §4.2, §5 Table 4.4 and §5.1, §8.3): four point masses in 3-D, two rigid
// bars, two Green-strain trusses, no gravity. The connectivity and which truss is 100 and which
// 1000 are not in the seed's text (P9); configs/four_mass.yaml uses the reference's assumption A
// (§8.3) and states it. Claims checked: V0(1,1,0) options 2 and 3 stable to 50 s at dt = 0.01 and
// 0.05 (§5.1), energy conserved to round-off with the discrete-gradient truss forces
// (reference §3; acceptance: <= 1e-10 relative), linear momentum (0, 0, 2) to round-off; and
// without the discrete gradient (midpoint forces) the energy error is many orders larger. The
// Newton iterations over 10 s at dt = 0.01 are printed beside Table 4.4's counts, not asserted
// (the seed's model differs, reference §8.3).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "rtmb/models/model_file.hpp"
#include "rtmb/models/particle_system.hpp"
#include "rtmb/step.hpp"
#include "tests/support/run_helpers.hpp"
#include "tests/support/without_iteration_blocks.hpp"

namespace rtmb {
namespace {

ModelFile four_mass_file() {
  return load_model_file(std::string(RTMB_SOURCE_DIR) + "/configs/four_mass.yaml");
}

std::shared_ptr<const System> four_mass_system() {
  return make_system(four_mass_file());
}

Settings hoitink_settings(int option, double dt) {
  Settings s = testing::settings_for(Method::kMidpoint, StabilizerKind::kNone, dt);
  s.implicit.option = option;
  s.implicit.newton_tolerance = 1e-8;  // Hoitink §4 (reference §4, "Common settings")
  s.implicit.newton_max_iterations = 100;
  s.implicit.newton_round_off_floor = false;
  return s;
}

struct FourMassRun {
  long steps = 0;
  long iterations_10s = 0;      ///< Newton iterations over the first 10 s
  double max_energy_rel = 0.0;  ///< max |E - E0| / |E0|
  double max_momentum_error = 0.0;
  double max_g = 0.0;
  double e0 = 0.0;
  bool ok = true;
};

FourMassRun run(std::shared_ptr<const System> sys, int option, double dt, double t_end) {
  const Model model(std::move(sys), hoitink_settings(option, dt));
  Workspace ws(model);
  State s = initial_state(model);
  const auto* particles = dynamic_cast<const ParticleSystem*>(&model.system());
  FourMassRun r;
  r.e0 = model.system().energy(0.0, s.q, s.v, {});
  const long n = std::lround(t_end / dt);
  const long n10 = std::lround(10.0 / dt);
  for (long i = 0; i < n; ++i) {
    const StepStatus st = step(model, s, ws);
    if (!st.ok()) {
      r.ok = false;
      ADD_FAILURE() << "flags " << st.flags << " at t = " << s.t;
      break;
    }
    ++r.steps;
    if (i < n10) r.iterations_10s += st.newton_iterations;
    r.max_g = std::fmax(r.max_g, st.position_drift);
    r.max_energy_rel = std::fmax(r.max_energy_rel, std::fabs(st.energy - r.e0) / std::fabs(r.e0));
    if (particles != nullptr) {
      // initial momentum: m4 z4' = 1.7 * 2/1.7 = 2 along z
      const Eigen::Vector3d p = particles->linear_momentum(s.v);
      r.max_momentum_error = std::fmax(r.max_momentum_error, (p - Eigen::Vector3d(0, 0, 2)).norm());
    }
  }
  return r;
}

class FourMass : public ::testing::TestWithParam<std::tuple<int, double>> {};

TEST_P(FourMass, MidpointIsStableTo50sAndConservesEnergyAndMomentum) {
  const auto [option, dt] = GetParam();
  const FourMassRun r = run(four_mass_system(), option, dt, 50.0);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.steps, std::lround(50.0 / dt));
  EXPECT_NEAR(r.e0, 2.0 / 1.7, 1e-15);  // trusses at rest, only m4 moving: E0 = (1/2) 1.7 (2/1.7)^2
  std::printf(
      "four-mass V0(1,1,0) opt %d, dt = %g, 50 s: max |E - E0|/E0 = %.2e, "
      "max |p - p0| = %.2e, max |g| = %.2e\n",
      option, dt, r.max_energy_rel, r.max_momentum_error, r.max_g);
  EXPECT_LE(r.max_energy_rel, 1e-10);
  EXPECT_LE(r.max_momentum_error, 1e-12);
  EXPECT_LE(r.max_g, 1e-9);  // g(u_{n+1}) / (l3 h^2) below the Newton tolerance
  if (dt == 0.01) {
    std::printf(
        "four-mass V0(1,1,0) opt %d, dt = 0.01, 10 s: %ld Newton iterations "
        "(Table 4.4 prints %d for the seed's model; reference §8.3: 2952 for option 2 "
        "under this connectivity)\n",
        option, r.iterations_10s, option == 2 ? 4969 : 4972);
  }
}

INSTANTIATE_TEST_SUITE_P(OptionsAndSteps,
                         FourMass,
                         ::testing::Combine(::testing::Values(2, 3), ::testing::Values(0.01, 0.05)),
                         [](const ::testing::TestParamInfo<std::tuple<int, double>>& p) {
                           return "Option" + std::to_string(std::get<0>(p.param)) +
                                  (std::get<1>(p.param) == 0.01 ? "_dt0p01" : "_dt0p05");
                         });

TEST(FourMassContrast, MidpointForcesWithoutTheDiscreteGradientDoNotConserveEnergy) {
  // the same model behind a wrapper that hides discrete_gradient_forces (and the analytic
  // Jacobians): the Green-strain energy is quartic in the positions, so the midpoint force does
  // not do the work V(q_{n+1}) - V(q_n) and the energy error is far above round-off
  const ModelFile file = four_mass_file();
  ASSERT_TRUE(file.particles);
  auto plain = std::make_shared<testing::WithoutIterationBlocks>(
      std::make_unique<ParticleSystem>(*file.particles));
  const FourMassRun with_dg = run(four_mass_system(), 2, 0.05, 10.0);
  const FourMassRun without = run(plain, 2, 0.05, 10.0);
  std::printf(
      "four-mass dt = 0.05, 10 s: max |E - E0|/E0 = %.2e with the discrete gradient, "
      "%.2e with midpoint forces\n",
      with_dg.max_energy_rel, without.max_energy_rel);
  EXPECT_GT(without.max_energy_rel, 1e4 * with_dg.max_energy_rel);
  EXPECT_GT(without.max_energy_rel, 1e-8);
}

}  // namespace
}  // namespace rtmb
