// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The planar knife edge (engine/multibody/planar_knife_edge.hpp; issue 16). Its row against first
// principles: A v is the blade point's velocity across the edge, computed here from the pose, and
// H = d(A v)/dq and L = d/dt(A v) - A v' against finite differences; sparse and fused values equal
// the dense ones. Then two closed forms (RK4 + PStab):
//  * a sled with the blade at its centre of mass: the constraint force has no moment and no
//    component along the edge, so J th'' = tau (th quadratic in t) and the speed along the edge
//    stays u0; without torque the sled runs on a circle of radius u0 / th'.
//  * the Chaplygin sleigh, blade at distance a behind the centre of mass (Neimark and Fufaev,
//    "Dynamics of Nonholonomic Systems", ch. II; derived again here): with u the speed along the
//    edge and w = th', in the body frame m (u' - w v_lat) = 0 and J w' = b F across the blade at
//    body x = b = -a, where v_lat = a w keeps the blade from moving sideways, so
//        u' = a w^2,   (J + m a^2) w' = -m a u w,
//    which conserve E = (m u^2 + (J + m a^2) w^2) / 2 and have the solution
//        u = U tanh(k t + c),  w = w0 cosh(c) / cosh(k t + c),
//        th = th0 + (w0 cosh(c) / k) (gd(k t + c) - gd(c)),
//    U = sqrt(2 E / m), k = m a U / (J + m a^2), tanh(c) = u0 / U, gd(x) = atan(sinh x).
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
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

// body 0 with a blade at `point` along `axis` (body frame), optionally a torque
PlanarModelSpec sled(const Eigen::Vector2d& point,
                     const Eigen::Vector2d& axis,
                     double mass,
                     double inertia,
                     double torque) {
  PlanarModelSpec s;
  s.bodies = {testing::test_body("sled", mass, inertia)};
  PlanarJointSpec jt = testing::test_joint("blade", PlanarJointType::kKnifeEdge, 0, kGround, point,
                                           Eigen::Vector2d::Zero());
  jt.axis = axis;
  s.joints = {jt};
  if (torque != 0.0) {
    PlanarForceSpec f;
    f.type = PlanarForceType::kTorque;
    f.body_i = 0;
    f.torque = torque;
    s.forces = {f};
  }
  return s;
}

TEST(KnifeEdge, RowAgainstTheBladeKinematicsAndFiniteDifferences) {
  const Eigen::Vector2d point(-0.3, 0.12);
  const Eigen::Vector2d axis = Eigen::Vector2d(0.6, 0.8);
  const PlanarMultibody sys(sled(point, axis, 1.7, 0.2, 0.0));
  ASSERT_EQ(sys.n_lambda(), 1);
  ASSERT_EQ(sys.n_holonomic(), 0);
  for (unsigned seed = 1; seed <= 4; ++seed) {
    const multibody_test::Sample s = multibody_test::random_state(3, seed, 1.5);
    auto av_of = [&](const Vec& q) {
      Mat G(1, 3);
      sys.jacobian(0.0, q, G);
      return Vec(G * s.v);
    };
    // the blade point's velocity r' + th' S A s across the world edge A axis
    const Eigen::Rotation2Dd a(s.q(2));
    const Eigen::Vector2d arm = a * point;
    const Eigen::Vector2d pv = s.v.head<2>() + s.v(2) * Eigen::Vector2d(-arm.y(), arm.x());
    const Eigen::Vector2d edge = a * axis;
    EXPECT_NEAR(av_of(s.q)(0), Eigen::Vector2d(-edge.y(), edge.x()).dot(pv), 1e-14);
    Vec g(1);
    sys.constraints(0.0, s.q, g);
    EXPECT_EQ(g(0), 0.0);
    Mat H(1, 3);
    sys.velocity_constraint_jacobian(0.0, s.q, s.v, H);
    expect_near(H, fd_jacobian(av_of, s.q), 1e-8, "d(A v)/dq vs FD");
    Vec L(1);
    sys.curvature(0.0, s.q, s.v, L);
    const Vec L_fd = (av_of(s.q + kFdStep * s.v) - av_of(s.q - kFdStep * s.v)) / (2.0 * kFdStep);
    expect_near(L, L_fd, 1e-8, "L vs d/ds (A v)");
    Vec gt(1);
    sys.constraint_rate(0.0, s.q, gt);
    EXPECT_EQ(gt(0), 0.0);
  }
}

