// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Bending element (engine/multibody/bending_element.hpp; Hoitink 2011 §4.2.2, reference
// gsssss-hoitink2011.md §4.3). With s = nu - psi > 0:
//   V = C (nu + psi) / (2 s),   V_psi = C nu / s^2,   V_nu = -C psi / s^2,
//   V_psipsi = 2 C nu / s^3,    V_nunu = 2 C psi / s^3,   V_psinu = -C (nu + psi) / s^3,
// and psi = r1.r2, nu = l1 l2 have the derivatives
//   dpsi/dr1 = r2, dpsi/dr2 = r1,   d2psi/dr1dr2 = I;
//   dnu/dr1 = (l2/l1) r1, dnu/dr2 = (l1/l2) r2,
//   d2nu/dr1^2 = (l2/l1)(I - n1 n1^T), d2nu/dr2^2 = (l1/l2)(I - n2 n2^T), d2nu/dr1dr2 = n1 n2^T.
//
// Discrete gradient (eq. 4.45 with the corrected nu numerator, reference P6; primes: t_{n+1}):
//   P = 1/2 [V(psi',nu') - V(psi,nu') + V(psi',nu) - V(psi,nu)]/(psi'-psi) dpsi
//     + 1/2 [V(psi',nu') - V(psi',nu) + V(psi,nu') - V(psi,nu)]/(nu'-nu)  dnu
// with dpsi = (r2m, r1m) at the midpoints r_km = (r_k + r_k')/2 (psi is bilinear, so
// dpsi . dr = psi' - psi exactly) and dnu = ((L2/L1) r1m, (L1/L2) r2m) with the averaged lengths
// L_k = (l_k + l_k')/2 (then dnu . dr = L2 (l1' - l1) + L1 (l2' - l2) = nu' - nu exactly, reference
// §4.3 [derived]). The two halves of each bracket are divided differences of V in one argument,
// which have closed forms that never divide by psi' - psi or nu' - nu:
//   [V(psi',nu) - V(psi,nu)] / (psi' - psi) = C nu / ((nu - psi')(nu - psi)),
//   [V(psi,nu') - V(psi,nu)] / (nu' - nu)   = -C psi / ((nu' - psi)(nu - psi)).
// So no midpoint-derivative fallback is needed when a denominator vanishes (the switch Hoitink
// describes for the quotients as printed): the closed forms are continuous there and equal the
// midpoint derivatives V_psi, V_nu in the limit, without the cancellation of the quotients.
#include "engine/multibody/bending_element.hpp"

#include <Eigen/Dense>
#include <cmath>

namespace rtmb {

namespace {

using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;

// [V(psi1, nu) - V(psi0, nu)] / (psi1 - psi0)
double dpsi_quotient(double c, double psi0, double psi1, double nu) noexcept {
  return c * nu / ((nu - psi1) * (nu - psi0));
}

// [V(psi, nu1) - V(psi, nu0)] / (nu1 - nu0)
double dnu_quotient(double c, double psi, double nu0, double nu1) noexcept {
  return -c * psi / ((nu1 - psi) * (nu0 - psi));
}

}  // namespace

double BendingElement::energy(const Vec3& r1, const Vec3& r2) const noexcept {
  const double psi = r1.dot(r2);
  const double nu = r1.norm() * r2.norm();
  return 0.5 * stiffness * (nu + psi) / (nu - psi);
}

BendingGradient BendingElement::gradient(const Vec3& r1, const Vec3& r2) const noexcept {
  const double l1 = r1.norm();
  const double l2 = r2.norm();
  const double psi = r1.dot(r2);
  const double nu = l1 * l2;
  const double s = nu - psi;
  const double v_psi = stiffness * nu / (s * s);
  const double v_nu = -stiffness * psi / (s * s);
  BendingGradient g;
  g.d1 = v_psi * r2 + v_nu * (l2 / l1) * r1;
  g.d2 = v_psi * r1 + v_nu * (l1 / l2) * r2;
  return g;
}

Eigen::Matrix<double, 6, 6> BendingElement::hessian(const Vec3& r1, const Vec3& r2) const noexcept {
  const double l1 = r1.norm();
  const double l2 = r2.norm();
  const double psi = r1.dot(r2);
  const double nu = l1 * l2;
  const double s = nu - psi;
  const double c = stiffness;
  const double v_psi = c * nu / (s * s);
  const double v_nu = -c * psi / (s * s);
  const double v_pp = 2.0 * c * nu / (s * s * s);
  const double v_nn = 2.0 * c * psi / (s * s * s);
  const double v_pn = -c * (nu + psi) / (s * s * s);
  Eigen::Matrix<double, 6, 1> dpsi;
  dpsi << r2, r1;
  Eigen::Matrix<double, 6, 1> dnu;
  dnu << (l2 / l1) * r1, (l1 / l2) * r2;
  const Vec3 n1 = r1 / l1;
  const Vec3 n2 = r2 / l2;
  Eigen::Matrix<double, 6, 6> psi_xx = Eigen::Matrix<double, 6, 6>::Zero();
  psi_xx.topRightCorner<3, 3>() = Mat3::Identity();
  psi_xx.bottomLeftCorner<3, 3>() = Mat3::Identity();
  Eigen::Matrix<double, 6, 6> nu_xx;
  nu_xx.topLeftCorner<3, 3>() = (l2 / l1) * (Mat3::Identity() - n1 * n1.transpose());
  nu_xx.bottomRightCorner<3, 3>() = (l1 / l2) * (Mat3::Identity() - n2 * n2.transpose());
  nu_xx.topRightCorner<3, 3>() = n1 * n2.transpose();
  nu_xx.bottomLeftCorner<3, 3>() = n2 * n1.transpose();
  return v_pp * dpsi * dpsi.transpose() + v_pn * (dpsi * dnu.transpose() + dnu * dpsi.transpose()) +
         v_nn * dnu * dnu.transpose() + v_psi * psi_xx + v_nu * nu_xx;
}

BendingGradient BendingElement::discrete_gradient(const Vec3& r1_0,
                                                  const Vec3& r2_0,
                                                  const Vec3& r1_1,
                                                  const Vec3& r2_1) const noexcept {
  const double c = stiffness;
  const double l1_0 = r1_0.norm();
  const double l2_0 = r2_0.norm();
  const double l1_1 = r1_1.norm();
  const double l2_1 = r2_1.norm();
  const double psi0 = r1_0.dot(r2_0);
  const double psi1 = r1_1.dot(r2_1);
  const double nu0 = l1_0 * l2_0;
  const double nu1 = l1_1 * l2_1;
  // the psi and nu coefficients of eq. 4.45 (corrected), each the mean of two divided differences
  const double a_psi =
      0.5 * (dpsi_quotient(c, psi0, psi1, nu1) + dpsi_quotient(c, psi0, psi1, nu0));
  const double a_nu = 0.5 * (dnu_quotient(c, psi1, nu0, nu1) + dnu_quotient(c, psi0, nu0, nu1));
  const Vec3 r1m = 0.5 * (r1_0 + r1_1);
  const Vec3 r2m = 0.5 * (r2_0 + r2_1);
  const double L1 = 0.5 * (l1_0 + l1_1);
  const double L2 = 0.5 * (l2_0 + l2_1);
  BendingGradient g;
  g.d1 = a_psi * r2m + a_nu * (L2 / L1) * r1m;
  g.d2 = a_psi * r1m + a_nu * (L1 / L2) * r2m;
  return g;
}

}  // namespace rtmb
