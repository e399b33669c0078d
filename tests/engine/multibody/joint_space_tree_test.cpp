// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// JointSpaceTree (engine/multibody/joint_space_tree.cpp) on a branched spatial tree with every
// joint type (revolute, prismatic, fixed; unnormalized axes, rotated joint frames, off-centre
// inertias). The two recursions are checked against each other and against Lagrange's equations
// by finite differences:
//   - M e_k is inverse dynamics at q' = 0, q'' = e_k minus the gravity term (RBDA eq. 6.1 with
//     C = 0): CRBA against RNEA;
//   - T(q, v) = v^T M v / 2 (RBDA eq. 2.67 summed over links against the composite inertias);
//   - the bias b = C(q, v) v + g(q) of RNEA equals Lagrange's (dM/dt) v - dT/dq + dV/dq, with
//     dM/dt, dT/dq and dV/dq by central differences of mass() and energy();
//   - energy is conserved by RK4 at a small step without dampers, and the dampers' dissipation
//     equals the integral of D v.v (work-energy balance).
// A second tree with a floating base (Euler parameters, normalization row) and a planar joint is
// checked the same way, off the unit sphere and with e.e' != 0 (where the factor 1/(e.e) and
// c_J matter): its motion subspaces against central differences of point positions, CRBA against
// RNEA on the directions the normalization row allows, and RNEA's bias against Lagrange's
// equations with the momentum dT/dv and dT/dq by central differences of energy().

#include "rtmb/models/joint_space_tree.hpp"

#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

#include "rtmb/model.hpp"
#include "rtmb/step.hpp"
#include "tests/support/tilted_inertia.hpp"

