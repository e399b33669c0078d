// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// SpatialMultibody (include/rtmb/models/spatial_multibody.hpp) against independent references: the
// rotation matrix against Eigen's quaternion, the Euler-parameter kinematics omega = 2 E e' against
// a finite difference of A(e(t)); every joint type's G, d(Gv)/dq and L against central finite
// differences of its own g at random (non-unit, inconsistent) states; each joint's g vanishing
// at poses built here where the joint holds; the mass matrix and the gyroscopic force against
// finite differences of the kinetic energy (Lagrange's equations); conservative forces against
// -dV/dq; and the c e e^T term of M leaving accelerations and joint multipliers unchanged (dense
// KKT solve with and without it).
#include "rtmb/models/spatial_multibody.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <Eigen/Geometry>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>

#include "rtmb/state.hpp"
#include "tests/engine/multibody/multibody_test_support.hpp"

// in the helpers' namespace: fd_jacobian, expect_near, random_state, ... unqualified
namespace rtmb::multibody_test {
namespace {

Eigen::Matrix3d inertia(double a, double b, double c, double tilt) {
  // a symmetric positive definite tensor with off-diagonal terms: R diag(a,b,c) R^T
  const Eigen::Matrix3d R =
      Eigen::AngleAxisd(tilt, Eigen::Vector3d(1.0, 2.0, -0.5).normalized()).toRotationMatrix();
  return R * Eigen::Vector3d(a, b, c).asDiagonal() * R.transpose();
}

SpatialBodySpec body(const std::string& name, double m, const Eigen::Matrix3d& J) {
  SpatialBodySpec b;
  b.name = name;
  b.mass = m;
  b.inertia = J;
  return b;
}

SpatialJointSpec joint(SpatialJointType type, int i, int j) {
  SpatialJointSpec jt;
  jt.name = std::string(to_string(type)) + std::to_string(i) + std::to_string(j);
  jt.type = type;
  jt.body_i = i;
  jt.body_j = j;
  jt.point_i = {0.3, -0.2, 0.1};
  jt.point_j = {-0.4, 0.15, 0.25};
  jt.axis_i = {0.2, 0.5, 0.8};
  jt.axis_j = {-0.3, 0.6, 0.4};
  jt.ref_i = {1.0, 0.2, -0.1};
  jt.ref_j = {0.1, 1.0, 0.3};
  jt.length = 0.9;
  return jt;
}

SpatialModelSpec two_bodies(SpatialJointType type) {
  SpatialModelSpec s;
  s.bodies = {body("a", 1.5, inertia(0.2, 0.3, 0.4, 0.3)),
              body("b", 0.7, inertia(0.05, 0.08, 0.06, -0.7))};
  s.bodies[1].orientation = {0.9, 0.1, -0.3, 0.2};
  s.joints = {joint(type, kGround, 0), joint(type, 0, 1)};
  return s;
}

TEST(SpatialKinematics, RotationMatchesEigenAndOmegaIsTwoEeDot) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 5; ++trial) {
    const Eigen::Vector4d e = Eigen::Vector4d(u(rng), u(rng), u(rng), u(rng)).normalized();
    Eigen::Vector4d ed(u(rng), u(rng), u(rng), u(rng));
    ed -= ed.dot(e) * e;  // tangent: |e| stays 1 to first order
    const Eigen::Matrix3d A = rotation(e);
    const Eigen::Quaterniond quat(e(0), e(1), e(2), e(3));
    expect_near(A, quat.toRotationMatrix(), 1e-14, "A(e) vs Eigen");
    // A' = omega~ A = A omega'~, along e(t) = (e + t e')/|e + t e'|
    auto A_at = [&](double t) { return rotation((e + t * ed).normalized()); };
    const Eigen::Matrix3d Ad = (A_at(kFdStep) - A_at(-kFdStep)) / (2.0 * kFdStep);
    const Eigen::Vector3d w = 2.0 * euler_e(e) * ed;
    const Eigen::Vector3d wb = 2.0 * euler_l(e) * ed;
    Eigen::Matrix3d W;
    W << 0, -w.z(), w.y(), w.z(), 0, -w.x(), -w.y(), w.x(), 0;
    Eigen::Matrix3d Wb;
    Wb << 0, -wb.z(), wb.y(), wb.z(), 0, -wb.x(), -wb.y(), wb.x(), 0;
    expect_near(W * A, Ad, 1e-8, "omega~ A vs A'");
    expect_near(A * Wb, Ad, 1e-8, "A omega'~ vs A'");
    expect_near(A * wb, w, 1e-14, "omega = A omega'");
  }
}

