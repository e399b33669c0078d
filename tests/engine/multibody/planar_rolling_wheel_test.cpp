// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The planar rolling wheel (engine/multibody/planar_rolling_wheel.hpp; issue 16, acceptance 1,
// last sentence). Its rows against first principles: the contact row's g, G, H, L against finite
// differences of g; the no-slip row is the velocity of the wheel's material point at the contact,
// computed here from the pose, and its H and L against finite differences of A(q) v; the sparse
// values and fused evaluations equal the dense ones. Then the closed form: a wheel rolling down an
// incline from rest has the constant acceleration a = g sin(alpha) / (1 + J / (m r^2)) along the
// line (Newton-Euler for the disc with the contact force F t + N n at P = c - r n:
// m s'' = m g sin(alpha) + F, J th'' = r F, and no slip s' = -r th'), so
// s(t) = a t^2 / 2 and theta(t) = theta0 - s(t) / r; held by a spring k along the line it
// oscillates with w^2 = k / (m + J / r^2) (configs/rolling_wheel.yaml).
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "rtmb/models/model_file.hpp"
#include "rtmb/models/planar_multibody.hpp"
#include "rtmb/step.hpp"
#include "tests/engine/multibody/multibody_test_support.hpp"
#include "tests/support/model_lookup.hpp"
#include "tests/support/planar_test_models.hpp"

