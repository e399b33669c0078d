// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Haptic coupling (issue 7) on the simulation thread's path: the runner ticks the model, the
// output evaluator filters minus the coupling force through the coupling's ForceOutputFilter and
// the snapshot carries it (what the server streams). The wall element against its closed form,
// its potential (central differences) and energy conservation; the coupling point's effective
// inverse mass against closed forms (free body, pendulum); clamp, rate limit and engage ramp
// acting on the streamed force; the 1-DoF virtual wall of configs/virtual_wall.yaml with an
// emulated device and hand, with and without the passivity controller (issue 7, acceptance 1).
#include <gtest/gtest.h>

#include <Eigen/LU>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include "rtmb/models/force_output_filter.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/models/planar_multibody.hpp"
#include "rtmb/models/planar_outputs.hpp"
#include "rtmb/runtime/input_channels.hpp"
#include "rtmb/runtime/simulation_runner.hpp"
#include "rtmb/step.hpp"
#include "tests/support/haptic_rig.hpp"
#include "tests/support/model_file_errors.hpp"
#include "tests/support/model_lookup.hpp"
#include "tests/support/planar_test_models.hpp"

namespace rtmb {
namespace {

using Vec2 = Eigen::Vector2d;

bool has(double flags, ForceOutputFlag f) {
  return (static_cast<std::uint32_t>(flags) & static_cast<std::uint32_t>(f)) != 0;
}

// A free body (no joint, no gravity) at the origin coupled at its centre: the device pulls it.
std::string free_body(const std::string& safety) {
  return R"(name: puck
bodies:
  - {name: puck, mass: 1, inertia: 0.01, pose: [0, 0, 0]}
forces:
  - {name: coupling, type: coupling, body: puck, stiffness: 1000, damping: 0, target: [0, 0],
     safety: )" +
         safety + R"(}
integration: {method: rk4, stabilizer: none, dt: 0.001}
inputs:
  channels:
    - {name: target_x, drive: {type: coupling, element: coupling, axis: x}}
    - {name: target_y, drive: {type: coupling, element: coupling, axis: y}}
outputs:
  channels:
    - {name: device, kind: haptic_force, element: coupling}
    - {name: raw, kind: coupling_force, element: coupling}
)";
}

// ---- the wall element ---------------------------------------------------------------------

PlanarModelSpec wall_model(double k, double c) {
  PlanarModelSpec spec;
  PlanarBodySpec b = testing::test_body("block", 2.0, 0.05);
  b.pose = {0.1, 0.2, 0.4};
  spec.bodies.push_back(b);
  PlanarForceSpec w;
  w.name = "wall";
  w.type = PlanarForceType::kWall;
  w.body_i = 0;
  w.point_i = {0.15, -0.05};
  w.point_j = {0.3, 0.1};   // a point on the surface
  w.vector = {-3.0, -4.0};  // outward normal (normalized on build): free space below-left
  w.stiffness = k;
  w.damping = c;
  spec.forces.push_back(w);
  return spec;
}

TEST(HapticWall, ForceIsTheClosedFormAndNeverPulls) {
  const PlanarMultibody sys(wall_model(5000.0, 30.0));
  const Vec2 n(-0.6, -0.8);
  const Vec2 o(0.3, 0.1);
  const Vec2 s(0.15, -0.05);
  Vec q(3);
  Vec v(3);
  Vec f(3);
  // world point computed here: p = r + A(th) s
  auto point = [&](const Vec& qq) {
    return Vec2(qq(0) + std::cos(qq(2)) * s.x() - std::sin(qq(2)) * s.y(),
                qq(1) + std::sin(qq(2)) * s.x() + std::cos(qq(2)) * s.y());
  };
  for (const double depth : {-0.01, 0.002, 0.01}) {
    q << 0.1, 0.2, 0.4;
    q.head<2>() += (o - point(q)) - depth * n;     // put the point `depth` inside
    for (const double speed : {-2.0, 0.0, 0.3}) {  // d' = speed (positive: going in)
      v << -speed * n.x(), -speed * n.y(), 0.0;
      sys.forces(0.0, q, v, {}, f);
      const double fn = depth > 0.0 ? std::max(0.0, 5000.0 * depth + 30.0 * speed) : 0.0;
      const Vec2 arm = point(q) - q.head<2>();
      EXPECT_NEAR(f(0), fn * n.x(), 1e-9) << depth << " " << speed;
      EXPECT_NEAR(f(1), fn * n.y(), 1e-9);
      EXPECT_NEAR(f(2), arm.x() * fn * n.y() - arm.y() * fn * n.x(), 1e-9);
      EXPECT_GE(fn, 0.0);
    }
  }
}

TEST(HapticWall, SpringForceIsMinusTheGradientOfItsPotential) {
  // at v = 0 the force is -dV/dq; central differences of System::energy (T = 0 at v = 0)
  const PlanarMultibody sys(wall_model(5000.0, 0.0));
  Vec q(3);
  q << 0.1, 0.2, 0.4;
  const Vec v = Vec::Zero(3);
  Vec f(3);
  // shift the body so the point is 3 mm inside
  const Vec2 p = point_position(q, 0, Vec2(0.15, -0.05));
  q.head<2>() += Vec2(0.3, 0.1) - p - 0.003 * Vec2(-0.6, -0.8);
  sys.forces(0.0, q, v, {}, f);
  const double h = 1e-7;
  double worst = 0.0;
  for (int i = 0; i < 3; ++i) {
    Vec qp = q;
    Vec qm = q;
    qp(i) += h;
    qm(i) -= h;
    const double grad = (sys.energy(0.0, qp, v, {}) - sys.energy(0.0, qm, v, {})) / (2.0 * h);
    worst = std::max(worst, std::abs(f(i) + grad));
  }
  std::printf("wall: |f + dV/dq|_inf = %.3e (|f| = %.3f N)\n", worst, f.head<2>().norm());
  EXPECT_LT(worst, 1e-5 * f.head<2>().norm());
  EXPECT_NEAR(f.head<2>().norm(), 5000.0 * 0.003, 1e-9);
}

TEST(HapticWall, BounceConservesEnergyWithoutDampingAndLosesItWithDamping) {
  // a block thrown at the wall: T + V is conserved through the contact (c = 0, RK4 at a step
  // well below the contact period 2 pi sqrt(m / k)) and drops with c > 0; it comes back out
  for (const double c : {0.0, 20.0}) {
    PlanarModelSpec spec = wall_model(2.0e4, c);
    // start 136 mm outside (the point is 64 mm inside at wall_model's pose), moving straight at
    // the wall (along -n) at 1 m/s
    spec.bodies[0].pose.head<2>() += 0.2 * Vec2(-0.6, -0.8);
    spec.bodies[0].velocity = {0.6, 0.8, 0.0};
    const auto sys = std::make_shared<const PlanarMultibody>(spec);
    Settings st = testing::rk4_pstab(1e-5);
    st.stabilizer = StabilizerKind::kNone;
    const Model model(sys, st);
    Workspace ws(model);
    State s = initial_state(model);
    const double e0 = sys->energy(0.0, s.q, s.v, {});
    double max_dev = 0.0;
    double max_v = 0.0;
    for (int i = 0; i < 60000; ++i) {  // 0.6 s: reaches the wall (~0.2 s), bounces, leaves
      (void)step(model, s, ws);
      const double e = sys->energy(s.t, s.q, s.v, {});
      max_dev = std::max(max_dev, std::abs(e - e0));
      max_v = std::max(max_v, e);
    }
    const double e1 = sys->energy(s.t, s.q, s.v, {});
    const Vec2 vel = s.v.head<2>();
    std::printf(
        "wall bounce c = %.0f: E0 = %.6f J, E_end = %.6f J, max |E - E0| = %.3e J, "
        "v_end = (%.4f, %.4f)\n",
        c, e0, e1, max_dev, vel.x(), vel.y());
    EXPECT_LE(max_v, e0 * (1.0 + 1e-6));        // never gains energy
    EXPECT_GT(Vec2(-0.6, -0.8).dot(vel), 0.0);  // moving away from the wall again
    if (c == 0.0) {
      EXPECT_LT(max_dev, 1e-6 * e0);
    } else {
      EXPECT_LT(e1, 0.9 * e0);
    }
  }
}

// ---- local linearization: effective inverse mass of the coupling point ----------------------

std::vector<double> linearization(const std::string& text) {
  const ModelFile file = parse_model_file(text, "lin.yaml");
  const Model model(std::shared_ptr<const System>(make_system(file)), file.settings);
  Workspace ws(model);
  const State s = initial_state(model);
  const auto outputs = make_output_evaluator(file, model.system());
  std::vector<double> out(static_cast<std::size_t>(outputs->count()));
  outputs->evaluate(s, ws, out);
  return out;
}

TEST(HapticLinearization, FreeBodyPointIsOneOverMassPlusTheRotation) {
  // W = I/m + a a^T / J with a = S A(th) s (the point's velocity per unit body rate)
  const double m = 2.0;
  const double inertia = 0.03;
  const double th = 0.7;
  const Vec2 s(0.2, -0.1);
  const std::string text = R"(bodies:
  - {name: b, mass: 2, inertia: 0.03, pose: [0.3, -0.2, 0.7]}
forces:
  - {name: c, type: coupling, body: b, point: [0.2, -0.1], stiffness: 750, damping: 3}
outputs:
  channels:
    - {name: lin, kind: coupling_linearization, element: c}
)";
  const std::vector<double> w = linearization(text);
  const Vec2 as(std::cos(th) * s.x() - std::sin(th) * s.y(),
                std::sin(th) * s.x() + std::cos(th) * s.y());
  const Vec2 a(-as.y(), as.x());
  EXPECT_NEAR(w[0], 1.0 / m + a.x() * a.x() / inertia, 1e-12);
  EXPECT_NEAR(w[1], a.x() * a.y() / inertia, 1e-12);
  EXPECT_NEAR(w[2], 1.0 / m + a.y() * a.y() / inertia, 1e-12);
  EXPECT_EQ(w[3], 750.0);
  EXPECT_EQ(w[4], 3.0);
  std::printf("free body: W = [%.6f %.6f; %.6f %.6f] 1/kg\n", w[0], w[1], w[1], w[2]);
}

