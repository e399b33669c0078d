// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The drawing geometry of the built-in mechanisms (rtmb/models/joint_points.hpp; issue 20, what
// to build 1). Every mechanism has one; its bars have the published link lengths (closed forms
// from each mechanism's source data), and at any q, consistent or not, the gaps between the two
// sides of every cut joint are the mechanism's own constraint residual g(q), which the mechanisms
// compute from separately written formulas (Andrews: the term table; the four-bar: eq. 5). So the
// drawing is the model's kinematics, and a drifting simulation draws its drift.
#include "rtmb/models/joint_points.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "engine/mechanisms/andrews_data.hpp"
#include "rtmb/models/mechanisms.hpp"
#include "rtmb/state.hpp"

namespace rtmb {
namespace {

struct Drawn {
  std::unique_ptr<System> system;
  const JointPoints* geometry = nullptr;
  std::vector<Eigen::Vector3d> points;
};

// The mechanism's points at q (t = time).
Drawn draw(const std::string& name, const Vec& q, double t = 0.0, MechanismOptions options = {}) {
  Drawn d;
  d.system = make_mechanism(name, options);
  d.geometry = joint_points_of(*d.system);
  if (d.geometry == nullptr) return d;
  d.points.resize(static_cast<std::size_t>(d.geometry->n_joint_points()));
  d.geometry->joint_points(t, q, d.points);
  return d;
}

Vec initial_q(const std::string& name, MechanismOptions options = {}) {
  State s;
  make_mechanism(name, options)->initial_state(s);
  return s.q;
}

// q0 moved off the constraint manifold by a fixed, irregular amount per coordinate
Vec perturbed(Vec q) {
  for (Eigen::Index i = 0; i < q.size(); ++i) q(i) += 0.013 * static_cast<double>(i + 1) - 0.02;
  return q;
}

Vec residual(const System& s, double t, const Vec& q) {
  Vec g = Vec::Zero(s.n_lambda());
  s.constraints(t, q, g);
  return g;
}

double length(const Drawn& d, int a, int b) {
  return (d.points[static_cast<std::size_t>(a)] - d.points[static_cast<std::size_t>(b)]).norm();
}

Eigen::Vector2d gap(const Drawn& d, int a, int b) {
  return (d.points[static_cast<std::size_t>(a)] - d.points[static_cast<std::size_t>(b)]).head<2>();
}

TEST(JointPoints, EveryBuiltInMechanismHasValidPointsLinksAndGround) {
  for (const MechanismInfo& info : mechanisms()) {
    const std::string name(info.name);
    const Drawn d = draw(name, initial_q(name));
    ASSERT_NE(d.geometry, nullptr) << name;
    const int n = d.geometry->n_joint_points();
    EXPECT_GE(n, 2) << name;
    EXPECT_FALSE(d.geometry->joint_links().empty()) << name;
    for (const JointLink& l : d.geometry->joint_links()) {
      EXPECT_TRUE(l.a >= 0 && l.a < n && l.b >= 0 && l.b < n && l.a != l.b) << name;
      EXPECT_GT(length(d, l.a, l.b), 1e-4) << name << ": a bar of zero length";
    }
    EXPECT_FALSE(d.geometry->ground_points().empty()) << name;
    for (const int g : d.geometry->ground_points()) EXPECT_TRUE(g >= 0 && g < n) << name;
    for (const Eigen::Vector3d& p : d.points) {
      EXPECT_TRUE(p.allFinite()) << name;
      // every built-in mechanism is planar but the rolling disc, which leans out of its plane
      if (name != "rolling_disc") {
        EXPECT_EQ(p.z(), 0.0) << name << ": planar";
      }
    }
  }
}

TEST(JointPoints, PendulumRodHasLengthOneAndItsResidualIsTheSquaredLengthError) {
  const Drawn d = draw("pendulum", initial_q("pendulum"));
  EXPECT_NEAR(length(d, 0, 1), 1.0, 1e-12);
  // 60 degrees from the downward vertical
  EXPECT_NEAR(d.points[1].y(), -std::cos(std::numbers::pi / 3.0), 1e-12);
  const Vec q = perturbed(initial_q("pendulum"));
  const Drawn e = draw("pendulum", q);
  EXPECT_NEAR(e.points[1].head<2>().squaredNorm() - 1.0, residual(*e.system, 0.0, q)(0), 1e-14);
}

TEST(JointPoints, DoublePendulumStartsWithBarOneHorizontalAndBarTwoHanging) {
  // Hoitink 2011 §4.1: u0 = (1, 0, pi/2, 1, -1, 0), bars of length 1
  const Drawn d = draw("double_pendulum", initial_q("double_pendulum"));
  EXPECT_TRUE(d.points[1].isApprox(Eigen::Vector3d(1, 0, 0), 1e-14));
  EXPECT_TRUE(d.points[2].isApprox(Eigen::Vector3d(1, -1, 0), 1e-14));
  EXPECT_NEAR(length(d, 0, 1), 1.0, 1e-14);
  EXPECT_NEAR(length(d, 1, 2), 1.0, 1e-14);
}

TEST(JointPoints, SliderCrankBarsHaveWusLengthsAndTheCutPinGapIsTheResidual) {
  // Wu, Chiou & Lin 2000 §9: crank r = 0.3 m, rod l = 0.5 m
  const Drawn d = draw("slider_crank", initial_q("slider_crank"));
  EXPECT_NEAR(length(d, 0, 1), 0.3, 1e-14);
  EXPECT_NEAR(length(d, 2, 3), 0.5, 1e-14);
  EXPECT_NEAR(length(d, 1, 2), 0.0, 1e-12);  // the pin joins crank and rod
  EXPECT_NEAR(d.points[3].y(), 0.0, 1e-12);  // the slider on y = 0
  const Vec q = perturbed(initial_q("slider_crank"));
  const Drawn e = draw("slider_crank", q);
  const Vec g = residual(*e.system, 0.0, q);  // eq. 35
  EXPECT_NEAR(gap(e, 1, 2).x(), g(0), 1e-14);
  EXPECT_NEAR(gap(e, 1, 2).y(), g(1), 1e-14);
  EXPECT_NEAR(e.points[3].y(), g(2), 1e-14);
  EXPECT_NEAR(length(e, 2, 3), 0.5, 1e-14);
}

TEST(JointPoints, RobotTipIsOnItsPathExactlyWhenTheConstraintHolds) {
  for (const char* name : {"robot_parabola", "robot_sine"}) {
    const Drawn d = draw(name, initial_q(name));
    EXPECT_NEAR(length(d, 0, 1), 1.0, 1e-14) << name;  // Chin §3.6: l1 = l2 = 1 m
    EXPECT_NEAR(length(d, 1, 2), 1.0, 1e-14) << name;
    const double t = 0.7;
    const Vec q = perturbed(initial_q(name));
    const Drawn e = draw(name, q, t);
    const Eigen::Vector3d tip = e.points[2];
    // case I: y2 = x2^2 - 4 cos^2(70 deg); case II: y2 = sin^2(omega t), omega = 1
    const double c70 = std::cos(70.0 * std::numbers::pi / 180.0);
    const double expected = std::string(name) == "robot_parabola"
                                ? tip.y() - tip.x() * tip.x() + 4.0 * c70 * c70
                                : tip.y() - std::sin(t) * std::sin(t);
    EXPECT_NEAR(residual(*e.system, t, q)(0), expected, 1e-13) << name;
  }
}

TEST(JointPoints, FourBarCouplerAndRockerTipsDifferByTheCutJointResidual) {
  // Zhang et al. 2023 Example 1: links of 1 m, ground pivots 1 m apart; starts as a
  // parallelogram with both tips at (1.5, sqrt(3)/2)
  const Drawn d = draw("four_bar", initial_q("four_bar"));
  for (const JointLink& l : d.geometry->joint_links()) EXPECT_NEAR(length(d, l.a, l.b), 1.0, 1e-14);
  EXPECT_NEAR(length(d, 0, 3), 1.0, 1e-14);
  EXPECT_TRUE(d.points[2].isApprox(Eigen::Vector3d(1.5, std::sqrt(3.0) / 2.0, 0), 1e-12));
  EXPECT_NEAR(length(d, 2, 4), 0.0, 1e-12);
  const Vec q = perturbed(initial_q("four_bar"));
  const Drawn e = draw("four_bar", q);
  const Vec g = residual(*e.system, 0.0, q);  // g = r_M - r_B (eq. 5)
  EXPECT_NEAR(gap(e, 2, 4).x(), g(0), 1e-14);
  EXPECT_NEAR(gap(e, 2, 4).y(), g(1), 1e-14);
}

TEST(JointPoints, ChainLinksHaveUnitLengthAndTheLoopDrawsItsAnchor) {
  MechanismOptions open;
  open.chain_links = 4;
  const Drawn d = draw("chain", initial_q("chain", open), 0.0, open);
  ASSERT_EQ(d.points.size(), 5u);
  for (const JointLink& l : d.geometry->joint_links()) EXPECT_NEAR(length(d, l.a, l.b), 1.0, 1e-12);
  EXPECT_EQ(d.geometry->ground_points().size(), 1u);
  // g_i = 1/2 (|p_i - p_{i-1}|^2 - l^2) at any q
  const Vec q = perturbed(initial_q("chain", open));
  const Drawn e = draw("chain", q, 0.0, open);
  const Vec g = residual(*e.system, 0.0, q);
  for (int i = 1; i <= 4; ++i) {
    EXPECT_NEAR(0.5 * (std::pow(length(e, i - 1, i), 2) - 1.0), g(i - 1), 1e-13) << i;
  }

  MechanismOptions loop = open;
  loop.chain_loop = true;
  const Drawn c = draw("chain", initial_q("chain", loop), 0.0, loop);
  ASSERT_EQ(c.points.size(), 6u);
  ASSERT_EQ(c.geometry->ground_points().size(), 2u);
  EXPECT_EQ(c.geometry->ground_points()[1], 5);
  EXPECT_NEAR(length(c, 4, 5), 0.0, 1e-12);  // the tip sits on its anchor at q0
}

TEST(JointPoints, AndrewsBodiesHaveTheHairerWannerDimensionsAndTheFourEPointsCloseTheLoops) {
  using namespace detail::andrews_data;  // NOLINT(google-build-using-namespace)
  const Drawn d = draw("andrews", initial_q("andrews"));
  // points: 0 O, 1 P, 2 E(K2), 3 B, 4 E(K3), 5 D, 6 C, 7 A, 8 F, 9 E(K4), 10 G, 11 E(K6)
  EXPECT_NEAR(length(d, 0, 1), kRr, 1e-15);
  EXPECT_NEAR(length(d, 1, 2), kD, 1e-15);
  EXPECT_NEAR(length(d, 3, 4), kSs, 1e-15);
  EXPECT_NEAR(length(d, 3, 5), std::hypot(kSd, kSc), 1e-15);
  EXPECT_NEAR(length(d, 7, 8), kZt, 1e-15);
  EXPECT_NEAR(length(d, 8, 9), kE, 1e-15);
  EXPECT_NEAR(length(d, 7, 10), kU, 1e-15);
  EXPECT_NEAR(length(d, 10, 11), kZf, 1e-15);
  EXPECT_TRUE(d.points[6].isApprox(Eigen::Vector3d(kXc, kYc, 0)));
  // the consistent q0 closes all three loops at E
  for (const int e : {4, 9, 11}) EXPECT_NEAR(length(d, 2, e), 0.0, 1e-12) << e;
  // off the manifold the gaps E2 - E3, E2 - E4, E2 - E6 are g1..g6 (Chin 1995 §3.7)
  const Vec q = perturbed(initial_q("andrews"));
  const Drawn p = draw("andrews", q);
  const Vec g = residual(*p.system, 0.0, q);
  int row = 0;
  for (const int e : {4, 9, 11}) {
    EXPECT_NEAR(gap(p, 2, e).x(), g(row), 1e-15) << e;
    EXPECT_NEAR(gap(p, 2, e).y(), g(row + 1), 1e-15) << e;
    row += 2;
  }
}

TEST(JointPoints, DeformableSliderCrankDrawsTheRodsDeformedCentreLine) {
  // Chin Table 5.1: crank r = 6 in, rod l = 12 in; at t = 0 the crank and the undeformed rod lie
  // on the x-axis: O, A = (6, 0), B = (18, 0)
  const std::string name = "deformable_slider_crank";
  const Drawn d = draw(name, initial_q(name));
  const int n = d.geometry->n_joint_points();
  EXPECT_TRUE(d.points[0].isZero()) << "O";
  EXPECT_TRUE(d.points[1].isApprox(Eigen::Vector3d(6, 0, 0), 1e-14)) << "A";
  EXPECT_TRUE(d.points[static_cast<std::size_t>(n - 1)].isApprox(Eigen::Vector3d(18, 0, 0), 1e-14))
      << "B";
  for (int k = 1; k + 1 < n; ++k) {
    EXPECT_NEAR(length(d, k, k + 1), 12.0 / (n - 2), 1e-12) << "straight rod, segment " << k;
  }
  // bent: 0.1 in of transverse displacement at the middle node (elastic coordinate 2 of
  // (slope A, axial mid, transverse mid, slope mid, axial B, slope B), reference §3.12) and
  // nothing else. Hermite shape functions interpolate the nodes exactly, so the drawn midpoint
  // is at (6 + 6, 0.1) and both ends stay where the supports hold them.
  Vec q = initial_q(name);
  q(3 + 2) = 0.1;
  const Drawn bent = draw(name, q);
  ASSERT_EQ(n % 2, 0) << "an odd number of rod stations puts one at midspan";
  const auto mid = static_cast<std::size_t>(1 + (n - 2) / 2);
  EXPECT_TRUE(bent.points[mid].isApprox(Eigen::Vector3d(12, 0.1, 0), 1e-14));
  EXPECT_TRUE(bent.points[1].isApprox(Eigen::Vector3d(6, 0, 0), 1e-14));
  EXPECT_NEAR(bent.points[static_cast<std::size_t>(n - 1)].y(), 0.0, 1e-14);
  EXPECT_GT(bent.points[mid - 1].y(), 0.0);
  EXPECT_GT(bent.points[mid + 1].y(), 0.0);
}

TEST(JointPoints, ASystemWithoutDrawingGeometryHasNone) {
  // a System that is not a built-in mechanism: no JointPoints
  class Bare final : public System {
   public:
    Bare() : System(1, 1, 0) {}
    std::string_view name() const noexcept override { return "bare"; }
    void initial_state(State& out) const override { out = State(1, 1); }
    void mass(double, VecCRef, MatRef m) const noexcept override { m.setIdentity(); }
    void forces(double, VecCRef, VecCRef, InputValues, VecRef f) const noexcept override {
      f.setZero();
    }
    void constraints(double, VecCRef, VecRef) const noexcept override {}
    void jacobian(double, VecCRef, MatRef) const noexcept override {}
    void curvature(double, VecCRef, VecCRef, VecRef) const noexcept override {}
    void velocity_constraint_jacobian(double, VecCRef, VecCRef, MatRef) const noexcept override {}
  };
  const Bare bare;
  EXPECT_EQ(joint_points_of(bare), nullptr);
}

}  // namespace
}  // namespace rtmb
