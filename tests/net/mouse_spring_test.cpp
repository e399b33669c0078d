// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The live view's mouse spring (net/mouse_spring.hpp): the drag's stiffness from the body
// (closed form m_p w^2), the coupling force F = k (p* - p) - c p' and its moment on the body
// once the engage ramp is over, the release ramp to exactly zero and the lease; on a beam body the
// force at the material point of its axis, F = k (p* - p) - c p' with p and p' from finite
// differences of the axis point's kinematics, and J^T F against those differences.
#include "net/mouse_spring.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "rtmb/models/planar_multibody.hpp"
#include "rtmb/models/spatial_multibody.hpp"

namespace rtmb {
namespace {

constexpr std::int64_t kPeriod = 1'000'000;  // 1 kHz tick [ns]

PlanarModelSpec two_bodies() {
  PlanarModelSpec spec;
  const auto body = [&spec](const char* name, double m, double j, const Eigen::Vector3d& pose) {
    PlanarBodySpec b;
    b.name = name;
    b.mass = m;
    b.inertia = j;
    b.pose = pose;
    spec.bodies.push_back(b);
  };
  body("a", 2.0, 0.5, Eigen::Vector3d(1.0, 0.0, 0.0));
  body("rod", 1.0, 1.0 / 12.0, Eigen::Vector3d(0.3, -0.2, 0.4));
  return spec;
}

TEST(MouseSpringResolve, StiffnessIsTheBodysEffectiveMassAtThePointTimesOmegaSquared) {
  const PlanarModelSpec spec = two_bodies();
  const DragResolution r = resolve_drag(&spec, nullptr, "rod", {0.5, 0.0, 7.0}, {1.0, 2.0, 3.0});
  ASSERT_TRUE(r.error.empty()) << r.error;
  // rod: m = 1, J = 1/12, |s| = 0.5: 1/m_p = 1 + 0.25 * 12 = 4 (a free rod pushed at its end)
  const double w = 2.0 * std::numbers::pi * kDragHz;
  EXPECT_NEAR(r.spec.stiffness, 0.25 * w * w, 1e-12);
  EXPECT_NEAR(r.spec.damping, 2.0 * 0.25 * w, 1e-12);
  EXPECT_NEAR(r.spec.max_force, r.spec.stiffness * kDragMaxStretchM, 1e-12);
  EXPECT_EQ(r.spec.q_offset, 3);
  EXPECT_EQ(r.spec.v_offset, 3);
  EXPECT_EQ(r.spec.point, (std::array<double, 3>{0.5, 0.0, 0.0}));  // planar: z dropped
  EXPECT_EQ(r.spec.target, (std::array<double, 3>{1.0, 2.0, 0.0}));
}

TEST(MouseSpringResolve, RefusesWhatCannotBeDraggedNamingWhy) {
  const PlanarModelSpec spec = two_bodies();
  // Eigen's {} leaves a vector uninitialized (garbage, at times NaN: then the refusal was for
  // the point, not the body); a finite zero states what each case means
  const Eigen::Vector3d zero = Eigen::Vector3d::Zero();
  EXPECT_NE(resolve_drag(&spec, nullptr, "b", zero, zero).error.find("no body \"b\""),
            std::string::npos);
  EXPECT_NE(resolve_drag(nullptr, nullptr, "a", zero, zero).error.find("built-in mechanism"),
            std::string::npos);
  EXPECT_NE(resolve_drag(&spec, nullptr, "a", {NAN, 0, 0}, zero).error.find("finite"),
            std::string::npos);
}

// A free beam body (steel, 1 m, 2 elements, simply supported) first in the model.
PlanarBodySpec steel_beam() {
  PlanarBodySpec beam;
  beam.name = "beam";
  beam.kind = PlanarBodyKind::kBeam;
  beam.mass = beam.inertia = 0.0;
  beam.beam = {1.0, 2e11, 7800.0, 1e-4, 1e-9, 2, PlanarBeamSupport::kSimplySupported};
  return beam;
}

// A beam body before the dragged one moves its coordinates (3 + n_elastic, not 3).
TEST(MouseSpringResolve, ABodyAfterABeamIsDraggedAtItsOwnCoordinates) {
  PlanarModelSpec spec = two_bodies();
  spec.bodies.insert(spec.bodies.begin(), steel_beam());  // beam: 3 + 3 * 2 = 9 coordinates
  const DragResolution r = resolve_drag(&spec, nullptr, "rod", {0.5, 0.0, 0.0}, {1.0, 2.0, 0.0});
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.spec.body, 2);
  EXPECT_EQ(r.spec.q_offset, 9 + 3);
  EXPECT_EQ(r.spec.v_offset, 9 + 3);
}

// A beam is grabbed at the material point of its axis nearest the cursor, (x, 0) with x clamped
// to [0, L]; its stiffness is its frame's as a rigid body's: m = rho a L = 0.78 kg, J = m L^2/12.
TEST(MouseSpringResolve, ABeamIsGrabbedOnItsAxisWithItsFramesEffectiveMass) {
  PlanarModelSpec spec = two_bodies();
  spec.bodies.insert(spec.bodies.begin(), steel_beam());
  const double w = 2.0 * std::numbers::pi * kDragHz;
  const double m = 7800.0 * 1e-4 * 1.0;
  const DragResolution end = resolve_drag(&spec, nullptr, "beam", {1.3, 0.02, 0.0}, {1, 2, 0});
  ASSERT_TRUE(end.error.empty()) << end.error;
  EXPECT_EQ(end.spec.body, 0);
  EXPECT_EQ(end.spec.q_offset, 0);
  EXPECT_EQ(end.spec.point, (std::array<double, 3>{1.0, 0.0, 0.0}));  // the end, on the axis
  // at an end, 1/m_p = 1/m + (L/2)^2 / (m L^2 / 12) = 4/m: a free rod pushed at its end
  EXPECT_NEAR(end.spec.stiffness, 0.25 * m * w * w, 1e-12 * m * w * w);
  const DragResolution mid = resolve_drag(&spec, nullptr, "beam", {0.5, -0.01, 0.0}, {1, 2, 0});
  EXPECT_EQ(mid.spec.point, (std::array<double, 3>{0.5, 0.0, 0.0}));
  EXPECT_NEAR(mid.spec.stiffness, m * w * w, 1e-12 * m * w * w);  // at the centre: m
  EXPECT_EQ(resolve_drag(&spec, nullptr, "beam", {-0.2, 0.0, 0.0}, {1, 2, 0}).spec.point[0], 0.0);
}

TEST(MouseSpringResolve, SpatialPullsTheCentreOfMass) {
  SpatialModelSpec spec;
  SpatialBodySpec b;
  b.name = "box";
  b.mass = 3.0;
  b.inertia = Eigen::Matrix3d::Identity();
  spec.bodies = {b, b};
  spec.bodies[1].name = "lid";
  const DragResolution r = resolve_drag(nullptr, &spec, "lid", {1, 1, 1}, {0, 0, 2});
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.spec.q_offset, 7);
  EXPECT_EQ(r.spec.v_offset, 7);
  EXPECT_EQ(r.spec.point, (std::array<double, 3>{0.0, 0.0, 0.0}));
  const double w = 2.0 * std::numbers::pi * kDragHz;
  EXPECT_NEAR(r.spec.stiffness, 3.0 * w * w, 1e-9);
}