TEST(HapticLinearization, PendulumTipHasZeroAlongTheRodAndLSquaredOverIAcross) {
  // rod of mass m, inertia J about its centre, pinned at distance a behind the centre, coupled at
  // distance b ahead; rod at angle th. Along the rod the pin holds: 0. Across: the tip moves as
  // L w with L = a + b about the pin, I_pin = J + m a^2, so W = (L^2 / I_pin) t t^T,
  // t = (-sin th, cos th).
  const double m = 1.5;
  const double inertia = 0.02;
  const double a = 0.25;
  const double b = 0.15;
  const double th = 0.5;
  char text[1024];
  std::snprintf(text, sizeof(text), R"(bodies:
  - {name: rod, mass: %.17g, inertia: %.17g, pose: [%.17g, %.17g, %.17g]}
joints:
  - {name: pin, type: revolute, body_i: ground, body_j: rod, point_j: [%.17g, 0]}
forces:
  - {name: c, type: coupling, body: rod, point: [%.17g, 0], stiffness: 100}
outputs:
  channels:
    - {name: lin, kind: coupling_linearization, element: c}
)",
                m, inertia, a * std::cos(th), a * std::sin(th), th, -a, b);
  const std::vector<double> w = linearization(text);
  const double across = (a + b) * (a + b) / (inertia + m * a * a);
  const Vec2 t(-std::sin(th), std::cos(th));
  EXPECT_NEAR(w[0], across * t.x() * t.x(), 1e-10);
  EXPECT_NEAR(w[1], across * t.x() * t.y(), 1e-10);
  EXPECT_NEAR(w[2], across * t.y() * t.y(), 1e-10);
  // along the rod: e^T W e = 0
  const Vec2 e(std::cos(th), std::sin(th));
  const double along = e.x() * e.x() * w[0] + 2.0 * e.x() * e.y() * w[1] + e.y() * e.y() * w[2];
  std::printf(
      "pendulum tip: along %.3e 1/kg (closed form 0), across %.6f 1/kg (closed form "
      "%.6f)\n",
      along, t.x() * t.x() * w[0] + 2.0 * t.x() * t.y() * w[1] + t.y() * t.y() * w[2], across);
  EXPECT_NEAR(along, 0.0, 1e-10);
}