class SpatialJointDerivatives : public ::testing::TestWithParam<SpatialJointType> {};

TEST_P(SpatialJointDerivatives, MatchFiniteDifferences) {
  const SpatialMultibody sys(two_bodies(GetParam()));
  EXPECT_EQ(sys.n_lambda(), 2 + 2 * constraint_rows(GetParam()));
  for (unsigned seed = 1; seed <= 5; ++seed) check_constraint_derivatives(sys, seed, 1.0);
}

INSTANTIATE_TEST_SUITE_P(AllTypes,
                         SpatialJointDerivatives,
                         ::testing::ValuesIn(all_spatial_joint_types()),
                         joint_type_name);

// ---- joint geometry: g = 0 exactly where the joint holds, built independently here ---------

Eigen::Vector4d quat_of(const Eigen::Matrix3d& R) {
  const Eigen::Quaterniond q(R);
  return {q.w(), q.x(), q.y(), q.z()};
}

class SpatialJointGeometry : public ::testing::TestWithParam<SpatialJointType> {};

TEST_P(SpatialJointGeometry, ConstraintsVanishWhereTheJointHoldsAndSeeViolations) {
  const SpatialJointType type = GetParam();
  SpatialModelSpec s;
  s.bodies = {body("a", 1, Eigen::Matrix3d::Identity()), body("b", 1, Eigen::Matrix3d::Identity())};
  SpatialJointSpec jt = joint(type, 0, 1);
  // universal: axis_j must be normal to axis_i at the pose; built below
  const Eigen::Matrix3d Ra = Eigen::AngleAxisd(0.7, Eigen::Vector3d(1, 1, 0).normalized()).matrix();
  const Eigen::Vector3d ra(0.2, -0.1, 0.4);
  const Eigen::Vector3d ai = Ra * jt.axis_i.normalized();
  // relative motion the joint allows: a rotation Rrel (world, applied after aligning b with a)
  // and a translation t of b's point away from a's point
  Eigen::Matrix3d Rrel = Eigen::Matrix3d::Identity();
  Eigen::Vector3d t = Eigen::Vector3d::Zero();
  const Eigen::Vector3d perp = ai.unitOrthogonal();
  switch (type) {
    case SpatialJointType::kSpherical:
      Rrel = Eigen::AngleAxisd(1.1, Eigen::Vector3d(0.3, -1, 2).normalized()).matrix();
      break;
    case SpatialJointType::kRevolute:
      Rrel = Eigen::AngleAxisd(1.1, ai).matrix();
      break;
    case SpatialJointType::kUniversal:
      Rrel = Eigen::AngleAxisd(0.5, ai).matrix() * Eigen::AngleAxisd(-0.4, perp).matrix();
      break;
    case SpatialJointType::kCylindrical:
      Rrel = Eigen::AngleAxisd(1.1, ai).matrix();
      t = 0.37 * ai;
      break;
    case SpatialJointType::kPrismatic:
      t = 0.37 * ai;
      break;
    case SpatialJointType::kFixed:
      break;
    case SpatialJointType::kDistance:
      Rrel = Eigen::AngleAxisd(2.0, Eigen::Vector3d(1, 0, 1).normalized()).matrix();
      t = jt.length * Eigen::Vector3d(0.6, 0.0, 0.8);
      break;
    case SpatialJointType::kPlanar:
      Rrel = Eigen::AngleAxisd(1.1, ai).matrix();
      t = 0.3 * perp + 0.2 * ai.cross(perp);
      break;
    // the rolling disc holds one body on the ground's plane: not a two-body joint, not among
    // all_spatial_joint_types() (tests/engine/multibody/spatial_rolling_disc_test.cpp)
    case SpatialJointType::kDiscContact:
    case SpatialJointType::kDiscNoSlip:
      break;
  }
  // b's frame at t = 0 equals a's, so derived axis_j/ref_j are a's; universal: axis_j normal
  s.bodies[0].position = ra;
  s.bodies[0].orientation = quat_of(Ra);
  s.bodies[1].orientation = quat_of(Ra);
  jt.axis_j.setZero();
  jt.ref_j.setZero();
  if (type == SpatialJointType::kUniversal) jt.axis_j = Ra.transpose() * perp;
  s.joints = {jt};
  const SpatialMultibody sys(s);
  const Eigen::Matrix3d Rb = Rrel * Ra;
  const Eigen::Vector3d pj = ra + Ra * jt.point_i + t;
  const Eigen::Vector3d rb = pj - Rb * jt.point_j;
  Vec q(14);
  q << ra, quat_of(Ra), rb, quat_of(Rb);
  Vec g(sys.n_lambda());
  sys.constraints(0.0, q, g);
  EXPECT_LE(g.lpNorm<Eigen::Infinity>(), 1e-14);
  // a forbidden motion is seen: b's point moves off along a direction no joint frees entirely
  // (a combination normal to the axis and along it), and b turns about a generic axis
  Vec q2 = q;
  q2.segment<3>(7) += 1e-3 * Eigen::Vector3d(0.3, -0.8, 0.5);
  q2.segment<4>(10) =
      quat_of(Eigen::AngleAxisd(0.01, Eigen::Vector3d(0.6, 0.3, -0.7).normalized()).matrix() * Rb);
  sys.constraints(0.0, q2, g);
  EXPECT_GE(g.lpNorm<Eigen::Infinity>(), 1e-5);
}