TEST(KnifeEdge, SparseAndFusedValuesEqualTheDenseOnes) {
  PlanarModelSpec spec = sled({0.2, -0.1}, {1.0, 0.0}, 1.0, 0.1, 0.0);
  spec.bodies.push_back(testing::test_body("trailer", 0.6, 0.04));
  // the trailer hitched to the sled, with a blade of its own: rows pin (2), blade, blade
  spec.joints.insert(spec.joints.begin(), testing::test_joint("hitch", PlanarJointType::kRevolute,
                                                              0, 1, {-0.4, 0.0}, {0.3, 0.0}));
  PlanarJointSpec second = spec.joints.back();
  second.name = "trailer_blade";
  second.body_i = 1;
  spec.joints.push_back(second);
  const PlanarMultibody sys(spec);
  ASSERT_EQ(sys.n_holonomic(), 2);
  ASSERT_EQ(sys.n_lambda(), 4);
  SparsePattern mp;
  SparsePattern gp;
  ASSERT_TRUE(sys.sparse_structure(mp, gp));
  const multibody_test::Sample s = multibody_test::random_state(6, 11, 1.0);
  std::vector<double> values(static_cast<std::size_t>(gp.nonzeros()));
  sys.jacobian_values(0.0, s.q, values);
  Mat from_sparse = Mat::Zero(4, 6);
  for (int c = 0; c < 6; ++c) {
    for (int k = gp.outer[static_cast<std::size_t>(c)];
         k < gp.outer[static_cast<std::size_t>(c) + 1]; ++k) {
      from_sparse(gp.inner[static_cast<std::size_t>(k)], c) = values[static_cast<std::size_t>(k)];
    }
  }
  Mat G(4, 6);
  sys.jacobian(0.0, s.q, G);
  EXPECT_EQ((from_sparse - G).lpNorm<Eigen::Infinity>(), 0.0);
  std::vector<double> fused(values.size());
  Vec L(4);
  Vec L_fused(4);
  sys.curvature(0.0, s.q, s.v, L);
  sys.jacobian_values_and_curvature(0.0, s.q, s.v, fused, L_fused);
  EXPECT_EQ(fused, values);
  EXPECT_EQ((L - L_fused).lpNorm<Eigen::Infinity>(), 0.0);
  Vec g(4);
  Vec g_fused(4);
  sys.constraints(0.0, s.q, g);
  sys.jacobian_values_and_constraints(0.0, s.q, fused, g_fused);
  EXPECT_EQ((g - g_fused).lpNorm<Eigen::Infinity>(), 0.0);
}

TEST(KnifeEdge, SpecValidation) {
  PlanarModelSpec spec = sled({0.0, 0.0}, {0.0, 0.0}, 1.0, 0.1, 0.0);
  EXPECT_THROW(PlanarMultibody{spec}, std::invalid_argument);  // zero axis
  spec = sled({0.0, 0.0}, {1.0, 0.0}, 1.0, 0.1, 0.0);
  spec.joints[0].body_j = 0;  // against the ground only
  spec.joints[0].body_i = kGround;
  EXPECT_THROW(PlanarMultibody{spec}, std::invalid_argument);
}

// The state of a sled with the blade along the body x axis: q = (x, y, th), v = (r', th') with
// r' = u e + v_lat S e, e = (cos th, sin th).
State sled_state(double th, double u, double v_lat, double w) {
  State s(3, 3);
  const Eigen::Vector2d e(std::cos(th), std::sin(th));
  s.q << 0.4, -0.3, th;
  s.v.head<2>() = u * e + v_lat * Eigen::Vector2d(-e.y(), e.x());
  s.v(2) = w;
  return s;
}

double speed_along(const State& s) {
  return s.v.head<2>().dot(Eigen::Vector2d(std::cos(s.q(2)), std::sin(s.q(2))));
}