TEST(HapticLinearization, FiveBarHandleMatchesTheNullSpaceReference) {
  // reference by another route: with Z a basis of null(G) (velocities the joints allow),
  // W = J_p Z (Z^T M Z)^-1 Z^T J_p^T; J_p by central differences of the handle position
  const ModelFile file =
      load_model_file(std::string(RTMB_SOURCE_DIR) + "/configs/five_bar_haptic.yaml");
  const Model model(std::shared_ptr<const System>(make_system(file)), file.settings);
  const System& sys = model.system();
  Workspace ws(model);
  const State s = initial_state(model);
  const auto outputs = make_output_evaluator(file, sys);
  std::vector<double> out(static_cast<std::size_t>(outputs->count()));
  outputs->evaluate(s, ws, out);
  const std::vector<std::pair<std::string, std::string>> names = output_channels(file.outputs);
  std::size_t at = 0;
  while (at < names.size() && names[at].first != "linearization.w_xx") ++at;
  ASSERT_LT(at, names.size());

  Mat mass_matrix(sys.n_v(), sys.n_v());
  Mat jac(sys.n_lambda(), sys.n_v());
  sys.mass(0.0, s.q, mass_matrix);
  sys.jacobian(0.0, s.q, jac);
  const Eigen::FullPivLU<Mat> lu(jac);
  const Mat z = lu.kernel();
  ASSERT_EQ(z.cols(), 2);  // a five-bar has two degrees of freedom
  Mat jp(2, sys.n_v());
  const PlanarForceSpec& c = file.bodies->forces[0];
  const double h = 1e-7;
  for (Eigen::Index i = 0; i < sys.n_v(); ++i) {
    Vec qp = s.q;
    Vec qm = s.q;
    qp(i) += h;
    qm(i) -= h;
    jp.col(i) =
        (point_position(qp, c.body_i, c.point_i) - point_position(qm, c.body_i, c.point_i)) /
        (2.0 * h);
  }
  const Mat reduced = z.transpose() * mass_matrix * z;
  const Mat w = jp * z * reduced.inverse() * z.transpose() * jp.transpose();
  std::printf(
      "five-bar handle: W = [%.6f %.6f; %.6f %.6f] 1/kg, reference [%.6f %.6f; %.6f "
      "%.6f]\n",
      out[at], out[at + 1], out[at + 1], out[at + 2], w(0, 0), w(0, 1), w(1, 0), w(1, 1));
  const double scale = w.norm();
  EXPECT_NEAR(out[at], w(0, 0), 1e-6 * scale);
  EXPECT_NEAR(out[at + 1], w(0, 1), 1e-6 * scale);
  EXPECT_NEAR(out[at + 2], w(1, 1), 1e-6 * scale);
}