namespace rtmb {
namespace {

using multibody_test::expect_near;
using multibody_test::fd_jacobian;
using multibody_test::kFdStep;

constexpr double kRadius = 0.35;
const Eigen::Vector2d kOrigin(0.2, -0.1);
const Eigen::Vector2d kCentre(0.07, -0.04);  // eccentric: the wheel centre off the centre of mass

// One wheel (body 0) on the line through kOrigin along (0.8, -0.6), its centre at kCentre.
PlanarModelSpec wheel_spec() {
  PlanarModelSpec s;
  s.bodies = {testing::test_body("wheel", 1.3, 0.09)};
  for (const PlanarJointType type :
       {PlanarJointType::kRollingContact, PlanarJointType::kRollingNoSlip}) {
    PlanarJointSpec jt =
        testing::test_joint(type == PlanarJointType::kRollingContact ? "w" : "w.no_slip", type,
                            kGround, 0, kOrigin, kCentre);
    jt.axis = {0.8, -0.6};
    jt.radius = kRadius;
    s.joints.push_back(jt);
  }
  return s;
}

// The wheel's centre c and the velocity of its material point at the contact P = c - r n.
struct Contact {
  Eigen::Vector2d centre;
  Eigen::Vector2d point_velocity;
};

Contact contact(const Vec& q, const Vec& v) {
  const Eigen::Vector2d t(0.8, -0.6);
  const Eigen::Vector2d n(0.6, 0.8);  // S t
  const Eigen::Rotation2Dd a(q(2));
  const Eigen::Vector2d c = q.head<2>() + a * kCentre;
  const Eigen::Vector2d p = c - kRadius * n;
  const Eigen::Vector2d arm = p - q.head<2>();  // from the centre of mass
  return {c, v.head<2>() + v(2) * Eigen::Vector2d(-arm.y(), arm.x())};
}

TEST(RollingWheel, RowsAgainstTheContactKinematicsAndFiniteDifferences) {
  const PlanarMultibody sys(wheel_spec());
  ASSERT_EQ(sys.n_lambda(), 2);
  ASSERT_EQ(sys.n_holonomic(), 1);  // the contact row; the no-slip row is nonholonomic
  for (unsigned seed = 1; seed <= 4; ++seed) {
    const multibody_test::Sample s = multibody_test::random_state(3, seed, 1.5);
    auto g_of = [&](const Vec& q) {
      Vec g(2);
      sys.constraints(0.0, q, g);
      return g;
    };
    auto av_of = [&](const Vec& q) {
      Mat G(2, 3);
      sys.jacobian(0.0, q, G);
      return Vec(G * s.v);
    };
    const Contact k = contact(s.q, s.v);
    const Vec g = g_of(s.q);
    EXPECT_NEAR(g(0), Eigen::Vector2d(0.6, 0.8).dot(k.centre - kOrigin) - kRadius, 1e-14);
    EXPECT_EQ(g(1), 0.0);  // a velocity row has no position residual
    // A v: the contact point's velocity across (contact row) and along (no slip) the line
    const Vec av = av_of(s.q);
    EXPECT_NEAR(av(0), Eigen::Vector2d(0.6, 0.8).dot(k.point_velocity), 1e-14);
    EXPECT_NEAR(av(1), Eigen::Vector2d(0.8, -0.6).dot(k.point_velocity), 1e-14);
    Mat G(2, 3);
    sys.jacobian(0.0, s.q, G);
    expect_near(G.topRows(1), fd_jacobian(g_of, s.q).topRows(1), 1e-8, "contact G vs dg/dq");
    Mat H(2, 3);
    sys.velocity_constraint_jacobian(0.0, s.q, s.v, H);
    expect_near(H, fd_jacobian(av_of, s.q), 1e-8, "d(A v)/dq vs FD");
    // L = d/dt (A(q) v + a) - A v' = d/ds A(q + s v) v (a = 0), and for the contact row also
    // d^2/ds^2 g(q + s v)
    Vec L(2);
    sys.curvature(0.0, s.q, s.v, L);
    const Vec L_fd = (av_of(s.q + kFdStep * s.v) - av_of(s.q - kFdStep * s.v)) / (2.0 * kFdStep);
    expect_near(L, L_fd, 1e-8, "L vs d/ds (A v)");
    const double h2 = 1e-4;
    EXPECT_NEAR(
        L(0),
        (g_of(s.q + h2 * s.v) - 2.0 * g(0) * Vec::Ones(2) + g_of(s.q - h2 * s.v))(0) / (h2 * h2),
        1e-6);
    Vec gt(2);
    sys.constraint_rate(0.0, s.q, gt);
    EXPECT_EQ(gt.lpNorm<Eigen::Infinity>(), 0.0);  // a fixed line: g_t = a = 0
  }
}

TEST(RollingWheel, SparseAndFusedValuesEqualTheDenseOnes) {
  // with a revolute pendulum before the wheel rows, so the wheel's column shares rows with it
  PlanarModelSpec spec = wheel_spec();
  spec.bodies.push_back(testing::test_body("arm", 0.8, 0.05));
  spec.joints.insert(spec.joints.begin(), testing::test_joint("pin", PlanarJointType::kRevolute, 0,
                                                              1, {0.1, 0.0}, {-0.2, 0.0}));
  const PlanarMultibody sys(spec);
  SparsePattern mp;
  SparsePattern gp;
  ASSERT_TRUE(sys.sparse_structure(mp, gp));
  const multibody_test::Sample s = multibody_test::random_state(6, 7, 1.0);
  std::vector<double> values(static_cast<std::size_t>(gp.nonzeros()));
  sys.jacobian_values(0.0, s.q, values);
  Mat from_sparse = Mat::Zero(sys.n_lambda(), 6);
  for (int c = 0; c < 6; ++c) {
    for (int k = gp.outer[static_cast<std::size_t>(c)];
         k < gp.outer[static_cast<std::size_t>(c) + 1]; ++k) {
      from_sparse(gp.inner[static_cast<std::size_t>(k)], c) = values[static_cast<std::size_t>(k)];
    }
  }
  Mat G(sys.n_lambda(), 6);
  sys.jacobian(0.0, s.q, G);
  EXPECT_EQ((from_sparse - G).lpNorm<Eigen::Infinity>(), 0.0);
  std::vector<double> fused(values.size());
  Vec L(sys.n_lambda());
  Vec L_fused(sys.n_lambda());
  sys.curvature(0.0, s.q, s.v, L);
  sys.jacobian_values_and_curvature(0.0, s.q, s.v, fused, L_fused);
  EXPECT_EQ(fused, values);
  EXPECT_EQ((L - L_fused).lpNorm<Eigen::Infinity>(), 0.0);
}

TEST(RollingWheel, SpecValidation) {
  PlanarModelSpec spec = wheel_spec();
  spec.joints[0].radius = 0.0;
  EXPECT_THROW(PlanarMultibody{spec}, std::invalid_argument);
  spec = wheel_spec();
  spec.joints[1].body_i = 0;  // the line must be on the ground
  spec.joints[1].body_j = kGround;
  EXPECT_THROW(PlanarMultibody{spec}, std::invalid_argument);
  spec = wheel_spec();
  std::swap(spec.joints[0], spec.joints[1]);  // a nonholonomic row before a holonomic one
  EXPECT_THROW(PlanarMultibody{spec}, std::invalid_argument);
}

// The closed forms of configs/rolling_wheel.yaml (the values are stated there): a solid disc
// (J = m r^2 / 2) on a 30 degree incline from rest. Without the file's spring it rolls down with
// a = g sin(alpha) / (1 + J/(m r^2)) = g / 3, s = a t^2 / 2; with it, (m + J/r^2) s'' = m g
// sin(alpha)
// - k s, s = s_eq (1 - cos w t). Either way theta = -s / r and the energy stays E0.
TEST(RollingWheel, RollsOnTheInclineAsTheClosedForm) {
  const ModelFile f = load_model_file(testing::config_path("rolling_wheel.yaml"));
  const double m = 2.0;
  const double r = 0.25;
  const double j = 0.5 * m * r * r;
  const double k = 30.0;
  const double alpha = M_PI / 6.0;
  const double a = 9.81 * std::sin(alpha) / (1.0 + j / (m * r * r));
  const double w = std::sqrt(k / (m + j / (r * r)));
  const double s_eq = m * 9.81 * std::sin(alpha) / k;
  const Eigen::Vector2d t(std::cos(alpha), -std::sin(alpha));
  ASSERT_EQ(f.bodies->forces.size(), 2u);
  ASSERT_EQ(f.bodies->forces[1].type, PlanarForceType::kSpringDamper);
  for (const bool spring : {false, true}) {
    PlanarModelSpec spec = *f.bodies;
    if (!spring) spec.forces.pop_back();
    const auto sys = std::make_shared<const PlanarMultibody>(spec);
    ASSERT_EQ(sys->n_holonomic(), 1);
    const Model model(sys, testing::rk4_pstab(1e-3));
    Workspace ws(model);
    State s = initial_state(model);
    const State s0 = s;
    const double e0 = sys->energy(0.0, s.q, s.v, {});
    double worst_x = 0.0;
    double worst_th = 0.0;
    double worst_e = 0.0;
    for (int n = 0; n < 2000; ++n) {
      ASSERT_TRUE(step(model, s, ws).ok());
      const double dist = spring ? s_eq * (1.0 - std::cos(w * s.t)) : 0.5 * a * s.t * s.t;
      worst_x =
          std::max(worst_x, (s.q.head<2>() - s0.q.head<2>() - dist * t).lpNorm<Eigen::Infinity>());
      worst_th = std::max(worst_th, std::abs(s.q(2) - (s0.q(2) - dist / r)));
      worst_e = std::max(worst_e, std::abs(sys->energy(s.t, s.q, s.v, {}) - e0));
    }
    EXPECT_LE(worst_x, 1e-10) << "spring " << spring;
    EXPECT_LE(worst_th, 1e-10) << "spring " << spring;
    EXPECT_LE(worst_e / (m * 9.81), 1e-10) << "spring " << spring;  // rolling does no work
    std::printf(
        "rolling wheel on a 30 deg incline%s, 2 s, RK4 + PStab dt 1e-3: max |x - x(t)| = %.2e m, "
        "|th - th(t)| = %.2e rad, |E - E0| = %.2e J\n",
        spring ? " with the spring" : "", worst_x, worst_th, worst_e);
  }
}

// An eccentric wheel (centre of mass off the wheel centre) has no simple closed form, but rolling
// without slip still does no work: its energy stays E0 (H and L of both rows act here).
TEST(RollingWheel, EccentricWheelKeepsItsEnergy) {
  PlanarModelSpec spec = wheel_spec();
  spec.bodies[0].pose = {0.2 + 0.6 * kRadius - 0.07, -0.1 + 0.8 * kRadius + 0.04, 0.0};
  spec.bodies[0].velocity = {0.0, 0.0, -4.0};
  PlanarForceSpec gravity;
  gravity.type = PlanarForceType::kGravity;
  gravity.vector = {0.0, -9.81};
  spec.forces = {gravity};
  (void)assemble(spec);
  const auto sys = std::make_shared<const PlanarMultibody>(spec);
  const Model model(sys, testing::rk4_pstab(1e-3));
  Workspace ws(model);
  State s = initial_state(model);
  const double e0 = sys->energy(0.0, s.q, s.v, {});
  double worst = 0.0;
  double drift = 0.0;
  for (int k = 0; k < 1000; ++k) {
    const StepStatus st = step(model, s, ws);
    ASSERT_TRUE(st.ok());
    drift = std::max(drift, st.velocity_drift);
    worst = std::max(worst, std::abs(sys->energy(s.t, s.q, s.v, {}) - e0));
  }
  EXPECT_LE(worst / std::abs(e0), 1e-9);
  EXPECT_LE(drift, 1e-12);
  std::printf(
      "eccentric rolling wheel, 1 s, RK4 + PStab dt 1e-3: max |E - E0|/|E0| = %.2e, "
      "velocity drift %.2e\n",
      worst / std::abs(e0), drift);
}

}  // namespace
}  // namespace rtmb
