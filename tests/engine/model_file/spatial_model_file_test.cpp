// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Spatial model files (`dimension: spatial`, docs/model-format.md "Spatial bodies") and the
// redundant-constraint check of every body model: each class of bad input fails with
// "FILE:LINE:COL: key 'K': reason" at the right place; redundant joints are refused with the
// joints named, or removed with `redundant_constraints: remove`, after which the model runs on
// its constraints with its energy conserved.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "engine/constraints/redundant_constraints.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/step.hpp"
#include "tests/support/model_file_errors.hpp"
#include "tests/support/model_lookup.hpp"
#include "tests/support/redundant_models.hpp"

namespace rtmb {
namespace {

using testing::config_path;

const char* const kSpatialPendulum = R"(dimension: spatial
bodies:
  - name: bob
    mass: 2.0
    inertia: [0.1, 0.2, 0.3, 0.01, 0.0, -0.02]
    position: [0.5, 0.0, -0.5]
    orientation: [1, 0, 0, 0]
    angular_velocity: [0, 0, 1]
joints:
  - {name: pivot, type: spherical, body_i: ground, body_j: bob, point_j: [-0.5, 0, 0.5]}
forces:
  - {type: gravity, vector: [0, 0, -9.81]}
)";

std::string spatial_error_of(const std::string& text) {
  return testing::model_file_error(text, "m.yaml");
}

std::string replace(const std::string& text, const std::string& from, const std::string& to) {
  return testing::replace_once(text, from, to);
}

// How far a run of `steps` steps from s strays: the largest |g|inf and |E - E0| (E0 the energy
// at the start).
struct Drift {
  double e0 = 0.0;
  double g = 0.0;
  double e = 0.0;
};

Drift run_and_measure(const Model& model, Workspace& ws, State& s, int steps) {
  const System& sys = model.system();
  Drift d;
  d.e0 = sys.energy(s.t, s.q, s.v, {});
  Vec g(sys.n_lambda());
  for (int k = 0; k < steps; ++k) {
    const StepStatus st = step(model, s, ws);
    EXPECT_TRUE(st.ok()) << "step " << k;
    if (!st.ok()) break;
    sys.constraints(s.t, s.q, g);
    d.g = std::max(d.g, g.lpNorm<Eigen::Infinity>());
    d.e = std::max(d.e, std::abs(sys.energy(s.t, s.q, s.v, {}) - d.e0));
  }
  return d;
}

TEST(SpatialModelFile, LoadsAssemblesAndRuns) {
  const ModelFile f = parse_model_file(kSpatialPendulum, "pendulum3d.yaml");
  ASSERT_TRUE(f.spatial);
  EXPECT_FALSE(f.bodies);
  EXPECT_EQ(model_name(f), "pendulum3d");
  const std::shared_ptr<const System> sys = make_system(f);
  EXPECT_EQ(sys->n_q(), 7);
  EXPECT_EQ(sys->n_lambda(), 4);
  // forces on the position and torques on the Euler parameters of each body, in q's order
  std::vector<std::string> input_names;
  for (const InputChannelSpec& c : f.inputs) input_names.push_back(c.name + " [" + c.unit + "]");
  EXPECT_EQ(input_names,
            (std::vector<std::string>{"bob.fx [N]", "bob.fy [N]", "bob.fz [N]", "bob.qe0 [N*m]",
                                      "bob.qe1 [N*m]", "bob.qe2 [N*m]", "bob.qe3 [N*m]"}));
  EXPECT_EQ(f.output_units, (std::vector<std::string>{"m", "m", "m", "1", "1", "1", "1", "m/s",
                                                      "m/s", "m/s", "1/s", "1/s", "1/s", "1/s"}));
  // the off-diagonal inertia entries reached the tensor
  EXPECT_EQ(f.spatial->bodies[0].inertia(0, 1), 0.01);
  EXPECT_EQ(f.spatial->bodies[0].inertia(2, 1), -0.02);
  // omega = (0, 0, 1) about a pivot at distance 0.5 along -x from the centre of mass is not
  // consistent with r' = 0: the loader projected the velocities and said so
  ASSERT_FALSE(f.notes.empty());
  EXPECT_NE(f.notes.back().find("velocity"), std::string::npos);
  const Model model(sys, f.settings);
  Workspace ws(model);
  State s = initial_state(model);
  const Drift d = run_and_measure(model, ws, s, 1000);
  EXPECT_LE(d.g, 1e-10);
  EXPECT_LE(d.e, 1e-8 * std::abs(d.e0));
  std::printf("spatial pendulum file: |g| <= %.3e, |E - E0| <= %.3e J (E0 = %.4f J)\n", d.g, d.e,
              d.e0);
}

TEST(SpatialModelFile, ErrorsNameFileLineColumnAndKey) {
  struct Case {
    std::string text;
    std::string expect;  // prefix of the message
  };
  const Case cases[] = {
      {replace(kSpatialPendulum, "    mass: 2.0\n", "    mass: 2.0\n    colour: red\n"),
       "m.yaml:5:5: key 'bodies[0].colour': unknown key"},
      {replace(kSpatialPendulum, "position: [0.5, 0.0, -0.5]", "position: 0.5"),
       "m.yaml:6:15: key 'bodies[0].position': expected a list of 3 numbers"},
      {replace(kSpatialPendulum, "    mass: 2.0\n", ""),
       "m.yaml:3:5: key 'bodies[0].mass': missing (kg)"},
      {replace(kSpatialPendulum, "[0.1, 0.2, 0.3, 0.01, 0.0, -0.02]",
               "[0.1, 0.2, 0.3, 0.5, 0.0, 0.0]"),
       "m.yaml:5:14: key 'bodies[0].inertia': the inertia tensor must be positive definite"},
      {replace(kSpatialPendulum, "body_j: bob,", "body_j: bobby,"),
       "m.yaml:10:60: key 'joints[0].body_j': unknown body 'bobby' (bodies: ground, bob)"},
      {replace(kSpatialPendulum, "type: spherical, body_i: ground, body_j: bob,",
               "type: revolute, axis_i: [0, 0, 0], body_i: ground, body_j: bob,"),
       "m.yaml:10:43: key 'joints[0].axis_i': must not be zero"},
      {replace(kSpatialPendulum, "dimension: spatial", "dimension: 4d"),
       "m.yaml:1:12: key 'dimension': expected planar or spatial"},
      {replace(kSpatialPendulum, "dimension: spatial",
               "dimension: spatial\nredundant_constraints: maybe"),
       "m.yaml:2:24: key 'redundant_constraints': expected error or remove"},
  };
  for (const Case& c : cases) {
    const std::string what = spatial_error_of(c.text);
    EXPECT_EQ(what.rfind(c.expect, 0), 0u) << "got: " << what << "\nwant: " << c.expect;
  }
}

TEST(SpatialModelFile, AnImpossiblePoseFailsNamingTheJoints) {
  // a distance of 0.3 m between a ground point and a body point, but the body is also welded
  // 2 m away: no pose satisfies both
  const std::string bad = replace(
      kSpatialPendulum,
      "  - {name: pivot, type: spherical, body_i: ground, body_j: bob, point_j: [-0.5, 0, 0.5]}\n",
      "  - {name: tether, type: distance, length: 0.3, body_i: ground, body_j: bob}\n"
      "  - {name: weld, type: fixed, body_i: ground, point_i: [0, 0, -2], body_j: bob}\n");
  const std::string what = spatial_error_of(bad);
  EXPECT_EQ(what.rfind("m.yaml:10:3: key 'joints': assembly failed", 0), 0u) << what;
  EXPECT_NE(what.find("tether"), std::string::npos) << what;
  EXPECT_NE(what.find("weld"), std::string::npos) << what;
}

TEST(SpatialModelFile, AnInconsistentPoseIsAssembledWithANote) {
  // the bob 0.1 m off its pivot and turned a little: Newton puts it back on the joint
  const std::string text = replace(
      replace(kSpatialPendulum, "position: [0.5, 0.0, -0.5]", "position: [0.6, 0.05, -0.5]"),
      "orientation: [1, 0, 0, 0]", "orientation: [1, 0.05, 0, 0]");
  const ModelFile f = parse_model_file(text, "m.yaml");
  ASSERT_GE(f.notes.size(), 1u);
  EXPECT_EQ(f.notes.front().rfind("initial pose assembled: |g|_inf", 0), 0u) << f.notes.front();
  const std::shared_ptr<const System> sys = make_system(f);
  State s;
  sys->initial_state(s);
  Vec g(sys->n_lambda());
  sys->constraints(0.0, s.q, g);
  EXPECT_LE(g.lpNorm<Eigen::Infinity>(), 1e-10);
  EXPECT_NEAR(f.spatial->bodies[0].orientation.norm(), 1.0, 1e-15);
  std::printf("%s\n", f.notes.front().c_str());
}

// ---- redundant constraints -------------------------------------------------------------------

std::string read(const std::string& path) {
  std::FILE* fp = std::fopen(path.c_str(), "rb");
  EXPECT_NE(fp, nullptr) << path;
  std::string out;
  char buf[4096];
  std::size_t n = 0;
  while (fp != nullptr && (n = std::fread(buf, 1, sizeof buf, fp)) > 0) out.append(buf, n);
  if (fp != nullptr) std::fclose(fp);
  return out;
}

Drift run(const ModelFile& f, int steps) {
  const Model model(make_system(f), f.settings);
  Workspace ws(model);
  State s = initial_state(model);
  return run_and_measure(model, ws, s, steps);
}

TEST(RedundantConstraints, SpatialFourBarIsRefusedWithoutRemoveAndRunsWithIt) {
  const std::string text = read(config_path("spatial_four_bar.yaml"));
  const std::string refused = replace(text, "redundant_constraints: remove\n", "");
  const std::string what = spatial_error_of(refused);
  EXPECT_NE(what.find(": key 'joints': redundant constraints: G has rank 20 < 23 rows"),
            std::string::npos)
      << what;
  for (const char* joint : {"joint A", "joint B", "joint C", "joint D"}) {
    EXPECT_NE(what.find(joint), std::string::npos) << joint << " in " << what;
  }
  std::printf("refused: %s\n", what.c_str());

  const ModelFile f = load_model_file(config_path("spatial_four_bar.yaml"));
  ASSERT_EQ(f.kept_constraint_rows.size(), 20u);
  ASSERT_FALSE(f.notes.empty());
  EXPECT_NE(f.notes.back().find("redundant constraints removed: 3 dependent row(s) of 23"),
            std::string::npos)
      << f.notes.back();
  std::printf("note: %s\n", f.notes.back().c_str());
  const std::shared_ptr<const System> sys = make_system(f);
  EXPECT_EQ(sys->n_lambda(), 20);
  // the kept rows have full rank at the initial pose
  State s0;
  sys->initial_state(s0);
  EXPECT_EQ(constraint_rank(*sys, s0.q).rank, 20);
  const Drift r = run(f, 1000);
  EXPECT_LE(r.g, 1e-10);
  EXPECT_LE(r.e, 1e-8 * std::abs(r.e0));
  // the full (unreduced) constraints hold too
  const auto& reduced = dynamic_cast<const IndependentRowsSystem&>(*sys);
  EXPECT_EQ(reduced.full().n_lambda(), 23);
  std::printf("spatial four-bar (reduced): |g| <= %.3e, |E - E0| <= %.3e J (E0 = %.4f J)\n", r.g,
              r.e, r.e0);
}

// The model of a file with its workspace, stepped from its initial state.
struct FileRun {
  explicit FileRun(const ModelFile& f) : model(make_system(f), f.settings), ws(model) {}
  bool step() { return rtmb::step(model, s, ws).ok(); }
  Model model;
  Workspace ws;
  State s = initial_state(model);
};

TEST(RedundantConstraints, ReducedSpatialFourBarMovesLikeThePlanarFourBar) {
  // configs/spatial_four_bar.yaml is configs/four_bar.yaml built in space (same bodies, joints,
  // gravity and crank spring). Started at rest from the same pose, the reduced spatial model must
  // reproduce the planar body model's angles: theta = 2 atan2(e3, e0) for a turn about z.
  const std::string text =
      replace(read(config_path("spatial_four_bar.yaml")), "angular_velocity: [0.0, 0.0, 1.0]",
              "angular_velocity: [0, 0, 0]");
  const ModelFile fs = parse_model_file(text, "spatial_four_bar.yaml");
  const ModelFile fp = load_model_file(config_path("four_bar.yaml"));
  FileRun spatial(fs);
  FileRun planar(fp);
  const State& ss = spatial.s;
  const State& sp = planar.s;
  double worst = 0.0;
  double swept = 0.0;
  const double theta0 = sp.q(2);
  for (int k = 0; k < 2000; ++k) {
    ASSERT_TRUE(spatial.step());
    ASSERT_TRUE(planar.step());
    for (int b = 0; b < 3; ++b) {
      const double th = 2.0 * std::atan2(ss.q(7 * b + 6), ss.q(7 * b + 3));
      worst =
          std::max(worst, std::abs(std::remainder(th - sp.q(3 * b + 2), 2.0 * std::acos(-1.0))));
      worst = std::max(worst, std::abs(ss.q(7 * b) - sp.q(3 * b)));
      worst = std::max(worst, std::abs(ss.q(7 * b + 1) - sp.q(3 * b + 1)));
    }
    swept = std::max(swept, std::abs(sp.q(2) - theta0));
  }
  EXPECT_GT(swept, 0.1);
  EXPECT_LE(worst, 1e-9);
  std::printf(
      "spatial vs planar four-bar over 2 s: max |difference| = %.3e (crank swept %.3f rad)\n",
      worst, swept);
}

// The double-supported four-bar (tests/support/redundant_models.hpp), under gravity.
std::string parallelogram(const char* more) {
  std::string text = testing::kParallelogramYaml;
  text += "forces:\n  - {type: gravity, vector: [0.0, -9.81]}\n";
  text += more;
  return text;
}

TEST(RedundantConstraints, PlanarDoubleSupportedFourBarIsRefusedWithoutRemoveAndRunsWithIt) {
  const std::string what = spatial_error_of(parallelogram(""));
  EXPECT_NE(what.find("key 'joints': redundant constraints: G has rank"), std::string::npos)
      << what;
  std::printf("refused: %s\n", what.c_str());
  const ModelFile f =
      parse_model_file(parallelogram("redundant_constraints: remove\n"), "parallelogram.yaml");
  const std::shared_ptr<const System> sys = make_system(f);
  State s0;
  sys->initial_state(s0);
  const ConstraintRank rank = constraint_rank(*sys, s0.q);
  EXPECT_EQ(rank.rank, sys->n_lambda());
  EXPECT_EQ(sys->n_q() - rank.rank, 1);  // one degree of freedom
  std::printf("note: %s\n", f.notes.back().c_str());
  // give it motion: a kick on the coupler along x through the input force, then free
  const Model model(sys, f.settings);
  Workspace ws(model);
  State s = initial_state(model);
  applied_force(ws)(9) = 5.0;
  for (int k = 0; k < 100; ++k) ASSERT_TRUE(step(model, s, ws).ok());
  applied_force(ws).setZero();
  const Drift d = run_and_measure(model, ws, s, 1000);
  EXPECT_GT(s.v.lpNorm<Eigen::Infinity>(), 0.1);
  EXPECT_LE(d.g, 1e-10);
  EXPECT_LE(d.e, 1e-8 * (1.0 + std::abs(d.e0)));
  std::printf("parallelogram (reduced): |g| <= %.3e, |E - E0| <= %.3e J\n", d.g, d.e);
}

TEST(RedundantConstraints, ReducedSparseValuesEqualTheReducedDenseJacobian) {
  const ModelFile f = load_model_file(config_path("spatial_four_bar.yaml"));
  const std::shared_ptr<const System> sys = make_system(f);
  SparsePattern mp;
  SparsePattern gp;
  ASSERT_TRUE(sys->sparse_structure(mp, gp));
  ASSERT_EQ(gp.rows, sys->n_lambda());
  State s;
  sys->initial_state(s);
  s.q(0) += 0.1;  // anywhere, not only on g = 0
  Mat G(sys->n_lambda(), sys->n_v());
  sys->jacobian(0.0, s.q, G);
  std::vector<double> gv(static_cast<std::size_t>(gp.nonzeros()));
  sys->jacobian_values(0.0, s.q, gv);
  Mat Gs = Mat::Zero(sys->n_lambda(), sys->n_v());
  for (int c = 0; c < gp.cols; ++c) {
    for (int k = gp.outer[static_cast<std::size_t>(c)];
         k < gp.outer[static_cast<std::size_t>(c) + 1]; ++k) {
      Gs(gp.inner[static_cast<std::size_t>(k)], c) = gv[static_cast<std::size_t>(k)];
    }
  }
  EXPECT_EQ((Gs - G).lpNorm<Eigen::Infinity>(), 0.0);
}

}  // namespace
}  // namespace rtmb
