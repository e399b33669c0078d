// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The adaptive DOPRI5 driver runs on the Workspace of the fixed step (issue 13), so Baumgarte
// gains combine with a post-step stabilizer as in step() (Settings::gamma1/gamma2: "added to the
// right-hand side under any other stabilizer when non-zero"). Before, AdaptiveDopri5 built a
// Dynamics of its own and set the gains only for `--stabilizer baumgarte`: `rtmb run
// robot_parabola --method dopri5 --rtol 1e-4 --stabilizer pstab --gamma1 20 --gamma2 100` gave
// exactly the NFCN, steps and drift of the run without gains. Now the gains enter the
// right-hand side, the Baumgarte terms -g1 (G v + g_t) - g2 g (Chin 1995 eq. 2.14) change the
// stage derivatives wherever the stage points drift off the manifold, and so the counters and the
// trajectory differ from the run without gains; the changed results are the intended ones.
#include "rtmb/adaptive_dopri5.hpp"

#include <gtest/gtest.h>

#include "engine/dynamics/dynamics.hpp"
#include "rtmb/models/mechanisms.hpp"
#include "tests/support/run_helpers.hpp"

namespace rtmb {
namespace {

using testing::run_adaptive;
using testing::RunSummary;
using testing::settings_for;

AdaptiveOptions options() {
  AdaptiveOptions o;
  o.rtol = 1e-4;
  return o;
}

TEST(AdaptiveDopri5, BaumgarteGainsActUnderPStab) {
  const Settings plain = settings_for(Method::kDopri5, StabilizerKind::kPStab, 1e-3);
  const Settings gains = settings_for(Method::kDopri5, StabilizerKind::kPStab, 1e-3, 20.0, 100.0);
  const RunSummary a = run_adaptive("robot_parabola", plain, options(), 2.0);
  const RunSummary b = run_adaptive("robot_parabola", gains, options(), 2.0);
  ASSERT_EQ(a.flags, 0u);
  ASSERT_EQ(b.flags, 0u);
  // failed before issue 13: the gains were ignored, the two runs were identical
  EXPECT_FALSE(a.counters.nfcn == b.counters.nfcn && a.final_state.q == b.final_state.q &&
               a.final_state.v == b.final_state.v);
}

TEST(AdaptiveDopri5, RightHandSideIsTheFixedStepDynamicsWithTheGains) {
  const Settings st = settings_for(Method::kDopri5, StabilizerKind::kPStab, 1e-3, 20.0, 100.0);
  const Model model(make_mechanism("robot_parabola"), st);
  Workspace ws(model);
  // a state off the manifold, where the Baumgarte terms are non-zero
  State s = initial_state(model);
  s.q.array() += 1e-3;
  s.v.array() -= 2e-3;
  Dynamics reference(model.system(), model.solver());
  reference.set_baumgarte(st.gamma1, st.gamma2);
  Dynamics without(model.system(), model.solver());
  Vec expected(model.system().n_v());
  Vec plain(model.system().n_v());
  Vec got(model.system().n_v());
  StepStatus status;
  reference.evaluate(0.5, s.q, s.v, expected, status);
  without.evaluate(0.5, s.q, s.v, plain, status);
  acceleration(ws, 0.5, s.q, s.v, got, status);
  EXPECT_EQ(got, expected);
  EXPECT_NE(got, plain);

  // the driver's first step uses that right-hand side: a driver on ws and one on its own
  // Workspace agree bit for bit
  AdaptiveDopri5 on_ws(model, ws, options());
  AdaptiveDopri5 own(model, options());
  State s1 = initial_state(model);
  State s2 = initial_state(model);
  StepStatus st1;
  StepStatus st2;
  ASSERT_TRUE(on_ws.step(s1, 1.0, st1));
  ASSERT_TRUE(own.step(s2, 1.0, st2));
  EXPECT_EQ(s1.q, s2.q);
  EXPECT_EQ(s1.v, s2.v);
  EXPECT_EQ(on_ws.counters().nfcn, own.counters().nfcn);
}

}  // namespace
}  // namespace rtmb
