// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Rolling disc on a horizontal plane, Chin 1995 §4.6 (reference/post-stabilization-chin1995.md
// §3.11): the thesis's nonholonomic, index-2 example.
//
// q = (x, y, phi, theta, psi): (x, y) the contact point, phi the angle between Ox and the line
// where the disc plane meets the ground, theta the tilt of the disc plane from Oz, psi the spin.
// With e = (cos phi, sin phi, 0) along the contact line, n = (-sin phi, cos phi, 0) and z up, the
// unit vector from the contact point to the centre is d = sin(theta) n + cos(theta) z and the
// disc axis a = e x d = -cos(theta) n + sin(theta) z, so the centre is c = (x, y, 0) + r d and
// the body's angular velocity is w = phi' z - theta' e + psi' a, whose components along (e, d, a)
// are (-theta', phi' cos theta, psi' + phi' sin theta). With the principal moments A (diametral)
// and C (polar), T = 1/2 m |c'|^2 + 1/2 A (theta'^2 + phi'^2 cos^2 theta) + 1/2 C (psi' + phi'
// sin theta)^2, which expands to Chin's eq. 4.30:
//   T = 1/2 m (x'^2 + y'^2 + r^2 theta'^2 + r^2 phi'^2 sin^2 theta)
//       - m r [theta' cos theta (x' sin phi - y' cos phi) + phi' sin theta (x' cos phi + y' sin
//       phi)]
//       + 1/2 A (theta'^2 + phi'^2 cos^2 theta) + 1/2 C (psi' + phi' sin theta)^2,
// and V = m g r cos theta. Hence M(q) (T = 1/2 v^T M v) below, and the Lagrange equations give
//   f = 1/2 (v^T M_phi v, v^T M_theta v) in the (phi, theta) rows - (phi' M_phi + theta' M_theta) v
//       + (0, 0, 0, m g r sin theta, 0),
// M_phi = dM/dphi, M_theta = dM/dtheta (M depends on no other coordinate).
//
// Rolling without slip: the disc's material point at the contact, c + w x (-r d), has velocity
// p' - r psi' (a x d) = p' + r psi' e, so its vanishing is eq. 4.29/4.31:
//   x' + r cos(phi) psi' = 0,  y' + r sin(phi) psi' = 0,
// A = [[1, 0, 0, 0, r cos phi], [0, 1, 0, 0, r sin phi]], a = 0. These are the System's
// nonholonomic rows (rtmb/system.hpp): g = 0, G = A, g_t = 0, and
//   L = d/dt(A v) - A v' = A'(q)[v] v = (-r sin(phi) phi' psi', r cos(phi) phi' psi'),
//   d(A v)/dq: only the phi column, (-r sin(phi) psi', r cos(phi) psi').
// The vertical velocity of the contact point is zero identically (the lowest point of the rim),
// so no third row exists.
//
// Initial data (reference §3.11, the best reading of the garbled OCR): q(0) = (0, 0, pi/2, 0, 0),
// v(0) = (0, 0.1, 0.1, -0.1, -0.1), consistent with the rows for r = 1; the disc starts upright
// and falls flat by t = 1.6 .. 1.8 (Fig. 4.39).

#include <cmath>
#include <numbers>

#include "engine/mechanisms/mechanisms_impl.hpp"

