// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// PlanarMultibody (include/rtmb/models/planar_multibody.hpp) against finite differences of its own
// position level: G vs dg/dq, H = d(G v)/dq vs the difference quotient of G(q) v, L vs d/dt (G(q)
// v) along q' = v, the conservative forces vs -dV/dq (V from energy() at v = 0), and the dampers
// against the Rayleigh form f = -c s' grad s with s(q) computed here independently. Every joint
// type is checked body-to-body and body-to-ground at a generic (inconsistent) state: these
// identities hold everywhere, not only on g = 0.
#include "rtmb/models/planar_multibody.hpp"

#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <functional>
#include <random>

#include "rtmb/state.hpp"
#include "tests/engine/multibody/multibody_test_support.hpp"
#include "tests/support/planar_test_models.hpp"

// in the helpers' namespace: fd_jacobian, expect_near, random_state, ... unqualified
namespace rtmb::multibody_test {
namespace {
using testing::test_body;

PlanarJointSpec joint(PlanarJointType type, int i, int j) {
  PlanarJointSpec jt =
      testing::test_joint(std::string(to_string(type)) + std::to_string(i) + std::to_string(j),
                          type, i, j, {0.3, -0.2}, {-0.4, 0.15});
  jt.angle = 0.2;
  jt.length = 0.9;
  return jt;
}

// Two bodies, the joint type body-to-ground and body-to-body.
PlanarModelSpec two_bodies(PlanarJointType type) {
  PlanarModelSpec s;
  s.bodies = {test_body("a", 1.5, 0.2), test_body("b", 0.7, 0.05)};
  s.joints = {joint(type, kGround, 0), joint(type, 0, 1)};
  return s;
}

class JointDerivatives : public ::testing::TestWithParam<PlanarJointType> {};

TEST_P(JointDerivatives, MatchFiniteDifferences) {
  const PlanarMultibody sys(two_bodies(GetParam()));
  EXPECT_EQ(sys.n_lambda(), 2 * constraint_rows(GetParam()));
  for (unsigned seed = 1; seed <= 5; ++seed) check_constraint_derivatives(sys, seed, 1.5);
}

INSTANTIATE_TEST_SUITE_P(AllTypes,
                         JointDerivatives,
                         ::testing::Values(PlanarJointType::kRevolute,
                                           PlanarJointType::kPrismatic,
                                           PlanarJointType::kFixed,
                                           PlanarJointType::kDistance),
                         [](const ::testing::TestParamInfo<PlanarJointType>& p) {
                           return std::string(to_string(p.param));
                         });

TEST(JointGeometry, ConstraintsVanishExactlyWhereTheJointHolds) {
  // independent of the Jacobians: place body b so that each joint holds, g must be 0
  const double th_a = 0.7;
  const Eigen::Rotation2Dd Ra(th_a);
  const Eigen::Vector2d ra(0.2, -0.1);
  PlanarModelSpec s;
  s.bodies = {test_body("a", 1, 1), test_body("b", 1, 1)};
  for (PlanarJointType type : {PlanarJointType::kRevolute, PlanarJointType::kPrismatic,
                               PlanarJointType::kFixed, PlanarJointType::kDistance}) {
    PlanarJointSpec jt = joint(type, 0, 1);
    jt.axis.normalize();
    s.joints = {jt};
    const PlanarMultibody sys(s);
    const double th_b = type == PlanarJointType::kRevolute || type == PlanarJointType::kDistance
                            ? -1.1
                            : th_a + jt.angle;
    const Eigen::Rotation2Dd Rb(th_b);
    Eigen::Vector2d pj = ra + Ra * jt.point_i;  // where b's point goes
    if (type == PlanarJointType::kPrismatic) pj += 0.37 * (Ra * jt.axis);
    if (type == PlanarJointType::kDistance)
      pj += jt.length * Eigen::Vector2d(std::cos(2.0), std::sin(2.0));
    const Eigen::Vector2d rb = pj - Rb * jt.point_j;
    Vec q(6);
    q << ra, th_a, rb, th_b;
    Vec g(sys.n_lambda());
    sys.constraints(0.0, q, g);
    EXPECT_LE(g.lpNorm<Eigen::Infinity>(), 1e-14) << to_string(type);
    // and a violation is seen: move b's point off the joint
    q(3) += 1e-3;
    q(4) -= 2e-3;
    sys.constraints(0.0, q, g);
    EXPECT_GE(g.lpNorm<Eigen::Infinity>(), 1e-4) << to_string(type);
  }
}

// ---- force elements ----------------------------------------------------------------------

PlanarModelSpec with_force(PlanarForceSpec f) {
  PlanarModelSpec s;
  s.bodies = {test_body("a", 1.5, 0.2), test_body("b", 0.7, 0.05)};
  s.forces = {std::move(f)};
  return s;
}

PlanarForceSpec spring(int i, int j, double k, double c, double act) {
  PlanarForceSpec f;
  f.type = PlanarForceType::kSpringDamper;
  f.body_i = i;
  f.body_j = j;
  f.point_i = {0.25, 0.1};
  f.point_j = {-0.3, 0.2};
  f.stiffness = k;
  f.damping = c;
  f.rest = 0.4;
  f.actuator = act;
  return f;
}

PlanarForceSpec rotational(int i, int j, double k, double c) {
  PlanarForceSpec f;
  f.type = PlanarForceType::kRotationalSpring;
  f.body_i = i;
  f.body_j = j;
  f.stiffness = k;
  f.damping = c;
  f.rest = 0.3;
  return f;
}

std::vector<PlanarForceSpec> conservative_elements() {
  PlanarForceSpec grav;
  grav.type = PlanarForceType::kGravity;
  grav.vector = {0.5, -9.81};
  PlanarForceSpec force;
  force.type = PlanarForceType::kForce;
  force.body_i = 1;
  force.point_i = {0.3, -0.6};
  force.vector = {2.0, -1.5};
  PlanarForceSpec torque;
  torque.type = PlanarForceType::kTorque;
  torque.body_i = 0;
  torque.torque = 0.8;
  return {grav,
          force,
          torque,
          spring(0, 1, 30.0, 0.0, 1.5),
          spring(kGround, 1, 12.0, 0.0, 0.0),
          rotational(0, 1, 7.0, 0.0),
          rotational(kGround, 0, 3.0, 0.0)};
}

TEST(ForceElements, ConservativeForcesAreMinusTheGradientOfTheirPotential) {
  const std::vector<PlanarForceSpec> elements = conservative_elements();
  for (std::size_t e = 0; e < elements.size(); ++e) {
    const PlanarMultibody sys(with_force(elements[e]));
    const Vec zero = Vec::Zero(6);
    auto potential = [&](const Vec& q) {
      Vec out(1);
      out(0) = sys.energy(0.0, q, zero, {});  // T = 0 at v = 0
      return out;
    };
    for (unsigned seed = 1; seed <= 3; ++seed) {
      const Sample s = random_state(6, 10 * seed + static_cast<unsigned>(e), 1.5);
      Vec f(6);
      sys.forces(0.0, s.q, zero, {}, f);
      const Vec grad = fd_jacobian(potential, s.q).row(0).transpose();
      expect_near(f, -grad, 1e-7, "element " + std::to_string(e));
      // a conservative element does not depend on v
      Vec fv(6);
      sys.forces(0.0, s.q, s.v, {}, fv);
      expect_near(fv, f, 1e-15, "velocity independence " + std::to_string(e));
    }
  }
}

// The element coordinate s(q) a damper acts on, computed here from first principles.
double spring_length(const PlanarForceSpec& f, const Vec& q) {
  auto point = [&q](int b, const Eigen::Vector2d& p) -> Eigen::Vector2d {
    if (b == kGround) return p;
    return q.segment<2>(3 * b) + Eigen::Rotation2Dd(q(3 * b + 2)) * p;
  };
  return (point(f.body_j, f.point_j) - point(f.body_i, f.point_i)).norm();
}

double relative_angle(const PlanarForceSpec& f, const Vec& q) {
  const double ti = f.body_i == kGround ? 0.0 : q(3 * f.body_i + 2);
  return q(3 * f.body_j + 2) - ti;
}

TEST(ForceElements, DampersAreTheRayleighForceOfTheirCoordinate) {
  // f_damping = -dR/dv with R = c (s')^2 / 2 and s' = grad s . v, so f = -c (grad s . v) grad s
  struct Case {
    PlanarForceSpec f;
    std::function<double(const PlanarForceSpec&, const Vec&)> coordinate;
  };
  const Case cases[] = {{spring(0, 1, 0.0, 2.5, 0.0), spring_length},
                        {spring(kGround, 1, 0.0, 1.2, 0.0), spring_length},
                        {rotational(0, 1, 0.0, 0.9), relative_angle},
                        {rotational(kGround, 1, 0.0, 0.4), relative_angle}};
  for (const Case& c : cases) {
    const PlanarMultibody sys(with_force(c.f));
    const Sample s = random_state(6, 77, 1.5);
    auto coord = [&](const Vec& q) {
      Vec out(1);
      out(0) = c.coordinate(c.f, q);
      return out;
    };
    const Vec grad = fd_jacobian(coord, s.q).row(0).transpose();
    Vec f(6);
    sys.forces(0.0, s.q, s.v, {}, f);
    expect_near(f, -c.f.damping * grad.dot(s.v) * grad, 1e-7, "damper");
  }
}

TEST(PlanarMultibody, MassMatrixIsBlockDiagonal) {
  const PlanarMultibody sys(two_bodies(PlanarJointType::kRevolute));
  Mat M(6, 6);
  sys.mass(0.0, Vec::Zero(6), M);
  Vec d(6);
  d << 1.5, 1.5, 0.2, 0.7, 0.7, 0.05;
  EXPECT_EQ(M, Mat(d.asDiagonal()));
}

TEST(PlanarMultibody, InvalidSpecsAreRefused) {
  PlanarModelSpec s = two_bodies(PlanarJointType::kRevolute);
  s.joints[1].body_j = 2;
  EXPECT_THROW(PlanarMultibody{s}, std::invalid_argument);
  s = two_bodies(PlanarJointType::kRevolute);
  s.bodies[0].mass = -1.0;
  EXPECT_THROW(PlanarMultibody{s}, std::invalid_argument);
  s = two_bodies(PlanarJointType::kDistance);
  s.joints[0].length = 0.0;
  EXPECT_THROW(PlanarMultibody{s}, std::invalid_argument);
}

TEST(Assembly, ProjectsAnInconsistentPoseOntoTheConstraints) {
  PlanarModelSpec s = two_bodies(PlanarJointType::kRevolute);
  s.bodies[0].pose = {0.5, 0.1, 0.3};
  s.bodies[1].pose = {1.1, -0.2, -0.4};
  s.bodies[1].velocity = {0.3, 0.2, 1.0};
  const std::vector<std::string> notes = assemble(s);
  EXPECT_EQ(notes.size(), 2u);  // pose and velocity both corrected
  const PlanarMultibody sys(s);
  State st;
  sys.initial_state(st);
  Vec g(sys.n_lambda());
  sys.constraints(0.0, st.q, g);
  EXPECT_LE(g.lpNorm<Eigen::Infinity>(), 1e-10);
  Mat G(sys.n_lambda(), sys.n_v());
  sys.jacobian(0.0, st.q, G);
  EXPECT_LE((G * st.v).lpNorm<Eigen::Infinity>(), 1e-10);
  // a consistent state is left alone
  PlanarModelSpec again = s;
  EXPECT_TRUE(assemble(again).empty());
  EXPECT_EQ(again.bodies[1].pose, s.bodies[1].pose);
}

TEST(Assembly, UnreachableJointsAreNamed) {
  PlanarModelSpec s;
  s.bodies = {test_body("a", 1, 1)};
  PlanarJointSpec pivot = joint(PlanarJointType::kRevolute, kGround, 0);
  pivot.name = "pivot";
  pivot.point_i = {0, 0};
  pivot.point_j = {-0.5, 0};
  PlanarJointSpec reach = joint(PlanarJointType::kDistance, kGround, 0);
  reach.name = "reach";
  reach.point_i = {10, 0};
  reach.point_j = {0.5, 0};
  reach.length = 1.0;  // the rod's tip is never more than 1 m from the pivot: 9 m at least
  s.joints = {pivot, reach};
  try {
    (void)assemble(s);
    FAIL() << "assembled an impossible model";
  } catch (const AssemblyError& e) {
    EXPECT_NE(std::string(e.what()).find("reach"), std::string::npos) << e.what();
    ASSERT_FALSE(e.joints().empty());
  }
}

}  // namespace
}  // namespace rtmb::multibody_test
