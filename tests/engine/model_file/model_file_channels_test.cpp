// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Named input and output channels in model files (docs/model-format.md, "Named channels"): what
// each drive and output becomes, and each class of bad input reported at its position.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "rtmb/models/model_file.hpp"
#include "tests/support/beam_slider_crank.hpp"
#include "tests/support/model_file_errors.hpp"

namespace rtmb {
namespace {

TEST(ModelFileChannels, DrivesAndOutputsAreRead) {
  const std::string text = R"(name: rod
bodies:
  - {name: rod, mass: 1, inertia: 0.1, pose: [0.5, 0, 0]}
joints:
  - {name: pin, type: revolute, body_i: ground, body_j: rod, point_j: [-0.5, 0]}
forces:
  - {name: spring, type: coupling, body: rod, point: [0.5, 0], stiffness: 100, damping: 1}
inputs:
  channels:
    - {name: push, drive: {type: force, body: rod, point: [0.5, 0], axis: y}}
    - {name: turn, drive: {type: torque, body: rod}}
    - {name: m, drive: {type: motor, joint: pin, limit: 3}, min: -2, max: 2}
    - {name: tx, drive: {type: coupling, element: spring, axis: x}}
    - {name: ty, initial_value: 0.25, drive: {type: coupling, element: spring, axis: y}}
outputs:
  channels:
    - {name: tip, kind: point_position, body: rod, point: [0.5, 0]}
    - {name: angle, kind: joint_position, joint: pin, unit: degree-free}
    - {name: pin_force, kind: reaction, joint: pin}
)";
  const ModelFile f = parse_model_file(text, "rod.yaml");
  ASSERT_TRUE(f.bodies);
  const auto& in = f.bodies->inputs;
  ASSERT_EQ(in.size(), 5u);
  EXPECT_EQ(in[0].type, PlanarInputType::kForce);
  EXPECT_EQ(in[0].direction, Eigen::Vector2d::UnitY());
  EXPECT_EQ(in[1].type, PlanarInputType::kTorque);
  EXPECT_EQ(in[2].type, PlanarInputType::kMotor);
  EXPECT_EQ(in[2].limit, 3.0);
  EXPECT_EQ(in[3].type, PlanarInputType::kCouplingX);
  EXPECT_EQ(in[4].type, PlanarInputType::kCouplingY);
  // the coupling target defaults to the point's start (1, 0); an explicit initial value wins
  EXPECT_EQ(in[3].initial, 1.0);
  EXPECT_EQ(in[4].initial, 0.25);
  ASSERT_EQ(f.inputs.size(), 5u);
  EXPECT_EQ(f.inputs[0].unit, "N");
  EXPECT_EQ(f.inputs[0].config.kind, InputKind::kForce);
  EXPECT_EQ(f.inputs[2].unit, "N*m");
  EXPECT_EQ(f.inputs[2].config.kind, InputKind::kTorque);
  EXPECT_EQ(f.inputs[2].config.max_value, 2.0);
  EXPECT_EQ(f.inputs[3].unit, "m");
  EXPECT_EQ(f.inputs[3].config.kind, InputKind::kPosition);
  EXPECT_EQ(f.inputs[3].config.initial_value, 1.0);
  EXPECT_EQ(f.inputs[4].config.initial_value, 0.25);
  const auto out = output_channels(f.outputs);
  ASSERT_EQ(out.size(), 6u);
  EXPECT_EQ(out[0], (std::pair<std::string, std::string>{"tip.x", "m"}));
  EXPECT_EQ(out[2], (std::pair<std::string, std::string>{"angle", "degree-free"}));
  EXPECT_EQ(out[5], (std::pair<std::string, std::string>{"pin_force.tz", "N*m"}));
  // the System reads the named inputs, and the evaluator exists
  const auto sys = make_system(f);
  EXPECT_EQ(sys->n_inputs(), 5);
  EXPECT_NE(make_output_evaluator(f, *sys), nullptr);
}

TEST(ModelFileChannels, WithoutDrivesABodyModelKeepsOneForcePerCoordinate) {
  const std::string text = R"(bodies:
  - {name: rod, mass: 1, inertia: 0.1}
)";
  const ModelFile f = parse_model_file(text, "free.yaml");
  EXPECT_EQ(make_system(f)->n_inputs(), 0);
  ASSERT_EQ(f.inputs.size(), 3u);
  EXPECT_EQ(f.inputs[2].name, "rod.tz");
  EXPECT_TRUE(f.outputs.empty());
}

std::string error_of(const std::string& text) {
  return testing::model_file_error(text);
}

struct BadChannel {
  const char* what;
  const char* tail;   // appended to a valid body model (or the whole text if `whole`)
  const char* where;  // "rig.yaml:LINE:"
  const char* key;
  const char* why;
  bool whole = false;
};

class ModelFileChannelErrors : public ::testing::TestWithParam<BadChannel> {};