namespace rtmb::detail {
namespace {

using Mat5 = Eigen::Matrix<double, 5, 5>;
using Vec5 = Eigen::Matrix<double, 5, 1>;

constexpr double kR = RollingDisc::kRadius;
constexpr double kM = RollingDisc::kMass;
constexpr double kA = RollingDisc::kDiametral;
constexpr double kC = RollingDisc::kPolar;
constexpr double kG = RollingDisc::kGravity;

enum Coordinate { kX = 0, kY = 1, kPhi = 2, kTheta = 3, kPsi = 4 };

void set_symmetric(Mat5& m, int i, int j, double value) noexcept {
  m(i, j) = value;
  m(j, i) = value;
}

// M(q) of T = 1/2 v^T M v (eq. 4.30)
Mat5 mass_matrix(double phi, double theta) noexcept {
  const double sp = std::sin(phi);
  const double cp = std::cos(phi);
  const double st = std::sin(theta);
  const double ct = std::cos(theta);
  Mat5 m = Mat5::Zero();
  m(kX, kX) = kM;
  m(kY, kY) = kM;
  set_symmetric(m, kX, kPhi, -kM * kR * st * cp);
  set_symmetric(m, kY, kPhi, -kM * kR * st * sp);
  set_symmetric(m, kX, kTheta, -kM * kR * ct * sp);
  set_symmetric(m, kY, kTheta, kM * kR * ct * cp);
  m(kPhi, kPhi) = kM * kR * kR * st * st + kA * ct * ct + kC * st * st;
  set_symmetric(m, kPhi, kPsi, kC * st);
  m(kTheta, kTheta) = kM * kR * kR + kA;
  m(kPsi, kPsi) = kC;
  return m;
}

// dM/dphi
Mat5 mass_dphi(double phi, double theta) noexcept {
  const double sp = std::sin(phi);
  const double cp = std::cos(phi);
  const double st = std::sin(theta);
  const double ct = std::cos(theta);
  Mat5 m = Mat5::Zero();
  set_symmetric(m, kX, kPhi, kM * kR * st * sp);
  set_symmetric(m, kY, kPhi, -kM * kR * st * cp);
  set_symmetric(m, kX, kTheta, -kM * kR * ct * cp);
  set_symmetric(m, kY, kTheta, -kM * kR * ct * sp);
  return m;
}

// dM/dtheta
Mat5 mass_dtheta(double phi, double theta) noexcept {
  const double sp = std::sin(phi);
  const double cp = std::cos(phi);
  const double st = std::sin(theta);
  const double ct = std::cos(theta);
  Mat5 m = Mat5::Zero();
  set_symmetric(m, kX, kPhi, -kM * kR * ct * cp);
  set_symmetric(m, kY, kPhi, -kM * kR * ct * sp);
  set_symmetric(m, kX, kTheta, kM * kR * st * sp);
  set_symmetric(m, kY, kTheta, -kM * kR * st * cp);
  m(kPhi, kPhi) = 2.0 * st * ct * (kM * kR * kR - kA + kC);
  set_symmetric(m, kPhi, kPsi, kC * ct);
  return m;
}

}  // namespace

void RollingDisc::initial_state(State& out) const {
  out = State(n_q(), n_v());
  out.q << 0.0, 0.0, std::numbers::pi / 2.0, 0.0, 0.0;
  out.v << 0.0, 0.1, 0.1, -0.1, -0.1;
}

void RollingDisc::mass(double /*t*/, VecCRef q, MatRef out_M) const noexcept {
  out_M = mass_matrix(q(kPhi), q(kTheta));
}

void RollingDisc::forces(
    double /*t*/, VecCRef q, VecCRef v, InputValues /*u*/, VecRef out_f) const noexcept {
  const Vec5 w = v;
  const Mat5 m_phi = mass_dphi(q(kPhi), q(kTheta));
  const Mat5 m_theta = mass_dtheta(q(kPhi), q(kTheta));
  // Lagrange: M v' = 1/2 d(v^T M v)/dq - M' v - dV/dq, M' = phi' M_phi + theta' M_theta
  Vec5 f = -(w(kPhi) * m_phi + w(kTheta) * m_theta) * w;
  f(kPhi) += 0.5 * w.dot(m_phi * w);
  f(kTheta) += 0.5 * w.dot(m_theta * w) + kM * kG * kR * std::sin(q(kTheta));
  out_f = f;
}

void RollingDisc::constraints(double /*t*/, VecCRef /*q*/, VecRef out_g) const noexcept {
  out_g.setZero();  // nonholonomic rows: no position residual (rtmb/system.hpp)
}

void RollingDisc::jacobian(double /*t*/, VecCRef q, MatRef out_G) const noexcept {
  out_G.setZero();
  out_G(0, kX) = 1.0;
  out_G(1, kY) = 1.0;
  out_G(0, kPsi) = kR * std::cos(q(kPhi));
  out_G(1, kPsi) = kR * std::sin(q(kPhi));
}

void RollingDisc::curvature(double /*t*/, VecCRef q, VecCRef v, VecRef out_L) const noexcept {
  const double rate = kR * v(kPhi) * v(kPsi);
  out_L(0) = -std::sin(q(kPhi)) * rate;
  out_L(1) = std::cos(q(kPhi)) * rate;
}

void RollingDisc::velocity_constraint_jacobian(double /*t*/,
                                               VecCRef q,
                                               VecCRef v,
                                               MatRef out_Gv_q) const noexcept {
  out_Gv_q.setZero();
  out_Gv_q(0, kPhi) = -kR * std::sin(q(kPhi)) * v(kPsi);
  out_Gv_q(1, kPhi) = kR * std::cos(q(kPhi)) * v(kPsi);
}

double RollingDisc::energy(double /*t*/, VecCRef q, VecCRef v, InputValues /*u*/) const noexcept {
  const Vec5 w = v;
  return 0.5 * w.dot(mass_matrix(q(kPhi), q(kTheta)) * w) + kM * kG * kR * std::cos(q(kTheta));
}

// ---- drawing geometry (rtmb/models/joint_points.hpp) -----------------------------------------
// Points: 0 the contact point (on the ground, drawn as the ground block), 1 the centre c, 2..9
// eight rim points fixed in the disc, c + r (cos(b + psi) e + sin(b + psi) (-d)) for
// b = k pi/4 (rim point 2 at psi = 0 is the contact point itself). Bars: the rim octagon, the
// spoke from the centre to rim point 2 (it shows the spin) and the centre-to-contact radius.
namespace {
constexpr int kRimPoints = 8;
constexpr std::array<JointLink, kRimPoints + 2> kDiscBars{
    {{2, 3}, {3, 4}, {4, 5}, {5, 6}, {6, 7}, {7, 8}, {8, 9}, {9, 2}, {1, 2}, {0, 1}}};
constexpr std::array<int, 1> kDiscGround{0};
}  // namespace

int RollingDisc::n_joint_points() const noexcept {
  return 2 + kRimPoints;
}
std::span<const JointLink> RollingDisc::joint_links() const noexcept {
  return kDiscBars;
}
std::span<const int> RollingDisc::ground_points() const noexcept {
  return kDiscGround;
}
void RollingDisc::joint_points(double /*t*/,
                               VecCRef q,
                               std::span<Eigen::Vector3d> out) const noexcept {
  const double sp = std::sin(q(kPhi));
  const double cp = std::cos(q(kPhi));
  const double st = std::sin(q(kTheta));
  const double ct = std::cos(q(kTheta));
  const Eigen::Vector3d e(cp, sp, 0.0);
  const Eigen::Vector3d d(-st * sp, st * cp, ct);
  out[0] = {q(kX), q(kY), 0.0};
  out[1] = out[0] + kR * d;
  for (int k = 0; k < kRimPoints; ++k) {
    const double b = q(kPsi) + k * (2.0 * std::numbers::pi / kRimPoints);
    out[static_cast<std::size_t>(2 + k)] = out[1] + kR * (std::cos(b) * (-d) + std::sin(b) * e);
  }
}

}  // namespace rtmb::detail