// The rod held still at a pose, its point pulled towards a target: the generalized force the
// spring adds, the release ramp and the lease.
class MouseSpringForce : public ::testing::Test {
 protected:
  MouseSpringForce() {
    state_.q = Vec::Zero(6);
    state_.v = Vec::Zero(6);
    state_.q << 1.0, 0.0, 0.0, 0.3, -0.2, 0.4;  // rod at (0.3, -0.2), theta 0.4
    state_.v << 0.0, 0.0, 0.0, 0.1, -0.3, 0.5;
    resolved_ = resolve_drag(&model_.spec(), nullptr, "rod", {0.5, 0.1, 0.0}, {0.45, 0.05, 0.0});
  }
  // one tick at now [ns]: what the spring adds to an applied force of 1 on every coordinate
  void tick(std::int64_t now, double dt = 1e-3) {
    applied_ = Vec::Ones(6);
    spring_.apply(state_, applied_, now, dt, &model_);
  }
  // the rod's (fx, fy, tz) the spring added
  [[nodiscard]] Eigen::Vector3d channels() const {
    return applied_.segment<3>(3) - Eigen::Vector3d::Ones();
  }

  PlanarMultibody model_{two_bodies()};
  State state_;
  Vec applied_ = Vec::Ones(6);
  DragResolution resolved_;
  MouseSpring spring_;
};