// ---- safety stages acting on the streamed force ----------------------------------------------

TEST(HapticStream, ClampKeepsDirectionOnTheStreamedForce) {
  // device 50 mm from the puck along (3, 4)/5 at 1000 N/m: raw 50 N, clamped to 10 N
  testing::HapticRig rig(parse_model_file(free_body("{max_force: 10}"), "puck.yaml"), 1);
  rig.tick(0.03, 0.04);
  const double fx = rig.out("device.fx");
  const double fy = rig.out("device.fy");
  const double rx = -rig.out("raw.fx");
  const double ry = -rig.out("raw.fy");
  std::printf("clamp: raw (%.3f, %.3f) N -> streamed (%.4f, %.4f) N\n", rx, ry, fx, fy);
  EXPECT_GT(std::hypot(rx, ry), 40.0);
  EXPECT_NEAR(std::hypot(fx, fy), 10.0, 1e-12);
  EXPECT_NEAR(fx * ry - fy * rx, 0.0, 1e-9);  // parallel
  EXPECT_GT(fx * rx + fy * ry, 0.0);          // same sense
  EXPECT_TRUE(has(rig.out("device.flags"), ForceOutputFlag::kClamped));
}

TEST(HapticStream, RateLimitBoundsEveryStreamedChange) {
  // a 20 mm step of the device: raw jumps by 20 N; the stream rises by 2000 N/s * 1 ms per tick
  testing::HapticRig rig(parse_model_file(free_body("{max_rate: 2000}"), "puck.yaml"), 1);
  rig.tick(0.0, 0.0);
  double last = 0.0;
  double max_change = 0.0;
  int limited = 0;
  for (int i = 0; i < 5; ++i) {
    rig.tick(0.02, 0.0);
    const double f = rig.out("device.fx");
    max_change = std::max(max_change, std::abs(f - last));
    limited += has(rig.out("device.flags"), ForceOutputFlag::kRateLimited) ? 1 : 0;
    last = f;
  }
  std::printf(
      "rate limit: raw %.3f N, max streamed change %.6f N per 1 ms tick, after 5 ticks "
      "%.4f N\n",
      -rig.out("raw.fx"), max_change, last);
  EXPECT_NEAR(max_change, 2.0, 1e-9);
  // the device is pulled towards the puck (-x): F_device = -F_body = k (p - p*)
  EXPECT_NEAR(last, -10.0, 1e-9);
  EXPECT_EQ(limited, 5);
  EXPECT_GT(rig.out("raw.fx"), 15.0);
}

