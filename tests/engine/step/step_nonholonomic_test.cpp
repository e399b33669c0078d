// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The step's stages on nonholonomic rows (rtmb/system.hpp; issue 16), on the rolling disc, whose
// two rows A(q) v = 0 are all nonholonomic (Chin 1995 §4.6, reference
// post-stabilization-chin1995.md §3.11). Each expected value is computed here from M, A and L
// with a dense Eigen solve, independently of the engine's KKT path:
//   * stage 1a: A v' = -L (the index-1 row), and with Baumgarte A v' = -L - gamma1 A v (the
//     velocity gain is the rows' gamma; gamma2 has nothing to act on);
//   * stage 2, pstab, sboth and project: q is left alone and v = v~ - M^-1 A^T (A M^-1 A^T)^-1 A
//   v~,
//     Chin's nonholonomic post-stabilization (eq. 3.75, D = M^-1 G^T);
//   * the implicit methods refuse the system at setup.

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <stdexcept>
#include <string>

#include "rtmb/models/mechanisms.hpp"
#include "rtmb/step.hpp"

namespace rtmb {
namespace {

struct Dense {
  Mat M;
  Mat A;
  Vec L;
};

Dense evaluate(const System& sys, const Vec& q, const Vec& v) {
  Dense d{Mat(5, 5), Mat(2, 5), Vec(2)};
  sys.mass(0.0, q, d.M);
  sys.jacobian(0.0, q, d.A);
  sys.curvature(0.0, q, v, d.L);
  return d;
}

// an inconsistent state of the falling disc: tilted, turning, and slipping (A v != 0)
void off_manifold(Vec& q, Vec& v) {
  q.resize(5);
  v.resize(5);
  q << 0.1, -0.2, 1.1, 0.7, 0.4;
  v << 0.3, -0.2, 0.9, -1.3, 0.6;
}

Settings settings_with(StabilizerKind stabilizer, double gamma1 = 0.0, double gamma2 = 0.0) {
  Settings s;
  s.method = Method::kRk4;
  s.stabilizer = stabilizer;
  s.dt = 1e-3;
  s.gamma1 = gamma1;
  s.gamma2 = gamma2;
  return s;
}

TEST(StepNonholonomic, IndexOneAndBaumgarteRowsUseTheVelocityResidual) {
  Vec q;
  Vec v;
  off_manifold(q, v);
  for (const double gamma1 : {0.0, 20.0}) {
    const Model model(make_mechanism("rolling_disc"),
                      settings_with(StabilizerKind::kBaumgarte, gamma1, 100.0));
    Workspace ws(model);
    Vec vdot(5);
    StepStatus st;
    acceleration(ws, 0.0, q, v, vdot, st);
    ASSERT_TRUE(st.ok());
    const Dense d = evaluate(model.system(), q, v);
    const Vec residual = d.A * v;
    ASSERT_GT(residual.norm(), 0.1);
    const Vec expected = -d.L - gamma1 * residual;
    EXPECT_LE((d.A * vdot - expected).lpNorm<Eigen::Infinity>(), 1e-12)
        << "gamma1 = " << gamma1 << ": A v' = " << (d.A * vdot).transpose()
        << ", -L - gamma1 A v = " << expected.transpose();
  }
}

TEST(StepNonholonomic, VelocityStabilizersAreChinsEq375) {
  Vec q0;
  Vec v0;
  off_manifold(q0, v0);
  const std::unique_ptr<System> reference = make_mechanism("rolling_disc");
  const Dense d = evaluate(*reference, q0, v0);
  const Mat minv_at = d.M.ldlt().solve(d.A.transpose());
  const Vec expected = v0 - minv_at * (d.A * minv_at).ldlt().solve(d.A * v0);
  for (const StabilizerKind kind :
       {StabilizerKind::kPStab, StabilizerKind::kSBoth, StabilizerKind::kProject}) {
    const Model model(make_mechanism("rolling_disc"), settings_with(kind));
    Workspace ws(model);
    Vec q = q0;
    Vec v = v0;
    StepStatus st;
    stabilize(ws, 0.0, q, v, st);
    EXPECT_TRUE(st.ok()) << to_string(kind);
    EXPECT_EQ((q - q0).lpNorm<Eigen::Infinity>(), 0.0) << to_string(kind) << ": no position row";
    EXPECT_LE((v - expected).lpNorm<Eigen::Infinity>(), 1e-13) << to_string(kind);
    EXPECT_LE((d.A * v).lpNorm<Eigen::Infinity>(), 1e-14) << to_string(kind);
  }
}

TEST(StepNonholonomic, ImplicitMethodsRefuseNonholonomicRowsAtSetup) {
  for (const Method method : {Method::kGsssss, Method::kGgl, Method::kGenAlpha}) {
    Settings s = settings_with(StabilizerKind::kNone);
    s.method = method;
    try {
      const Model model(make_mechanism("rolling_disc"), s);
      ADD_FAILURE() << to_string(method) << " accepted the rolling disc";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("2 nonholonomic (velocity) constraint rows"),
                std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace rtmb
