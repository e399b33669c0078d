// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Model/Data split (issue 13): one Model shared by two Workspaces that step in two threads at
// the same time with different inputs gives, in each, exactly the trajectory of a separate
// single-threaded run. Before the split the channel values lived in the System (so the two
// simulations overwrote each other's inputs) and IndependentRowsSystem evaluated into scratch of
// the shared System (so the two threads raced on it). Run under ThreadSanitizer it must be clean.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "engine/constraints/redundant_constraints.hpp"
#include "rtmb/engine.hpp"
#include "rtmb/models/mechanisms.hpp"
#include "rtmb/models/model_file.hpp"

namespace rtmb {
namespace {

constexpr int kSteps = 1500;

// The inputs one simulation holds over its whole run: named channel values, or (for a System
// without channels) a generalized force on every coordinate.
struct Inputs {
  std::vector<double> channels;
  std::vector<double> force;
};

State run(const Model& model, Workspace& ws, const Inputs& in) {
  set_inputs(ws, in.channels);
  VecRef f = applied_force(ws);
  for (Eigen::Index i = 0; i < f.size() && i < static_cast<Eigen::Index>(in.force.size()); ++i) {
    f[i] = in.force[static_cast<std::size_t>(i)];
  }
  State s = initial_state(model);
  for (int k = 0; k < kSteps; ++k) (void)step(model, s, ws);
  return s;
}

bool bit_equal(const State& a, const State& b) {
  return a.t == b.t && a.q.size() == b.q.size() && a.v.size() == b.v.size() &&
         std::memcmp(a.q.data(), b.q.data(),
                     sizeof(double) * static_cast<std::size_t>(a.q.size())) == 0 &&
         std::memcmp(a.v.data(), b.v.data(),
                     sizeof(double) * static_cast<std::size_t>(a.v.size())) == 0;
}

void expect_shared_runs_equal_separate_runs(const Model& model, const Inputs& a, const Inputs& b) {
  // separate runs, one after the other, each on a Workspace of its own
  State ref_a;
  State ref_b;
  {
    Workspace ws(model);
    ref_a = run(model, ws, a);
  }
  {
    Workspace ws(model);
    ref_b = run(model, ws, b);
  }
  // the inputs matter: otherwise the test could not see one simulation using the other's
  ASSERT_FALSE(bit_equal(ref_a, ref_b));

  // the same two runs at once, in two threads, on one Model
  Workspace ws_a(model);
  Workspace ws_b(model);
  State out_a;
  State out_b;
  std::thread ta([&] { out_a = run(model, ws_a, a); });
  std::thread tb([&] { out_b = run(model, ws_b, b); });
  ta.join();
  tb.join();
  EXPECT_TRUE(bit_equal(out_a, ref_a));
  EXPECT_TRUE(bit_equal(out_b, ref_b));
}

ModelFile config(const std::string& name) {
  return load_model_file(std::string(RTMB_SOURCE_DIR) + "/configs/" + name);
}

TEST(SharedModel, BodyModelWithNamedChannelsInTwoThreads) {
  const ModelFile f = config("five_bar.yaml");
  const Model model(std::shared_ptr<const System>(make_system(f)), f.settings);
  ASSERT_EQ(model.system().n_inputs(), 4);
  // motor torques and the coupling target (five_bar.yaml: tau_1, tau_2, target_x, target_y)
  const Inputs a{{0.02, -0.01, 0.01, 0.16}, {}};
  const Inputs b{{-0.03, 0.02, -0.02, 0.12}, {}};
  expect_shared_runs_equal_separate_runs(model, a, b);
}

TEST(SharedModel, AndrewsWithItsSineMemoInTwoThreads) {
  // Andrews' for_simulation() instance remembers the sines and cosines of its last q
  // (Andrews::TrigMemo): each Workspace must evaluate one of its own, never a shared one
  Settings settings;
  settings.method = Method::kRk4;
  settings.stabilizer = StabilizerKind::kPStab;
  settings.dt = find_mechanism("andrews")->default_dt;
  const Model model(std::shared_ptr<const System>(make_mechanism("andrews", {})), settings);
  ASSERT_NE(model.system().for_simulation(), nullptr);
  const auto n = static_cast<std::size_t>(model.system().n_v());
  Inputs a{{}, std::vector<double>(n, 0.0)};
  Inputs b{{}, std::vector<double>(n, 0.0)};
  a.force[0] = 0.01;   // against the drive torque of 0.033 N m
  b.force[2] = -0.02;  // on gamma, the spring's body
  expect_shared_runs_equal_separate_runs(model, a, b);
}

TEST(SharedModel, RedundantRowsRemovedInTwoThreads) {
  const ModelFile f = config("spatial_four_bar.yaml");
  const Model model(std::shared_ptr<const System>(make_system(f)), f.settings);
  // the System evaluates into scratch: each Workspace must evaluate an instance of its own
  ASSERT_NE(dynamic_cast<const IndependentRowsSystem*>(&model.system()), nullptr);
  ASSERT_NE(model.system().for_simulation(), nullptr);
  const auto n = static_cast<std::size_t>(model.system().n_v());
  Inputs a{{}, std::vector<double>(n, 0.0)};
  Inputs b{{}, std::vector<double>(n, 0.0)};
  for (std::size_t i = 0; i < n; ++i) {
    a.force[i] = 0.05 * static_cast<double>(i % 3);
    b.force[i] = -0.04 * static_cast<double>((i + 1) % 4);
  }
  expect_shared_runs_equal_separate_runs(model, a, b);
}

}  // namespace
}  // namespace rtmb