TEST(HapticStream, EngageRampWaitsForASmallForceThenRisesLinearly) {
  // the device connects 30 mm away (30 N raw > 1 N): nothing is sent; once it is back within
  // 1 N, the output rises linearly over 10 ms
  testing::HapticRig rig(
      parse_model_file(free_body("{engage_force: 1, engage_ramp: 0.01}"), "puck.yaml"), 1);
  for (int i = 0; i < 3; ++i) {
    rig.tick(0.03, 0.0);
    EXPECT_EQ(rig.out("device.fx"), 0.0);
    EXPECT_TRUE(has(rig.out("device.flags"), ForceOutputFlag::kWaiting));
  }
  // back near the puck: engaged; then a fixed small offset and the ramp
  rig.tick(rig.state().q(0), 0.0);
  EXPECT_FALSE(has(rig.out("device.flags"), ForceOutputFlag::kWaiting));
  for (int i = 1; i <= 12; ++i) {
    rig.tick(rig.state().q(0) + 0.002, 0.0);
    const double raw = -rig.out("raw.fx");
    const double ramp = std::min(1.0, (i + 1) * 0.001 / 0.01);
    EXPECT_NEAR(rig.out("device.fx"), ramp * raw, 1e-9) << i;
    EXPECT_EQ(has(rig.out("device.flags"), ForceOutputFlag::kRamping), ramp < 1.0) << i;
  }
}

// ---- 1-DoF virtual wall with an emulated device and hand ------------------------------------

struct WallRun {
  double device_work = 0.0;          ///< exact work of the held rendered force on the device [J]
  double observed_energy = 0.0;      ///< the filter's observer at the end [J]
  double max_df = 0.0;               ///< max |F_k - F_{k-1}| [N]
  double max_penetration = 0.0;      ///< max depth of the device behind the wall [m]
  double max_speed = 0.0;            ///< max |x'| of the device [m/s]
  double work_at_last_sample = 0.0;  ///< device_work up to the last tick's sample [J]
  double mean_late = 0.0;            ///< mean device x over the second half of the run [m]
  int damping_ticks = 0;
};

