// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// What a planar model reports about its beam bodies (issue 17, "What to build" 4: "outputs
// stream its deflection at named stations"): PlanarMultibody::beam_deflection, point_position
// and point_velocity on a beam (the material point of its axis, Chin 1995 eq. 3.57:
// r = R + A (u0 + S q_f)), and the model file's `beam_deflection`, point and reaction outputs.
//   * Hermite cubics interpolate a cubic exactly and the axial shape functions a linear field
//     exactly, so with nodal values taken from u(x) = c x, v(x) = a x^2 + b x^3 the deflection at
//     any station, node or not, is that closed form to round-off.
//   * The point velocity is the derivative of the point position along v (central differences).
//   * In Chin's slider-crank with a clamped rod stepped until it bends, the joint at the rod's
//     far end holds the rod's material point at x = L on the slider: the point output there is the
//     slider's position to the constraint's drift, while the rigid-frame point (L, 0) misses it by
//     the end's deflection; and a revolute joint's reaction has no moment about its own point
//     when the arm is the deformed one.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "engine/multibody/planar_beam_body.hpp"
#include "rtmb/model.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/models/planar_multibody.hpp"
#include "rtmb/models/planar_outputs.hpp"
#include "rtmb/state.hpp"
#include "rtmb/step.hpp"
#include "tests/support/beam_slider_crank.hpp"
#include "tests/support/model_file_errors.hpp"

