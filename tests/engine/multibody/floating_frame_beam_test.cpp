// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Floating-frame beam (engine/multibody/floating_frame_beam.hpp; Chin 1995 §3.12, reference
// post-stabilization-chin1995.md): static deflections against the Euler-Bernoulli closed forms
// (cantilever tip load P L^3 / (3 E I), simply supported mid load P L^3 / (48 E I), axial P L /
// (E a)), the mass matrix against the kinetic energy integrated independently from the body
// points' velocities (time differences of point positions, a 5-point Gauss rule), the
// quadratic-velocity vector against Lagrange's equations (dT/dq - M' v by finite differences),
// the applied forces against -d(U + V)/dq, the point Jacobian and curvature against differences
// of the point position, and the undeformed beam against a rigid bar.
#include "engine/multibody/floating_frame_beam.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <array>
#include <cmath>
#include <stdexcept>

#include "tests/engine/multibody/multibody_test_support.hpp"

namespace rtmb {
namespace {

using multibody_test::central_gradient;
using multibody_test::expect_near;
using multibody_test::fd_jacobian;
using multibody_test::random_state;

// A steel-like rod in SI units (values only need to be positive; Table 5.1's data in inches are
// used by the slider-crank test)
FloatingFrameBeamSpec rod(BeamSupport support, int elements) {
  FloatingFrameBeamSpec s;
  s.length = 1.3;
  s.youngs_modulus = 2.1e11;
  s.density = 7800.0;
  s.area = 3.0e-4;
  s.second_moment = 2.5e-8;
  s.elements = elements;
  s.support = support;
  return s;
}

// The static elastic deflection under a body-frame point load P at abscissa x: K_ff u = S(x)^T P
Vec static_deflection(const FloatingFrameBeam& beam, double x, const Eigen::Vector2d& load) {
  const BeamStation s = beam.station(x);
  Vec f = Vec::Zero(beam.n_elastic());
  for (int c = 0; c < 6; ++c) {
    const int i = s.index[static_cast<std::size_t>(c)];
    if (i >= 0) f(i) += s.shape.col(c).dot(load);
  }
  return beam.stiffness().ldlt().solve(f);
}

TEST(FloatingFrameBeam, CantileverTipLoadMatchesEulerBernoulli) {
  for (const int n : {4, 7}) {
    const FloatingFrameBeam beam(rod(BeamSupport::kClamped, n));
    const auto& sp = beam.spec();
    const double p = 150.0;
    const Vec u = static_deflection(beam, sp.length, {0.0, p});
    const double tip = beam.displacement(beam.station(sp.length), u).y();
    const double exact = p * std::pow(sp.length, 3) / (3.0 * sp.youngs_modulus * sp.second_moment);
    EXPECT_NEAR(tip / exact, 1.0, 1e-6) << n << " elements";
    // the slope at the tip, P L^2 / (2 E I)
    const double slope = u(beam.elastic_index(n, 2));
    EXPECT_NEAR(slope / (p * sp.length * sp.length / (2.0 * sp.youngs_modulus * sp.second_moment)),
                1.0, 1e-6);
    // an axial tip load stretches it by P L / (E a)
    const Vec ua = static_deflection(beam, sp.length, {p, 0.0});
    EXPECT_NEAR(beam.displacement(beam.station(sp.length), ua).x() /
                    (p * sp.length / (sp.youngs_modulus * sp.area)),
                1.0, 1e-6);
  }
}

TEST(FloatingFrameBeam, SimplySupportedMidLoadMatchesEulerBernoulli) {
  for (const int n : {4, 6}) {
    const FloatingFrameBeam beam(rod(BeamSupport::kSimplySupported, n));
    const auto& sp = beam.spec();
    const double p = -80.0;
    const Vec u = static_deflection(beam, 0.5 * sp.length, {0.0, p});
    const double mid = beam.displacement(beam.station(0.5 * sp.length), u).y();
    const double exact = p * std::pow(sp.length, 3) / (48.0 * sp.youngs_modulus * sp.second_moment);
    EXPECT_NEAR(mid / exact, 1.0, 1e-6) << n << " elements";
    // the supports hold: no transverse displacement at either end
    EXPECT_EQ(beam.displacement(beam.station(0.0), u).norm(), 0.0);
    EXPECT_EQ(beam.displacement(beam.station(sp.length), u).y(), 0.0);
  }
}

TEST(FloatingFrameBeam, ElasticCoordinatesFollowChinsLayout) {
  // §3.12: two elements, simply supported, q_f = (q1_3, q1_4, q1_5, q1_6, q2_4, q2_6)
  const FloatingFrameBeam beam(rod(BeamSupport::kSimplySupported, 2));
  EXPECT_EQ(beam.n_elastic(), 6);
  EXPECT_EQ(beam.n_coordinates(), 9);
  EXPECT_EQ(beam.elastic_index(0, 0), -1);
  EXPECT_EQ(beam.elastic_index(0, 1), -1);
  EXPECT_EQ(beam.elastic_index(0, 2), 0);
  EXPECT_EQ(beam.elastic_index(1, 0), 1);
  EXPECT_EQ(beam.elastic_index(1, 1), 2);
  EXPECT_EQ(beam.elastic_index(1, 2), 3);
  EXPECT_EQ(beam.elastic_index(2, 0), 4);
  EXPECT_EQ(beam.elastic_index(2, 1), -1);
  EXPECT_EQ(beam.elastic_index(2, 2), 5);
  EXPECT_EQ(FloatingFrameBeam(rod(BeamSupport::kClamped, 3)).n_elastic(), 9);
}

// T = 1/2 int rho |r'|^2 dx from the points' velocities (central time differences of
// point_position along q + t v) and a 5-point Gauss rule per element: independent of the
// invariants behind mass_matrix and kinetic_energy
double kinetic_by_quadrature(const FloatingFrameBeam& beam, const Vec& q, const Vec& v) {
  static constexpr std::array<double, 5> kX{0.04691007703066800, 0.23076534494715845, 0.5,
                                            0.76923465505284155, 0.95308992296933200};
  static constexpr std::array<double, 5> kW{0.11846344252809454, 0.23931433524968324,
                                            0.28444444444444444, 0.23931433524968324,
                                            0.11846344252809454};
  const auto& sp = beam.spec();
  const double l = sp.length / sp.elements;
  const double h = 1e-6;
  double t = 0.0;
  for (int j = 0; j < sp.elements; ++j) {
    for (std::size_t g = 0; g < kX.size(); ++g) {
      const BeamStation s = beam.station((j + kX[g]) * l);
      const Vec qp = q + h * v;
      const Vec qm = q - h * v;
      const Eigen::Vector2d rd =
          (beam.point_position(qp, s) - beam.point_position(qm, s)) / (2 * h);
      t += 0.5 * sp.density * sp.area * l * kW[g] * rd.squaredNorm();
    }
  }
  return t;
}

TEST(FloatingFrameBeam, MassMatrixIsTheKineticEnergysHessian) {
  for (const BeamSupport support : {BeamSupport::kSimplySupported, BeamSupport::kClamped}) {
    const FloatingFrameBeam beam(rod(support, 3));
    const int n = beam.n_coordinates();
    auto st = random_state(n, 7u, 0.8);
    st.q.tail(beam.n_elastic()) *= 0.05;  // deflections small against L, still far from zero
    Mat m(n, n);
    beam.mass_matrix(st.q, m);
    // polarization of the quadratic form T(v) = v^T M v / 2: M_ij = T(e_i + e_j) - T(e_i) - T(e_j)
    Mat m_quad(n, n);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        const Vec ei = Vec::Unit(n, i);
        const Vec ej = Vec::Unit(n, j);
        m_quad(i, j) = kinetic_by_quadrature(beam, st.q, ei + ej) -
                       kinetic_by_quadrature(beam, st.q, ei) -
                       kinetic_by_quadrature(beam, st.q, ej);
      }
    }
    expect_near(m, m_quad, 1e-7, "M vs the integrated T");
    EXPECT_NEAR(beam.kinetic_energy(st.q, st.v), 0.5 * st.v.dot(m * st.v), 1e-12);
    EXPECT_GT(m.selfadjointView<Eigen::Lower>().ldlt().vectorD().minCoeff(), 0.0);
  }
}

