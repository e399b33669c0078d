// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Model files (include/rtmb/models/model_file.hpp): configs/default.yaml loads, and every class of
// bad input is refused with a message naming file, line and key.
#include "rtmb/models/model_file.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <numbers>
#include <string>

#include "rtmb/models/planar_multibody.hpp"
#include "rtmb/state.hpp"
#include "rtmb/step.hpp"
#include "tests/support/beam_slider_crank.hpp"
#include "tests/support/model_file_errors.hpp"

namespace rtmb {
namespace {

TEST(ModelFile, DefaultConfigLoadsAndBuildsAModel) {
  const std::string path = std::string(RTMB_SOURCE_DIR) + "/configs/default.yaml";
  const ModelFile f = load_model_file(path);
  EXPECT_EQ(f.mechanism, "slider_crank");
  EXPECT_EQ(f.settings.method, Method::kRk4);
  EXPECT_EQ(f.settings.stabilizer, StabilizerKind::kPStab);
  EXPECT_EQ(f.settings.dt, 0.001);
  EXPECT_EQ(f.rate_hz, 1000.0);
  ASSERT_EQ(f.inputs.size(), 4u);
  EXPECT_EQ(f.inputs[0].name, "crank_torque");
  EXPECT_EQ(f.inputs[0].unit, "N*m");
  EXPECT_EQ(f.inputs[0].config.kind, InputKind::kTorque);
  EXPECT_EQ(f.inputs[0].config.policy, MissPolicy::kExtrapolate);
  EXPECT_EQ(f.inputs[0].config.extrapolate_horizon_ns, 2'000'000);
  EXPECT_EQ(f.inputs[2].config.policy, MissPolicy::kDecay);
  EXPECT_EQ(f.inputs[2].config.decay_tau_ns, 5'000'000);
  EXPECT_EQ(f.inputs[3].config.max_value, 50.0);
  EXPECT_EQ(f.input_bank.watchdog_ramp_ns, 10'000'000);
  EXPECT_EQ(f.input_bank.stale_after_ns, 3'000'000);
  EXPECT_EQ(f.output_units.size(), 8u);
  // what it describes runs: a closed loop that stays closed
  const Model model(std::shared_ptr<const System>(make_mechanism(f.mechanism, f.options)),
                    f.settings);
  Workspace ws(model);
  State s = initial_state(model);
  for (int k = 0; k < 1000; ++k) ASSERT_TRUE(step(model, s, ws).ok());
  EXPECT_LE(step(model, s, ws).position_drift, 1e-12);
}

TEST(ModelFile, BuiltinDefaultsAreOneForcePerCoordinate) {
  const ModelFile f = builtin_model_file("andrews");
  EXPECT_EQ(f.settings.dt, find_mechanism("andrews")->default_dt);
  ASSERT_EQ(f.inputs.size(), 7u);
  EXPECT_EQ(f.inputs[6].name, "f6");
  EXPECT_EQ(f.inputs[6].config.kind, InputKind::kForce);
  EXPECT_THROW((void)builtin_model_file("nope"), std::invalid_argument);
}

TEST(ModelFile, DeformableSliderCrankTakesChinsCrankSpeedFromItsOptions) {
  // Chin ch. 5 runs phi'(0) = 180, 120 and 60 rad/s; the file sets 180, options override it
  const ModelFile f =
      load_model_file(std::string(RTMB_SOURCE_DIR) + "/configs/deformable_slider_crank.yaml");
  EXPECT_EQ(f.mechanism, "deformable_slider_crank");
  EXPECT_EQ(f.options.crank_speed, 180.0);
  EXPECT_EQ(f.settings.dt, 1e-5);
  for (const double speed : {180.0, 60.0}) {
    MechanismOptions options = f.options;
    options.crank_speed = speed;
    State s;
    make_mechanism(f.mechanism, options)->initial_state(s);
    EXPECT_EQ(s.v(s.v.size() - 1), speed) << "phi' is the last velocity";
    EXPECT_EQ(s.v(1), 6.0 * speed) << "R2' = r phi' at phi = 0, r = 6 in";
  }
}

std::string error_of(const std::string& text) {
  return testing::model_file_error(text);
}

// A mapping key that is not a plain scalar (a list, a mapping, an anchor on nothing) is a
// ModelFileError at its place; yaml-cpp's conversion exception used to escape the loader (found by
// fuzz/fuzz_model.cpp: a body entry with `&pose: [...]`).
TEST(ModelFile, AKeyThatIsNotAPlainNameIsAnErrorNotAnEscapingException) {
  for (const char* text : {
           "mechanism: pendulum\n? [a, b]\n: 1\n",
           "mechanism: pendulum\n? {a: 1}\n: 2\n",
           "mechanism: pendulum\nintegration:\n  &x : 1\n",
           "name: m\nbodies:\n  - {name: b, mass: 1.0, inertia: 1.0, &pose: [1.0, 0.0, 0.0]}\n",
       }) {
    const std::string message = error_of(text);
    EXPECT_EQ(message.rfind("rig.yaml:", 0), 0u) << text << "\n" << message;
    EXPECT_NE(message.find("a key must be a plain name"), std::string::npos) << text << "\n"
                                                                             << message;
  }
}

// A scalar where a mapping belongs, read through YamlReader::required: a ModelFileError at the
// scalar naming its key; yaml-cpp's BadSubscript used to escape the loader and end the program
// (found by fuzz/fuzz_model.cpp: a joint's `driver: the slider follows the closed form`).
TEST(ModelFile, AScalarWhereAMappingBelongsIsAnErrorNotAnEscapingException) {
  const std::string text =
      "name: m\n"
      "bodies:\n"
      "  - {name: crank, mass: 1.0, inertia: 0.045, pose: [0.0, 0.0, 0.0]}\n"
      "joints:\n"
      "  - name: pivot\n"
      "    type: revolute\n"
      "    body_i: ground\n"
      "    body_j: crank\n"
      "    driver: the slider follows the closed form\n";
  const std::string message = error_of(text);
  EXPECT_EQ(message.rfind("rig.yaml:9:13: key 'joints[0].driver'", 0), 0u) << message;
  EXPECT_NE(message.find("expected a mapping with 'type'"), std::string::npos) << message;
}

// Every bad-input class: the message starts with file:line:column and names the key.
struct BadCase {
  const char* what;
  const char* text;
  const char* where;  // expected "file:line:" prefix
  const char* key;    // expected "key '...'"
  const char* why;    // a fragment of the reason
};

class ModelFileBadInput : public ::testing::TestWithParam<BadCase> {};

TEST_P(ModelFileBadInput, NamesFileLineAndKey) {
  const BadCase& c = GetParam();
  const std::string message = error_of(c.text);
  EXPECT_EQ(message.rfind(c.where, 0), 0u) << c.what << ": " << message;
  EXPECT_NE(message.find(std::string("key '") + c.key + "'"), std::string::npos)
      << c.what << ": " << message;
  EXPECT_NE(message.find(c.why), std::string::npos) << c.what << ": " << message;
}

INSTANTIATE_TEST_SUITE_P(
    AllClasses,
    ModelFileBadInput,
    ::testing::Values(
        BadCase{"unknown top-level key", "mechanism: pendulum\nintegrator:\n  dt: 0.001\n",
                "rig.yaml:2:1:", "integrator", "unknown key"},
        BadCase{"unknown nested key", "mechanism: pendulum\nintegration:\n  dtt: 0.001\n",
                "rig.yaml:3:3:", "integration.dtt", "unknown key"},
        BadCase{"missing mechanism", "integration:\n  dt: 0.001\n", "rig.yaml:1:1:", "mechanism",
                "missing"},
        BadCase{"unknown mechanism", "mechanism: pendulumm\n", "rig.yaml:1:12:", "mechanism",
                "unknown mechanism 'pendulumm'"},
        BadCase{"wrong type", "mechanism: pendulum\nintegration:\n  dt: fast\n",
                "rig.yaml:3:7:", "integration.dt", "expected a number"},
        BadCase{"non-positive step", "mechanism: pendulum\nintegration:\n  dt: -1e-3\n",
                "rig.yaml:3:7:", "integration.dt", "must be > 0"},
        BadCase{"unknown method", "mechanism: pendulum\nintegration:\n  method: rk5\n",
                "rig.yaml:3:11:", "integration.method", "unknown method 'rk5'"},
        BadCase{"unknown svf variant", "mechanism: pendulum\nintegration:\n  svf_variant: gtt\n",
                "rig.yaml:3:16:", "integration.svf_variant",
                "unknown svf_variant 'gtt' (valid: ggt_inverse, gt)"},
        BadCase{"non-positive svf gamma", "mechanism: pendulum\nintegration:\n  gamma: 0\n",
                "rig.yaml:3:10:", "integration.gamma", "must be > 0"},
        BadCase{"svf without gamma", "mechanism: pendulum\nintegration:\n  stabilizer: svf\n",
                "rig.yaml:3:15:", "integration.stabilizer", "stabilizer svf needs gamma > 0"},
        BadCase{"mapping expected", "mechanism: pendulum\nintegration: rk4\n",
                "rig.yaml:2:14:", "integration", "expected a mapping"},
        BadCase{"channel count", "mechanism: pendulum\ninputs:\n  channels:\n    - {name: a}\n",
                "rig.yaml:4:5:", "inputs.channels", "lists 1 channels"},
        BadCase{"unknown policy",
                "mechanism: pendulum\ninputs:\n  channels:\n    - {name: a}\n    - {name: b, "
                "policy: guess}\n",
                "rig.yaml:5:25:", "inputs.channels[1].policy", "unknown policy 'guess'"},
        BadCase{"duplicate channel name",
                "mechanism: pendulum\ninputs:\n  channels:\n    - {name: a}\n    - {name: a}\n",
                "rig.yaml:5:7:", "inputs.channels[1].name", "already channel 0"},
        BadCase{"force clamp excludes zero",
                "mechanism: pendulum\ninputs:\n  channels:\n    - {kind: force, min: 1, max: 2}\n"
                "    - {}\n",
                "rig.yaml:4:7:", "inputs.channels[0]", "min_value"},
        BadCase{"integer expected", "mechanism: chain\noptions:\n  chain_links: 2.5\n",
                "rig.yaml:3:16:", "options.chain_links", "expected an integer"},
        BadCase{"crank speed not positive",
                "mechanism: deformable_slider_crank\noptions:\n  crank_speed: 0\n",
                "rig.yaml:3:16:", "options.crank_speed", "must be > 0"},
        BadCase{"output unit count", "mechanism: pendulum\noutputs:\n  units: [m]\n",
                "rig.yaml:3:10:", "outputs.units", "expected a list of 4 units"},
        BadCase{"syntax error", "mechanism: pendulum\nintegration:\n  dt: [1, 2\n",
                "rig.yaml:", "(syntax)", ""},
        // serve
        BadCase{"unknown clock mode", "mechanism: pendulum\nserve:\n  clock: device-lock\n",
                "rig.yaml:3:10:", "serve.clock", "unknown clock mode 'device-lock'"},
        BadCase{"clock mode not a string", "mechanism: pendulum\nserve:\n  clock: [wall]\n",
                "rig.yaml:3:10:", "serve.clock", "expected"},
        BadCase{"input margin not an integer",
                "mechanism: pendulum\nserve:\n  input_margin_us: 2.5\n",
                "rig.yaml:3:20:", "serve.input_margin_us", "expected an integer"},
        BadCase{"negative input margin", "mechanism: pendulum\nserve:\n  input_margin_us: -1\n",
                "rig.yaml:3:20:", "serve.input_margin_us", "must be in 0..500000"},
        BadCase{"unknown serve key", "mechanism: pendulum\nserve:\n  clock_mode: wall\n",
                "rig.yaml:3:3:", "serve.clock_mode", "unknown key"},
        // bodies, joints and forces
        BadCase{"unknown body key",
                "bodies:\n  - name: a\n    mass: 1\n    inertia: 1\n    colour: red\n",
                "rig.yaml:5:5:", "bodies[0].colour", "unknown key"},
        BadCase{"body value of the wrong type",
                "bodies:\n  - name: a\n    mass: heavy\n    inertia: 1\n",
                "rig.yaml:3:11:", "bodies[0].mass", "expected a number"},
        BadCase{"pose of the wrong shape",
                "bodies:\n  - name: a\n    mass: 1\n    inertia: 1\n    pose: [1, 2]\n",
                "rig.yaml:5:11:", "bodies[0].pose", "expected a list of 3 numbers"},
        BadCase{"missing mass", "bodies:\n  - name: a\n    inertia: 1\n",
                "rig.yaml:2:5:", "bodies[0].mass", "missing"},
        BadCase{"non-positive mass", "bodies:\n  - name: a\n    mass: 0\n    inertia: 1\n",
                "rig.yaml:3:11:", "bodies[0].mass", "must be > 0"},
        BadCase{"non-positive inertia", "bodies:\n  - name: a\n    mass: 1\n    inertia: -2\n",
                "rig.yaml:4:14:", "bodies[0].inertia", "must be > 0"},
        BadCase{"duplicate body name",
                "bodies:\n  - {name: a, mass: 1, inertia: 1}\n  - {name: a, mass: 1, inertia: "
                "1}\n",
                "rig.yaml:3:12:", "bodies[1].name", "duplicate body name 'a'"},
        BadCase{"joint to an unknown body",
                "bodies:\n  - {name: a, mass: 1, inertia: 1}\njoints:\n  - type: revolute\n"
                "    body_i: ground\n    body_j: b\n",
                "rig.yaml:6:13:", "joints[0].body_j", "unknown body 'b'"},
        BadCase{"unknown joint type",
                "bodies:\n  - {name: a, mass: 1, inertia: 1}\njoints:\n  - type: hinge\n"
                "    body_i: ground\n    body_j: a\n",
                "rig.yaml:4:11:", "joints[0].type", "unknown joint type 'hinge'"},
        BadCase{"unknown force type",
                "bodies:\n  - {name: a, mass: 1, inertia: 1}\nforces:\n  - type: magnet\n",
                "rig.yaml:4:11:", "forces[0].type", "unknown force type 'magnet'"},
        BadCase{"mechanism and bodies together",
                "mechanism: pendulum\nbodies:\n  - {name: a, mass: 1, inertia: 1}\n",
                "rig.yaml:1:12:", "mechanism", "mutually exclusive"},
        BadCase{"assembly fails",
                "bodies:\n  - {name: a, mass: 1, inertia: 1, pose: [0.5, 0, 0]}\njoints:\n"
                "  - {name: pivot, type: revolute, body_i: ground, body_j: a, point_j: [-0.5, 0]}\n"
                "  - {name: reach, type: distance, body_i: ground, point_i: [10, 0], body_j: a, "
                "point_j: [0.5, 0], length: 1}\n",
                "rig.yaml:4:3:", "joints", "reach"},
        BadCase{"force on an unknown body",
                "bodies:\n  - {name: a, mass: 1, inertia: 1}\nforces:\n  - type: torque\n"
                "    body: b\n    torque: 1\n",
                "rig.yaml:5:11:", "forces[0].body", "unknown body 'b'"},
        BadCase{"inertia of the wrong type",
                "bodies:\n  - name: a\n    mass: 1\n    inertia: [1, 0, 0]\n",
                "rig.yaml:4:14:", "bodies[0].inertia", "expected a number"},
        BadCase{"missing inertia", "bodies:\n  - name: a\n    mass: 1\n",
                "rig.yaml:2:5:", "bodies[0].inertia", "missing"},
        BadCase{"unknown joint key",
                "bodies:\n  - {name: a, mass: 1, inertia: 1}\njoints:\n  - type: revolute\n"
                "    body_i: ground\n    body_j: a\n    stiffness: 3\n",
                "rig.yaml:7:5:", "joints[0].stiffness", "unknown key"},
        BadCase{"axial spring on a revolute joint",
                "bodies:\n  - {name: a, mass: 1, inertia: 1}\njoints:\n"
                "  - {name: pin, type: revolute, body_i: ground, body_j: a}\nforces:\n"
                "  - {type: prismatic_spring_damper, joint: pin, stiffness: 1}\n",
                "rig.yaml:6:44:", "forces[0].joint", "'pin' is not a prismatic joint"},
        // drivers
        BadCase{"driver on a distance joint",
                "bodies:\n  - {name: a, mass: 1, inertia: 1, pose: [1, 0, 0]}\njoints:\n"
                "  - type: distance\n    body_i: ground\n    body_j: a\n    length: 1\n"
                "    driver: {type: constant, value: 1}\n",
                "rig.yaml:8:13:", "joints[0].driver", "only revolute and prismatic"},
        BadCase{"unknown time function",
                "bodies:\n  - {name: a, mass: 1, inertia: 1}\njoints:\n  - type: revolute\n"
                "    body_i: ground\n    body_j: a\n    driver: {type: cosine, value: 1}\n",
                "rig.yaml:7:20:", "joints[0].driver.type", "unknown time function 'cosine'"},
        BadCase{"ramp without a rate",
                "bodies:\n  - {name: a, mass: 1, inertia: 1}\njoints:\n  - type: revolute\n"
                "    body_i: ground\n    body_j: a\n    driver: {type: ramp, start: 1}\n",
                "rig.yaml:7:13:", "joints[0].driver.rate", "missing"},
        BadCase{"unknown driver key",
                "bodies:\n  - {name: a, mass: 1, inertia: 1}\njoints:\n  - type: revolute\n"
                "    body_i: ground\n    body_j: a\n    driver: {type: sine, amplitude: 1, "
                "frequency: 2, period: 3}\n",
                "rig.yaml:7:54:", "joints[0].driver.period", "unknown key"},
        BadCase{"non-positive sine frequency",
                "bodies:\n  - {name: a, mass: 1, inertia: 1}\njoints:\n  - type: revolute\n"
                "    body_i: ground\n    body_j: a\n    driver: {type: sine, amplitude: 1, "
                "frequency: 0}\n",
                "rig.yaml:7:51:", "joints[0].driver.frequency", "must be > 0"},
        BadCase{"polynomial coefficients of the wrong type",
                "bodies:\n  - {name: a, mass: 1, inertia: 1}\njoints:\n  - type: revolute\n"
                "    body_i: ground\n    body_j: a\n    driver: {type: polynomial, coefficients: "
                "3}\n",
                "rig.yaml:7:46:", "joints[0].driver.coefficients", "non-empty list"},
        BadCase{"table times not increasing",
                "bodies:\n  - {name: a, mass: 1, inertia: 1}\njoints:\n  - type: revolute\n"
                "    body_i: ground\n    body_j: a\n    driver:\n      type: table\n"
                "      points: [[0, 0], [1, 0.5], [1, 0.7]]\n",
                "rig.yaml:9:35:", "joints[0].driver.points[2]", "strictly increasing"},
        BadCase{"table point of the wrong shape",
                "bodies:\n  - {name: a, mass: 1, inertia: 1}\njoints:\n  - type: revolute\n"
                "    body_i: ground\n    body_j: a\n    driver:\n      type: table\n"
                "      points: [[0, 0], [1]]\n",
                "rig.yaml:9:24:", "joints[0].driver.points[1]", "expected a list of 2 numbers"},
        BadCase{"driver conflicting with a weld",
                "bodies:\n  - {name: a, mass: 1, inertia: 1}\njoints:\n"
                "  - {name: weld, type: fixed, body_i: ground, body_j: a, angle: 0.5}\n"
                "  - name: hinge\n    type: revolute\n    body_i: ground\n    body_j: a\n"
                "    driver: {type: constant, value: 0}\n",
                "rig.yaml:4:3:", "joints", "weld, hinge.driver"},
        // a body that is not a mapping: reading its `kind` must not throw a YAML exception
        // (fuzz/regressions/model/body-is-a-scalar.yaml)
        BadCase{"body that is a scalar", "bodies:\n  - crank\n", "rig.yaml:2:5:", "bodies[0]",
                "expected a mapping"},
        BadCase{"body that is a list", "bodies:\n  - [crank, 1]\n", "rig.yaml:2:5:", "bodies[0]",
                "expected a mapping"}));

TEST(ModelFile, ServeClockKeysAreReadAndOptional) {
  const ModelFile plain = parse_model_file("mechanism: pendulum\n", "rig.yaml");
  EXPECT_FALSE(plain.clock.has_value());
  EXPECT_FALSE(plain.input_margin_us.has_value());
  const ModelFile f = parse_model_file(
      "mechanism: pendulum\nserve:\n  clock: phase-lock\n  input_margin_us: 45\n", "rig.yaml");
  EXPECT_EQ(f.clock, ClockMode::kPhaseLock);
  EXPECT_EQ(f.input_margin_us, 45);
  EXPECT_EQ(parse_model_file("mechanism: pendulum\nserve: {clock: device}\n", "rig.yaml").clock,
            ClockMode::kDevice);
}

TEST(ModelFile, SvfKeysAreRead) {
  const ModelFile f = parse_model_file(
      "mechanism: four_bar\nintegration:\n  stabilizer: svf\n  gamma: 25\n  svf_variant: gt\n",
      "rig.yaml");
  EXPECT_EQ(f.settings.stabilizer, StabilizerKind::kSvf);
  EXPECT_EQ(f.settings.gamma, 25.0);
  EXPECT_EQ(f.settings.svf_variant, SvfVariant::kGt);
  // the default direction is the manifold normal G^T (G G^T)^-1 (Chin eq. 2.45)
  EXPECT_EQ(parse_model_file("mechanism: four_bar\nintegration: {stabilizer: svf, gamma: 1}\n",
                             "rig.yaml")
                .settings.svf_variant,
            SvfVariant::kGgtInverse);
}

TEST(ModelFile, StabilizeEnergyIsReadAndRefusedAtItsKey) {
  EXPECT_FALSE(parse_model_file("mechanism: rolling_disc\n", "rig.yaml").settings.stabilize_energy);
  EXPECT_TRUE(parse_model_file("mechanism: rolling_disc\nintegration:\n  stabilize_energy: true\n",
                               "rig.yaml")
                  .settings.stabilize_energy);
  // a pass of pstab or sboth only: the key that asked for it is named
  try {
    (void)parse_model_file(
        "mechanism: rolling_disc\nintegration:\n  stabilizer: project\n  stabilize_energy: true\n",
        "rig.yaml");
    FAIL() << "stabilize_energy accepted with project";
  } catch (const ModelFileError& e) {
    EXPECT_EQ(e.line(), 4);
    EXPECT_EQ(e.key(), "integration.stabilize_energy");
  }
}

TEST(ModelFile, MissingFileIsNamed) {
  try {
    (void)load_model_file("/nonexistent/rig.yaml");
    FAIL() << "accepted a missing file";
  } catch (const ModelFileError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/rig.yaml"), std::string::npos);
  }
}

TEST(ModelFile, SettingsTheModelRefusesAreReportedAtTheIntegrationKey) {
  // Baumgarte gains are only meaningful with the Baumgarte stabilizer; whatever the Model
  // constructor refuses must come back with the file position, not as a bare exception
  const std::string text =
      "mechanism: pendulum\nintegration:\n  stabilizer: project\n  projection_tolerance: 0\n";
  const std::string message = error_of(text);
  EXPECT_EQ(message.rfind("rig.yaml:4:", 0), 0u) << message;
  EXPECT_NE(message.find("integration.projection_tolerance"), std::string::npos) << message;
}

// `kind: beam` bodies (planar_model_file.cpp, docs/model-format.md "Beam bodies"): Chin's
// deformable slider-crank written as bodies (tests/support/beam_slider_crank.hpp) loads into a
// PlanarMultibody with the beam's coordinates and mass, and each bad value is refused at its
// file, line and key.
TEST(PlanarModelFileBeam, LoadsTheBeamBody) {
  const ModelFile f = parse_model_file(testing::kBeamSliderCrankYaml, "rig.yaml");
  ASSERT_NE(f.bodies, nullptr);
  const PlanarBodySpec& rod = f.bodies->bodies[1];
  EXPECT_EQ(rod.kind, PlanarBodyKind::kBeam);
  EXPECT_EQ(rod.beam.length, 12.0);
  EXPECT_EQ(rod.beam.youngs_modulus, 30.0e6);
  EXPECT_EQ(rod.beam.density, 0.0007331);
  EXPECT_EQ(rod.beam.elements, 2);
  EXPECT_EQ(rod.beam.support, PlanarBeamSupport::kSimplySupported);
  const std::unique_ptr<System> sys = make_system(f);
  EXPECT_EQ(sys->n_q(), 3 + (3 + 6) + 3);  // crank, rod (frame + Chin's 6 elastic), slider
  // the file's state is consistent as written: assembly leaves it (no notes)
  EXPECT_TRUE(f.notes.empty());
  State s;
  sys->initial_state(s);
  // M's rod block: its mass rho a L in the R rows
  Mat M(sys->n_v(), sys->n_v());
  sys->mass(0.0, s.q, M);
  EXPECT_NEAR(M(3, 3), 0.0007331 * std::numbers::pi * 0.25 * 0.25 / 4.0 * 12.0, 1e-15);
}

TEST(PlanarModelFileBeam, BadValuesAreRefusedAtTheirKey) {
  const auto error = [](const std::string& from, const std::string& to) {
    return testing::model_file_error(
        testing::replace_once(testing::kBeamSliderCrankYaml, from, to));
  };
  EXPECT_NE(error("length: 12", "length: -1").find("rig.yaml:8:"), std::string::npos);
  EXPECT_NE(error("length: 12", "length: -1").find("bodies[1].length"), std::string::npos);
  EXPECT_NE(error("elements: 2", "elements: 0").find("bodies[1].elements"), std::string::npos);
  EXPECT_NE(error("elements: 2", "elements: 1.5").find("bodies[1].elements"), std::string::npos);
  EXPECT_NE(error("support: simply_supported", "support: pinned").find("bodies[1].support"),
            std::string::npos);
  EXPECT_NE(error("kind: beam", "kind: rope").find("bodies[1].kind"), std::string::npos);
  EXPECT_NE(error("    youngs_modulus: 30.0e6\n", "").find("youngs_modulus"), std::string::npos);
  // a beam has no mass key; a rigid body no beam keys
  EXPECT_NE(error("kind: beam\n", "kind: beam\n    mass: 1\n").find("bodies[1].mass"),
            std::string::npos);
  EXPECT_NE(error("    mass: 0.001\n", "    mass: 0.001\n    length: 1\n").find("bodies[2].length"),
            std::string::npos);
  // joints on a beam: revolute or fixed, at [x, 0] with 0 <= x <= length
  EXPECT_NE(error("point_i: [12, 0]", "point_i: [12, 0.5]").find("joints[2].point_i"),
            std::string::npos);
  EXPECT_NE(error("point_i: [12, 0]", "point_i: [13, 0]").find("joints[2].point_i"),
            std::string::npos);
  EXPECT_NE(error("{name: B, type: revolute", "{name: B, type: prismatic").find("joints[2].type"),
            std::string::npos);
  const ModelFile welded =
      parse_model_file(testing::replace_once(testing::kBeamSliderCrankYaml,
                                             "{name: B, type: revolute", "{name: B, type: fixed"),
                       "rig.yaml");
  EXPECT_EQ(welded.bodies->joints[2].type, PlanarJointType::kFixed);
  // force elements on a beam: at [x, 0] of its axis, and no torque on its frame
  const std::string gravity = "  - {type: gravity, vector: [0, -386.4]}\n";
  const auto with_force = [&](const std::string& element) {
    return error(gravity, gravity + "  - " + element + "\n");
  };
  EXPECT_NE(with_force("{type: coupling, body: rod, point: [10, 0.5], stiffness: 100}")
                .find("forces[1].point"),
            std::string::npos);
  EXPECT_NE(with_force("{type: spring_damper, body_i: ground, body_j: rod, point_i: [0, 5], "
                       "point_j: [13, 0], stiffness: 10}")
                .find("forces[1].point_j"),
            std::string::npos);
  EXPECT_NE(with_force("{type: torque, body: rod, torque: 1}").find("forces[1].type"),
            std::string::npos);
}

TEST(PlanarModelFileBeam, PointForcesOnTheBeamLoadAndRun) {
  // a force, a spring from the ground, a coupling and a wall at material points of the rod
  const ModelFile f =
      parse_model_file(testing::replace_once(testing::kBeamSliderCrankYaml,
                                             "  - {type: gravity, vector: [0, -386.4]}\n",
                                             R"(  - {type: gravity, vector: [0, -386.4]}
  - {type: force, body: rod, point: [4, 0], force: [30, -50]}
  - {type: spring_damper, body_i: ground, body_j: rod, point_i: [10, 5], point_j: [8, 0], stiffness: 400, rest_length: 2, damping: 1}
  - {type: coupling, body: rod, point: [10, 0], stiffness: 900, damping: 1}
  - {type: wall, body: rod, point: [12, 0], origin: [30, 0], normal: [-1, 0], stiffness: 5000}
)") + "integration: {method: rk4, stabilizer: pstab, dt: 2.0e-6}\n",
                       "rig.yaml");
  const std::shared_ptr<System> sys = make_system(f);
  const Model model(sys, f.settings);
  Workspace ws(model);
  State s = initial_state(model);
  for (int i = 0; i < 500; ++i) ASSERT_TRUE(step(model, s, ws).ok()) << i;
  EXPECT_TRUE(s.q.allFinite());
}

}  // namespace
}  // namespace rtmb
