// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The model of a record (include/rtmb/models/record_model.hpp): rebuilt from the header's model
// file text or its built-in mechanism, with the solver the header names; replay_record runs the
// record on it. Errors: an unknown solver or mechanism, a broken model text named by its path.
#include "rtmb/models/record_model.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <string>

#include "rtmb/models/model_file.hpp"
#include "rtmb/step.hpp"

namespace rtmb {
namespace {

// A one-body pendulum whose file asks for the dense solver (a header can override it).
constexpr const char* kPendulumText = R"(name: record_model_pendulum
bodies:
  - name: link
    mass: 1.0
    inertia: 0.08
    pose: [0.5, 0.0, 0.0]
joints:
  - type: revolute
    body_i: ground
    body_j: link
    point_j: [-0.5, 0.0]
forces:
  - type: gravity
    vector: [0.0, -9.81]
integration:
  method: rk4
  stabilizer: pstab
  dt: 0.002
  solver: dense
)";

RecordHeader pendulum_header() {
  RecordHeader h;
  h.model_path = "recorded/pendulum.yaml";
  h.model_text = kPendulumText;
  return h;
}

TEST(RecordModel, BuildsTheModelFileTextOfTheHeaderWithItsSettings) {
  const std::unique_ptr<Model> model = record_model(pendulum_header());
  ASSERT_NE(model, nullptr);
  const ModelFile file = parse_model_file(kPendulumText, "recorded/pendulum.yaml");
  EXPECT_EQ(model->system().n_q(), 3);
  EXPECT_EQ(model->system().n_v(), 3);
  EXPECT_EQ(model->system().n_lambda(), 2);
  EXPECT_EQ(model->settings().method, file.settings.method);
  EXPECT_EQ(model->settings().stabilizer, file.settings.stabilizer);
  EXPECT_EQ(model->settings().dt, 0.002);
  // no solver in the header: the file's stays
  EXPECT_EQ(model->settings().solver, KktSolver::kDense);
}

TEST(RecordModel, BuildsTheBuiltInMechanismWhenTheHeaderHasNoModelText) {
  RecordHeader h;
  h.mechanism = "andrews";
  const std::unique_ptr<Model> model = record_model(h);
  const ModelFile file = builtin_model_file("andrews");
  const std::unique_ptr<System> expected = make_system(file);
  EXPECT_EQ(model->system().n_q(), expected->n_q());
  EXPECT_EQ(model->system().n_v(), expected->n_v());
  EXPECT_EQ(model->system().n_lambda(), expected->n_lambda());
  EXPECT_EQ(model->settings().dt, file.settings.dt);
  EXPECT_EQ(model->settings().method, file.settings.method);
}

TEST(RecordModel, TheHeadersSolverOverridesTheFiles) {
  RecordHeader h = pendulum_header();
  h.solver = "sparse";
  EXPECT_EQ(record_model(h)->settings().solver, KktSolver::kSparse);
  h.solver = "auto";
  EXPECT_EQ(record_model(h)->settings().solver, KktSolver::kAuto);
  h.solver = "dense";
  EXPECT_EQ(record_model(h)->settings().solver, KktSolver::kDense);
}

// The message of the std::invalid_argument record_model(h) throws; a test failure and "" when it
// throws none.
std::string refusal(const RecordHeader& h) {
  try {
    (void)record_model(h);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  ADD_FAILURE() << "record_model accepted the header";
  return "";
}

TEST(RecordModel, AnUnknownSolverIsRefusedByName) {
  RecordHeader h = pendulum_header();
  h.solver = "cholesky";
  EXPECT_EQ(refusal(h), "replay: unknown solver 'cholesky'");
}

TEST(RecordModel, AnUnknownMechanismIsRefused) {
  RecordHeader h;
  h.mechanism = "no_such_mechanism";
  EXPECT_EQ(refusal(h).rfind("unknown model 'no_such_mechanism'", 0), 0u);
}

TEST(RecordModel, ABrokenModelTextIsReportedAtTheRecordedPath) {
  RecordHeader h = pendulum_header();
  h.model_text = "bodies:\n  - name: link\n    mass: -1.0\n    inertia: 0.08\n";
  try {
    (void)record_model(h);
    FAIL() << "expected ModelFileError";
  } catch (const ModelFileError& e) {
    EXPECT_EQ(e.file(), "recorded/pendulum.yaml");
    EXPECT_EQ(e.line(), 3);
    EXPECT_EQ(e.key(), "bodies[0].mass");
  }
}

// A record without input entries: replay_record steps the header's model from its initial state
// with zero inputs, exactly as stepping that model by hand does.
TEST(RecordModel, ReplayRecordRunsTheRecordOnTheHeadersModel) {
  RecordFile record;
  record.header = pendulum_header();
  record.header.method = "rk4";
  record.header.stabilizer = "pstab";
  record.header.dt = 0.002;
  record.header.n_inputs = 3;
  record.steps = 25;
  std::int64_t last_progress = -1;
  const ReplayResult r =
      replay_record(record, [&last_progress](std::int64_t k) { last_progress = k; });
  EXPECT_EQ(r.steps, 25);
  EXPECT_GE(last_progress, 0);

  const std::unique_ptr<Model> model = record_model(record.header);
  Workspace ws(*model);
  State state = initial_state(*model);
  for (int k = 0; k < 25; ++k) (void)step(*model, state, ws);
  ASSERT_EQ(r.final_state.q.size(), state.q.size());
  EXPECT_EQ(std::memcmp(r.final_state.q.data(), state.q.data(),
                        sizeof(double) * static_cast<std::size_t>(state.q.size())),
            0);
  EXPECT_EQ(r.final_state.t, state.t);
  EXPECT_NE(r.final_state.q, initial_state(*model).q);  // the pendulum did swing
}

TEST(RecordModel, ReplayRecordRefusesAHeaderWhoseSettingsDifferFromItsModel) {
  RecordFile record;
  record.header = pendulum_header();
  record.header.method = "rk4";
  record.header.stabilizer = "pstab";
  record.header.dt = 0.001;  // the model file says 0.002
  record.header.n_inputs = 3;
  record.steps = 1;
  EXPECT_THROW((void)replay_record(record), std::invalid_argument);
}

}  // namespace
}  // namespace rtmb