TEST(FloatingFrameBeam, QuadraticVelocityVectorSatisfiesLagrange) {
  // M v' + M' v - dT/dq = Q, so Q_v = dT/dq - M' v (M' = dM/dt along q' = v)
  const FloatingFrameBeam beam(rod(BeamSupport::kSimplySupported, 2));
  const int n = beam.n_coordinates();
  auto st = random_state(n, 11u, 1.5);
  st.q.tail(beam.n_elastic()) *= 0.05;
  const Vec dtdq =
      central_gradient([&](const Vec& q) { return beam.kinetic_energy(q, st.v); }, st.q);
  const double h = 1e-6;
  Mat mp(n, n);
  Mat mm(n, n);
  beam.mass_matrix(st.q + h * st.v, mp);
  beam.mass_matrix(st.q - h * st.v, mm);
  const Vec expected = dtdq - (mp - mm) / (2 * h) * st.v;
  Vec qv(n);
  beam.quadratic_velocity(st.q, st.v, qv);
  expect_near(qv, expected, 1e-7, "Q_v vs Lagrange");
}

TEST(FloatingFrameBeam, AppliedForcesAreMinusThePotentialsGradient) {
  const FloatingFrameBeam beam(rod(BeamSupport::kClamped, 3));
  const int n = beam.n_coordinates();
  auto st = random_state(n, 3u, 1.0);
  st.q.tail(beam.n_elastic()) *= 1e-3;
  const Eigen::Vector2d g(1.5, -9.81);
  Vec f(n);
  beam.applied_forces(st.q, g, f);
  const Vec grad = central_gradient(
      [&](const Vec& q) { return beam.strain_energy(q) + beam.field_potential(q, g); }, st.q, 1e-7);
  expect_near(f, -grad, 1e-7, "f vs -d(U + V)/dq");
  const auto q_f = st.q.tail(beam.n_elastic());
  const double u = 0.5 * q_f.dot(beam.stiffness() * q_f);
  EXPECT_NEAR(beam.strain_energy(st.q), u, 1e-13 * u);
}