// the weld holds a small tab on the rod (welding the rod itself to the ground as well as pinning
// it would be redundant constraints, an error of its own), two lines as before so that the line
// numbers below stay those of the tail
const std::string kBase = R"(bodies: [{name: rod, mass: 1, inertia: 0.1, pose: [0.5, 0, 0]},
  {name: tab, mass: 0.1, inertia: 0.01, pose: [0.5, 0, 0]}]
joints:
  - {name: pin, type: revolute, body_i: ground, body_j: rod, point_j: [-0.5, 0]}
  - {name: weld, type: fixed, body_i: rod, body_j: tab}
forces:
  - {name: spring, type: coupling, body: rod, point: [0.5, 0], stiffness: 100}
)";

TEST_P(ModelFileChannelErrors, NamesFileLineAndKey) {
  const BadChannel& c = GetParam();
  const std::string message = error_of(c.whole ? std::string(c.tail) : kBase + c.tail);
  EXPECT_EQ(message.rfind(c.where, 0), 0u) << message;
  EXPECT_NE(message.find(std::string("key '") + c.key + "'"), std::string::npos) << message;
  EXPECT_NE(message.find(c.why), std::string::npos) << message;
}

INSTANTIATE_TEST_SUITE_P(
    Cases,
    ModelFileChannelErrors,
    ::testing::Values(
        BadChannel{"unknown drive type",
                   "inputs:\n  channels:\n    - {name: a, drive: {type: laser}}\n",
                   "rig.yaml:10:", "inputs.channels[0].drive.type", "unknown drive type 'laser'"},
        BadChannel{"motor on a fixed joint",
                   "inputs:\n  channels:\n    - {drive: {type: motor, joint: weld}}\n",
                   "rig.yaml:10:", "inputs.channels[0].drive.joint", "not a revolute joint"},
        BadChannel{"coupling names a spring that is not one",
                   "inputs:\n  channels:\n    - {drive: {type: coupling, element: pin, axis: x}}\n",
                   "rig.yaml:10:", "inputs.channels[0].drive.element",
                   "not a coupling force element"},
        BadChannel{"coupling axis",
                   "inputs:\n  channels:\n    - {drive: {type: coupling, element: spring, axis: "
                   "z}}\n",
                   "rig.yaml:10:", "inputs.channels[0].drive.axis", "unknown axis 'z'"},
        BadChannel{"one channel without a drive",
                   "inputs:\n  channels:\n    - {drive: {type: torque, body: rod}}\n    - {name: "
                   "b}\n",
                   "rig.yaml:11:", "inputs.channels[1].drive", "every channel needs one"},
        BadChannel{"force on the ground",
                   "inputs:\n  channels:\n    - {drive: {type: force, body: ground}}\n",
                   "rig.yaml:10:", "inputs.channels[0].drive.body", "cannot act on the ground"},
        BadChannel{"unknown drive key",
                   "inputs:\n  channels:\n    - {drive: {type: torque, body: rod, gain: 2}}\n",
                   "rig.yaml:10:", "inputs.channels[0].drive.gain", "unknown key"},
        BadChannel{"negative motor limit",
                   "inputs:\n  channels:\n    - {drive: {type: motor, joint: pin, limit: -1}}\n",
                   "rig.yaml:10:", "inputs.channels[0].drive.limit", "must be > 0"},
        BadChannel{"drive in a mechanism file",
                   "mechanism: pendulum\ninputs:\n  channels:\n    - {drive: {type: torque, body: "
                   "x}}\n    - {}\n",
                   "rig.yaml:4:", "inputs.channels[0].drive", "only for body models", true},
        BadChannel{"unknown output kind",
                   "outputs:\n  channels:\n    - {name: a, kind: temperature}\n",
                   "rig.yaml:10:", "outputs.channels[0].kind", "unknown output kind 'temperature'"},
        BadChannel{"output without its body",
                   "outputs:\n  channels:\n    - {name: a, kind: pose}\n",
                   "rig.yaml:10:", "outputs.channels[0].body", "missing (needed by kind 'pose')"},
        BadChannel{"body on an output that has none",
                   "outputs:\n  channels:\n    - {name: a, kind: energy, body: rod}\n",
                   "rig.yaml:10:", "outputs.channels[0].body",
                   "only for pose, velocity, point and beam_deflection outputs"},
        BadChannel{"joint output on a fixed joint",
                   "outputs:\n  channels:\n    - {name: a, kind: joint_position, joint: weld}\n",
                   "rig.yaml:10:", "outputs.channels[0].joint", "not a revolute or prismatic"},
        BadChannel{"duplicate output channel",
                   "outputs:\n  channels:\n    - {name: a, kind: energy}\n    - {name: a, kind: "
                   "position_drift}\n",
                   "rig.yaml:11:", "outputs.channels[1].name", "already defined"},
        BadChannel{"units and channels together",
                   "outputs:\n  units: [m]\n  channels:\n    - {name: a, kind: energy}\n",
                   "rig.yaml:9:", "outputs.units", "not with 'channels'"},
        BadChannel{"wrong number of units",
                   "outputs:\n  channels:\n    - {name: a, kind: pose, body: rod, unit: [m, m]}\n",
                   "rig.yaml:10:", "outputs.channels[0].unit", "expected 3 units"}));

