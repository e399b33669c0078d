// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The spatial rolling disc (engine/multibody/spatial_rolling_disc.hpp; issue 16):
//   * its rows against finite differences: the contact row's G, H = d(G v)/dq and L (also as
//     d^2 g/dt^2 along a straight path), the no-slip rows' H = d(A v)/dq and L = d/dt(A(q) v);
//   * independently of the rows' formulas, g is the height above the plane of the rim point found
//     by minimizing over the rim angle, and A v the velocity along the plane of that material
//     point, by differences of the body's pose;
//   * the disc of configs/rolling_disc_body.yaml against the built-in Euler-angle `rolling_disc`
//     (engine/mechanisms/rolling_disc.cpp), a different formulation of the same body: the centres
//     agree over 1 s.
// Energy and drift over Chin's run are in tests/scenarios/chin_rolling_disc_test.cpp.
#include "engine/multibody/spatial_rolling_disc.hpp"

#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>

#include "rtmb/models/mechanisms.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/step.hpp"
#include "tests/engine/multibody/multibody_test_support.hpp"
#include "tests/support/model_lookup.hpp"

namespace rtmb {
namespace {

using multibody_test::expect_near;
using multibody_test::fd_jacobian;
using multibody_test::kFdStep;

constexpr double kRadius = 0.7;

// one disc (axis: body y) on a tilted plane through p0: a normalization row, the contact row and
// the two no-slip rows
SpatialModelSpec disc_spec() {
  SpatialModelSpec spec;
  SpatialBodySpec body;
  body.name = "disc";
  body.mass = 1.3;
  body.inertia = Eigen::Vector3d(0.2, 0.3, 0.2).asDiagonal();
  spec.bodies.push_back(body);
  SpatialJointSpec contact;
  contact.name = "roll";
  contact.type = SpatialJointType::kDiscContact;
  contact.body_i = kGround;
  contact.body_j = 0;
  contact.point_i = Eigen::Vector3d(0.1, -0.2, 0.3);
  contact.axis_i = Eigen::Vector3d(0.2, -0.1, 1.0).normalized();
  contact.axis_j = Eigen::Vector3d::UnitY();
  contact.radius = kRadius;
  SpatialJointSpec no_slip = contact;
  no_slip.name = "roll.no_slip";
  no_slip.type = SpatialJointType::kDiscNoSlip;
  spec.joints = {contact, no_slip};
  return spec;
}

struct DiscState {
  Vec q = Vec(7);
  Vec v = Vec(7);
};

// random poses away from lying flat (|n . a| <= 0.9), e unit and e' tangent to |e| = 1 (e.e' = 0)
// when `unit`, else e scaled off the unit sphere (the rows are exact functions of any e)
std::vector<DiscState> samples(const SpatialJointSpec& jt, bool unit) {
  std::mt19937 rng(1627u);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<DiscState> out;
  while (out.size() < 8) {
    DiscState s;
    for (int k = 0; k < 7; ++k) {
      s.q(k) = u(rng);
      s.v(k) = u(rng);
    }
    Eigen::Vector4d e = s.q.segment<4>(3).normalized();
    if (std::abs(jt.axis_i.dot(rotation(e) * jt.axis_j)) > 0.9) continue;
    Eigen::Vector4d ed = s.v.segment<4>(3);
    if (unit) {
      ed -= ed.dot(e) * e;
    } else {
      e *= 1.0 + 0.05 * u(rng);
    }
    s.q.segment<4>(3) = e;
    s.v.segment<4>(3) = ed;
    out.push_back(s);
  }
  return out;
}

TEST(SpatialRollingDisc, RowsMatchFiniteDifferences) {
  const SpatialMultibody sys(disc_spec());
  ASSERT_EQ(sys.n_lambda(), 4);
  ASSERT_EQ(sys.n_holonomic(), 2);
  for (const DiscState& s : samples(sys.spec().joints[0], false)) {
    auto g_of = [&](const Vec& q) {
      Vec g(4);
      sys.constraints(0.0, q, g);
      return g;
    };
    auto gv_of = [&](const Vec& q) {
      Mat G(4, 7);
      sys.jacobian(0.0, q, G);
      return Vec(G * s.v);
    };
    Mat G(4, 7);
    sys.jacobian(0.0, s.q, G);
    // holonomic rows: G = dg/dq; nonholonomic rows: g = 0
    expect_near(G.topRows(2), fd_jacobian(g_of, s.q).topRows(2), 1e-7, "G vs dg/dq");
    EXPECT_EQ(g_of(s.q).tail(2).lpNorm<Eigen::Infinity>(), 0.0);
    Mat H(4, 7);
    sys.velocity_constraint_jacobian(0.0, s.q, s.v, H);
    expect_near(H, fd_jacobian(gv_of, s.q), 1e-7, "d(Gv)/dq vs FD");
    // L = d/dt (G(q(t)) v) along q(t) = q + t v (= d/dt(A v) - A v' for the no-slip rows, a = 0)
    Vec L(4);
    sys.curvature(0.0, s.q, s.v, L);
    const Vec l_fd = (gv_of(s.q + kFdStep * s.v) - gv_of(s.q - kFdStep * s.v)) / (2.0 * kFdStep);
    expect_near(L, l_fd, 1e-7, "L vs d/dt(G v)");
    // and the contact row's L = d^2/dt^2 g(q + t v)
    const double h2 = 1e-4;
    const Vec g2 = (g_of(s.q + h2 * s.v) - 2.0 * g_of(s.q) + g_of(s.q - h2 * s.v)) / (h2 * h2);
    EXPECT_NEAR(L(1), g2(1), 1e-5 * (1.0 + std::abs(g2(1))));
  }
}

// The rim point lowest along the plane's normal n, found over the rim angle b: with b1, b2 the
// body-frame diameters normal to the axis, the rim point x + R A (cos b b1 + sin b b2) has height
// n.x + R (cos b n.(A b1) + sin b n.(A b2)), least at b = atan2(-n.(A b2), -n.(A b1)).
Eigen::Vector3d lowest_rim_point_body(const SpatialJointSpec& jt, const Eigen::Matrix3d& A) {
  const Eigen::Vector3d b1 = jt.axis_j.unitOrthogonal();
  const Eigen::Vector3d b2 = jt.axis_j.cross(b1);
  const double b = std::atan2(-jt.axis_i.dot(A * b2), -jt.axis_i.dot(A * b1));
  return jt.radius * (std::cos(b) * b1 + std::sin(b) * b2);
}

TEST(SpatialRollingDisc, RowsAreTheHeightAndSlipOfTheLowestRimPoint) {
  const SpatialMultibody sys(disc_spec());
  const SpatialJointSpec& jt = sys.spec().joints[0];
  const auto pose = [](const Vec& q) {
    return std::pair{Eigen::Vector3d(q.head<3>()), rotation(q.segment<4>(3))};
  };
  for (const DiscState& s : samples(jt, true)) {
    const auto [x, A] = pose(s.q);
    const Eigen::Vector3d rim = lowest_rim_point_body(jt, A);  // body frame
    Vec g(4);
    sys.constraints(0.0, s.q, g);
    EXPECT_NEAR(g(1), jt.axis_i.dot(x + A * rim - jt.point_i), 1e-13);
    // velocity of that material point by differences of the pose along v (|e| = 1 to first order:
    // e.e' = 0)
    const auto [xp, Ap] = pose(s.q + kFdStep * s.v);
    const auto [xm, Am] = pose(s.q - kFdStep * s.v);
    const Eigen::Vector3d p_dot = ((xp + Ap * rim) - (xm + Am * rim)) / (2.0 * kFdStep);
    Mat G(4, 7);
    sys.jacobian(0.0, s.q, G);
    const Vec rows = G * s.v;
    EXPECT_NEAR(rows(1), jt.axis_i.dot(p_dot), 1e-8) << "the contact row's rate: normal speed";
    // the no-slip rows: its components along the plane (any orthonormal tangent pair spans it)
    const Eigen::Vector3d tangential = p_dot - jt.axis_i.dot(p_dot) * jt.axis_i;
    EXPECT_NEAR(rows.tail<2>().norm(), tangential.norm(), 1e-8);
    for (int r = 2; r < 4; ++r) {
      const Eigen::Vector3d t = G.block<1, 3>(r, 0).transpose();  // d(row)/dx' = t
      EXPECT_NEAR(t.norm(), 1.0, 1e-15);
      EXPECT_NEAR(t.dot(jt.axis_i), 0.0, 1e-15);
      EXPECT_NEAR(rows(r), t.dot(p_dot), 1e-8);
    }
  }
}

// The centre of the built-in disc, q = (x, y, phi, theta, psi): (x, y, 0) + r d with
// d = sin(theta) (-sin phi, cos phi, 0) + cos(theta) z (engine/mechanisms/rolling_disc.cpp), r = 1
Eigen::Vector3d euler_angle_centre(const Vec& q) {
  const double st = std::sin(q(3));
  return {q(0) - st * std::sin(q(2)), q(1) + st * std::cos(q(2)), std::cos(q(3))};
}

// max |c_body - c_euler| over [0, 1] s, both RK4 + PStab at step dt
double centre_difference(double dt) {
  const Model body(make_system(load_model_file(testing::config_path("rolling_disc_body.yaml"))),
                   testing::rk4_pstab(dt));
  const Model euler(make_mechanism("rolling_disc"), testing::rk4_pstab(dt));
  Workspace wb(body);
  Workspace we(euler);
  State sb = initial_state(body);
  State se = initial_state(euler);
  double worst = (sb.q.head<3>() - euler_angle_centre(se.q)).lpNorm<Eigen::Infinity>();
  const long n = std::lround(1.0 / dt);
  for (long i = 0; i < n; ++i) {
    EXPECT_EQ(step(body, sb, wb).flags, 0u);
    EXPECT_EQ(step(euler, se, we).flags, 0u);
    worst = std::max(worst, (sb.q.head<3>() - euler_angle_centre(se.q)).lpNorm<Eigen::Infinity>());
  }
  return worst;
}

TEST(SpatialRollingDisc, BodyModelFollowsTheEulerAngleDisc) {
  // Both runs are RK4 (global error O(dt^4)) of the same motion in different coordinates, so they
  // differ by the sum of their discretization errors, which must fall about 16x per halving of dt
  // (measured 4.0e-13 at 2 ms, 2.7e-14 at 1 ms); PStab keeps both on their rows to round-off. The
  // bound 1e-12 at 1 ms is that error with a margin of 30, far below any modelling difference
  // (a wrong sign or factor in a row changes the centre by more than 1e-4 within 1 s).
  const double coarse = centre_difference(2e-3);
  const double fine = centre_difference(1e-3);
  std::printf("max |c_body - c_euler| over 1 s: %.2e (dt 2e-3), %.2e (dt 1e-3)\n", coarse, fine);
  EXPECT_LE(fine, 1e-12);
  EXPECT_LE(fine, coarse / 8.0) << "not converging at RK4's order";
}

}  // namespace
}  // namespace rtmb
