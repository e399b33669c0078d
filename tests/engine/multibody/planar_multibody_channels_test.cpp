// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Named input and output channels of planar body models (issue 4;
// include/rtmb/models/planar_multibody.hpp, include/rtmb/models/planar_outputs.hpp). Each input
// binding's generalized force against its closed form and against the virtual work computed here
// independently (central differences); a virtual coupling settling a pendulum at its closed-form
// static equilibrium under every integrator family; a motor against the same torque as constant
// torque elements; joint reactions of a hanging pendulum and a slider-crank in static equilibrium
// against statics; drift and energy outputs against the step monitor.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include "rtmb/models/planar_multibody.hpp"
#include "rtmb/models/planar_outputs.hpp"
#include "rtmb/step.hpp"
#include "tests/engine/multibody/multibody_test_support.hpp"
#include "tests/support/param_names.hpp"
#include "tests/support/planar_test_models.hpp"

namespace rtmb {
namespace {

using Vec2 = Eigen::Vector2d;

PlanarBodySpec body(const std::string& name, double m, double inertia, Eigen::Vector3d pose) {
  PlanarBodySpec b = testing::test_body(name, m, inertia);
  b.pose = pose;
  return b;
}

PlanarJointSpec revolute(const std::string& name, int i, Vec2 si, int j, Vec2 sj) {
  PlanarJointSpec jt;
  jt.name = name;
  jt.type = PlanarJointType::kRevolute;
  jt.body_i = i;
  jt.body_j = j;
  jt.point_i = si;
  jt.point_j = sj;
  return jt;
}

PlanarInputSpec input(PlanarInputType type) {
  PlanarInputSpec in;
  in.name = "u";
  in.type = type;
  return in;
}

// world point of body-frame s on a body at (x, y, th), computed here (not with the library)
Vec2 world_point(double x, double y, double th, const Vec2& s) {
  return {x + std::cos(th) * s.x() - std::sin(th) * s.y(),
          y + std::sin(th) * s.x() + std::cos(th) * s.y()};
}

// Two free bodies joined by a revolute joint (the joint only matters to the motor binding).
PlanarModelSpec two_bodies() {
  PlanarModelSpec spec;
  spec.bodies.push_back(body("a", 1.0, 0.1, {0.2, -0.1, 0.4}));
  spec.bodies.push_back(body("b", 2.0, 0.3, {0.9, 0.3, -1.1}));
  spec.joints.push_back(revolute("ab", 0, {0.35, 0.0}, 1, {-0.3, 0.1}));
  return spec;
}

TEST(InputBindings, ForceTorqueMotorMatchClosedFormAndVirtualWork) {
  PlanarModelSpec spec = two_bodies();
  PlanarInputSpec force = input(PlanarInputType::kForce);
  force.body = 1;
  force.point = {0.3, -0.1};
  force.direction = {1.0, 2.0};  // normalized by the model
  PlanarInputSpec torque = input(PlanarInputType::kTorque);
  torque.body = 0;
  PlanarInputSpec motor = input(PlanarInputType::kMotor);
  motor.joint = 0;
  motor.limit = 2.0;
  spec.inputs = {force, torque, motor};
  const PlanarMultibody sys(spec);
  ASSERT_EQ(sys.n_inputs(), 3);

  Vec q(6);
  q << 0.2, -0.1, 0.4, 0.9, 0.3, -1.1;  // need not satisfy the joint: f(q) is defined everywhere
  const Vec v = Vec::Zero(6);
  Vec f0(6);
  Vec f1(6);
  sys.forces(0.0, q, v, std::vector<double>{0.0, 0.0, 0.0}, f0);
  const double uf = 1.7;
  const double ut = -0.4;
  const double um = 0.9;
  sys.forces(0.0, q, v, std::vector<double>{uf, ut, um}, f1);
  const Vec du = f1 - f0;

  // closed form: F = u e at p = r + A s: (F, (A s) x F); torque on a; motor +u on b, -u on a
  const Vec2 e = Vec2(1.0, 2.0) / std::sqrt(5.0);
  const Vec2 F = uf * e;
  const Vec2 arm = world_point(0.0, 0.0, q(5), force.point);
  Vec expected(6);
  expected << 0.0, 0.0, ut - um, F.x(), F.y(), arm.x() * F.y() - arm.y() * F.x() + um;
  EXPECT_LT((du - expected).lpNorm<Eigen::Infinity>(), 1e-14) << du.transpose();

  // virtual work W(q) = F.p(q) + u_t th_a + u_m (th_b - th_a): Q = dW/dq
  const auto work = [&](const Vec& x) {
    return F.dot(world_point(x(3), x(4), x(5), force.point)) + ut * x(2) + um * (x(5) - x(2));
  };
  const Vec fd = multibody_test::central_gradient(work, q);
  EXPECT_LT((du - fd).lpNorm<Eigen::Infinity>(), 1e-8) << (du - fd).transpose();

  // the motor's limit clamps: u = 10 acts as 2
  sys.forces(0.0, q, v, std::vector<double>{0.0, 0.0, 10.0}, f1);
  EXPECT_NEAR(f1(5) - f0(5), 2.0, 1e-14);
  EXPECT_NEAR(f1(2) - f0(2), -2.0, 1e-14);
}

PlanarForceSpec coupling(int b, Vec2 s, double k, double c, Vec2 target) {
  PlanarForceSpec f;
  f.name = "coupling";
  f.type = PlanarForceType::kCoupling;
  f.body_i = b;
  f.point_i = s;
  f.stiffness = k;
  f.damping = c;
  f.vector = target;
  return f;
}

TEST(InputBindings, CouplingIsMinusGradientOfItsPotentialPlusDamper) {
  PlanarModelSpec spec = two_bodies();
  const Vec2 s(0.25, -0.15);
  const double k = 40.0;
  const double c = 3.0;
  spec.forces.push_back(coupling(1, s, k, c, {0.0, 0.0}));
  PlanarInputSpec tx = input(PlanarInputType::kCouplingX);
  tx.element = 0;
  PlanarInputSpec ty = input(PlanarInputType::kCouplingY);
  ty.element = 0;
  spec.inputs = {tx, ty};
  const PlanarMultibody sys(spec);
  const Vec2 target(0.7, -0.45);
  const std::vector<double> u_target{target.x(), target.y()};
  EXPECT_LT((sys.coupling_target(0, u_target) - target).norm(), 1e-15);

  Vec q(6);
  q << 0.2, -0.1, 0.4, 0.9, 0.3, -1.1;
  Vec v(6);
  v << 0.3, -0.2, 0.5, -0.4, 0.6, 1.3;
  Vec f(6);
  // at v = 0: f = -dV/dq with V = k |p(q) - p*|^2 / 2 computed here
  sys.forces(0.0, q, Vec::Zero(6), u_target, f);
  const auto potential = [&](const Vec& x) {
    return 0.5 * k * (world_point(x(3), x(4), x(5), s) - target).squaredNorm();
  };
  const Vec grad = multibody_test::central_gradient(potential, q);
  EXPECT_LT((f + grad).lpNorm<Eigen::Infinity>(), 1e-7) << (f + grad).transpose();
  // energy() carries the same potential (T = 0 at v = 0)
  EXPECT_NEAR(sys.energy(0.0, q, Vec::Zero(6), u_target), potential(q), 1e-12);

  // with velocity: F = -k (p - p*) - c p', p' = r' + w S A s, acting at p
  sys.forces(0.0, q, v, u_target, f);
  const Vec2 u = world_point(0.0, 0.0, q(5), s);
  const Vec2 dp = Vec2(v(3), v(4)) + v(5) * Vec2(-u.y(), u.x());
  const Vec2 F = -k * (world_point(q(3), q(4), q(5), s) - target) - c * dp;
  EXPECT_LT((sys.coupling_force(0, q, v, u_target) - F).norm(), 1e-12);
  EXPECT_NEAR(f(3), F.x(), 1e-12);
  EXPECT_NEAR(f(4), F.y(), 1e-12);
  EXPECT_NEAR(f(5), u.x() * F.y() - u.y() * F.x(), 1e-12);
  EXPECT_EQ(f.head<3>().norm(), 0.0);
}

// A rod of mass m and length 2 on a pin at the origin (body x axis along the rod, pin at body
// point (-1, 0), centre of mass 1 from the pin), under gravity, its tip (body point (1, 0), 2 from
// the pin) pulled by a coupling to p*.
PlanarModelSpec coupled_pendulum(double k, double c) {
  PlanarModelSpec spec;
  spec.bodies.push_back(body("rod", 1.0, 0.05, {0.0, -1.0, -std::numbers::pi / 2}));
  spec.joints.push_back(revolute("pin", kGround, {0.0, 0.0}, 0, {-1.0, 0.0}));
  PlanarForceSpec g;
  g.type = PlanarForceType::kGravity;
  g.vector = {0.0, -9.81};
  spec.forces.push_back(g);
  spec.forces.push_back(coupling(0, {1.0, 0.0}, k, c, {0.0, -2.0}));
  PlanarInputSpec tx = input(PlanarInputType::kCouplingX);
  tx.element = 1;
  tx.initial = 0.0;
  PlanarInputSpec ty = input(PlanarInputType::kCouplingY);
  ty.element = 1;
  ty.initial = -2.0;
  spec.inputs = {tx, ty};
  return spec;
}

class CouplingEquilibrium : public ::testing::TestWithParam<Method> {};

// V(th) = m g sin th + k |2 (cos th, sin th) - p*|^2 / 2 has V' = m g cos th + 2 k (t_x sin th -
// t_y cos th) = 0, i.e. tan th* = (2 k t_y - m g) / (2 k t_x): the minimum for t_x > 0 is
// th* = atan2(2 k t_y - m g, 2 k t_x).
TEST_P(CouplingEquilibrium, PendulumSettlesAtClosedFormAngle) {
  const double k = 20.0;
  const Vec2 target(0.8, -0.2);
  const double m = 1.0;
  const double g = 9.81;
  const double th_star = std::atan2(2.0 * k * target.y() - m * g, 2.0 * k * target.x());

  Settings st;
  st.method = GetParam();
  st.dt = 2e-3;
  st.stabilizer = is_implicit(st.method) ? StabilizerKind::kNone : StabilizerKind::kPStab;
  const auto sys = std::make_shared<PlanarMultibody>(coupled_pendulum(k, 4.0));
  const Model model(sys, st);
  Workspace ws(model);
  State s = initial_state(model);
  set_inputs(ws, std::vector<double>{target.x(), target.y()});
  StepStatus status;
  for (int i = 0; i < 7500; ++i) {  // 15 s: the damper (c = 4 at the tip) removes ~e^-100
    status = step(model, s, ws);
    ASSERT_TRUE(status.ok()) << i;
  }
  const double th = s.q(2);
  std::printf("[ %s ] theta = %.12f, closed form %.12f, |v| = %.2e\n",
              std::string(to_string(GetParam())).c_str(), th, th_star, s.v.norm());
  EXPECT_NEAR(th, th_star, 1e-8);
  EXPECT_NEAR(s.q(0), std::cos(th_star), 1e-8);
  EXPECT_NEAR(s.q(1), std::sin(th_star), 1e-8);
  EXPECT_LT(s.v.norm(), 1e-7);
}

INSTANTIATE_TEST_SUITE_P(EveryFamily,
                         CouplingEquilibrium,
                         ::testing::Values(Method::kRk4,
                                           Method::kDopri5,
                                           Method::kAmpc4,
                                           Method::kOdeMidpoint,
                                           Method::kMidpoint,
                                           Method::kGenAlpha),
                         testing::method_param_name);

// Double pendulum under gravity: the motor on the elbow against two constant torque elements
// (+tau on the distal link, -tau on the proximal one).
PlanarModelSpec double_pendulum() {
  PlanarModelSpec spec;
  spec.bodies.push_back(body("upper", 1.0, 0.08, {0.5, 0.0, 0.0}));
  spec.bodies.push_back(body("lower", 0.7, 0.05, {1.4, 0.0, 0.0}));
  spec.joints.push_back(revolute("shoulder", kGround, {0.0, 0.0}, 0, {-0.5, 0.0}));
  spec.joints.push_back(revolute("elbow", 0, {0.5, 0.0}, 1, {-0.4, 0.0}));
  PlanarForceSpec g;
  g.type = PlanarForceType::kGravity;
  g.vector = {0.0, -9.81};
  spec.forces.push_back(g);
  return spec;
}

class MotorVsTorque : public ::testing::TestWithParam<Method> {};

TEST_P(MotorVsTorque, SameMotion) {
  const double tau = 0.7;
  PlanarModelSpec with_motor = double_pendulum();
  PlanarInputSpec motor = input(PlanarInputType::kMotor);
  motor.joint = 1;
  motor.initial = tau;
  with_motor.inputs.push_back(motor);
  PlanarModelSpec with_torques = double_pendulum();
  PlanarForceSpec t;
  t.type = PlanarForceType::kTorque;
  t.body_i = 1;
  t.torque = tau;
  with_torques.forces.push_back(t);
  t.body_i = 0;
  t.torque = -tau;
  with_torques.forces.push_back(t);

  Settings st;
  st.method = GetParam();
  st.dt = 1e-3;
  st.stabilizer = is_implicit(st.method) ? StabilizerKind::kNone : StabilizerKind::kPStab;
  const Model a(std::make_shared<PlanarMultibody>(with_motor), st);
  const Model b(std::make_shared<PlanarMultibody>(with_torques), st);
  Workspace wa(a);
  Workspace wb(b);
  State sa = initial_state(a);
  State sb = initial_state(b);
  for (int i = 0; i < 2000; ++i) {
    ASSERT_TRUE(step(a, sa, wa).ok());
    ASSERT_TRUE(step(b, sb, wb).ok());
  }
  const double dq = (sa.q - sb.q).lpNorm<Eigen::Infinity>();
  const double dv = (sa.v - sb.v).lpNorm<Eigen::Infinity>();
  std::printf("[ %s ] after 2 s: |dq| = %.2e, |dv| = %.2e, elbow moved %.3f rad\n",
              std::string(to_string(GetParam())).c_str(), dq, dv, sa.q(5) - sa.q(2));
  EXPECT_LT(dq, 1e-9);
  EXPECT_LT(dv, 1e-8);
  EXPECT_GT(std::abs(sa.q(5) - sa.q(2)), 0.1);  // the motor did move the elbow
}

INSTANTIATE_TEST_SUITE_P(Families,
                         MotorVsTorque,
                         ::testing::Values(Method::kRk4, Method::kMampc4, Method::kMidpoint),
                         [](const ::testing::TestParamInfo<Method>& p) {
                           return std::string(to_string(p.param));
                         });

// ---- outputs ---------------------------------------------------------------------------------

PlanarOutputSpec output(PlanarOutputType type, int body = kGround, int joint = -1) {
  PlanarOutputSpec o;
  o.name = "o";
  o.type = type;
  o.body = body;
  o.joint = joint;
  return o;
}

TEST(PlanarOutputsTest, HangingPendulumPinReactionIsWeight) {
  // pin between the ground (i) and the rod (j), and the same pin written the other way round
  for (const bool rod_is_j : {true, false}) {
    PlanarModelSpec spec;
    const double m = 2.5;
    spec.bodies.push_back(body("rod", m, 0.2, {0.0, -0.8, -std::numbers::pi / 2}));
    spec.joints.push_back(rod_is_j ? revolute("pin", kGround, {0.0, 0.0}, 0, {-0.8, 0.0})
                                   : revolute("pin", 0, {-0.8, 0.0}, kGround, {0.0, 0.0}));
    PlanarForceSpec g;
    g.type = PlanarForceType::kGravity;
    g.vector = {0.0, -9.81};
    spec.forces.push_back(g);
    const auto sys = std::make_shared<PlanarMultibody>(spec);
    const Model model(sys, Settings{});
    Workspace ws(model);
    State s = initial_state(model);
    PlanarOutputs out(*sys, {output(PlanarOutputType::kReaction, kGround, 0)});
    ASSERT_EQ(out.count(), 3);
    std::array<double, 3> r{};
    out.evaluate(s, ws, r);
    // on the rod: +m g up; on the ground (rod is body_i): -m g
    const double sign = rod_is_j ? 1.0 : -1.0;
    std::printf("pin reaction (rod is body_%s): (%.12f, %.12f, %.2e), m g = %.12f\n",
                rod_is_j ? "j" : "i", r[0], r[1], r[2], m * 9.81);
    EXPECT_NEAR(r[0], 0.0, 1e-12);
    EXPECT_NEAR(r[1], sign * m * 9.81, 1e-12);
    EXPECT_NEAR(r[2], 0.0, 1e-12);
  }
}

// Slider-crank held at rest without gravity: crank r = 0.2 vertical, rod l = 0.5, slider on the
// x axis pushed by P (an input force), crank held by the motor torque tau = P r from virtual
// work (x_s = r cos th + sqrt(l^2 - r^2 sin^2 th), dx_s/dth = -r at th = pi/2). The rod is a
// two-force member: it pushes the slider with C e, e = (b, -r)/l from the crank pin to the
// slider, b = sqrt(l^2 - r^2), and x-balance of the slider gives C = -P l / b.
TEST(PlanarOutputsTest, SliderCrankAtRestReactionsMatchStatics) {
  const double r = 0.2;
  const double l = 0.5;
  const double b = std::sqrt(l * l - r * r);
  const double P = -3.0;
  const double phi = std::atan2(-r, b);
  PlanarModelSpec spec;
  spec.bodies.push_back(body("crank", 0.4, 0.002, {0.0, r / 2, std::numbers::pi / 2}));
  spec.bodies.push_back(body("rod", 0.6, 0.0125, {b / 2, r / 2, phi}));
  spec.bodies.push_back(body("slider", 0.9, 0.001, {b, 0.0, 0.0}));
  spec.joints.push_back(revolute("A", kGround, {0.0, 0.0}, 0, {-r / 2, 0.0}));
  spec.joints.push_back(revolute("B", 0, {r / 2, 0.0}, 1, {-l / 2, 0.0}));
  spec.joints.push_back(revolute("C", 1, {l / 2, 0.0}, 2, {0.0, 0.0}));
  PlanarJointSpec slide;
  slide.name = "slide";
  slide.type = PlanarJointType::kPrismatic;
  slide.body_i = kGround;
  slide.body_j = 2;
  spec.joints.push_back(slide);
  PlanarInputSpec push = input(PlanarInputType::kForce);
  push.body = 2;
  push.initial = P;
  PlanarInputSpec motor = input(PlanarInputType::kMotor);
  motor.joint = 0;
  motor.initial = P * r;
  spec.inputs = {push, motor};
  ASSERT_TRUE(assemble(spec).empty());  // the given pose is consistent
  const auto sys = std::make_shared<PlanarMultibody>(spec);
  const Model model(sys, Settings{});
  Workspace ws(model);
  State s = initial_state(model);
  PlanarOutputs out(*sys, {output(PlanarOutputType::kReaction, kGround, 0),
                           output(PlanarOutputType::kReaction, kGround, 2),
                           output(PlanarOutputType::kReaction, kGround, 3)});
  std::array<double, 9> rx{};
  out.evaluate(s, ws, rx);
  const double fx = -P;  // rod on slider, and pin A on crank
  const double fy = P * r / b;
  std::printf(
      "pin A on crank (%.12f, %.12f), rod on slider (%.12f, %.12f), slide (%.12f, "
      "%.12f, %.2e); statics (%.12f, %.12f)\n",
      rx[0], rx[1], rx[3], rx[4], rx[6], rx[7], rx[8], fx, fy);
  EXPECT_NEAR(rx[0], fx, 1e-12);
  EXPECT_NEAR(rx[1], fy, 1e-12);
  EXPECT_NEAR(rx[2], 0.0, 1e-12);
  EXPECT_NEAR(rx[3], fx, 1e-12);
  EXPECT_NEAR(rx[4], fy, 1e-12);
  EXPECT_NEAR(rx[6], 0.0, 1e-12);  // the slide only pushes normal to its axis
  EXPECT_NEAR(rx[7], -fy, 1e-12);
  EXPECT_NEAR(rx[8], 0.0, 1e-12);  // no moment on the slider about its point
  // and it is at rest indeed: 200 steps later nothing moved
  const Vec q0 = s.q;
  for (int i = 0; i < 200; ++i) ASSERT_TRUE(step(model, s, ws).ok());
  EXPECT_LT((s.q - q0).lpNorm<Eigen::Infinity>(), 1e-10);
}

TEST(PlanarOutputsTest, DriftAndEnergyMatchTheStepMonitor) {
  PlanarModelSpec spec = double_pendulum();
  spec.bodies[0].velocity = {0.0, 1.0, 2.0};
  spec.bodies[1].velocity = {0.0, 2.0, 1.0};
  (void)assemble(spec);
  Settings st;
  st.stabilizer = StabilizerKind::kNone;  // let drift grow so there is something to compare
  st.dt = 1e-2;
  const auto sys = std::make_shared<PlanarMultibody>(spec);
  const Model model(sys, st);
  Workspace ws(model);
  State s = initial_state(model);
  PlanarOutputs out(
      *sys, {output(PlanarOutputType::kPositionDrift), output(PlanarOutputType::kVelocityDrift),
             output(PlanarOutputType::kEnergy), output(PlanarOutputType::kPose, 1),
             output(PlanarOutputType::kJointPosition, kGround, 1),
             output(PlanarOutputType::kJointVelocity, kGround, 1)});
  ASSERT_EQ(out.count(), 8);
  std::array<double, 8> o{};
  StepStatus status;
  for (int i = 0; i < 300; ++i) status = step(model, s, ws);
  out.evaluate(s, ws, o);
  std::printf("drift %.6e (monitor %.6e), velocity drift %.6e (%.6e), energy %.12f (%.12f)\n", o[0],
              status.position_drift, o[1], status.velocity_drift, o[2], status.energy);
  EXPECT_GT(status.position_drift, 1e-13);  // there is drift to compare
  EXPECT_DOUBLE_EQ(o[0], status.position_drift);
  EXPECT_DOUBLE_EQ(o[1], status.velocity_drift);
  EXPECT_DOUBLE_EQ(o[2], status.energy);
  EXPECT_EQ(o[3], s.q(3));
  EXPECT_EQ(o[5], s.q(5));
  EXPECT_EQ(o[6], s.q(5) - s.q(2));
  EXPECT_EQ(o[7], s.v(5) - s.v(2));
}

}  // namespace
}  // namespace rtmb
