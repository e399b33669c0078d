// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The particle beam of `rtmb gen beam` (engine/model_file/chain_models.cpp, beam_model_yaml)
// against Euler-Bernoulli: a simply supported beam of length L under a midspan load P deflects
// delta = P L^3 / (48 EI) (e.g. Gere & Timoshenko, Mechanics of Materials, table of beam
// deflections). The particle beam is a chain of N stiff trusses with rotational springs of
// stiffness C_b / 4 = EI / h at the interior nodes (small kinks theta: V = C_b theta^2 / 8), whose
// midspan deflection (virtual work over the springs, M_j = P x_j / 2 at x_j = j h <= L/2,
// N = 2 n) is
//     delta_N = (h / (EI P)) sum_j M_j^2 = P h^3 n (2 n^2 + 1) / (12 EI) = delta (1 + 2 / N^2),
// the trapezoidal rule of the beam's sum_j M_j^2 h: second order in h. The static solution comes
// from Newton on the equilibrium f(q) + F - G^T lambda = 0, g(q) = 0 with the model's analytic
// force and constraint Jacobians; the load is small (delta / L ~ 1e-6), so the geometric
// nonlinearity (membrane tension of the pinned ends, relative size EA delta^2 / EI ~ 1e-8) is
// below the tolerances.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "rtmb/models/chain_models.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/models/particle_system.hpp"

namespace rtmb {
namespace {

constexpr double kL = 10.0;  // the generator's beam: L, EI
constexpr double kEI = 1.0;

// midspan deflection of the N-element beam under a downward midspan load p
double midspan_deflection(int n, double p) {
  const ModelFile file = parse_model_file(beam_model_yaml(n), "beam");
  EXPECT_TRUE(file.particles);
  const ParticleSystem sys(*file.particles);
  const int nq = sys.n_q();
  const int nl = sys.n_lambda();
  State s(nq, sys.n_v());
  sys.initial_state(s);
  Vec q = s.q;
  Vec lambda = Vec::Zero(nl);
  Vec load = Vec::Zero(nq);
  load(2 * (n / 2) + 1) = -p;  // y of the middle particle
  Vec f(nq), g(nl);
  Mat fq(nq, nq), fv(nq, nq), G(nl, nq), H(nq, nq);
  for (int it = 0; it < 20; ++it) {
    sys.forces(1.0, q, Vec::Zero(nq), {}, f);
    sys.constraints(1.0, q, g);
    sys.jacobian(1.0, q, G);
    (void)sys.force_jacobians(1.0, q, Vec::Zero(nq), fq, fv);
    (void)sys.constraint_force_jacobian(1.0, q, lambda, H);
    Vec r(nq + nl);
    r << f + load - G.transpose() * lambda, g;
    Mat J = Mat::Zero(nq + nl, nq + nl);
    J.topLeftCorner(nq, nq) = fq - H;
    J.topRightCorner(nq, nl) = -G.transpose();
    J.bottomLeftCorner(nl, nq) = G;
    const Vec dx = J.fullPivLu().solve(-r);
    q += dx.head(nq);
    lambda += dx.tail(nl);
    if (dx.lpNorm<Eigen::Infinity>() < 1e-16) break;
  }
  return -q(2 * (n / 2) + 1);
}

TEST(ParticleBeam, MidspanDeflectionIsEulerBernoulliToSecondOrder) {
  const double p = 5e-7;  // delta ~ 1e-5 m on L = 10 m
  const double exact = p * kL * kL * kL / (48.0 * kEI);
  double previous_error = 0.0;
  for (int n : {4, 8, 16}) {
    const double delta = midspan_deflection(n, p);
    const double error = delta / exact - 1.0;
    std::printf("beam N = %2d: delta / delta_EB = %.10f (1 + 2/N^2 = %.10f)\n", n, delta / exact,
                1.0 + 2.0 / (n * n));
    EXPECT_NEAR(delta / exact, 1.0 + 2.0 / (n * n), 1e-6) << n;
    if (n > 4) {
      EXPECT_NEAR(previous_error / error, 4.0, 1e-3) << n;  // second order
    }
    previous_error = error;
  }
}

TEST(ParticleBeam, GeneratedModelHasTheStatedElements) {
  const ModelFile file = parse_model_file(beam_model_yaml(10), "beam");
  ASSERT_TRUE(file.particles);
  const ParticleModelSpec& s = *file.particles;
  EXPECT_EQ(s.particles.size(), 11u);
  EXPECT_EQ(s.trusses.size(), 10u);
  EXPECT_EQ(s.bendings.size(), 9u);
  EXPECT_EQ(s.rods.size(), 4u);  // two pins
  double mass = 0.0;
  for (const ParticleSpec& p : s.particles) mass += p.mass;
  EXPECT_NEAR(mass, 10.0, 1e-12);                                // rho A L
  EXPECT_NEAR(s.bendings[0].stiffness, 4.0 * kEI / 1.0, 1e-12);  // C_b = 4 EI / h, h = 1 m
  EXPECT_EQ(file.settings.method, Method::kRk4);
  EXPECT_THROW((void)beam_model_yaml(1), std::invalid_argument);
}

}  // namespace
}  // namespace rtmb