// A clamped two-element beam of 1 m (its `bodies:` list, to which a test may add bodies): 3 frame
// coordinates and 6 elastic ones.
constexpr const char* kClampedBeamBody = R"(bodies:
  - name: beam
    kind: beam
    length: 1.0
    youngs_modulus: 1.0e7
    density: 1000.0
    area: 1.0e-3
    second_moment: 1.0e-6
    elements: 2
    support: clamped
)";

// A body model with a beam body lists one input channel per velocity coordinate (a beam's three
// frame coordinates and its elastic ones): the loader reads all n_v of them, though a body model's
// defaults are three per body (regression: it wrote channels past the end of that shorter list,
// and `rtmb serve` crashed in read_channel; then in Server::make_bundle, reading the three output
// units per body past their end).
TEST(ModelFileBeamInputs, OneChannelPerCoordinateIsReadForAllOfThem) {
  std::string text = std::string("name: beam_pin\n") + kClampedBeamBody + R"(joints:
  - {name: pin, type: revolute, body_i: ground, body_j: beam}
inputs:
  channels:
)";
  // 3 frame coordinates + 6 elastic ones (two clamped elements)
  for (int i = 0; i < 9; ++i) {
    text += "    - {name: c" + std::to_string(i) + ", kind: force, min: -" + std::to_string(i + 1) +
            ", max: " + std::to_string(i + 1) + "}\n";
  }
  const ModelFile f = parse_model_file(text, "beam.yaml");
  ASSERT_EQ(make_system(f)->n_v(), 9);
  ASSERT_EQ(f.inputs.size(), 9u);
  // and one output unit per coordinate of q and v (the server names its stream's channels with
  // them; it read past the end of three per body)
  ASSERT_EQ(f.output_units.size(), 18u);
  EXPECT_EQ(f.output_units[2], "rad");
  EXPECT_EQ(f.output_units[3], "m|rad");
  EXPECT_EQ(f.output_units[9], "m/s");
  EXPECT_EQ(f.output_units[17], "m/s|rad/s");
  for (int i = 0; i < 9; ++i) {
    const InputChannelSpec& c = f.inputs[static_cast<std::size_t>(i)];
    EXPECT_EQ(c.name, "c" + std::to_string(i));
    EXPECT_EQ(c.config.max_value, i + 1.0);
  }
}

// Without `inputs`, a beam model has a default channel per velocity coordinate, as a rigid one:
// its frame's force and torque, then the generalized force on each elastic coordinate, named
// after its node and component in the order of q (a clamped beam loses node 0's three, Chin's
// simply supported one node 0's axial and transverse and the last node's transverse: §3.12).
TEST(ModelFileBeamInputs, DefaultChannelsDriveEveryCoordinate) {
  const std::string clamped = std::string("name: beam_pin\n") + kClampedBeamBody +
                              R"(  - {name: tip, mass: 1.0, inertia: 0.1, pose: [1.0, 0, 0]}
joints:
  - {name: pin, type: revolute, body_i: ground, body_j: beam}
  - {name: end, type: revolute, body_i: beam, body_j: tip, point_i: [1.0, 0]}
)";
  const auto names = [](const ModelFile& f) {
    std::vector<std::string> out;
    for (const InputChannelSpec& c : f.inputs) out.push_back(c.name);
    return out;
  };
  const ModelFile f = parse_model_file(clamped, "beam.yaml");
  ASSERT_EQ(make_system(f)->n_v(), 12);
  EXPECT_EQ(names(f), (std::vector<std::string>{"beam.fx", "beam.fy", "beam.tz", "beam.n1.axial",
                                                "beam.n1.transverse", "beam.n1.slope",
                                                "beam.n2.axial", "beam.n2.transverse",
                                                "beam.n2.slope", "tip.fx", "tip.fy", "tip.tz"}));
  for (const std::size_t i : {3u, 4u, 6u, 7u}) {
    EXPECT_EQ(f.inputs[i].unit, "N") << i;
    EXPECT_EQ(f.inputs[i].config.kind, InputKind::kForce) << i;
  }
  for (const std::size_t i : {5u, 8u}) {
    EXPECT_EQ(f.inputs[i].unit, "N*m") << i;
    EXPECT_EQ(f.inputs[i].config.kind, InputKind::kTorque) << i;
  }
  const ModelFile chin = parse_model_file(testing::kBeamSliderCrankYaml, "rig.yaml");
  ASSERT_EQ(make_system(chin)->n_v(), 15);
  EXPECT_EQ(names(chin),
            (std::vector<std::string>{"crank.fx", "crank.fy", "crank.tz", "rod.fx", "rod.fy",
                                      "rod.tz", "rod.n0.slope", "rod.n1.axial", "rod.n1.transverse",
                                      "rod.n1.slope", "rod.n2.axial", "rod.n2.slope", "slider.fx",
                                      "slider.fy", "slider.tz"}));
}

}  // namespace
}  // namespace rtmb