// Device: mass 0.1 kg on x, integrated at 10 kHz (semi-implicit Euler), pushed by a hand
// (spring-damper 300 N/m, 3 N s/m to a hand position that presses 10 mm +- 5 mm into the wall at
// 2 Hz) and by the rendered force held over each 1 ms tick. Every tick the device's position
// goes to target_x and the filtered force comes back.
WallRun run_wall(const ModelFile& file, double seconds) {
  testing::HapticRig rig(file, 10);
  const double period = rig.period();
  const int inner = 10;
  const double h = period / inner;
  double x = -0.02;
  double v = 0.0;
  double force = 0.0;
  WallRun r;
  const int ticks = static_cast<int>(std::lround(seconds / period));
  for (int k = 0; k < ticks; ++k) {
    rig.tick(x, 0.0);
    const double f_new = rig.out("device.fx");
    r.max_df = std::max(r.max_df, std::abs(f_new - force));
    force = f_new;
    if (rig.out("device.damping") > 0.0) ++r.damping_ticks;
    r.work_at_last_sample = r.device_work;
    const double x0 = x;
    for (int i = 0; i < inner; ++i) {
      const double t = (k * inner + i) * h;
      const double hand = 0.01 + 0.005 * std::sin(2.0 * std::numbers::pi * 2.0 * t);
      const double f_hand = 300.0 * (hand - x) - 3.0 * v;
      v += h * (f_hand + force) / 0.1;
      x += h * v;
      r.max_speed = std::max(r.max_speed, std::abs(v));
    }
    r.device_work += force * (x - x0);  // the held force: exact work over the tick
    r.max_penetration = std::max(r.max_penetration, x);
    if (2 * k >= ticks) r.mean_late += x / (ticks - ticks / 2);
  }
  r.observed_energy = rig.out("device.energy");
  return r;
}

ModelFile wall_file(bool passivity, double coupling_stiffness) {
  ModelFile file = load_model_file(std::string(RTMB_SOURCE_DIR) + "/configs/virtual_wall.yaml");
  auto spec = std::make_shared<PlanarModelSpec>(*file.bodies);
  PlanarForceSpec& c = spec->forces[0];
  EXPECT_EQ(c.type, PlanarForceType::kCoupling);
  c.safety.passivity = passivity;
  c.stiffness = coupling_stiffness;
  file.bodies = spec;
  return file;
}

TEST(HapticVirtualWall, PassivityControllerKeepsTheDevicePortPassiveOver10s) {
  // issue 7 acceptance 1: 10 s of contact. A stiff coupling (20 kN/m) sampled at 1 kHz with a
  // one-tick hold is active (it returns energy to the device); the controller makes it passive.
  const WallRun off = run_wall(wall_file(false, 2.0e4), 10.0);
  const WallRun on = run_wall(wall_file(true, 2.0e4), 10.0);
  std::printf(
      "virtual wall 10 s, coupling 20 kN/m: controller off: work on device %+.6f J "
      "(observer %+.6f J), max |dF| %.3f N, max depth %.2f mm\n",
      off.device_work, off.observed_energy, off.max_df, 1e3 * off.max_penetration);
  std::printf(
      "virtual wall 10 s, coupling 20 kN/m: controller on:  work on device %+.6f J "
      "(observer %+.6f J), max |dF| %.3f N, max depth %.2f mm, damping in %d ticks\n",
      on.device_work, on.observed_energy, on.max_df, 1e3 * on.max_penetration, on.damping_ticks);
  EXPECT_GT(off.device_work, 0.0);  // the active energy the controller prevents
  EXPECT_LE(on.device_work, 0.0);
  EXPECT_LE(on.observed_energy, 1e-12);
  // the device's own exact work equals the observer's (same samples, same held force)
  EXPECT_NEAR(on.work_at_last_sample, on.observed_energy, 1e-9);
  EXPECT_GT(on.damping_ticks, 0);
  EXPECT_GT(on.max_penetration, 0.0);  // it was in contact
}

TEST(HapticVirtualWall, ShippedConfigIsPassiveAndFeelsTheWall) {
  const WallRun r = run_wall(wall_file(true, 2000.0), 10.0);
  std::printf(
      "virtual_wall.yaml 10 s: work on device %+.6f J, max |dF| %.3f N, max depth "
      "%.2f mm, mean x over the last 5 s %.3f mm (hand at 10 mm)\n",
      r.device_work, r.max_df, 1e3 * r.max_penetration, 1e3 * r.mean_late);
  EXPECT_LE(r.device_work, 0.0);
  // the rate limit allows 20000 N/s * 1 ms; the controller's damping (<= 20 N s/m * |v|) is
  // outside the limit and may change by twice its bound between ticks
  EXPECT_LE(r.max_df, 20.0 + 2.0 * 20.0 * r.max_speed);
  // the hand presses 5..15 mm behind the surface at 300 N/m (3 N on average at the surface);
  // the coupling (2 kN/m) in series with the wall (20 kN/m), 1.8 kN/m, holds the device at
  // about 3 / (1818 + 300) = 1.4 mm on average, not at the hand's 10 mm
  EXPECT_GT(r.mean_late, 0.0);
  EXPECT_LT(r.mean_late, 0.003);
}