INSTANTIATE_TEST_SUITE_P(AllTypes,
                         SpatialJointGeometry,
                         ::testing::ValuesIn(all_spatial_joint_types()),
                         joint_type_name);

// ---- mass matrix and forces against the Lagrangian -------------------------------------------

TEST(SpatialLagrangian, MassMatrixAndGyroscopicForceFollowFromTheKineticEnergy) {
  // Lagrange: d/dt dT/dv - dT/dq = Q, i.e. M_phys v' = dT/dq - (d/dq dT/dv) v + Q with
  // M_phys = d2T/dv2. T comes from energy() with no force elements (V = 0).
  SpatialModelSpec s;
  s.bodies = {body("a", 1.5, inertia(0.2, 0.3, 0.4, 0.3)),
              body("b", 0.7, inertia(0.05, 0.08, 0.06, -0.7))};
  const SpatialMultibody sys(s);
  for (unsigned seed = 1; seed <= 4; ++seed) {
    const Sample x = random_state(sys.n_q(), seed, 1.0);
    auto T = [&](const Vec& q, const Vec& v) { return sys.energy(0.0, q, v, {}); };
    // dT/dv: T is quadratic in v, so its central difference is exact up to round-off
    auto dT_dv = [&](const Vec& q, const Vec& v) {
      Vec p(v.size());
      for (Eigen::Index k = 0; k < v.size(); ++k) {
        Vec vp = v;
        Vec vm = v;
        vp(k) += 1e-3;
        vm(k) -= 1e-3;
        p(k) = (T(q, vp) - T(q, vm)) / 2e-3;
      }
      return p;
    };
    const Mat M_T = fd_jacobian([&](const Vec& v) { return dT_dv(x.q, v); }, x.v, 1e-3);
    Mat M(sys.n_v(), sys.n_v());
    sys.mass(0.0, x.q, M);
    // subtract the c e e^T terms: what is left must be the Hessian of T
    for (std::size_t b = 0; b < 2; ++b) {
      const Eigen::Vector4d e = x.q.segment<4>(7 * static_cast<Eigen::Index>(b) + 3);
      M.block<4, 4>(7 * static_cast<Eigen::Index>(b) + 3, 7 * static_cast<Eigen::Index>(b) + 3) -=
          sys.normalization_inertia(b) * e * e.transpose();
    }
    expect_near(M, M_T, 1e-8, "M - c e e^T vs d2T/dv2");

    const Vec dT_dq = fd_jacobian(
                          [&](const Vec& q) {
                            Vec t(1);
                            t(0) = T(q, x.v);
                            return t;
                          },
                          x.q, 1e-5)
                          .transpose();
    const Mat mixed = fd_jacobian([&](const Vec& q) { return dT_dv(q, x.v); }, x.q, 1e-5);
    const Vec f_lagrange = dT_dq - mixed * x.v;
    Vec f(sys.n_v());
    sys.forces(0.0, x.q, x.v, {}, f);
    expect_near(f, f_lagrange, 1e-6, "gyroscopic force vs dT/dq - (d/dq dT/dv) v");
  }
}