TEST(FloatingFrameBeam, PointJacobianAndCurvatureMatchDifferences) {
  const FloatingFrameBeam beam(rod(BeamSupport::kSimplySupported, 3));
  const int n = beam.n_coordinates();
  auto st = random_state(n, 5u, 1.0);
  st.q.tail(beam.n_elastic()) *= 0.05;
  for (const double x : {0.0, 0.37, 0.65, 1.3}) {
    const BeamStation s = beam.station(x);
    Mat jac(2, n);
    beam.point_jacobian(st.q, s, jac);
    const Mat jac_fd =
        fd_jacobian([&](const Vec& q) { return Vec(beam.point_position(q, s)); }, st.q);
    expect_near(jac, jac_fd, 1e-8, "point Jacobian");
    Mat jv(2, n);
    beam.point_velocity_jacobian(st.q, st.v, s, jv);
    const Mat jv_fd = fd_jacobian(
        [&](const Vec& q) {
          Mat j(2, n);
          beam.point_jacobian(q, s, j);
          return Vec(j * st.v);
        },
        st.q);
    expect_near(jv, jv_fd, 1e-8, "d(J v)/dq");
    const double h = 1e-4;
    const Eigen::Vector2d second =
        (beam.point_position(st.q + h * st.v, s) - 2 * beam.point_position(st.q, s) +
         beam.point_position(st.q - h * st.v, s)) /
        (h * h);
    expect_near(beam.point_curvature(st.q, st.v, s), second, 1e-6, "point curvature");
  }
}

// w'(x) = S_t'(x) q_f against central differences in x of the deflection S_t(x) q_f, inside
// elements and at nodes (from either side the Hermite slope is continuous), and at a node equal
// to its slope coordinate (Chin's layout: node k's coordinates 3 k, 3 k + 1, 3 k + 2, less those a
// support removes)
TEST(FloatingFrameBeam, SlopeIsTheDerivativeOfTheDeflection) {
  for (const BeamSupport support : {BeamSupport::kSimplySupported, BeamSupport::kClamped}) {
    const FloatingFrameBeam beam(rod(support, 3));
    const Vec q_f = random_state(beam.n_elastic(), 7u, 0.01).q;
    const double length = beam.spec().length;
    for (const double x : {0.05, 0.3, 0.37, 0.65, 0.9, 1.25}) {
      const double h = 1e-6;
      const double fd = (beam.displacement(beam.station(x + h), q_f).y() -
                         beam.displacement(beam.station(x - h), q_f).y()) /
                        (2.0 * h);
      EXPECT_NEAR(beam.slope(beam.station(x), q_f), fd, 1e-8 * q_f.cwiseAbs().maxCoeff())
          << "x " << x;
    }
    for (int node = 0; node <= 3; ++node) {
      const int i = beam.elastic_index(node, 2);
      const double expected = i < 0 ? 0.0 : q_f(i);
      EXPECT_NEAR(beam.slope(beam.station(node * length / 3.0), q_f), expected, 1e-15) << node;
    }
  }
}

