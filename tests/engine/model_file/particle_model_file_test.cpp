// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Particle models in model files (engine/model_file/particle_model_file.cpp,
// docs/model-format.md "Particles, rods, trusses and bending elements"): configs/four_mass.yaml
// gives the seed's masses, bars, trusses and initial state (Hoitink §4.2.1, reference §4.2), a
// planar file with a fixed anchor, a bending element and a pulse loads (the pulse's force on its
// particle at the apex), and bad input is refused at the
// offending key with file and line.
#include "engine/model_file/particle_model_file.hpp"

#include <gtest/gtest.h>

#include <string>

#include "rtmb/models/model_file.hpp"
#include "tests/support/model_file_errors.hpp"

namespace rtmb {
namespace {

using testing::model_file_error;
using testing::replace_once;

TEST(ParticleModelFile, FourMassFileHoldsTheSeedsModel) {
  const ModelFile f = load_model_file(std::string(RTMB_SOURCE_DIR) + "/configs/four_mass.yaml");
  ASSERT_TRUE(f.particles);
  EXPECT_FALSE(f.bodies || f.spatial || f.joint_space);
  const ParticleModelSpec& s = *f.particles;
  EXPECT_EQ(s.dimension, 3);
  ASSERT_EQ(s.particles.size(), 4u);
  const double masses[] = {1.0, 3.0, 2.3, 1.7};  // Hoitink §4.2.1: M = diag(1, 3, 2.3, 1.7) x I3
  for (std::size_t k = 0; k < 4; ++k) EXPECT_EQ(s.particles[k].mass, masses[k]);
  EXPECT_EQ(s.particles[3].velocity, Eigen::Vector3d(0.0, 0.0, 2.0 / 1.7));
  ASSERT_EQ(s.rods.size(), 2u);
  EXPECT_EQ(s.rods[0].i, 0);
  EXPECT_EQ(s.rods[0].j, 1);
  EXPECT_EQ(s.rods[1].i, 2);
  EXPECT_EQ(s.rods[1].j, 3);
  ASSERT_EQ(s.trusses.size(), 2u);
  EXPECT_EQ(s.trusses[0].stiffness, 100.0);
  EXPECT_EQ(s.trusses[1].stiffness, 1000.0);
  EXPECT_EQ(s.trusses[1].strain, StrainMeasure::kGreen);
  EXPECT_EQ(f.settings.method, Method::kMidpoint);
  EXPECT_EQ(f.settings.dt, 0.01);
  const auto sys = make_system(f);
  EXPECT_EQ(sys->n_q(), 12);
  EXPECT_EQ(sys->n_lambda(), 2);
  EXPECT_EQ(model_name(f), "four_mass");
  ASSERT_EQ(f.output_units.size(), 24u);
  EXPECT_EQ(f.output_units[0], "m");
  EXPECT_EQ(f.output_units[12], "m/s");
}

const char* const kPlanar = R"(name: coupler
particles:
  - {name: a, mass: 2.0, position: [0, 1]}
  - {name: b, mass: 0.2, position: [1, 1]}
  - {name: c, mass: 2.0, position: [2, 1]}
rods:
  - {name: pin, particle: a, anchor: [0, 0], length: 1}
trusses:
  - {name: ab, between: [a, b], stiffness: 10, strain: linear}
bendings:
  - {name: abc, points: [a, c, b], stiffness: 0.5}
pulses:
  - {name: kick, particle: b, peak: [0, 2], start: 0.1, duration: 0.5}
gravity: [0, -9.81]
integration: {method: midpoint, stabilizer: none, dt: 0.01}
)";

TEST(ParticleModelFile, PlanarModelWithAnchorAndBendingLoads) {
  const ModelFile f = parse_model_file(kPlanar, "coupler.yaml");
  ASSERT_TRUE(f.particles);
  EXPECT_EQ(f.particles->dimension, 2);
  EXPECT_EQ(f.particles->rods[0].i, kFixedPoint);
  EXPECT_EQ(f.particles->trusses[0].rest, 1.0);  // default: the initial distance
  EXPECT_EQ(f.particles->bendings[0].c, 1);
  EXPECT_EQ(f.particles->gravity, Eigen::Vector3d(0.0, -9.81, 0.0));
  ASSERT_EQ(f.particles->pulses.size(), 1u);
  const PulseSpec& kick = f.particles->pulses[0];
  EXPECT_EQ(kick.particle, 1);
  EXPECT_EQ(kick.peak, Eigen::Vector3d(0.0, 2.0, 0.0));
  EXPECT_EQ(kick.start, 0.1);
  EXPECT_EQ(kick.duration, 0.5);
  const auto sys = make_system(f);
  EXPECT_EQ(sys->n_q(), 6);
  // the pulse acts on b's coordinates only: at its apex (t = 0.35) f gains the peak there
  State s(sys->n_q(), sys->n_v());
  sys->initial_state(s);
  Vec before(6), apex(6);
  sys->forces(0.0, s.q, s.v, {}, before);
  sys->forces(0.35, s.q, s.v, {}, apex);
  Vec expected = Vec::Zero(6);
  expected(3) = 2.0;
  EXPECT_TRUE((apex - before).isApprox(expected, 1e-12)) << (apex - before).transpose();
  // drawn as joint points: the three particles and the anchor
  const auto* points = joint_points_of(*sys);
  ASSERT_NE(points, nullptr);
  EXPECT_EQ(points->n_joint_points(), 4);
  ASSERT_EQ(points->ground_points().size(), 1u);
  EXPECT_EQ(points->ground_points()[0], 3);
  EXPECT_EQ(points->joint_links().size(), 4u);  // rod, truss, two bending arms
}

TEST(ParticleModelFile, BadInputIsRefusedAtItsKey) {
  const std::string text = kPlanar;
  const auto refused = [&](const std::string& from, const std::string& to,
                           const std::string& expected) {
    const std::string msg = model_file_error(replace_once(text, from, to), "coupler.yaml");
    EXPECT_NE(msg.find(expected), std::string::npos) << msg;
    EXPECT_EQ(msg.rfind("coupler.yaml:", 0), 0u) << msg;
  };
  refused("between: [a, b]", "between: [a, x]",
          "key 'trusses[0].between[1]': unknown particle 'x'");
  refused("between: [a, b]", "between: [a, a]", "names particle 'a' twice");
  refused("anchor: [0, 0], length: 1", "anchor: [0, 0], length: 2",
          "key 'rods[0].length': the initial positions are 1");
  refused("mass: 0.2", "mass: 0", "key 'particles[1].mass': must be > 0");
  refused("position: [1, 1]", "position: [1, 1, 0]", "key 'particles[1].position'");
  refused("strain: linear", "strain: hooke", "key 'trusses[0].strain': expected green or linear");
  refused("points: [a, c, b]", "points: [a, b]", "key 'bendings[0].points'");
  refused("{name: b, mass: 0.2", "{name: a, mass: 0.2", "duplicate particle name 'a'");
  refused("gravity: [0, -9.81]", "gravity: [0, -9.81]\nbodies: []",
          "key 'bodies': not with 'particles'");
  refused("particle: b, peak", "particle: z, peak", "key 'pulses[0].particle': unknown particle");
  refused("duration: 0.5", "duration: 0", "key 'pulses[0].duration': must be > 0");
  refused("start: 0.1", "start: -1", "key 'pulses[0].start'");
  refused("peak: [0, 2]", "peak: [0, 2, 1]", "key 'pulses[0].peak'");
  refused("duration: 0.5}", "duration: 0.5, shape: sine}", "pulses[0]");
  // folded at the start: a and c on the same side of b
  refused("position: [2, 1]", "position: [0, 1.0000001]", "folded");
  // element keys without particles
  const std::string msg = model_file_error("mechanism: pendulum\ntrusses: []\n");
  EXPECT_NE(msg.find("key 'trusses': only with 'particles'"), std::string::npos) << msg;
}

}  // namespace
}  // namespace rtmb