TEST_F(MouseSpringForce, IsTheCouplingForceAndItsMomentOnceRampedIn) {
  ASSERT_TRUE(resolved_.error.empty());
  const DragSpec& s = resolved_.spec;
  spring_.grab(s, 0);
  for (std::int64_t k = 0; k <= 200; ++k) tick(k * kPeriod);  // past the 50 ms ramp
  // closed form: p = r + A(theta) s, p' = r' + theta' (-(A s)_y, (A s)_x)
  const double th = 0.4;
  const Eigen::Vector2d arm(std::cos(th) * 0.5 - std::sin(th) * 0.1,
                            std::sin(th) * 0.5 + std::cos(th) * 0.1);
  const Eigen::Vector2d p = Eigen::Vector2d(0.3, -0.2) + arm;
  const Eigen::Vector2d pv = Eigen::Vector2d(0.1, -0.3) + 0.5 * Eigen::Vector2d(-arm.y(), arm.x());
  const Eigen::Vector2d f = s.stiffness * (Eigen::Vector2d(0.45, 0.05) - p) - s.damping * pv;
  ASSERT_LT(f.norm(), s.max_force);  // the clamp does not act: the spring itself is seen
  EXPECT_NEAR(channels().x(), f.x(), 1e-9 * s.max_force);
  EXPECT_NEAR(channels().y(), f.y(), 1e-9 * s.max_force);
  EXPECT_NEAR(channels().z(), arm.x() * f.y() - arm.y() * f.x(), 1e-9 * s.max_force);
  EXPECT_EQ(applied_.head<3>(), Eigen::Vector3d::Ones());  // added to; the other body untouched
  EXPECT_NEAR(spring_.force().x(), f.x(), 1e-9 * s.max_force);
  EXPECT_NEAR(spring_.point().x(), p.x(), 1e-15);
  EXPECT_TRUE(spring_.active());
}

TEST_F(MouseSpringForce, RampsInAfterAGrab) {
  spring_.grab(resolved_.spec, 0);
  tick(0);
  const double first = channels().head<2>().norm();
  for (std::int64_t k = 1; k <= 200; ++k) tick(k * kPeriod);
  // the engage ramp scales the first sample by about 1 ms / 50 ms
  EXPECT_LT(first, 0.05 * channels().head<2>().norm());
}

TEST_F(MouseSpringForce, ReleaseRampsToExactlyZeroWithinTheRampTime) {
  spring_.grab(resolved_.spec, 0);
  std::int64_t now = 0;
  for (; now <= 200 * kPeriod; now += kPeriod) tick(now);
  const double held = channels().head<2>().norm();
  ASSERT_GT(held, 0.0);
  spring_.release(state_.t);
  // 50 ticks of 1 ms: the force of tick k (1-based) is scaled by 1 - k / 50, in simulation time
  const int ramp_ticks = static_cast<int>(std::lround(kDragReleaseS / 1e-3));
  tick(now += kPeriod);
  EXPECT_NEAR(channels().head<2>().norm(), (1.0 - 1.0 / ramp_ticks) * held, 1e-12 * held);
  for (int k = 2; k <= ramp_ticks / 2; ++k) tick(now += kPeriod);
  EXPECT_NEAR(channels().head<2>().norm(), 0.5 * held, 1e-12 * held);
  EXPECT_TRUE(spring_.active());
  for (int k = ramp_ticks / 2 + 1; k < ramp_ticks; ++k) tick(now += kPeriod);
  EXPECT_GT(channels().head<2>().norm(), 0.0);  // the last tick before the end still pulls
  tick(now += kPeriod);                         // tick 50: exactly zero, and idle
  EXPECT_EQ(channels(), Eigen::Vector3d::Zero());
  EXPECT_FALSE(spring_.active());
  // idle: it adds nothing more
  for (int k = 0; k < 5; ++k) tick(now += kPeriod);
  EXPECT_EQ(channels(), Eigen::Vector3d::Zero());
}

TEST_F(MouseSpringForce, AnUnrefreshedDragIsReleasedAfterItsLease) {
  spring_.grab(resolved_.spec, 0);
  std::int64_t now = 0;
  // ticks of 10 ms: the lease (wall clock) ends at the first tick past it, the ramp (simulation
  // time) five ticks later
  for (; now < kDragLeaseNs; now += 10 * kPeriod) tick(now, 10e-3);
  EXPECT_TRUE(spring_.active());
  EXPECT_FALSE(spring_.releasing());
  tick(now, 10e-3);  // at the lease's end exactly: still held
  EXPECT_FALSE(spring_.releasing());
  tick(now += 10 * kPeriod, 10e-3);  // the first tick past it: released, ramping out
  EXPECT_TRUE(spring_.releasing());
  EXPECT_TRUE(spring_.active());
  for (int k = 0; k < 4; ++k) tick(now += 10 * kPeriod, 10e-3);
  EXPECT_FALSE(spring_.active());
  EXPECT_FALSE(spring_.releasing());
  EXPECT_EQ(channels(), Eigen::Vector3d::Zero());
}