SpatialForceSpec tsda(double k, double c, double act) {
  SpatialForceSpec f;
  f.name = "tsda";
  f.type = SpatialForceType::kSpringDamper;
  f.body_i = 0;
  f.body_j = 1;
  f.point_i = {0.25, 0.1, -0.2};
  f.point_j = {-0.3, 0.2, 0.1};
  f.stiffness = k;
  f.damping = c;
  f.rest = 0.4;
  f.actuator = act;
  return f;
}

SpatialModelSpec with_forces(std::vector<SpatialForceSpec> forces) {
  SpatialModelSpec s;
  s.bodies = {body("a", 1.5, inertia(0.2, 0.3, 0.4, 0.3)),
              body("b", 0.7, inertia(0.05, 0.08, 0.06, -0.7))};
  s.forces = std::move(forces);
  return s;
}

TEST(SpatialForces, ConservativeForcesAreMinusTheGradientOfThePotential) {
  SpatialForceSpec gravity;
  gravity.type = SpatialForceType::kGravity;
  gravity.vector = {0.5, -9.81, 1.0};
  SpatialForceSpec push;
  push.type = SpatialForceType::kForce;
  push.body_i = 1;
  push.point_i = {0.1, -0.3, 0.2};
  push.vector = {2.0, -1.0, 3.0};
  const SpatialMultibody sys(with_forces({gravity, tsda(30.0, 0.0, 1.5), push}));
  for (unsigned seed = 1; seed <= 4; ++seed) {
    const Sample x = random_state(sys.n_q(), seed, 1.0);
    const Vec zero = Vec::Zero(sys.n_v());
    const Vec gradV = fd_jacobian(
                          [&](const Vec& q) {
                            Vec e(1);
                            e(0) = sys.energy(0.0, q, zero, {});
                            return e;
                          },
                          x.q)
                          .transpose();
    Vec f(sys.n_v());
    sys.forces(0.0, x.q, zero, {}, f);
    expect_near(f, -gradV, 1e-7, "f vs -dV/dq");
  }
}

TEST(SpatialForces, DampersDissipateAndTorquesDoTheirPower) {
  // TSDA damper: f = -c l' grad l, so f.v = -c l'^2; a world torque n does power n.omega, a body
  // torque n' does n'.omega' (omega = A omega'), with omega from the finite-difference rotation
  SpatialForceSpec world_torque;
  world_torque.type = SpatialForceType::kTorque;
  world_torque.body_i = 0;
  world_torque.vector = {0.3, -1.2, 0.7};
  SpatialForceSpec body_torque = world_torque;
  body_torque.body_frame = true;
  body_torque.body_i = 1;
  const SpatialMultibody damper(with_forces({tsda(0.0, 4.0, 0.0)}));
  const SpatialMultibody torques(with_forces({world_torque, body_torque}));
  for (unsigned seed = 1; seed <= 4; ++seed) {
    Sample x = random_state(damper.n_q(), seed, 1.0);
    for (int b = 0; b < 2; ++b) {  // unit e, tangent e': omega = 2 E e' is the true rate
      x.q.segment<4>(7 * b + 3).normalize();
      const Eigen::Vector4d e = x.q.segment<4>(7 * b + 3);
      x.v.segment<4>(7 * b + 3) -= e.dot(x.v.segment<4>(7 * b + 3)) * e;
    }
    auto length = [&](const Vec& q) {
      const SpatialForceSpec f = tsda(0, 0, 0);
      const Eigen::Vector3d pi = q.segment<3>(0) + rotation(q.segment<4>(3)) * f.point_i;
      const Eigen::Vector3d pj = q.segment<3>(7) + rotation(q.segment<4>(10)) * f.point_j;
      return (pj - pi).norm();
    };
    const double ldot =
        (length(x.q + kFdStep * x.v) - length(x.q - kFdStep * x.v)) / (2.0 * kFdStep);
    Vec f(damper.n_v());
    damper.forces(0.0, x.q, x.v, {}, f);
    // forces() also holds the gyroscopic term, which does no power: M v' balance, T' = f.v
    Vec gyro(damper.n_v());
    const SpatialMultibody bare(with_forces({}));
    bare.forces(0.0, x.q, x.v, {}, gyro);
    EXPECT_NEAR((f - gyro).dot(x.v), -4.0 * ldot * ldot, 1e-7);

    torques.forces(0.0, x.q, x.v, {}, f);
    const Eigen::Vector3d w0 = 2.0 * euler_e(x.q.segment<4>(3)) * x.v.segment<4>(3);
    const Eigen::Vector3d wb1 = 2.0 * euler_l(x.q.segment<4>(10)) * x.v.segment<4>(10);
    EXPECT_NEAR((f - gyro).dot(x.v), world_torque.vector.dot(w0) + body_torque.vector.dot(wb1),
                1e-12);

    // a body-frame force F' at body point s does the power (A F').p' with p' from a finite
    // difference of p(q + t v)
    SpatialForceSpec follower;
    follower.type = SpatialForceType::kForce;
    follower.body_frame = true;
    follower.body_i = 1;
    follower.point_i = {0.2, -0.1, 0.3};
    follower.vector = {1.5, -0.5, 2.0};
    const SpatialMultibody pushed(with_forces({follower}));
    pushed.forces(0.0, x.q, x.v, {}, f);
    auto point = [&](const Vec& q) -> Eigen::Vector3d {
      return q.segment<3>(7) + rotation(q.segment<4>(10)) * follower.point_i;
    };
    const Eigen::Vector3d pd =
        (point(x.q + kFdStep * x.v) - point(x.q - kFdStep * x.v)) / (2.0 * kFdStep);
    const Eigen::Vector3d F = rotation(x.q.segment<4>(10)) * follower.vector;
    EXPECT_NEAR((f - gyro).dot(x.v), F.dot(pd), 1e-8);
  }
}

