// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Beam bodies inside a PlanarMultibody (engine/multibody/planar_beam_body.cpp): Chin's deformable
// slider-crank (§3.12, Table 5.1) built from a rigid crank, a beam rod and a slider. Its
// constraint derivatives G, d(G v)/dq and L against finite differences of its own g, d(M a)/dq
// against differences of M(q) a; the sparse values of M and G against the dense matrices; and,
// with a massless slider, the trajectory of
// the hand-written DeformableSliderCrank (engine/mechanisms/deformable_slider_crank.cpp, its own
// test checks it against finite differences and energy conservation): the same physics in other
// coordinates, so the rod's (R, theta, q_f) and the crank angle must agree step by step.
#include "engine/multibody/planar_beam_body.hpp"

#include <gtest/gtest.h>

#include <Eigen/LU>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "engine/mechanisms/deformable_slider_crank.hpp"
#include "rtmb/model.hpp"
#include "rtmb/models/planar_multibody.hpp"
#include "rtmb/state.hpp"
#include "rtmb/step.hpp"
#include "tests/engine/multibody/multibody_test_support.hpp"
#include "tests/support/sparse_models.hpp"

namespace rtmb {
namespace {

// Bodies 0 crank (frame at the pivot O), 1 rod (a beam, frame at A = its end on the crank),
// 2 slider; Table 5.1's values (detail::DeformableSliderCrankSpec's defaults), phi = theta = 0.
PlanarModelSpec slider_crank(const detail::DeformableSliderCrankSpec& d,
                             double slider_mass,
                             PlanarBeamSupport support = PlanarBeamSupport::kSimplySupported) {
  const double r = d.crank;
  const double l = d.rod_length;
  PlanarModelSpec s;
  PlanarBodySpec crank;
  crank.name = "crank";
  crank.mass = 1.0;  // its centre stays at the pivot: the mass only loads the pin
  crank.inertia = d.crank_inertia;
  crank.velocity = {0.0, 0.0, d.crank_speed};
  PlanarBodySpec rod;
  rod.name = "rod";
  rod.kind = PlanarBodyKind::kBeam;
  rod.beam.length = l;
  rod.beam.youngs_modulus = d.youngs_modulus;
  rod.beam.density = d.density;
  rod.beam.area = std::numbers::pi * d.rod_diameter * d.rod_diameter / 4.0;
  rod.beam.second_moment = std::numbers::pi * std::pow(d.rod_diameter, 4) / 64.0;
  rod.beam.elements = d.elements;
  rod.beam.support = support;
  rod.pose = {r, 0.0, 0.0};
  // A' = r phi' (0, 1); the slider end B keeps y = 0: R2' + l theta' = 0
  rod.velocity = {0.0, r * d.crank_speed, -r * d.crank_speed / l};
  PlanarBodySpec slider;
  slider.name = "slider";
  slider.mass = slider_mass;
  slider.inertia = slider_mass;
  slider.pose = {r + l, 0.0, 0.0};
  s.bodies = {crank, rod, slider};
  const auto joint = [&s](PlanarJointType type, int i, int j, Eigen::Vector2d pi,
                          Eigen::Vector2d pj) {
    PlanarJointSpec jt;
    jt.name = "j" + std::to_string(s.joints.size());
    jt.type = type;
    jt.body_i = i;
    jt.body_j = j;
    jt.point_i = pi;
    jt.point_j = pj;
    s.joints.push_back(jt);
  };
  joint(PlanarJointType::kRevolute, kGround, 0, {0.0, 0.0}, {0.0, 0.0});   // O
  joint(PlanarJointType::kRevolute, 0, 1, {r, 0.0}, {0.0, 0.0});           // A
  joint(PlanarJointType::kRevolute, 1, 2, {l, 0.0}, {0.0, 0.0});           // B
  joint(PlanarJointType::kPrismatic, kGround, 2, {0.0, 0.0}, {0.0, 0.0});  // the slider's line
  PlanarForceSpec g;
  g.name = "gravity";
  g.type = PlanarForceType::kGravity;
  g.vector = {0.0, -d.gravity};
  s.forces = {g};
  return s;
}

TEST(PlanarBeamBody, HasTheBeamsCoordinatesAfterItsFrame) {
  const PlanarMultibody sys(slider_crank({}, 1e-3));
  // crank 3, rod 3 + 3 per element (Chin's 6 elastic coordinates for two elements), slider 3
  EXPECT_EQ(sys.n_q(), 3 + 9 + 3);
  EXPECT_EQ(sys.coordinate_offset(1), 3);
  EXPECT_EQ(sys.coordinate_count(1), 9);
  EXPECT_EQ(sys.coordinate_offset(2), 12);
}

// Chin's rod (two simply supported elements) and a three-element clamped one
std::vector<std::unique_ptr<PlanarMultibody>> both_rods() {
  detail::DeformableSliderCrankSpec three;
  three.elements = 3;
  std::vector<std::unique_ptr<PlanarMultibody>> out;
  out.push_back(std::make_unique<PlanarMultibody>(slider_crank({}, 1e-3)));
  out.push_back(
      std::make_unique<PlanarMultibody>(slider_crank(three, 1e-3, PlanarBeamSupport::kClamped)));
  return out;
}

TEST(PlanarBeamBody, ConstraintDerivativesMatchFiniteDifferences) {
  unsigned seed = 3u;
  for (const auto& sys : both_rods()) {
    multibody_test::check_constraint_derivatives(*sys, seed, 0.6);
    seed += 5u;
  }
}

TEST(PlanarBeamBody, InertiaJacobianMatchesFiniteDifferences) {
  // the implicit methods' d(M a)/dq: the beam's block, zero for the rigid bodies
  unsigned seed = 9u;
  for (const auto& sys : both_rods()) multibody_test::check_inertia_jacobian(*sys, seed++, 0.6);
}

TEST(PlanarBeamBody, MassMatrixIsTheBeamsBlock) {
  const detail::DeformableSliderCrankSpec d;
  const PlanarMultibody sys(slider_crank(d, 1e-3));
  const detail::DeformableSliderCrank reference(d);
  const multibody_test::Sample s = multibody_test::random_state(sys.n_q(), 5u, 0.6);
  Mat M(sys.n_v(), sys.n_v());
  sys.mass(0.0, s.q, M);
  Mat Mr(10, 10);
  Vec qr = Vec::Zero(10);
  qr.head(9) = s.q.segment(3, 9);
  reference.mass(0.0, qr, Mr);
  EXPECT_EQ((M.block(3, 3, 9, 9) - Mr.topLeftCorner(9, 9)).cwiseAbs().maxCoeff(), 0.0);
  EXPECT_EQ(M(2, 2), d.crank_inertia);
  EXPECT_EQ(M.block(3, 0, 9, 3).cwiseAbs().maxCoeff(), 0.0);  // no coupling between bodies
}

TEST(PlanarBeamBody, SparseValuesEqualTheDenseMatrices) {
  for (const PlanarBeamSupport support :
       {PlanarBeamSupport::kSimplySupported, PlanarBeamSupport::kClamped}) {
    const PlanarMultibody sys(slider_crank({}, 1e-3, support));
    SparsePattern mp;
    SparsePattern gp;
    ASSERT_TRUE(sys.sparse_structure(mp, gp));
    std::vector<double> mv(static_cast<std::size_t>(mp.nonzeros()));
    std::vector<double> gv(static_cast<std::size_t>(gp.nonzeros()));
    for (const unsigned seed : {1u, 2u}) {
      const multibody_test::Sample s = multibody_test::random_state(sys.n_q(), seed, 0.6);
      Mat M(sys.n_v(), sys.n_v());
      Mat G(sys.n_lambda(), sys.n_v());
      sys.mass(0.0, s.q, M);
      sys.jacobian(0.0, s.q, G);
      sys.mass_values(0.0, s.q, mv);
      sys.jacobian_values(0.0, s.q, gv);
      EXPECT_EQ((testing::dense_from_csc(gp, gv, false) - G).cwiseAbs().maxCoeff(), 0.0);
      // M's theta-f column is summed in another order than the dense block's product
      EXPECT_LE((testing::dense_from_csc(mp, mv, true) - M).cwiseAbs().maxCoeff(),
                1e-15 * M.cwiseAbs().maxCoeff());
      // the fused evaluations write the same G and the same rows of L and g
      Vec L(sys.n_lambda());
      Vec g(sys.n_lambda());
      Vec Lf(sys.n_lambda());
      Vec gf(sys.n_lambda());
      std::vector<double> gv2(gv.size());
      sys.curvature(0.0, s.q, s.v, L);
      sys.constraints(0.0, s.q, g);
      sys.jacobian_values_and_curvature(0.0, s.q, s.v, gv2, Lf);
      EXPECT_EQ(gv2, gv);
      EXPECT_EQ(Lf, L);
      sys.jacobian_values_and_constraints(0.0, s.q, gv2, gf);
      EXPECT_EQ(gv2, gv);
      EXPECT_EQ(gf, g);
    }
  }
}

// f(q, 0) against -dV/dq, V = energy(q, 0) by central differences (Q_v vanishes at v = 0);
// returns f
Vec forces_at_rest_are_minus_the_potentials_gradient(const PlanarMultibody& sys, const Vec& q0) {
  const Vec zero = Vec::Zero(sys.n_v());
  Vec f(sys.n_v());
  sys.forces(0.0, q0, zero, {}, f);
  const Vec expected = -multibody_test::central_gradient(
      [&](const Vec& q) { return sys.energy(0.0, q, zero, {}); }, q0, 1e-6);
  EXPECT_LE((f - expected).cwiseAbs().maxCoeff(), 1e-6 * expected.cwiseAbs().maxCoeff());
  return f;
}

TEST(PlanarBeamBody, EnergyIsTheBeamsAndGravityDrivesItsForces) {
  // the generalized forces are minus the gradient of the potential at v = 0 (Q_v vanishes):
  // gravity on the rod and its elastic force -K_ff q_f, by central differences of energy()
  const PlanarMultibody sys(slider_crank({}, 1e-3));
  (void)forces_at_rest_are_minus_the_potentials_gradient(
      sys, multibody_test::random_state(sys.n_q(), 11u, 0.3).q);
}

TEST(PlanarBeamBody, ReproducesTheHandWrittenDeformableSliderCrank) {
  // undriven (no torque: PlanarMultibody has no time-dependent torque), a massless slider as in
  // Chin's model; RK4 at a step well below the rod's first bending period (~1.5 ms) with PStab
  detail::DeformableSliderCrankSpec d;
  d.driven = false;
  d.crank_speed = 120.0;
  Settings settings;
  settings.method = Method::kRk4;
  settings.stabilizer = StabilizerKind::kPStab;
  settings.dt = 2e-6;
  const Model built_in(std::make_shared<detail::DeformableSliderCrank>(d), settings);
  const Model bodies(std::make_shared<PlanarMultibody>(slider_crank(d, 0.0)), settings);
  Workspace wa(built_in);
  Workspace wb(bodies);
  State a = initial_state(built_in);
  State b = initial_state(bodies);
  ASSERT_EQ(b.q.segment(3, 9), a.q.head(9));
  ASSERT_EQ(b.v.segment(3, 9), a.v.head(9));
  double worst_rigid = 0.0;
  double worst_elastic = 0.0;
  double largest_elastic = 0.0;
  for (int i = 0; i < 2500; ++i) {  // 5 ms: three periods of the first bending mode
    ASSERT_TRUE(step(built_in, a, wa).ok());
    ASSERT_TRUE(step(bodies, b, wb).ok());
    worst_rigid = std::max({worst_rigid, (b.q.segment(3, 3) - a.q.head(3)).cwiseAbs().maxCoeff(),
                            std::abs(b.q(2) - a.q(9))});
    worst_elastic =
        std::max(worst_elastic, (b.q.segment(6, 6) - a.q.segment(3, 6)).cwiseAbs().maxCoeff());
    largest_elastic = std::max(largest_elastic, a.q.segment(3, 6).cwiseAbs().maxCoeff());
  }
  std::printf("[beam body] 5 ms: |d(R, theta, phi)| %.2e, |d q_f| %.2e of %.2e\n", worst_rigid,
              worst_elastic, largest_elastic);
  EXPECT_GT(largest_elastic, 1e-4) << "the rod bends (in)";
  EXPECT_LE(worst_rigid, 1e-9);
  EXPECT_LE(worst_elastic, 1e-6 * largest_elastic);
}

// The rod of slider_crank() loaded at material points of its axis: a constant force at x = 4,
// a spring from the ground to x = 8, a coupling at x = 10 and a wall the rod's end x = 12 is
// pushed into (Chin's rod lies along x at q = 0; the wall's surface is at x = 17.5 facing -x).
// Damping 0 unless asked, so that every element is conservative.
PlanarModelSpec loaded_rod(double damping) {
  PlanarModelSpec s = slider_crank({}, 1e-3);  // forces[0]: gravity
  const auto element = [](PlanarForceType type, int body_i, Eigen::Vector2d point_i) {
    PlanarForceSpec f;
    f.type = type;
    f.body_i = body_i;
    f.point_i = point_i;
    return f;
  };
  PlanarForceSpec force = element(PlanarForceType::kForce, 1, {4.0, 0.0});  // forces[1]
  force.name = "force";
  force.vector = {30.0, -50.0};
  PlanarForceSpec spring = element(PlanarForceType::kSpringDamper, kGround, {10.0, 5.0});
  spring.name = "spring";  // forces[2]
  spring.body_j = 1;
  spring.point_j = {8.0, 0.0};
  spring.stiffness = 400.0;
  spring.rest = 2.0;
  spring.damping = damping;
  PlanarForceSpec coupling = element(PlanarForceType::kCoupling, 1, {10.0, 0.0});
  coupling.name = "coupling";  // forces[3]
  coupling.stiffness = 900.0;
  coupling.damping = damping;
  coupling.vector = {15.0, 1.0};  // its target
  PlanarForceSpec wall = element(PlanarForceType::kWall, 1, {12.0, 0.0});
  wall.name = "wall";  // forces[4]
  wall.point_j = {17.5, 0.0};
  wall.vector = {-1.0, 0.0};
  wall.stiffness = 5000.0;
  wall.damping = damping;
  s.forces.insert(s.forces.end(), {force, spring, coupling, wall});
  return s;
}

TEST(PlanarBeamBody, PointForcesOnTheBeamAreMinusTheirPotentialsGradient) {
  // at v = 0 every element is conservative: f = -dV/dq by central differences of energy(),
  // which evaluates V at the deformed material points (point_position); the forces enter by
  // J^T F (FloatingFrameBeam::add_point_force), so this checks J^T against the points
  const PlanarMultibody sys(loaded_rod(0.0));
  const PlanarMultibody bare(slider_crank({}, 1e-3));
  multibody_test::Sample s = multibody_test::random_state(sys.n_q(), 17u, 0.3);
  s.q.segment(3, 3) << 6.0, 0.2, 0.1;  // the rod near its place, its end inside the wall
  const Vec zero = Vec::Zero(sys.n_v());
  const Vec f = forces_at_rest_are_minus_the_potentials_gradient(sys, s.q);
  // the elements load the rod's elastic coordinates (the comparison is not of the bare rod's)
  Vec f_bare(sys.n_v());
  bare.forces(0.0, s.q, zero, {}, f_bare);
  EXPECT_GT((f - f_bare).segment(6, 6).cwiseAbs().maxCoeff(), 1.0);
  EXPECT_GT(sys.wall_force(4, s.q, zero).norm(), 0.0);  // the wall is in contact
}

TEST(PlanarBeamBody, PointDampingOnTheBeamOpposesTheMaterialPointsVelocity) {
  // the damping parts: -c e e.p' of the spring and -c p' of the coupling and the wall, each at
  // its material point, do negative work v.f_damping = -c |...|^2 <= 0 at every state
  const PlanarMultibody damped(loaded_rod(7.0));
  const PlanarMultibody undamped(loaded_rod(0.0));
  for (unsigned seed = 1; seed <= 5; ++seed) {
    multibody_test::Sample s = multibody_test::random_state(damped.n_q(), seed, 0.3);
    s.q.segment(3, 3) << 6.0, 0.2, 0.1;
    Vec fd(damped.n_v());
    Vec fu(damped.n_v());
    damped.forces(0.0, s.q, s.v, {}, fd);
    undamped.forces(0.0, s.q, s.v, {}, fu);
    const Vec damping = fd - fu;
    // the coupling's part alone is -c J^T p': its power is -c |p'|^2 at x = 10
    const Eigen::Vector2d pv = damped.point_velocity(s.q, s.v, 1, {10.0, 0.0});
    EXPECT_LT(s.v.dot(damping), -7.0 * pv.squaredNorm() * (1.0 - 1e-9)) << seed;
  }
}

// ---- fixed joints on a beam ----------------------------------------------------------------

// A steel-like rod of 1.3 m (EI = 5250 N m^2) as body `beam`, its frame at the origin along x.
PlanarBodySpec steel_rod(PlanarBeamSupport support, int elements) {
  PlanarBodySpec rod;
  rod.name = "beam";
  rod.kind = PlanarBodyKind::kBeam;
  rod.beam = {1.3, 2.1e11, 7800.0, 3.0e-4, 2.5e-8, elements, support};
  return rod;
}

PlanarJointSpec weld(
    int body_i, int body_j, Eigen::Vector2d point_i, Eigen::Vector2d point_j, double angle) {
  PlanarJointSpec jt;
  jt.name = "weld" + std::to_string(body_i) + std::to_string(body_j);
  jt.type = PlanarJointType::kFixed;
  jt.body_i = body_i;
  jt.body_j = body_j;
  jt.point_i = point_i;
  jt.point_j = point_j;
  jt.angle = angle;
  return jt;
}

// A flexible link: a hub (pinned to the ground) with the beam welded to it at x = 0, and a tip
// body welded to the beam inside its last element (x = 0.9 of 1.3, not a node), both at angles:
// the welds' rows reach the beam's slope coefficients there.
PlanarModelSpec flexible_link(PlanarBeamSupport support) {
  PlanarModelSpec s;
  PlanarBodySpec hub;
  hub.name = "hub";
  hub.mass = 2.0;
  hub.inertia = 0.05;
  PlanarBodySpec tip;
  tip.name = "tip";
  tip.mass = 0.5;
  tip.inertia = 0.01;
  tip.pose = {0.9, 0.0, 0.0};
  s.bodies = {hub, steel_rod(support, 3), tip};
  PlanarJointSpec pin;
  pin.name = "pin";
  pin.body_i = kGround;
  pin.body_j = 0;
  s.joints = {pin, weld(0, 1, {0.1, 0.0}, {0.0, 0.0}, 0.2),
              weld(1, 2, {0.9, 0.0}, {0.0, 0.0}, -0.1)};
  return s;
}

TEST(PlanarBeamBodyFixedJoint, ConstraintDerivativesMatchFiniteDifferences) {
  unsigned seed = 21u;
  for (const PlanarBeamSupport support :
       {PlanarBeamSupport::kSimplySupported, PlanarBeamSupport::kClamped}) {
    const PlanarMultibody sys(flexible_link(support));
    EXPECT_EQ(sys.n_lambda(), 2 + 3 + 3);
    multibody_test::check_constraint_derivatives(sys, seed, 0.6);
    seed += 4u;
    // the sparse path's values are the dense G's
    SparsePattern mp;
    SparsePattern gp;
    ASSERT_TRUE(sys.sparse_structure(mp, gp));
    std::vector<double> gv(static_cast<std::size_t>(gp.nonzeros()));
    const multibody_test::Sample st = multibody_test::random_state(sys.n_q(), seed, 0.6);
    Mat G(sys.n_lambda(), sys.n_v());
    sys.jacobian(0.0, st.q, G);
    sys.jacobian_values(0.0, st.q, gv);
    EXPECT_EQ((testing::dense_from_csc(gp, gv, false) - G).cwiseAbs().maxCoeff(), 0.0);
  }
}

// The static equilibrium f(q, 0) = G^T lambda, g(q) = 0 by Newton's method on a Jacobian of
// central differences (independent of the model's G)
Vec static_equilibrium(const PlanarMultibody& sys, Vec q) {
  const int n = sys.n_q();
  const int m = sys.n_lambda();
  const auto residual = [&](const Vec& x) {
    const Vec qx = x.head(n);
    Vec f(n);
    sys.forces(0.0, qx, Vec::Zero(n), {}, f);
    Mat G(m, n);
    sys.jacobian(0.0, qx, G);
    Vec r(n + m);
    r.head(n) = f - G.transpose() * x.tail(m);
    Vec g(m);
    sys.constraints(0.0, qx, g);
    r.tail(m) = g;
    return r;
  };
  Vec x = Vec::Zero(n + m);
  x.head(n) = q;
  for (int it = 0; it < 20; ++it) {
    const Vec r = residual(x);
    const Mat J = multibody_test::fd_jacobian(residual, x, 1e-9);
    const Vec dx = J.fullPivLu().solve(-r);
    x += dx;
    if (dx.head(n).cwiseAbs().maxCoeff() < 1e-14) break;
  }
  return x.head(n);
}

// A cantilever made by a weld: the beam's end x = 0 fixed to the ground (position and the
// cross-section's angle theta + w'(0)), a 1 N load down at the free end x = L. Euler-Bernoulli:
// tip deflection P L^3 / (3 EI), end slope P L^2 / (2 EI); Hermite elements are exact at the
// nodes for an end load. With the simply supported frame (w(0) = w(L) = 0) the weld holds the
// frame at -w'(0): only the slope term of the angle row makes it a cantilever.
TEST(PlanarBeamBodyFixedJoint, AWeldedEndMakesACantileverOfEulerBernoulli) {
  for (const PlanarBeamSupport support :
       {PlanarBeamSupport::kSimplySupported, PlanarBeamSupport::kClamped}) {
    PlanarModelSpec s;
    s.bodies = {steel_rod(support, 4)};
    s.joints = {weld(kGround, 0, {0.0, 0.0}, {0.0, 0.0}, 0.0)};
    PlanarForceSpec load;
    load.name = "load";
    load.type = PlanarForceType::kForce;
    load.body_i = 0;
    load.point_i = {1.3, 0.0};
    load.vector = {0.0, -1.0};
    s.forces = {load};
    const PlanarMultibody sys(s);
    const Vec q = static_equilibrium(sys, Vec::Zero(sys.n_q()));
    const double ei = 2.1e11 * 2.5e-8;
    const double l = 1.3;
    const Eigen::Vector2d tip = sys.point_position(q, 0, {l, 0.0});
    const double h = 1e-7;
    const Eigen::Vector2d before = sys.point_position(q, 0, {l - h, 0.0});
    const double end_slope = (tip.y() - before.y()) / (tip.x() - before.x());
    std::printf("weld cantilever (%s): tip %.10e m (closed form %.10e), end slope %.8e\n",
                support == PlanarBeamSupport::kClamped ? "clamped" : "simply supported", tip.y(),
                -l * l * l / (3.0 * ei), end_slope);
    EXPECT_NEAR(tip.y(), -l * l * l / (3.0 * ei), 1e-6 * l * l * l / (3.0 * ei));
    EXPECT_NEAR(end_slope, -l * l / (2.0 * ei), 1e-4 * l * l / (2.0 * ei));  // one-sided difference
    EXPECT_NEAR(sys.point_position(q, 0, {0.0, 0.0}).norm(), 0.0, 1e-15);    // the weld holds
  }
}

TEST(PlanarBeamBody, RejectsWhatABeamCannotCarry) {
  const auto fails = [](const PlanarModelSpec& s) {
    EXPECT_THROW(PlanarMultibody{s}, std::invalid_argument);
  };
  PlanarModelSpec s = slider_crank({}, 1e-3);
  s.joints[2].point_i = {6.0, 0.1};  // off the axis
  fails(s);
  s = slider_crank({}, 1e-3);
  s.joints[2].point_i = {13.0, 0.0};  // past the end
  fails(s);
  s = slider_crank({}, 1e-3);
  s.joints[1].type = PlanarJointType::kPrismatic;
  fails(s);
  s = slider_crank({}, 1e-3);
  s.bodies[1].mass = 1.0;
  fails(s);
  s = slider_crank({}, 1e-3);
  s.bodies[1].beam.elements = 0;
  fails(s);
  s = slider_crank({}, 1e-3);
  PlanarForceSpec f;
  f.type = PlanarForceType::kTorque;
  f.body_i = 1;
  f.torque = 1.0;
  s.forces.push_back(f);
  fails(s);
  s = loaded_rod(0.0);
  s.forces.back().point_i = {12.0, 0.5};  // the wall's point off the axis
  fails(s);
  s = loaded_rod(0.0);
  s.forces[2].point_j = {12.5, 0.0};  // the spring's beam end past the beam's end
  fails(s);
  EXPECT_NO_THROW(PlanarMultibody{loaded_rod(1.0)});
}

}  // namespace
}  // namespace rtmb