TEST(FloatingFrameBeam, InertiaJacobianMatchesDifferencesOfMTimesA) {
  // K = d(M(q) a)/dq at fixed a, the implicit methods' inertia block, against central
  // differences of mass_matrix(q) a, at a bent, turned state and for both supports
  for (const BeamSupport support : {BeamSupport::kSimplySupported, BeamSupport::kClamped}) {
    const FloatingFrameBeam beam(rod(support, 3));
    const int n = beam.n_coordinates();
    auto st = random_state(n, 13u, 1.2);
    st.q.tail(beam.n_elastic()) *= 0.05;
    const Vec a = st.v * 40.0;  // an acceleration-sized vector
    Mat k(n, n);
    beam.inertia_jacobian(st.q, a, k);
    const Mat k_fd = fd_jacobian(
        [&](const Vec& q) {
          Mat m(n, n);
          beam.mass_matrix(q, m);
          return Vec(m * a);
        },
        st.q);
    expect_near(k, k_fd, 1e-8, "d(M a)/dq");
    // not trivially zero: theta and the elastic coordinates both move M a
    EXPECT_GT(k.col(2).norm(), 1e-3 * k_fd.norm());
    EXPECT_GT(k.rightCols(beam.n_elastic()).norm(), 1e-3 * k_fd.norm());
    EXPECT_EQ(k.leftCols(2).norm(), 0.0);  // M does not depend on R
  }
}

TEST(FloatingFrameBeam, UndeformedBeamIsARigidBar) {
  const FloatingFrameBeam beam(rod(BeamSupport::kSimplySupported, 4));
  const auto& sp = beam.spec();
  const double m = sp.density * sp.area * sp.length;
  EXPECT_NEAR(beam.mass() / m, 1.0, 1e-14);
  const int n = beam.n_coordinates();
  const int nf = beam.n_elastic();
  auto st = random_state(n, 9u, 2.0);
  st.q.tail(nf).setZero();
  st.v.tail(nf).setZero();
  // a rigid bar of length L described by its end R and angle theta: centre R + A (L/2, 0),
  // T = m |R' + theta' A I~ (L/2, 0)|^2 / 2 + (m L^2 / 12) theta'^2 / 2
  const double th = st.q(2);
  const Eigen::Vector2d arm(-std::sin(th) * sp.length / 2, std::cos(th) * sp.length / 2);
  const Eigen::Vector2d vc = st.v.head<2>() + st.v(2) * arm;
  const double t_bar =
      0.5 * m * vc.squaredNorm() + 0.5 * m * sp.length * sp.length / 12.0 * st.v(2) * st.v(2);
  EXPECT_NEAR(beam.kinetic_energy(st.q, st.v), t_bar, 1e-12 * t_bar);
  Mat mm(n, n);
  beam.mass_matrix(st.q, mm);
  EXPECT_NEAR(mm(2, 2), m * sp.length * sp.length / 3.0, 1e-14);
  // dropped under gravity at rest, the beam falls rigidly: M a = Q solves to a = (g, 0, 0)
  const Eigen::Vector2d g(0.0, -9.81);
  Vec f(n);
  Vec qv(n);
  beam.applied_forces(st.q, g, f);
  beam.quadratic_velocity(st.q, Vec::Zero(n), qv);
  const Vec a = mm.ldlt().solve(f + qv);
  Vec expected = Vec::Zero(n);
  expected.head<2>() = g;
  expect_near(a, expected, 1e-9, "free fall");
  // the potential is the bar's: -m g . centre
  EXPECT_NEAR(beam.field_potential(st.q, g),
              -m * g.dot(st.q.head<2>() + Eigen::Vector2d(arm.y(), -arm.x())), 1e-12);
}

TEST(FloatingFrameBeam, RejectsBadData) {
  auto bad = rod(BeamSupport::kClamped, 2);
  bad.length = 0.0;
  EXPECT_THROW(FloatingFrameBeam{bad}, std::invalid_argument);
  bad = rod(BeamSupport::kClamped, 0);
  EXPECT_THROW(FloatingFrameBeam{bad}, std::invalid_argument);
  bad = rod(BeamSupport::kClamped, 2);
  bad.second_moment = std::nan("");
  EXPECT_THROW(FloatingFrameBeam{bad}, std::invalid_argument);
}

}  // namespace
}  // namespace rtmb
