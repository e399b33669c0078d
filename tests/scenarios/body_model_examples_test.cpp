// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Body models from the files in configs/: the body-coordinate slider-crank against the built-in
// minimal-coordinate one (an independent implementation of the same physics, Wu et al. 2000),
// the beam-body deformable slider-crank against the hand-written built-in (Chin 1995 §3.12),
// energy conservation of the conservative examples, and every example file loading and running
// on its constraint manifold.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "rtmb/models/mechanisms.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/models/planar_multibody.hpp"
#include "rtmb/step.hpp"
#include "tests/support/model_lookup.hpp"

namespace rtmb {
namespace {

using testing::body_index;
using testing::config_path;
using testing::rk4_pstab;

TEST(BodyModels, SliderCrankReproducesTheBuiltInCrankAngleHistory) {
  // The built-in has q = (theta, phi, x, y): crank angle, rod angle, rod centre of mass, with a
  // massless slider. The file's slider has 0.1 kg (model files need mass > 0); with its mass
  // and inertia set to zero here the two describe the same physics: the crank's centre of mass
  // is on its pivot, so its inertia about the pivot is the built-in's J1 and its mass does no
  // work.
  const ModelFile f = load_model_file(config_path("slider_crank_body.yaml"));
  ASSERT_TRUE(f.bodies);
  EXPECT_TRUE(f.notes.empty()) << f.notes.front();  // the file's pose is already consistent
  PlanarModelSpec spec = *f.bodies;
  const int slider = body_index(spec, "slider");
  spec.bodies[static_cast<std::size_t>(slider)].mass = 0.0;
  spec.bodies[static_cast<std::size_t>(slider)].inertia = 0.0;
  const int crank = body_index(spec, "crank");
  const int rod = body_index(spec, "rod");

  const double dt = 1e-4;
  const Model body(std::make_shared<PlanarMultibody>(spec), rk4_pstab(dt));
  const Model ref(make_mechanism("slider_crank"), rk4_pstab(dt));
  Workspace wb(body);
  Workspace wr(ref);
  State sb = initial_state(body);
  State sr = initial_state(ref);
  double max_theta = 0.0;
  double max_rod = 0.0;
  double swept = 0.0;
  const double theta0 = sr.q(0);
  for (int k = 0; k < 10000; ++k) {  // 1 s
    ASSERT_TRUE(step(body, sb, wb).ok());
    ASSERT_TRUE(step(ref, sr, wr).ok());
    max_theta = std::max(max_theta, std::abs(sb.q(3 * crank + 2) - sr.q(0)));
    max_rod = std::max(max_rod, std::abs(sb.q(3 * rod + 2) - sr.q(1)));
    max_rod = std::max(max_rod, std::abs(sb.q(3 * rod) - sr.q(2)));
    max_rod = std::max(max_rod, std::abs(sb.q(3 * rod + 1) - sr.q(3)));
    swept = std::max(swept, std::abs(sr.q(0) - theta0));
  }
  RecordProperty("max_crank_angle_difference", std::to_string(max_theta));
  EXPECT_GT(swept, 0.5);  // the crank really moves: the comparison is not of two rests
  EXPECT_LE(max_theta, 1e-8);
  EXPECT_LE(max_rod, 1e-8);
  std::printf("slider-crank: max |theta_body - theta_builtin| = %.3e rad, rod %.3e, swept %.3f\n",
              max_theta, max_rod, swept);
}

TEST(BodyModels, DeformableSliderCrankFollowsTheBuiltIn) {
  // configs/deformable_slider_crank_body.yaml (a `kind: beam` rod) against the hand-written
  // built-in of configs/deformable_slider_crank.yaml (Chin 1995 §3.12, Table 5.1), the same
  // physics but for what the file states it leaves out: the sin(t) part of the crank torque
  // (< 0.003 rad/s of crank speed over the run) and a slider of 1e-6 lb s^2/in (0.2 % of the
  // rod's mass). Their midspan deflections (Fig. 5.5, 180 rad/s) agree to a small fraction of
  // its amplitude over half of Fig. 5.5's 0.07 s (measured 2026-11-29: 1.9e-4 in of 0.317 in;
  // 2.4e-4 in over all 0.07 s).
  const ModelFile f = load_model_file(config_path("deformable_slider_crank_body.yaml"));
  ASSERT_TRUE(f.bodies);
  EXPECT_TRUE(f.notes.empty()) << f.notes.front();  // the file's state is consistent
  const auto sys = std::make_shared<PlanarMultibody>(*f.bodies);
  const int rod = body_index(*f.bodies, "rod");
  const int crank = body_index(*f.bodies, "crank");
  const ModelFile built_in = load_model_file(config_path("deformable_slider_crank.yaml"));
  const Model body(sys, f.settings);
  const Model ref(make_system(built_in), built_in.settings);
  ASSERT_EQ(f.settings.dt, built_in.settings.dt);
  Workspace wb(body);
  Workspace wr(ref);
  State sb = initial_state(body);
  State sr = initial_state(ref);
  double largest = 0.0;  // |v(l/2)| [in]
  double worst = 0.0;
  double worst_crank = 0.0;
  for (int k = 0; k < 3500; ++k) {
    ASSERT_TRUE(step(body, sb, wb).ok());
    ASSERT_TRUE(step(ref, sr, wr).ok());
    // the built-in's midspan deflection is its elastic coordinate q(5), node 1's transverse
    // displacement (Chin's layout: node 0's slope, node 1's axial, transverse, ...)
    const double midspan = sys->beam_deflection(sb.q, rod, 6.0).y();
    largest = std::max(largest, std::abs(sr.q(5)));
    worst = std::max(worst, std::abs(midspan - sr.q(5)));
    worst_crank =
        std::max(worst_crank, std::abs(sb.q(sys->coordinate_offset(crank) + 2) - sr.q(9)));
  }
  std::printf(
      "deformable slider-crank, body model vs built-in over 0.035 s: midspan %.3e of %.3e in, "
      "crank angle %.3e rad\n",
      worst, largest, worst_crank);
  EXPECT_GT(largest, 0.05);  // the rod bends
  EXPECT_LE(worst, 5e-3 * largest);
  EXPECT_LE(worst_crank, 1e-3);
}

class ConservativeExample : public ::testing::TestWithParam<const char*> {};

TEST_P(ConservativeExample, ConservesEnergyOverOneSecond) {
  const ModelFile f = load_model_file(config_path(GetParam()));
  const std::shared_ptr<const System> sys = make_system(f);
  ASSERT_TRUE(sys->has_energy());
  const Model model(sys, rk4_pstab(1e-3));
  Workspace ws(model);
  State s = initial_state(model);
  const double e0 = sys->energy(s.t, s.q, s.v, {});
  ASSERT_GT(std::abs(e0), 0.1);  // a relative error needs a scale
  double worst = 0.0;
  double speed = 0.0;
  for (int k = 0; k < 1000; ++k) {
    ASSERT_TRUE(step(model, s, ws).ok());
    worst = std::max(worst, std::abs(sys->energy(s.t, s.q, s.v, {}) - e0) / std::abs(e0));
    speed = std::max(speed, s.v.lpNorm<Eigen::Infinity>());
  }
  EXPECT_GT(speed, 0.1);  // it moved
  EXPECT_LE(worst, 1e-8);
  std::printf("%s: E0 = %.6f J, max |E - E0|/|E0| = %.3e\n", GetParam(), e0, worst);
}

INSTANTIATE_TEST_SUITE_P(Files,
                         ConservativeExample,
                         ::testing::Values("pendulum_body.yaml",
                                           "slider_crank_body.yaml",
                                           "four_bar.yaml",
                                           "double_pendulum_body.yaml"));

TEST(BodyModels, EveryExampleFileLoadsAndStaysOnTheConstraints) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(config_path(""))) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  }
  ASSERT_GE(files.size(), 4u);
  for (const std::filesystem::path& p : files) {
    SCOPED_TRACE(p.string());
    const ModelFile f = load_model_file(p.string());
    const std::shared_ptr<const System> sys = make_system(f);
    // one generalized force per coordinate, or one channel per named input (drive)
    const int channels = sys->n_inputs() > 0 ? sys->n_inputs() : sys->n_v();
    EXPECT_EQ(f.inputs.size(), static_cast<std::size_t>(channels));
    const Model model(sys, f.settings);
    Workspace ws(model);
    State s = initial_state(model);
    Vec g(sys->n_lambda());
    double worst = 0.0;
    for (int k = 0; k < 1000; ++k) {
      ASSERT_TRUE(step(model, s, ws).ok());
      sys->constraints(s.t, s.q, g);
      worst = std::max(worst, g.lpNorm<Eigen::Infinity>());
    }
    EXPECT_LE(worst, 1e-10);
    std::printf("%s: max |g|_inf over 1000 steps = %.3e\n", p.filename().c_str(), worst);
  }
}

