// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The sparse KKT path of the step (Settings::solver, engine/kkt/kkt_backend.hpp) against the
// dense one on every body model in configs/ and on pinned planar chains (N = 10, 100):
//  * one evaluation of the index-1 dynamics, v' and lambda, at the initial state and at a
//    perturbed (inconsistent) state with Baumgarte terms on;
//  * 200 steps of RK4 + PStab (monitor on), and shorter runs of every explicit method x every
//    stabilizer with a sparse path.
// Agreement is measured as ||x_sparse - x_dense||_inf / ||x_dense||_inf (relative in the
// infinity norm, over the whole vector). Both solvers are exact direct methods, so they differ
// by roundoff only.
// Also: how Model resolves `auto`, and the errors for `sparse` where it cannot run.
#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>

#include "engine/dynamics/dynamics.hpp"
#include "rtmb/models/mechanisms.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/models/planar_multibody.hpp"
#include "rtmb/step.hpp"
#include "tests/support/model_file_errors.hpp"
#include "tests/support/planar_chain_spec.hpp"
#include "tests/support/sparse_models.hpp"

namespace rtmb {
namespace {

double rel_diff(const Vec& a, const Vec& b) {
  const double scale = b.lpNorm<Eigen::Infinity>();
  const double diff = (a - b).lpNorm<Eigen::Infinity>();
  return scale > 0.0 ? diff / scale : diff;
}

std::vector<testing::NamedSystem> models() {
  int missing = 0;
  std::vector<testing::NamedSystem> out = testing::sparse_config_models(&missing);
  EXPECT_EQ(missing, 0);
  EXPECT_GE(out.size(), 3u) << "body models with a sparse structure in configs/";
  for (int n : {10, 100}) {
    out.push_back({"chain_loop_" + std::to_string(n),
                   std::make_shared<PlanarMultibody>(testing::planar_chain_spec(n, true))});
  }
  return out;
}

Settings settings_for(KktSolver solver,
                      Method method = Method::kRk4,
                      StabilizerKind stabilizer = StabilizerKind::kPStab) {
  Settings s;
  s.method = method;
  s.stabilizer = stabilizer;
  s.solver = solver;
  s.dt = 1e-3;
  if (stabilizer == StabilizerKind::kBaumgarte) {
    s.gamma1 = 20.0;
    s.gamma2 = 100.0;
  }
  return s;
}

TEST(SparsePath, OneEvaluationAgreesWithDense) {
  double worst_a = 0.0;
  double worst_l = 0.0;
  for (const auto& [name, sys, dt] : models()) {
    State s;
    sys->initial_state(s);
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> u(-0.5, 0.5);
    State p = s;  // perturbed: off the manifold, random velocities
    for (Eigen::Index i = 0; i < p.q.size(); ++i) {
      p.q[i] += 0.05 * u(rng);
      p.v[i] = u(rng);
    }
    for (int k = 0; k < 2; ++k) {
      const State& x = k == 0 ? s : p;
      Dynamics dense(*sys, KktSolver::kDense);
      Dynamics sparse(*sys, KktSolver::kSparse);
      if (k == 1) {  // Baumgarte exercises G v and g on both paths
        dense.set_baumgarte(20.0, 100.0);
        sparse.set_baumgarte(20.0, 100.0);
      }
      Vec a_d(sys->n_v());
      Vec a_s(sys->n_v());
      StepStatus st_d;
      StepStatus st_s;
      dense.evaluate(0.0, x.q, x.v, a_d, st_d);
      sparse.evaluate(0.0, x.q, x.v, a_s, st_s);
      ASSERT_TRUE(st_d.ok()) << name;
      ASSERT_TRUE(st_s.ok()) << name;
      const double ea = rel_diff(a_s, a_d);
      const double el = rel_diff(sparse.lambda(), dense.lambda());
      EXPECT_LE(ea, 1e-12) << name << (k == 0 ? " initial" : " perturbed");
      EXPECT_LE(el, 1e-12) << name << (k == 0 ? " initial" : " perturbed");
      std::printf("[sparse] %-24s %-9s v' rel %.2e  lambda rel %.2e\n", name.c_str(),
                  k == 0 ? "initial" : "perturbed", ea, el);
      worst_a = std::max(worst_a, ea);
      worst_l = std::max(worst_l, el);
    }
  }
  std::printf("[sparse] worst: v' %.2e, lambda %.2e\n", worst_a, worst_l);
}

TEST(SparsePath, TwoHundredStepsRk4PStabAgreeWithDense) {
  for (const auto& [name, sys, dt] : models()) {
    // each model at its own step (Andrews' kHz oscillations need 5e-5 s)
    Settings sd = settings_for(KktSolver::kDense);
    Settings ss = settings_for(KktSolver::kSparse);
    sd.dt = dt;
    ss.dt = dt;
    const Model dense(sys, sd);
    const Model sparse(sys, ss);
    ASSERT_EQ(dense.solver(), KktSolver::kDense);
    ASSERT_EQ(sparse.solver(), KktSolver::kSparse);
    Workspace ws_d(dense);
    Workspace ws_s(sparse);
    State s_d = initial_state(dense);
    State s_s = initial_state(sparse);
    StepStatus st_d;
    StepStatus st_s;
    for (int i = 0; i < 200; ++i) {
      st_d = step(dense, s_d, ws_d);
      st_s = step(sparse, s_s, ws_s);
      ASSERT_TRUE(st_s.ok()) << name << " step " << i;
    }
    const double eq = rel_diff(s_s.q, s_d.q);
    const double ev = rel_diff(s_s.v, s_d.v);
    EXPECT_LE(eq, 1e-12) << name;
    EXPECT_LE(ev, 1e-12) << name;
    // the monitor ran on the sparse G: PStab keeps the drift at roundoff level
    EXPECT_LE(st_s.position_drift, 1e-10) << name;
    EXPECT_LE(st_s.velocity_drift, 1e-10) << name;
    EXPECT_NEAR(st_s.position_drift, st_d.position_drift, 1e-12) << name;
    EXPECT_NEAR(st_s.energy, st_d.energy, 1e-12 * std::max(1.0, std::abs(st_d.energy))) << name;
    std::printf("[sparse] %-24s 200 x rk4+pstab: q rel %.2e  v rel %.2e  drift %.1e / %.1e\n",
                name.c_str(), eq, ev, st_s.position_drift, st_s.velocity_drift);
  }
}

TEST(SparsePath, EveryExplicitMethodAndSparseStabilizerAgreesWithDense) {
  // four_bar.yaml (a closed loop) and the 10-link pinned chain, 100 steps each
  const std::vector<std::shared_ptr<const System>> systems = {
      make_system(load_model_file(std::string(RTMB_SOURCE_DIR) + "/configs/four_bar.yaml")),
      std::make_shared<PlanarMultibody>(testing::planar_chain_spec(10, true))};
  int runs = 0;
  for (const auto& sys : systems) {
    for (Method method : {Method::kEuler, Method::kHeun, Method::kRk4, Method::kDopri5,
                          Method::kAmpc3, Method::kAmpc4, Method::kAmpc5, Method::kMampc3,
                          Method::kMampc4, Method::kMampc5, Method::kOdeMidpoint}) {
      for (StabilizerKind stab :
           {StabilizerKind::kNone, StabilizerKind::kBaumgarte, StabilizerKind::kPStab,
            StabilizerKind::kSBoth, StabilizerKind::kProject}) {
        const Model dense(sys, settings_for(KktSolver::kDense, method, stab));
        const Model sparse(sys, settings_for(KktSolver::kSparse, method, stab));
        Workspace ws_d(dense);
        Workspace ws_s(sparse);
        State s_d = initial_state(dense);
        State s_s = initial_state(sparse);
        for (int i = 0; i < 100; ++i) {
          (void)step(dense, s_d, ws_d);
          const StepStatus st = step(sparse, s_s, ws_s);
          ASSERT_TRUE(st.ok()) << sys->name() << " " << to_string(method) << " " << to_string(stab)
                               << " step " << i;
        }
        // the iterated projection stops at ||g|| <= 1e-12, so the two runs may stop after a
        // different number of corrections: agreement to the projection tolerance there
        const double tol = stab == StabilizerKind::kProject ? 1e-9 : 1e-11;
        EXPECT_LE(rel_diff(s_s.q, s_d.q), tol) << to_string(method) << " " << to_string(stab);
        EXPECT_LE(rel_diff(s_s.v, s_d.v), tol) << to_string(method) << " " << to_string(stab);
        ++runs;
      }
    }
  }
  EXPECT_EQ(runs, 2 * 11 * 5);
}

TEST(SparsePath, AutoResolvesBySizeAndSupport) {
  const std::shared_ptr<const System> pendulum =
      make_system(load_model_file(std::string(RTMB_SOURCE_DIR) + "/configs/pendulum_body.yaml"));
  const auto chain = std::make_shared<PlanarMultibody>(testing::planar_chain_spec(100, true));
  const std::shared_ptr<const System> andrews = make_mechanism("andrews", {});
  // the measured crossover is one planar body: every body model with a structure goes sparse
  ASSERT_GE(pendulum->n_v(), kSparseCrossoverNv);
  EXPECT_EQ(Model(pendulum, settings_for(KktSolver::kAuto)).solver(), KktSolver::kSparse);
  EXPECT_EQ(Model(chain, settings_for(KktSolver::kAuto)).solver(), KktSolver::kSparse);
  EXPECT_EQ(Model(chain, settings_for(KktSolver::kDense)).solver(), KktSolver::kDense);
  EXPECT_EQ(Model(pendulum, settings_for(KktSolver::kSparse)).solver(), KktSolver::kSparse);
  // no sparse structure: minimal-coordinate mechanisms, a massless body
  EXPECT_EQ(Model(andrews, settings_for(KktSolver::kAuto)).solver(), KktSolver::kDense);
  PlanarModelSpec massless = testing::planar_chain_spec(3, false);
  massless.bodies[1].mass = 0.0;
  EXPECT_EQ(
      Model(std::make_shared<PlanarMultibody>(massless), settings_for(KktSolver::kAuto)).solver(),
      KktSolver::kDense);
  // combinations without a sparse path stay dense under auto
  EXPECT_EQ(
      Model(chain, settings_for(KktSolver::kAuto, Method::kRk4, StabilizerKind::kSFull)).solver(),
      KktSolver::kDense);
  EXPECT_EQ(Model(chain, settings_for(KktSolver::kAuto, Method::kNewmark, StabilizerKind::kNone))
                .solver(),
            KktSolver::kDense);
}

std::string construction_error(std::shared_ptr<const System> sys, const Settings& s) {
  try {
    const Model m(std::move(sys), s);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted";
  return {};
}

TEST(SparsePath, SparseWhereUnsupportedIsAnErrorNamingTheReason) {
  const auto chain = std::make_shared<PlanarMultibody>(testing::planar_chain_spec(10, true));
  std::string e =
      construction_error(make_mechanism("andrews", {}), settings_for(KktSolver::kSparse));
  EXPECT_NE(e.find("solver sparse"), std::string::npos) << e;
  EXPECT_NE(e.find("no sparse structure"), std::string::npos) << e;
  e = construction_error(chain,
                         settings_for(KktSolver::kSparse, Method::kRk4, StabilizerKind::kSFull));
  EXPECT_NE(e.find("stabilizer sfull"), std::string::npos) << e;
  e = construction_error(chain,
                         settings_for(KktSolver::kSparse, Method::kGgl, StabilizerKind::kNone));
  EXPECT_NE(e.find("implicit method ggl"), std::string::npos) << e;
  PlanarModelSpec massless = testing::planar_chain_spec(3, false);
  massless.bodies[1].inertia = 0.0;
  e = construction_error(std::make_shared<PlanarMultibody>(massless),
                         settings_for(KktSolver::kSparse));
  EXPECT_NE(e.find("no sparse structure"), std::string::npos) << e;
}

std::string file_error(const std::string& text) {
  return testing::model_file_error(text);
}

TEST(SparsePath, ModelFileSolverKey) {
  const std::string body =
      "bodies:\n  - {name: a, mass: 1, inertia: 0.1, pose: [0.5, 0, 0]}\njoints:\n"
      "  - {type: revolute, body_i: ground, body_j: a, point_j: [-0.5, 0]}\n";
  EXPECT_EQ(parse_model_file(body + "integration:\n  solver: sparse\n", "rig.yaml").settings.solver,
            KktSolver::kSparse);
  EXPECT_EQ(parse_model_file(body + "integration:\n  solver: dense\n", "rig.yaml").settings.solver,
            KktSolver::kDense);
  EXPECT_EQ(parse_model_file(body, "rig.yaml").settings.solver, KktSolver::kAuto);
  std::string e = file_error(body + "integration:\n  solver: fast\n");
  EXPECT_EQ(e.rfind("rig.yaml:6:11:", 0), 0u) << e;
  EXPECT_NE(e.find("key 'integration.solver'"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown solver 'fast'"), std::string::npos) << e;
  // a built-in mechanism has no sparse structure: the error points at the solver key
  e = file_error("mechanism: pendulum\nintegration:\n  solver: sparse\n");
  EXPECT_EQ(e.rfind("rig.yaml:3:11:", 0), 0u) << e;
  EXPECT_NE(e.find("key 'integration.solver'"), std::string::npos) << e;
  EXPECT_NE(e.find("no sparse structure"), std::string::npos) << e;
  e = file_error(body + "integration:\n  stabilizer: sfull\n  solver: sparse\n");
  EXPECT_NE(e.find("key 'integration.solver'"), std::string::npos) << e;
  EXPECT_NE(e.find("stabilizer sfull"), std::string::npos) << e;
}

TEST(SparsePath, SparseWorkspaceHoldsNoDenseMatrices) {
  // N = 1000: a dense K would be (3000 + 2002)^2 doubles = 200 MB and a dense G 48 MB; the
  // sparse workspace (factor of O(N) entries, vectors) must stay far below that. Measured as the
  // growth of the heap's in-use bytes over constructing Model and Workspace.
  const auto chain = std::make_shared<PlanarMultibody>(testing::planar_chain_spec(1000, true));
  const std::size_t before = mallinfo2().uordblks;
  const Model model(chain, settings_for(KktSolver::kAuto));
  ASSERT_EQ(model.solver(), KktSolver::kSparse);
  const Workspace ws(model);
  const std::size_t grown = mallinfo2().uordblks - before;
  std::printf("[sparse] N = 1000 workspace: %.2f MB of heap\n", static_cast<double>(grown) / 1e6);
  EXPECT_LT(grown, 20'000'000u);
}

}  // namespace
}  // namespace rtmb