namespace rtmb {
namespace {

constexpr double kLength = 2.0;

// One free beam of three elements, clamped support (u = v = v' = 0 at x = 0), frame at (0.3,
// -0.2) turned by 0.7 rad.
PlanarModelSpec one_beam() {
  PlanarModelSpec s;
  PlanarBodySpec b;
  b.name = "beam";
  b.kind = PlanarBodyKind::kBeam;
  b.beam.length = kLength;
  b.beam.youngs_modulus = 2e11;
  b.beam.density = 7800.0;
  b.beam.area = 1e-4;
  b.beam.second_moment = 1e-9;
  b.beam.elements = 3;
  b.beam.support = PlanarBeamSupport::kClamped;
  b.pose = {0.3, -0.2, 0.7};
  s.bodies = {b};
  return s;
}

// The closed-form field, u(x) = c x, v(x) = a x^2 + b x^3 (zero with zero slope at x = 0)
constexpr double kC = 2e-4;
constexpr double kA = 3e-3;
constexpr double kB = -1e-3;
double axial(double x) {
  return kC * x;
}
double transverse(double x) {
  return kA * x * x + kB * x * x * x;
}
double slope(double x) {
  return 2.0 * kA * x + 3.0 * kB * x * x;
}

// q with the beam's nodal coordinates taken from the closed form (node k at x = k L / 3)
State shaped_state(const PlanarMultibody& sys) {
  State s;
  sys.initial_state(s);
  const FloatingFrameBeam beam(planar_detail::beam_spec(sys.spec().bodies[0].beam));
  for (int node = 0; node <= 3; ++node) {
    const double x = kLength * node / 3.0;
    const std::array<double, 3> values{axial(x), transverse(x), slope(x)};
    for (int c = 0; c < 3; ++c) {
      const int i = beam.elastic_index(node, c);
      if (i >= 0) s.q(3 + i) = values[static_cast<std::size_t>(c)];
    }
  }
  return s;
}

TEST(PlanarBeamOutputs, DeflectionIsTheInterpolatedClosedForm) {
  const PlanarMultibody sys(one_beam());
  const State s = shaped_state(sys);
  for (const double x : {0.0, 0.37, kLength / 3.0, 1.0, 1.91, kLength}) {
    const Eigen::Vector2d d = sys.beam_deflection(s.q, 0, x);
    EXPECT_NEAR(d.x(), axial(x), 1e-17) << "x = " << x;
    EXPECT_NEAR(d.y(), transverse(x), 1e-16) << "x = " << x;
  }
  // a rigid body, or the ground, has no deflection
  EXPECT_EQ(sys.beam_deflection(s.q, kGround, 1.0), Eigen::Vector2d::Zero());
}

TEST(PlanarBeamOutputs, PointPositionIsTheDeformedMaterialPoint) {
  const PlanarMultibody sys(one_beam());
  const State s = shaped_state(sys);
  const double c = std::cos(0.7);
  const double sn = std::sin(0.7);
  for (const double x : {0.0, 0.37, 1.0, 1.91, kLength}) {
    const double ux = x + axial(x);
    const double uy = transverse(x);
    const Eigen::Vector2d expected(0.3 + c * ux - sn * uy, -0.2 + sn * ux + c * uy);
    const Eigen::Vector2d p = sys.point_position(s.q, 0, {x, 0.0});
    EXPECT_NEAR((p - expected).norm(), 0.0, 1e-15) << "x = " << x;
  }
}

TEST(PlanarBeamOutputs, PointVelocityIsTheDerivativeOfThePosition) {
  const PlanarMultibody sys(one_beam());
  State s = shaped_state(sys);
  for (int i = 0; i < sys.n_v(); ++i) s.v(i) = 0.3 * std::sin(1.0 + 2.0 * i);  // every rate
  const double h = 1e-6;
  for (const double x : {0.37, 1.0, kLength}) {
    const Eigen::Vector2d analytic = sys.point_velocity(s.q, s.v, 0, {x, 0.0});
    const Vec qp = s.q + h * s.v;
    const Vec qm = s.q - h * s.v;
    const Eigen::Vector2d fd =
        (sys.point_position(qp, 0, {x, 0.0}) - sys.point_position(qm, 0, {x, 0.0})) / (2.0 * h);
    EXPECT_NEAR((analytic - fd).norm(), 0.0, 1e-9 * analytic.norm()) << "x = " << x;
    EXPECT_GT(analytic.norm(), 0.1);
  }
}

// Chin's deformable slider-crank (tests/support/beam_slider_crank.hpp) with the rod's frame
// clamped at its crank end, so that its far end deflects, four elements, the joint B written with
// the rod as body_j, and outputs on the rod.
const std::string kClampedRodYaml = [] {
  using testing::replace_once;
  std::string text = testing::kBeamSliderCrankYaml;
  text = replace_once(text, "elements: 2", "elements: 4");
  text = replace_once(text, "support: simply_supported", "support: clamped");
  text =
      replace_once(text, "{name: B, type: revolute, body_i: rod, body_j: slider, point_i: [12, 0]}",
                   "{name: B, type: revolute, body_i: slider, body_j: rod, point_j: [12, 0]}");
  return text + R"(integration:
  method: rk4
  stabilizer: pstab
  dt: 2.0e-6
outputs:
  channels:
    - {name: tip, kind: beam_deflection, body: rod, station: 12}
    - {name: mid, kind: beam_deflection, body: rod, station: 6}
    - {name: end, kind: point_position, body: rod, point: [12, 0]}
    - {name: end_rate, kind: point_velocity, body: rod, point: [12, 0]}
    - {name: B, kind: reaction, joint: B}
)";
}();

TEST(PlanarBeamOutputs, StreamedOutputsFollowTheDeformedRod) {
  const ModelFile f = parse_model_file(kClampedRodYaml, "rig.yaml");
  const std::shared_ptr<System> sys = make_system(f);
  const auto& bodies = dynamic_cast<const PlanarMultibody&>(*sys);
  const Model model(sys, f.settings);
  Workspace ws(model);
  State s = initial_state(model);
  const std::unique_ptr<OutputEvaluator> out = make_output_evaluator(f, *sys);
  ASSERT_EQ(out->count(), 2 + 2 + 2 + 2 + 3);
  const auto channels = model_output_channels(f);
  EXPECT_EQ(channels[0].first, "tip.u");
  EXPECT_EQ(channels[1].first, "tip.v");
  EXPECT_EQ(channels[1].second, "m");
  std::array<double, 11> o{};
  double worst_gap = 0.0;
  double largest_tip = 0.0;
  double largest_rigid_miss = 0.0;
  double worst_moment = 0.0;
  double largest_force = 0.0;
  double worst_rate = 0.0;
  const int slider = bodies.coordinate_offset(2);
  for (int i = 0; i < 2000; ++i) {  // 4 ms: past a quarter of the rod's first bending period
    ASSERT_TRUE(step(model, s, ws).ok());
    if (i % 100 != 99) continue;
    out->evaluate(s, ws, o);
    const Eigen::Vector2d end(o[4], o[5]);
    const Eigen::Vector2d slider_at = s.q.segment<2>(slider);
    worst_gap = std::max(worst_gap, (end - slider_at).norm());
    // the rigid frame's point (12, 0) misses the slider by the tip's deflection
    const int rod = bodies.coordinate_offset(1);
    const double th = s.q(rod + 2);
    const Eigen::Vector2d rigid =
        s.q.segment<2>(rod) + 12.0 * Eigen::Vector2d(std::cos(th), std::sin(th));
    largest_rigid_miss = std::max(largest_rigid_miss, (rigid - slider_at).norm());
    largest_tip = std::max(largest_tip, std::abs(o[1]));
    // the end's velocity is the slider's
    worst_rate =
        std::max(worst_rate, (Eigen::Vector2d(o[6], o[7]) - s.v.segment<2>(slider)).norm());
    // a revolute joint exerts no moment about its own point
    largest_force = std::max(largest_force, std::hypot(o[8], o[9]));
    worst_moment = std::max(worst_moment, std::abs(o[10]));
  }
  std::printf(
      "[beam outputs] tip deflection up to %.3e in, rigid-frame point misses by %.3e in, "
      "deformed point by %.3e in; |v_end - v_slider| %.2e in/s; reaction up to %.3e lb, its "
      "moment %.2e lb in\n",
      largest_tip, largest_rigid_miss, worst_gap, worst_rate, largest_force, worst_moment);
  EXPECT_GT(largest_tip, 1e-3) << "the rod bends";
  EXPECT_GT(largest_rigid_miss, 1e-3);
  EXPECT_LT(worst_gap, 1e-9);
  EXPECT_LT(worst_rate, 1e-6);
  EXPECT_GT(largest_force, 1e-3);
  EXPECT_LT(worst_moment, 1e-9 * 12.0 * largest_force);
}

TEST(PlanarBeamOutputs, BadBeamOutputsAreRefusedAtTheirKey) {
  const auto error = [](const std::string& from, const std::string& to) {
    return testing::model_file_error(testing::replace_once(kClampedRodYaml, from, to));
  };
  const std::string rigid = error("kind: beam_deflection, body: rod, station: 12",
                                  "kind: beam_deflection, body: crank, station: 1");
  EXPECT_NE(rigid.find("outputs.channels[0].body"), std::string::npos) << rigid;
  EXPECT_NE(rigid.find("needs a beam body"), std::string::npos) << rigid;
  const std::string beyond = error("station: 12", "station: 12.5");
  EXPECT_NE(beyond.find("outputs.channels[0].station"), std::string::npos) << beyond;
  const std::string missing = error("body: rod, station: 12}", "body: rod}");
  EXPECT_NE(missing.find("outputs.channels[0].station"), std::string::npos) << missing;
  const std::string elsewhere =
      error("kind: point_position, body: rod, point: [12, 0]",
            "kind: point_position, body: rod, point: [12, 0], station: 3");
  EXPECT_NE(elsewhere.find("outputs.channels[2].station"), std::string::npos) << elsewhere;
  const std::string off_axis = error("point: [12, 0]}", "point: [12, 0.1]}");
  EXPECT_NE(off_axis.find("outputs.channels[2].point"), std::string::npos) << off_axis;
  EXPECT_NE(off_axis.find("[x, 0]"), std::string::npos) << off_axis;
}

}  // namespace
}  // namespace rtmb