namespace rtmb {
namespace {

using testing::tilted_inertia;

// l0 on the world by a revolute joint, l1 prismatic on l0, l2 revolute on l1, l3 welded to l0
// (fixed), l4 revolute on l3: a tree with a branch and a fixed joint inside it.
JointSpaceSpec branched_tree(double damping = 0.0) {
  JointSpaceSpec s;
  s.name = "branched";
  const double masses[] = {2.0, 1.5, 1.0, 0.5, 0.8};
  for (int l = 0; l < 5; ++l) {
    TreeLinkSpec link;
    link.name = "l" + std::to_string(l);
    link.mass = masses[l];
    link.com = {0.05 * l, -0.1, 0.2 - 0.03 * l};
    link.inertia = tilted_inertia(0.02 + 0.01 * l, 0.03, 0.015 + 0.005 * l, 0.3 * l);
    s.links.push_back(link);
  }
  auto joint = [&](const char* name, TreeJointType type, int parent, int child) {
    TreeJointSpec j;
    j.name = name;
    j.type = type;
    j.parent = parent;
    j.child = child;
    j.damping = type == TreeJointType::kFixed ? 0.0 : damping;
    s.joints.push_back(j);
    return &s.joints.back();
  };
  TreeJointSpec* j = joint("j0", TreeJointType::kRevolute, -1, 0);
  j->origin_xyz = {0.1, 0.2, 0.3};
  j->origin_rotation = Eigen::AngleAxisd(0.4, Eigen::Vector3d::UnitX()).toRotationMatrix();
  j->initial_position = 0.3;
  j = joint("j1", TreeJointType::kPrismatic, 0, 1);
  j->origin_xyz = {0.0, 0.0, 0.4};
  j->axis = {1.0, 0.5, 0.0};
  j->initial_position = 0.1;
  j->initial_velocity = 0.5;
  j = joint("j2", TreeJointType::kRevolute, 1, 2);
  j->origin_xyz = {0.3, 0.0, 0.0};
  j->origin_rotation = Eigen::AngleAxisd(-0.7, Eigen::Vector3d::UnitZ()).toRotationMatrix();
  j->axis = {0.0, 2.0, 0.0};
  j->initial_position = -0.8;
  j->initial_velocity = 1.0;
  j = joint("j3", TreeJointType::kFixed, 0, 3);
  j->origin_xyz = {-0.2, 0.1, 0.1};
  j->origin_rotation = Eigen::AngleAxisd(1.1, Eigen::Vector3d::UnitY()).toRotationMatrix();
  j = joint("j4", TreeJointType::kRevolute, 3, 4);
  j->origin_xyz = {0.0, -0.25, 0.0};
  j->axis = {1.0, 1.0, 1.0};
  j->initial_position = 0.6;
  j->initial_velocity = -2.0;
  return s;
}

Vec tree_test_q() {
  return (Vec(4) << 0.7, -0.2, 1.3, -0.4).finished();
}
Vec tree_test_v() {
  return (Vec(4) << 1.1, 0.6, -2.0, 0.9).finished();
}

TEST(JointSpaceTree, CountsOneCoordinatePerMovingJoint) {
  const JointSpaceTree tree(branched_tree());
  EXPECT_EQ(tree.n_q(), 4);
  EXPECT_EQ(tree.n_v(), 4);
  EXPECT_EQ(tree.n_lambda(), 0);
  EXPECT_EQ(tree.coordinate(2), 2);
  EXPECT_EQ(tree.coordinate(3), -1);
  EXPECT_EQ(tree.coordinate(4), 3);
  State s;
  tree.initial_state(s);
  EXPECT_DOUBLE_EQ(s.q(3), 0.6);
  EXPECT_DOUBLE_EQ(s.v(1), 0.5);
}

TEST(JointSpaceTree, MassMatrixColumnsAreInverseDynamicsOfUnitAccelerations) {
  const JointSpaceTree tree(branched_tree());
  const Vec q = tree_test_q();
  Mat m(4, 4);
  tree.mass(0.0, q, m);
  const Vec zero = Vec::Zero(4);
  Vec gravity(4);
  tree.inverse_dynamics(q, zero, zero, gravity);
  for (int k = 0; k < 4; ++k) {
    Vec tau(4);
    tree.inverse_dynamics(q, zero, Vec::Unit(4, k), tau);
    EXPECT_LE((tau - gravity - m.col(k)).cwiseAbs().maxCoeff(), 1e-13 * m.cwiseAbs().maxCoeff())
        << "column " << k;
  }
  EXPECT_LE((m - m.transpose()).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_GT(Eigen::SelfAdjointEigenSolver<Mat>(m).eigenvalues().minCoeff(), 0.0);
}

TEST(JointSpaceTree, KineticEnergyIsHalfVMV) {
  const JointSpaceTree tree(branched_tree());
  const Vec q = tree_test_q();
  const Vec v = tree_test_v();
  Mat m(4, 4);
  tree.mass(0.0, q, m);
  const double kinetic = tree.energy(0.0, q, v, {}) - tree.energy(0.0, q, Vec::Zero(4), {});
  EXPECT_NEAR(kinetic, 0.5 * v.dot(m * v), 1e-13 * kinetic);
}

// Lagrange: d/dt (M v) - dT/dq + dV/dq = tau, so with v' = 0 the bias is
//   b = (sum_k dM/dq_k v_k) v - dT/dq + dV/dq.
TEST(JointSpaceTree, BiasForcesSatisfyLagrangesEquations) {
  const JointSpaceTree tree(branched_tree());
  const Vec q = tree_test_q();
  const Vec v = tree_test_v();
  const Vec zero = Vec::Zero(4);
  constexpr double h = 1e-6;
  Vec lagrange = Vec::Zero(4);
  Mat mp(4, 4);
  Mat mm(4, 4);
  for (int k = 0; k < 4; ++k) {
    const Vec e = h * Vec::Unit(4, k);
    tree.mass(0.0, q + e, mp);
    tree.mass(0.0, q - e, mm);
    lagrange += (mp - mm) / (2.0 * h) * v * v(k);  // dM/dt v
    const double kinetic_p = tree.energy(0.0, q + e, v, {}) - tree.energy(0.0, q + e, zero, {});
    const double kinetic_m = tree.energy(0.0, q - e, v, {}) - tree.energy(0.0, q - e, zero, {});
    lagrange(k) -= (kinetic_p - kinetic_m) / (2.0 * h);
    lagrange(k) +=
        (tree.energy(0.0, q + e, zero, {}) - tree.energy(0.0, q - e, zero, {})) / (2.0 * h);
  }
  Vec bias(4);
  tree.inverse_dynamics(q, v, zero, bias);
  EXPECT_LE((bias - lagrange).cwiseAbs().maxCoeff(), 1e-7 * bias.cwiseAbs().maxCoeff())
      << "rnea " << bias.transpose() << "\nlagrange " << lagrange.transpose();
  // forces() is the negative bias minus the dampers
  const JointSpaceTree damped(branched_tree(0.25));
  Vec f(4);
  damped.forces(0.0, q, v, {}, f);
  EXPECT_LE((f + bias + 0.25 * v).cwiseAbs().maxCoeff(), 1e-13 * bias.cwiseAbs().maxCoeff());
}

State run(const JointSpaceSpec& spec, double dt, int steps, double* dissipated = nullptr) {
  Settings settings;
  settings.method = Method::kRk4;
  settings.stabilizer = StabilizerKind::kNone;
  settings.dt = dt;
  const Model model(std::make_shared<JointSpaceTree>(spec), settings);
  Workspace ws(model);
  State s = initial_state(model);
  Vec damping(4);
  for (int j = 0, k = 0; j < static_cast<int>(spec.joints.size()); ++j) {
    if (spec.joints[static_cast<std::size_t>(j)].type != TreeJointType::kFixed) {
      damping(k++) = spec.joints[static_cast<std::size_t>(j)].damping;
    }
  }
  double power_before = damping.dot(s.v.cwiseProduct(s.v));
  for (int i = 0; i < steps; ++i) {
    EXPECT_TRUE(step(model, s, ws).ok());
    const double power = damping.dot(s.v.cwiseProduct(s.v));
    if (dissipated != nullptr) *dissipated += 0.5 * dt * (power_before + power);  // trapezoid
    power_before = power;
  }
  return s;
}

TEST(JointSpaceTree, Rk4ConservesEnergyWithoutDampers) {
  const JointSpaceSpec spec = branched_tree();
  const JointSpaceTree tree(spec);
  State s0;
  tree.initial_state(s0);
  const State s = run(spec, 1e-3, 1000);
  const double e0 = tree.energy(0.0, s0.q, s0.v, {});
  const double e1 = tree.energy(0.0, s.q, s.v, {});
  EXPECT_LE(std::abs(e1 - e0), 1e-9 * std::abs(e0)) << e0 << " -> " << e1;
  EXPECT_GT((s.q - s0.q).cwiseAbs().maxCoeff(), 0.5);  // it moved
}

TEST(JointSpaceTree, DampersDissipateTheIntegralOfTheirPower) {
  const JointSpaceSpec spec = branched_tree(0.3);
  const JointSpaceTree tree(spec);
  State s0;
  tree.initial_state(s0);
  double dissipated = 0.0;
  const State s = run(spec, 1e-3, 1000, &dissipated);
  const double e0 = tree.energy(0.0, s0.q, s0.v, {});
  const double e1 = tree.energy(0.0, s.q, s.v, {});
  EXPECT_GT(dissipated, 0.1);
  // trapezoidal quadrature of the dissipation at dt = 1 ms: O(dt^2) relative
  EXPECT_NEAR(e0 - e1, dissipated, 1e-5 * dissipated);
}

TEST(JointSpaceTree, PrismaticJointTranslatesAlongItsUnitAxis) {
  const JointSpaceTree tree(branched_tree());
  Vec q = tree_test_q();
  Eigen::Matrix3d r0;
  Eigen::Vector3d p0;
  Eigen::Matrix3d r1;
  Eigen::Vector3d p1;
  tree.link_pose(q, 1, r0, p0);
  q(1) += 0.5;
  tree.link_pose(q, 1, r1, p1);
  Eigen::Matrix3d rl;
  Eigen::Vector3d pl;
  tree.link_pose(q, 0, rl, pl);
  EXPECT_LE((p1 - p0 - 0.5 * rl * Eigen::Vector3d(1.0, 0.5, 0.0).normalized()).norm(), 1e-15);
  EXPECT_LE((r1 - r0).norm(), 1e-15);
}

void expect_tree_refused(const JointSpaceSpec& spec, const std::string& needle) {
  try {
    const JointSpaceTree tree(spec);
    ADD_FAILURE() << "accepted; expected an error with '" << needle << "'";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

// b0 floating on the world (joint frame offset and turned), l1 revolute on b0, l2 planar on l1
// (unnormalized normal), l3 welded to l2, l4 prismatic on b0: 7 + 1 + 3 + 1 = 12 coordinates.
JointSpaceSpec floating_tree() {
  JointSpaceSpec s;
  s.name = "floating";
  const double masses[] = {3.0, 1.2, 0.9, 0.4, 0.6};
  for (int l = 0; l < 5; ++l) {
    TreeLinkSpec link;
    link.name = "b" + std::to_string(l);
    link.mass = masses[l];
    link.com = {0.04 * l - 0.05, 0.1, -0.07 * l};
    link.inertia = tilted_inertia(0.03 + 0.01 * l, 0.02, 0.025 + 0.004 * l, 0.5 * l + 0.2);
    s.links.push_back(link);
  }
  auto joint = [&](const char* name, TreeJointType type, int parent, int child) {
    TreeJointSpec j;
    j.name = name;
    j.type = type;
    j.parent = parent;
    j.child = child;
    s.joints.push_back(j);
    return &s.joints.back();
  };
  TreeJointSpec* j = joint("free", TreeJointType::kFloating, -1, 0);
  j->origin_xyz = {0.1, -0.2, 0.3};
  j->origin_rotation =
      Eigen::AngleAxisd(0.6, Eigen::Vector3d(1.0, -1.0, 2.0).normalized()).toRotationMatrix();
  j = joint("hinge", TreeJointType::kRevolute, 0, 1);
  j->origin_xyz = {0.3, 0.0, 0.05};
  j->axis = {1.0, 1.0, 0.0};
  j = joint("slide_plane", TreeJointType::kPlanar, 1, 2);
  j->origin_xyz = {0.0, 0.2, 0.1};
  j->origin_rotation = Eigen::AngleAxisd(-0.4, Eigen::Vector3d::UnitY()).toRotationMatrix();
  j->axis = {0.0, 1.0, 1.0};
  j = joint("weld", TreeJointType::kFixed, 2, 3);
  j->origin_xyz = {0.1, 0.1, -0.1};
  j = joint("piston", TreeJointType::kPrismatic, 0, 4);
  j->origin_xyz = {-0.2, 0.0, 0.0};
  j->axis = {0.0, 0.0, 1.0};
  return s;
}

// off the unit sphere (|e|^2 = 1.4025) and with e.e' != 0
Vec floating_q() {
  return (Vec(12) << 0.2, -0.1, 0.4, 1.1, 0.3, -0.2, 0.25, 0.7, 0.1, -0.3, 1.2, 0.15).finished();
}
Vec floating_v() {
  return (Vec(12) << 0.5, -0.8, 0.3, 0.4, -0.6, 0.9, 0.2, -1.3, 0.7, 0.4, -1.1, 0.6).finished();
}

TEST(JointSpaceTree, FloatingAndPlanarJointsCountTheirCoordinatesAndANormalizationRow) {
  const JointSpaceTree tree(floating_tree());
  EXPECT_EQ(tree.n_q(), 12);
  EXPECT_EQ(tree.n_v(), 12);
  EXPECT_EQ(tree.n_lambda(), 1);
  EXPECT_EQ(tree.coordinate(1), 7);
  EXPECT_EQ(tree.coordinate(2), 8);
  EXPECT_EQ(tree.coordinate(4), 11);
  State s;
  tree.initial_state(s);
  EXPECT_EQ(s.q, Vec::Unit(12, 3));  // at the joint frames, e = (1, 0, 0, 0)
  Vec g(1);
  tree.constraints(0.0, floating_q(), g);
  EXPECT_DOUBLE_EQ(g(0), 0.5 * (1.4025 - 1.0));
}

// v_point = sum_k S_k q'_k applied to the point must be d/dt of its position along q' = v:
// checks every column of S, the Euler-parameter rate map 2 E(e) / (e.e) included.
TEST(JointSpaceTree, FloatingAndPlanarSubspacesArePoseJacobians) {
  const JointSpaceTree tree(floating_tree());
  const Vec q = floating_q();
  const Vec v = floating_v();
  constexpr double h = 1e-6;
  for (int l = 0; l < 5; ++l) {
    for (const Eigen::Vector3d& p :
         {Eigen::Vector3d(0.0, 0.0, 0.0), Eigen::Vector3d(0.3, -0.2, 0.5)}) {
      const Eigen::Vector3d fd =
          (tree.point_position(q + h * v, l, p) - tree.point_position(q - h * v, l, p)) / (2.0 * h);
      EXPECT_LE((tree.point_velocity(q, v, l, p) - fd).norm(), 1e-8) << "link " << l;
    }
  }
  // scaling e turns nothing: the pose reads e / |e|
  Vec scaled = q;
  scaled.segment<4>(3) *= 1.7;
  EXPECT_LE((tree.point_position(scaled, 2, Eigen::Vector3d(0.3, -0.2, 0.5)) -
             tree.point_position(q, 2, Eigen::Vector3d(0.3, -0.2, 0.5)))
                .norm(),
            1e-15);
}

TEST(JointSpaceTree, FloatingMassMatrixIsRneaOfUnitAccelerationsOffTheNormalizationDirection) {
  const JointSpaceTree tree(floating_tree());
  const Vec q = floating_q();
  Mat m(12, 12);
  tree.mass(0.0, q, m);
  const Vec zero = Vec::Zero(12);
  Vec gravity(12);
  tree.inverse_dynamics(q, zero, zero, gravity);
  const Eigen::Vector4d e = q.segment<4>(3);
  for (int k = 0; k < 12; ++k) {
    Vec x = Vec::Unit(12, k);
    x.segment<4>(3) -= e * e.dot(x.segment<4>(3)) / e.squaredNorm();  // e . x_e = 0
    Vec tau(12);
    tree.inverse_dynamics(q, zero, x, tau);
    EXPECT_LE((tau - gravity - m * x).cwiseAbs().maxCoeff(), 1e-13 * m.cwiseAbs().maxCoeff())
        << "direction " << k;
  }
  // along e the motion is nil (RNEA gives 0) and M holds only the added c e e^T
  Vec along = Vec::Zero(12);
  along.segment<4>(3) = e;
  Vec tau(12);
  tree.inverse_dynamics(q, zero, along, tau);
  EXPECT_LE((tau - gravity).cwiseAbs().maxCoeff(), 1e-13 * gravity.cwiseAbs().maxCoeff());
  const Vec m_along = m * along;
  EXPECT_LE(m_along.head<3>().norm() + m_along.tail<5>().norm(), 1e-13 * m_along.norm());
  EXPECT_LE((m - m.transpose()).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_GT(Eigen::SelfAdjointEigenSolver<Mat>(m).eigenvalues().minCoeff(), 0.0);
}

// Lagrange with the momentum p = dT/dv (T = energy(q, v) - energy(q, 0), quadratic in v, so a
// central difference in v is exact up to round-off): b = dp/dt|_{v'=0} - dT/dq + dV/dq, dp/dt
// along q' = v. Off the unit sphere and with e.e' != 0.
TEST(JointSpaceTree, FloatingBiasForcesSatisfyLagrangesEquations) {
  const JointSpaceTree tree(floating_tree());
  const Vec q = floating_q();
  const Vec v = floating_v();
  const Vec zero = Vec::Zero(12);
  const auto kinetic = [&](const Vec& qq, const Vec& vv) {
    return tree.energy(0.0, qq, vv, {}) - tree.energy(0.0, qq, zero, {});
  };
  const auto momentum = [&](const Vec& qq) {
    Vec p(12);
    for (int k = 0; k < 12; ++k) {
      const Vec d = 1e-2 * Vec::Unit(12, k);
      p(k) = (kinetic(qq, v + d) - kinetic(qq, v - d)) / 2e-2;
    }
    return p;
  };
  constexpr double h = 1e-5;
  Vec lagrange = (momentum(q + h * v) - momentum(q - h * v)) / (2.0 * h);
  for (int k = 0; k < 12; ++k) {
    const Vec e = h * Vec::Unit(12, k);
    lagrange(k) -= (kinetic(q + e, v) - kinetic(q - e, v)) / (2.0 * h);
    lagrange(k) +=
        (tree.energy(0.0, q + e, zero, {}) - tree.energy(0.0, q - e, zero, {})) / (2.0 * h);
  }
  Vec bias(12);
  tree.inverse_dynamics(q, v, zero, bias);
  EXPECT_LE((bias - lagrange).cwiseAbs().maxCoeff(), 1e-6 * bias.cwiseAbs().maxCoeff())
      << "rnea " << bias.transpose() << "\nlagrange " << lagrange.transpose();
}

TEST(JointSpaceTree, PlanarAndFloatingJointsRefuseDampersAndClosures) {
  JointSpaceSpec s = floating_tree();
  s.joints[2].damping = 0.1;
  expect_tree_refused(s, "joint 'slide_plane': a planar or floating joint takes no damping");
  s = floating_tree();
  TreeClosureSpec c;
  c.name = "loop";
  c.link_b = 3;
  s.closures.push_back(c);
  expect_tree_refused(s,
                      "closure 'loop': closures and mimic rows on links moved by a planar or "
                      "floating joint are not supported");
}

TEST(JointSpaceTree, RefusesWhatIsNotATreeNamingTheJointOrLink) {
  JointSpaceSpec s = branched_tree();
  s.joints[4].child = 2;  // l2 gets a second parent
  expect_tree_refused(s, "joint 'j4': link 'l2' is already the child of joint 'j2'");
  s = branched_tree();
  s.joints[0].parent = 2;  // l0 -> l1 -> l2 -> l0
  expect_tree_refused(s, "on a cycle of joints");
  s = branched_tree();
  s.joints[2].axis.setZero();
  expect_tree_refused(s, "joint 'j2': axis must be non-zero");
  s = branched_tree();
  s.links[3].mass = -1.0;
  expect_tree_refused(s, "link 'l3': mass");
  s = branched_tree();
  s.links[1].inertia(0, 0) = -1.0;
  expect_tree_refused(s, "link 'l1': inertia is not positive semi-definite");
  s = branched_tree();
  s.joints[1].child = 7;
  expect_tree_refused(s, "joint 'j1': child link out of range");
}

}  // namespace
}  // namespace rtmb