TEST_F(MouseSpringForce, MovingTheTargetKeepsTheDragAndPullsTheOtherWay) {
  DragSpec s = resolved_.spec;
  spring_.grab(s, 0);
  std::int64_t now = 0;
  for (; now <= 200 * kPeriod; now += kPeriod) tick(now);
  const double fx = channels().x();
  s.target[0] += 0.2;  // the cursor moved right: x pull up by k * 0.2 (rate limit: 50 ms to clamp)
  for (std::int64_t end = now + 200 * kPeriod; now <= end; now += kPeriod) {
    spring_.grab(s, now);
    tick(now);
  }
  EXPECT_NEAR(channels().x() - fx, s.stiffness * 0.2, 1e-9 * s.max_force);
}

// A free beam (steel_beam, then the rod) deformed and moving, grabbed at x = 0.7 of its axis:
// once ramped in, the spring's generalized force on the beam's nine coordinates is J^T F, with
// J = dp/dq by central differences of the axis point's position and F = k (p* - p) - c J v.
TEST(MouseSpringBeam, PullsTheMaterialPointThroughTheTransposedPointJacobian) {
  PlanarModelSpec spec = two_bodies();
  spec.bodies.insert(spec.bodies.begin(), steel_beam());
  const PlanarMultibody model(spec);
  ASSERT_EQ(model.n_q(), 9 + 6);
  State state;
  state.q = Vec::Zero(15);
  state.v = Vec::Zero(15);
  state.q.head<9>() << 0.2, -0.1, 0.3, 1e-3, -2e-3, 4e-3, 3e-3, -5e-3, 2e-3;
  state.v.head<9>() << 0.1, 0.2, -0.4, 0.01, 0.02, -0.03, 0.05, 0.01, -0.02;
  state.q.tail<6>() << 1.0, 0.0, 0.0, 0.3, -0.2, 0.4;
  const DragResolution r = resolve_drag(&spec, nullptr, "beam", {0.7, 0.03, 0.0}, {0.6, 0.5, 0.0});
  ASSERT_TRUE(r.error.empty()) << r.error;
  const Eigen::Vector2d s(0.7, 0.0);
  Eigen::Matrix<double, 2, 9> j;
  const double h = 1e-7;
  for (int c = 0; c < 9; ++c) {
    Vec qp = state.q;
    Vec qm = state.q;
    qp(c) += h;
    qm(c) -= h;
    j.col(c) = (model.point_position(qp, 0, s) - model.point_position(qm, 0, s)) / (2.0 * h);
  }
  const Eigen::Vector2d p = model.point_position(state.q, 0, s);
  const Eigen::Vector2d pv = j * state.v.head<9>();
  const DragSpec& d = r.spec;
  const Eigen::Vector2d f = d.stiffness * (Eigen::Vector2d(0.6, 0.5) - p) - d.damping * pv;
  ASSERT_LT(f.norm(), d.max_force);  // the clamp does not act
  ASSERT_GT(f.norm(), 0.1 * d.max_force);

  MouseSpring spring;
  spring.grab(d, 0);
  Vec applied = Vec::Zero(15);
  for (std::int64_t k = 0; k <= 200; ++k) {  // past the 50 ms ramp; the state held still
    applied.setZero();
    spring.apply(state, applied, k * kPeriod, 1e-3, &model);
  }
  const Eigen::Matrix<double, 9, 1> expected = j.transpose() * f;
  EXPECT_LT((applied.head<9>() - expected).norm(), 1e-6 * expected.norm())
      << applied.head<9>().transpose() << "\n"
      << expected.transpose();
  EXPECT_EQ(applied.tail<6>(), Vec::Zero(6));  // the rigid bodies untouched
  EXPECT_LT((spring.point().head<2>() - p).norm(), 1e-15);
  EXPECT_LT((spring.force().head<2>() - f).norm(), 1e-6 * f.norm());
  // the elastic coordinates feel it (not just the frame's three)
  EXPECT_GT(applied.segment<6>(3).norm(), 0.1 * f.norm());
  // without the model (or with another one) a planar drag cannot be evaluated: dropped
  spring.apply(state, applied, 201 * kPeriod, 1e-3, nullptr);
  EXPECT_FALSE(spring.active());
}

}  // namespace
}  // namespace rtmb
