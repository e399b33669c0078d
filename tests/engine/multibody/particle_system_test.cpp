// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Particle System (include/rtmb/models/particle_system.hpp), in 3-D and in the plane: forces are
// -dV/dq of its own potential (finite differences), force_jacobians are the finite differences
// of forces, G, d(Gv)/dq, L and d(G^T lambda)/dq those of g, discrete_gradient_forces does the
// work -f . (q1 - q0) = V(q1) - V(q0) to round-off and equals forces() when q1 = q0, the element
// forces sum to zero (momentum), and bad specs are refused naming the element.
#include "rtmb/models/particle_system.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>

#include "tests/engine/multibody/multibody_test_support.hpp"

namespace rtmb {
namespace {

using multibody_test::central_gradient;
using multibody_test::expect_near;
using multibody_test::fd_jacobian;
using multibody_test::random_state;

// Five particles: a rod to a fixed point and a rod between particles, a Green and a linear truss,
// two bending elements, gravity. Positions are drawn by the tests (random, inconsistent states:
// the evaluations do not assume g = 0).
ParticleModelSpec test_spec(int dimension) {
  ParticleModelSpec s;
  s.dimension = dimension;
  s.name = "particles_test";
  for (int k = 0; k < 5; ++k) {
    ParticleSpec p;
    p.name = "p" + std::to_string(k);
    p.mass = 0.5 + 0.3 * k;
    s.particles.push_back(p);
  }
  s.rods.push_back(
      {"pin", kFixedPoint, 0, Eigen::Vector3d(0.2, -0.1, dimension == 3 ? 0.3 : 0.0), 1.0});
  s.rods.push_back({"bar", 1, 2, Eigen::Vector3d::Zero(), 0.8});
  s.trusses.push_back({"green", 0, 3, 120.0, 1.1, StrainMeasure::kGreen});
  s.trusses.push_back({"linear", 3, 4, 80.0, 0.9, StrainMeasure::kLinear});
  s.bendings.push_back({"b0", 0, 4, 3, 2.5});
  s.bendings.push_back({"b1", 1, 3, 2, 0.7});
  s.gravity = dimension == 3 ? Eigen::Vector3d(0.0, 0.0, -9.81) : Eigen::Vector3d(0.0, -9.81, 0.0);
  return s;
}

class ParticleSystemTest : public ::testing::TestWithParam<int> {
 protected:
  ParticleSystemTest() : sys_(test_spec(GetParam())) {}
  ParticleSystem sys_;
};

TEST_P(ParticleSystemTest, SizesFollowTheDimension) {
  EXPECT_EQ(discrete_gradient_of(sys_), &sys_);  // found by the midpoint-family integrators
  EXPECT_EQ(sys_.n_q(), 5 * GetParam());
  EXPECT_EQ(sys_.n_v(), 5 * GetParam());
  EXPECT_EQ(sys_.n_lambda(), 2);
}

TEST_P(ParticleSystemTest, ConstraintDerivativesMatchFiniteDifferences) {
  for (unsigned seed : {1u, 2u, 3u}) multibody_test::check_constraint_derivatives(sys_, seed, 1.5);
}

TEST_P(ParticleSystemTest, ForcesAreMinusThePotentialGradient) {
  const auto s = random_state(sys_.n_q(), 11, 1.5);
  Vec f(sys_.n_v());
  sys_.forces(0.0, s.q, s.v, {}, f);
  const auto potential = [&](const Vec& q) { return sys_.potential(q); };
  expect_near(f, Vec(-central_gradient(potential, s.q)), 1e-7, "f vs -dV/dq");
  // and the energy is T + V
  double kinetic = 0.0;
  for (int p = 0; p < 5; ++p) {
    kinetic += 0.5 * sys_.spec().particles[static_cast<std::size_t>(p)].mass *
               s.v.segment(GetParam() * p, GetParam()).squaredNorm();
  }
  EXPECT_NEAR(sys_.energy(0.0, s.q, s.v, {}), kinetic + sys_.potential(s.q), 1e-12);
}

TEST_P(ParticleSystemTest, ForceJacobiansMatchFiniteDifferences) {
  const auto s = random_state(sys_.n_q(), 12, 1.5);
  const int n = sys_.n_v();
  Mat fq(n, n);
  Mat fv(n, n);
  ASSERT_TRUE(sys_.force_jacobians(0.0, s.q, s.v, fq, fv));
  const auto f_of_q = [&](const Vec& q) {
    Vec f(n);
    sys_.forces(0.0, q, s.v, {}, f);
    return f;
  };
  expect_near(fq, fd_jacobian(f_of_q, s.q), 1e-6, "df/dq vs FD");
  EXPECT_EQ(fv.lpNorm<Eigen::Infinity>(), 0.0);
}

TEST_P(ParticleSystemTest, ConstraintForceJacobianMatchesFiniteDifferences) {
  const auto s = random_state(sys_.n_q(), 13, 1.5);
  const int n = sys_.n_v();
  const Vec lambda = Vec::LinSpaced(sys_.n_lambda(), -1.3, 2.1);
  Mat H(n, n);
  ASSERT_TRUE(sys_.constraint_force_jacobian(0.0, s.q, lambda, H));
  const auto gt_lambda = [&](const Vec& q) {
    Mat G(sys_.n_lambda(), n);
    sys_.jacobian(0.0, q, G);
    return Vec(G.transpose() * lambda);
  };
  expect_near(H, fd_jacobian(gt_lambda, s.q), 1e-7, "d(G^T lambda)/dq vs FD");
}

TEST_P(ParticleSystemTest, DiscreteGradientForcesDoTheEnergyDifferenceAsWork) {
  const int n = sys_.n_v();
  for (unsigned seed = 20; seed < 30; ++seed) {
    const auto s0 = random_state(n, seed, 1.5);
    const auto s1 = random_state(n, seed + 100, 0.3);
    const Vec q1 = s0.q + s1.q;  // a step of up to 0.3 per coordinate
    Vec f(n);
    sys_.discrete_gradient_forces(0.0, s0.q, q1, s0.v, {}, f);
    const double v0 = sys_.potential(s0.q);
    const double v1 = sys_.potential(q1);
    const double scale = std::fabs(v0) + std::fabs(v1) + 1.0;
    EXPECT_NEAR(-f.dot(q1 - s0.q), v1 - v0, 256.0 * std::numeric_limits<double>::epsilon() * scale)
        << "seed " << seed;
  }
}

TEST_P(ParticleSystemTest, DiscreteGradientForcesWithEqualEndsAreTheForces) {
  const auto s = random_state(sys_.n_q(), 31, 1.5);
  Vec f(sys_.n_v());
  Vec d(sys_.n_v());
  sys_.forces(0.0, s.q, s.v, {}, f);
  sys_.discrete_gradient_forces(0.0, s.q, s.q, s.v, {}, d);
  expect_near(d, f, 1e-13, "P(q, q) vs f(q)");
}

TEST_P(ParticleSystemTest, InternalForcesSumToZero) {
  // without gravity the element and rod forces are internal: no net force on the system
  ParticleModelSpec spec = test_spec(GetParam());
  spec.gravity.setZero();
  spec.rods.erase(spec.rods.begin());  // the rod to a fixed point pushes on the system
  const ParticleSystem sys(spec);
  const auto s = random_state(sys.n_q(), 40, 1.5);
  Vec f(sys.n_v());
  Mat G(sys.n_lambda(), sys.n_v());
  sys.forces(0.0, s.q, s.v, {}, f);
  sys.jacobian(0.0, s.q, G);
  const Vec c = G.transpose() * Vec::Constant(sys.n_lambda(), 1.7);
  const int d = GetParam();
  Eigen::Vector3d net_f = Eigen::Vector3d::Zero();
  Eigen::Vector3d net_c = Eigen::Vector3d::Zero();
  for (int p = 0; p < 5; ++p) {
    net_f.head(d) += f.segment(d * p, d);
    net_c.head(d) += c.segment(d * p, d);
  }
  EXPECT_LE(net_f.norm(), 1e-12 * (1.0 + f.norm()));
  EXPECT_LE(net_c.norm(), 1e-14 * (1.0 + c.norm()));
}

INSTANTIATE_TEST_SUITE_P(Dimensions,
                         ParticleSystemTest,
                         ::testing::Values(2, 3),
                         [](const ::testing::TestParamInfo<int>& p) {
                           return p.param == 2 ? "Planar" : "Spatial";
                         });

TEST(ParticleSystem, BadSpecsAreRefusedNamingTheElement) {
  const auto refused = [](ParticleModelSpec s, const std::string& needle) {
    try {
      const ParticleSystem sys(std::move(s));
      ADD_FAILURE() << "accepted, expected an error naming " << needle;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  ParticleModelSpec s = test_spec(3);
  s.particles[2].mass = 0.0;
  refused(s, "particle 'p2'");
  s = test_spec(3);
  s.trusses[1].j = 7;
  refused(s, "truss 'linear'");
  s = test_spec(3);
  s.bendings[0].c = s.bendings[0].a;
  refused(s, "bending element 'b0'");
  s = test_spec(3);
  s.rods[1].length = -1.0;
  refused(s, "rod 'bar'");
  s = test_spec(2);
  s.particles[0].velocity.z() = 1.0;
  refused(s, "particle 'p0'");
  s = test_spec(3);
  s.dimension = 4;
  refused(s, "dimension");
}

}  // namespace
}  // namespace rtmb