TEST(BodyModels, BodyFileDefaultsNameChannelsAndUnitsPerBody) {
  const ModelFile f = load_model_file(config_path("four_bar.yaml"));
  EXPECT_TRUE(f.mechanism.empty());
  EXPECT_EQ(model_name(f), "four_bar_body");
  ASSERT_EQ(f.inputs.size(), 9u);
  EXPECT_EQ(f.inputs[0].name, "crank.fx");
  EXPECT_EQ(f.inputs[5].name, "coupler.tz");
  EXPECT_EQ(f.inputs[5].unit, "N*m");
  ASSERT_EQ(f.output_units.size(), 18u);
  EXPECT_EQ(f.output_units[2], "rad");
  EXPECT_EQ(f.output_units[9], "m/s");
  EXPECT_EQ(f.settings.method, Method::kRk4);
}

TEST(BodyModels, AnInconsistentPoseIsAssembledWithANote) {
  // the pendulum's rod 1 cm off its pivot: assembled, said so, and then consistent
  const std::string text =
      "bodies:\n  - {name: rod, mass: 1, inertia: 0.1, pose: [0.51, 0.01, 0]}\n"
      "joints:\n  - {type: revolute, body_i: ground, body_j: rod, point_j: [-0.5, 0]}\n";
  const ModelFile f = parse_model_file(text, "rig.yaml");
  ASSERT_EQ(f.notes.size(), 1u);
  EXPECT_NE(f.notes[0].find("assembled"), std::string::npos) << f.notes[0];
  const auto sys = make_system(f);
  State s;
  sys->initial_state(s);
  Vec g(sys->n_lambda());
  sys->constraints(0.0, s.q, g);
  EXPECT_LE(g.lpNorm<Eigen::Infinity>(), 1e-10);
  EXPECT_EQ(model_name(f), "rig");
}

}  // namespace
}  // namespace rtmb