// ---- the c e e^T term changes only the normalization multipliers ---------------------------

TEST(SpatialMassMatrix, NormalizationInertiaLeavesAccelerationsAndJointMultipliersUnchanged) {
  // Dense KKT [M G^T; G 0][a; lambda] = [f; -L] with M and with M - c e e^T per body (the
  // physical, singular-along-e block, still positive definite on ker G).
  SpatialModelSpec s = two_bodies(SpatialJointType::kRevolute);
  SpatialForceSpec gravity;
  gravity.type = SpatialForceType::kGravity;
  gravity.vector = {0.0, 0.0, -9.81};
  s.forces = {gravity, tsda(20.0, 1.0, 0.0)};
  const SpatialMultibody sys(s);
  const int n = sys.n_v();
  const int m = sys.n_lambda();
  for (unsigned seed = 1; seed <= 4; ++seed) {
    const Sample x = random_state(n, seed, 1.0);
    Mat M(n, n);
    sys.mass(0.0, x.q, M);
    Mat Mp = Mat::Zero(n, n);
    for (std::size_t b = 0; b < 2; ++b) {
      Eigen::Matrix<double, 7, 7> blk;
      sys.physical_mass_block(b, x.q, blk);
      Mp.block<7, 7>(7 * static_cast<Eigen::Index>(b), 7 * static_cast<Eigen::Index>(b)) = blk;
    }
    Mat G(m, n);
    sys.jacobian(0.0, x.q, G);
    Vec f(n);
    sys.forces(0.0, x.q, x.v, {}, f);
    Vec L(m);
    sys.curvature(0.0, x.q, x.v, L);
    auto solve = [&](const Mat& mass) {
      return Vec(kkt_matrix(mass, G).fullPivLu().solve(kkt_rhs(f, L)));
    };
    const Vec with = solve(M);
    const Vec without = solve(Mp);
    const double da = (with.head(n) - without.head(n)).lpNorm<Eigen::Infinity>();
    const double dl = (with.tail(m - 2) - without.tail(m - 2)).lpNorm<Eigen::Infinity>();
    EXPECT_LE(da, 1e-9 * (1.0 + without.head(n).lpNorm<Eigen::Infinity>()));
    EXPECT_LE(dl, 1e-9 * (1.0 + without.tail(m - 2).lpNorm<Eigen::Infinity>()));
    // ... and the normalization multipliers differ by c e^T a |e|^2... in closed form:
    // G^T (lambda' - lambda) = -c e e^T a  =>  lambda'_b - lambda_b = -c (e^T a)
    for (int b = 0; b < 2; ++b) {
      const double ea = x.q.segment<4>(7 * b + 3).dot(without.segment<4>(7 * b + 3));
      EXPECT_NEAR(with(n + b) - without(n + b),
                  -sys.normalization_inertia(static_cast<std::size_t>(b)) * ea,
                  1e-9 * (1.0 + std::abs(without(n + b))));
    }
    EXPECT_GT((with.segment(n, 2) - without.segment(n, 2)).norm(), 1e-6);  // the term mattered
    std::printf("seed %u: |a - a_phys|inf = %.2e, |lambda_joint - ..|inf = %.2e\n", seed, da, dl);
  }
}