TEST(KnifeEdge, SledAtTheCentreOfMassTurnsAsTheClosedForm) {
  const double m = 3.0;
  const double j = 0.4;
  const double u0 = 0.8;
  const double w0 = 1.5;
  for (const double tau : {0.0, 0.6}) {
    PlanarModelSpec spec = sled({0.0, 0.0}, {1.0, 0.0}, m, j, tau);
    const State s0 = sled_state(0.3, u0, 0.0, w0);
    spec.bodies[0].pose = s0.q;
    spec.bodies[0].velocity = s0.v;
    const auto sys = std::make_shared<const PlanarMultibody>(spec);
    const Model model(sys, testing::rk4_pstab(1e-3));
    Workspace ws(model);
    State s = initial_state(model);
    double worst_th = 0.0;
    double worst_u = 0.0;
    double worst_path = 0.0;
    for (int k = 0; k < 2000; ++k) {
      ASSERT_TRUE(step(model, s, ws).ok());
      const double t = s.t;
      const double th = 0.3 + w0 * t + 0.5 * tau / j * t * t;
      worst_th = std::max(worst_th, std::abs(s.q(2) - th));
      worst_u = std::max(worst_u, std::abs(speed_along(s) - u0));
      if (tau == 0.0) {
        // the circle of radius u0 / w0: r = r0 + (u0 / w0) (sin th - sin th0, cos th0 - cos th)
        const Eigen::Vector2d r =
            s0.q.head<2>() +
            (u0 / w0) * Eigen::Vector2d(std::sin(th) - std::sin(0.3), std::cos(0.3) - std::cos(th));
        worst_path = std::max(worst_path, (s.q.head<2>() - r).lpNorm<Eigen::Infinity>());
      }
    }
    EXPECT_LE(worst_th, 1e-10) << "tau " << tau;
    EXPECT_LE(worst_u, 1e-10) << "tau " << tau;
    EXPECT_LE(worst_path, 1e-10);
    std::printf(
        "knife edge at the centre of mass, tau = %.1f N m, 2 s, RK4 + PStab dt 1e-3: "
        "max |th - th(t)| = %.2e rad, |u - u0| = %.2e m/s, |r - circle| = %.2e m\n",
        tau, worst_th, worst_u, worst_path);
  }
}

TEST(KnifeEdge, ChaplyginSleighFollowsTheClosedForm) {
  const double m = 2.0;
  const double j = 0.05;
  const double a = 0.3;  // blade at body x = -a
  const double th0 = 0.4;
  const double u0 = 0.2;
  const double w0 = 3.0;
  PlanarModelSpec spec = sled({-a, 0.0}, {1.0, 0.0}, m, j, 0.0);
  const State s0 = sled_state(th0, u0, a * w0, w0);  // v_lat = -b w = a w
  spec.bodies[0].pose = s0.q;
  spec.bodies[0].velocity = s0.v;
  const auto sys = std::make_shared<const PlanarMultibody>(spec);
  const double big_i = j + m * a * a;
  const double e = 0.5 * (m * u0 * u0 + big_i * w0 * w0);
  const double big_u = std::sqrt(2.0 * e / m);
  const double k = m * a * big_u / big_i;
  const double c = std::atanh(u0 / big_u);
  auto gd = [](double x) { return std::atan(std::sinh(x)); };
  ASSERT_NEAR(sys->energy(0.0, s0.q, s0.v, {}), e, 1e-14);
  const Model model(sys, testing::rk4_pstab(1e-3));
  Workspace ws(model);
  State s = initial_state(model);
  double worst_u = 0.0;
  double worst_w = 0.0;
  double worst_th = 0.0;
  for (int n = 0; n < 2000; ++n) {
    ASSERT_TRUE(step(model, s, ws).ok());
    const double x = k * s.t + c;
    worst_u = std::max(worst_u, std::abs(speed_along(s) - big_u * std::tanh(x)));
    worst_w = std::max(worst_w, std::abs(s.v(2) - w0 * std::cosh(c) / std::cosh(x)));
    worst_th =
        std::max(worst_th, std::abs(s.q(2) - (th0 + w0 * std::cosh(c) / k * (gd(x) - gd(c)))));
  }
  // by t = 2 the sleigh has turned its spin into speed: u is within 1 % of U
  EXPECT_GT(speed_along(s), 0.99 * big_u);
  EXPECT_LE(worst_u, 1e-9);
  EXPECT_LE(worst_w, 1e-9);
  EXPECT_LE(worst_th, 1e-9);
  std::printf(
      "Chaplygin sleigh, 2 s, RK4 + PStab dt 1e-3: max |u - u(t)| = %.2e m/s, |w - w(t)| = "
      "%.2e rad/s, |th - th(t)| = %.2e rad\n",
      worst_u, worst_w, worst_th);
}

}  // namespace
}  // namespace rtmb