// ---- model-file errors ---------------------------------------------------------------------

std::string error_of(const std::string& text) {
  return testing::model_file_error(text);
}

TEST(HapticModelFile, BadSafetyAndWallKeysNameFileLineAndKey) {
  const std::string base = "bodies:\n  - {name: b, mass: 1, inertia: 0.1}\nforces:\n";
  struct Case {
    std::string tail;
    std::string where;
    std::string key;
    std::string why;
  };
  const Case cases[] = {
      {"  - {name: c, type: coupling, body: b, stiffness: 1, safety: {max_force: -1}}\n",
       "rig.yaml:4:", "forces[0].safety.max_force", ">= 0"},
      {"  - {name: c, type: coupling, body: b, stiffness: 1, safety: {passivity: true}}\n",
       "rig.yaml:4:", "forces[0].safety.passivity", "max_damping > 0"},
      {"  - {name: c, type: coupling, body: b, stiffness: 1, safety: {gain: 2}}\n",
       "rig.yaml:4:", "forces[0].safety.gain", "unknown key"},
      {"  - {name: w, type: wall, body: b, normal: [0, 0], stiffness: 1}\n",
       "rig.yaml:4:", "forces[0].normal", "non-zero"},
      {"  - {name: w, type: wall, body: b, stiffness: 1}\n", "rig.yaml:4:", "forces[0].normal",
       "missing"},
      {"  - {name: w, type: wall, body: b, normal: [1, 0], stiffness: -5}\n",
       "rig.yaml:4:", "forces[0].stiffness", ">= 0"},
      {"  - {name: w, type: wall, body: ground, normal: [1, 0], stiffness: 5}\n",
       "rig.yaml:4:", "forces[0].body", "ground"},
      {"  - {name: w, type: wall, body: b, normal: [1, 0], stiffness: 5}\noutputs:\n  channels:\n"
       "    - {name: h, kind: haptic_force, element: w}\n",
       "rig.yaml:7:", "outputs.channels[0].element", "not a coupling force element"},
  };
  for (const Case& c : cases) {
    const std::string message = error_of(base + c.tail);
    EXPECT_EQ(message.rfind(c.where, 0), 0u) << message;
    EXPECT_NE(message.find("key '" + c.key + "'"), std::string::npos) << message;
    EXPECT_NE(message.find(c.why), std::string::npos) << message;
  }
}

TEST(HapticModelFile, SafetyKeysAreReadAndOutputsAnnounced) {
  const ModelFile f = load_model_file(std::string(RTMB_SOURCE_DIR) + "/configs/virtual_wall.yaml");
  const ForceSafetyConfig& s = f.bodies->forces[0].safety;
  EXPECT_EQ(s.max_force, 15.0);
  EXPECT_EQ(s.max_rate, 20000.0);
  EXPECT_EQ(s.engage_force, 1.0);
  EXPECT_EQ(s.engage_ramp_s, 0.05);
  EXPECT_TRUE(s.passivity);
  EXPECT_EQ(s.max_damping, 20.0);
  EXPECT_EQ(f.bodies->forces[1].type, PlanarForceType::kWall);
  const auto ch = output_channels(f.outputs);
  std::vector<std::string> names;
  for (const auto& c : ch) names.push_back(c.first);
  const std::vector<std::string> expected = {"proxy.x",
                                             "proxy.y",
                                             "device.fx",
                                             "device.fy",
                                             "device.flags",
                                             "device.energy",
                                             "device.damping",
                                             "linearization.w_xx",
                                             "linearization.w_xy",
                                             "linearization.w_yy",
                                             "linearization.stiffness",
                                             "linearization.damping",
                                             "energy"};
  EXPECT_EQ(names, expected);
}

}  // namespace
}  // namespace rtmb
