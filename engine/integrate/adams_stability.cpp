// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Linear stability of AB_m, AMPC_m and MAMPC_m on the test equation y' = lambda y (Wu, Chiou &
// Lin 2000 eq. 31, Table 2; seed 002_b80ca893801d8a0f.txt).
#include "engine/integrate/adams_stability.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>

namespace rtmb {
namespace {

using CVec = Eigen::VectorXcd;
using CMat = Eigen::MatrixXcd;

// Coefficients alpha_k with y_{n+1} = sum_k alpha_k y_{n-k}, k = 0..m-1, of the PECE recursion
// with the history holding f at the accepted values (f_j = lambda y_j):
//   y^P = y_n + z sum_j b_j y_{n-j}
//   y^C = y_n + z (c_0 y^P + sum_{j>=1} c_j y_{n+1-j})
//   y_{n+1} = y^C (AMPC), w_AB y^P + w_AM y^C (MAMPC), y^P (AB)
CVec recursion(AdamsScheme scheme, int m, std::complex<double> z) {
  const AdamsCoefficients& c = adams_coefficients(m);
  CVec p = CVec::Zero(m);
  p(0) = 1.0;
  for (int j = 0; j < m; ++j) p(j) += z * c.predictor[static_cast<std::size_t>(j)];
  if (scheme == AdamsScheme::kAb) return p;
  CVec corr = z * c.corrector[0] * p;
  corr(0) += 1.0;
  for (int j = 1; j < m; ++j) corr(j - 1) += z * c.corrector[static_cast<std::size_t>(j)];
  if (scheme == AdamsScheme::kAmpc) return corr;
  return c.w_ab * p + c.w_am * corr;
}

}  // namespace

double adams_spectral_radius(AdamsScheme scheme, int steps, std::complex<double> z) {
  const CVec alpha = recursion(scheme, steps, z);
  // companion matrix of zeta^m - sum_k alpha_k zeta^(m-1-k)
  CMat companion = CMat::Zero(steps, steps);
  companion.row(0) = alpha.transpose();
  for (int i = 1; i < steps; ++i) companion(i, i - 1) = 1.0;
  const Eigen::ComplexEigenSolver<CMat> solver(companion, false);
  return solver.eigenvalues().cwiseAbs().maxCoeff();
}

double adams_real_stability_limit(AdamsScheme scheme, int steps) {
  const auto stable = [&](double x) {
    return adams_spectral_radius(scheme, steps, {-x, 0.0}) <= 1.0 + 1e-12;
  };
  double lo = 0.0;
  double hi = 0.0;
  for (double x = 1e-3;; x += 1e-3) {
    if (!stable(x)) {
      hi = x;
      break;
    }
    lo = x;
    if (x > 100.0) return x;  // unbounded in this range
  }
  while (hi - lo > 1e-10) {
    const double mid = 0.5 * (lo + hi);
    (stable(mid) ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace rtmb