TEST(SpatialSparse, ValuesEqualTheDenseMatricesExactly) {
  SpatialModelSpec s;
  s.bodies = {body("a", 1.5, inertia(0.2, 0.3, 0.4, 0.3)),
              body("b", 0.7, inertia(0.05, 0.08, 0.06, -0.7)),
              body("c", 0.9, inertia(0.1, 0.1, 0.2, 0.1))};
  s.joints = {joint(SpatialJointType::kRevolute, kGround, 0),
              joint(SpatialJointType::kUniversal, 0, 1), joint(SpatialJointType::kPrismatic, 2, 1),
              joint(SpatialJointType::kDistance, 0, 2),
              joint(SpatialJointType::kFixed, kGround, 2)};
  const SpatialMultibody sys(s);
  SparsePattern mp;
  SparsePattern gp;
  ASSERT_TRUE(sys.sparse_structure(mp, gp));
  ASSERT_EQ(mp.rows, sys.n_v());
  ASSERT_EQ(gp.rows, sys.n_lambda());
  ASSERT_EQ(gp.cols, sys.n_v());
  const Sample x = random_state(sys.n_q(), 3, 1.0);
  Mat M(sys.n_v(), sys.n_v());
  Mat G(sys.n_lambda(), sys.n_v());
  sys.mass(0.0, x.q, M);
  sys.jacobian(0.0, x.q, G);
  std::vector<double> mv(static_cast<std::size_t>(mp.nonzeros()), std::nan(""));
  std::vector<double> gv(static_cast<std::size_t>(gp.nonzeros()), std::nan(""));
  sys.mass_values(0.0, x.q, mv);
  sys.jacobian_values(0.0, x.q, gv);
  // rebuild dense matrices from the patterns: equal exactly, and nothing outside the pattern
  Mat Ms = Mat::Zero(sys.n_v(), sys.n_v());
  Mat Gs = Mat::Zero(sys.n_lambda(), sys.n_v());
  for (int c = 0; c < mp.cols; ++c) {
    for (int k = mp.outer[static_cast<std::size_t>(c)];
         k < mp.outer[static_cast<std::size_t>(c) + 1]; ++k) {
      const int r = mp.inner[static_cast<std::size_t>(k)];
      ASSERT_GE(r, c);
      Ms(r, c) = Ms(c, r) = mv[static_cast<std::size_t>(k)];
    }
  }
  for (int c = 0; c < gp.cols; ++c) {
    for (int k = gp.outer[static_cast<std::size_t>(c)];
         k < gp.outer[static_cast<std::size_t>(c) + 1]; ++k) {
      if (k > gp.outer[static_cast<std::size_t>(c)]) {
        ASSERT_LT(gp.inner[static_cast<std::size_t>(k) - 1], gp.inner[static_cast<std::size_t>(k)]);
      }
      Gs(gp.inner[static_cast<std::size_t>(k)], c) = gv[static_cast<std::size_t>(k)];
    }
  }
  EXPECT_EQ((Ms - M).lpNorm<Eigen::Infinity>(), 0.0);
  EXPECT_EQ((Gs - G).lpNorm<Eigen::Infinity>(), 0.0);
  std::printf("sparse: M %d nonzeros of %d, G %d of %d\n", mp.nonzeros(),
              sys.n_v() * (sys.n_v() + 1) / 2, gp.nonzeros(), sys.n_lambda() * sys.n_v());
}

}  // namespace
}  // namespace rtmb::multibody_test
