// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// GSSSS parameter generator: Hoitink 2011 §2.1 U0/V0 tables (seed 001_95e1ee7b0cc35f6b.txt,
// "Algorithm 1"/"Algorithm 2"), written as the W_i Lambda_j products, plus W1 in closed form
// (derived here from W_i = sum w_j/(1+i+j) / sum w_j/(1+j)).
#include "engine/implicit/gsssss_parameters.hpp"

namespace rtmb {

GsssssParameters gsssss_parameters(GsssssFamily family,
                                   double rho1,
                                   double rho2,
                                   double rho3) noexcept {
  const double p1 = 1.0 + rho1;
  const double p2 = 1.0 + rho2;
  const double p3 = 1.0 + rho3;
  const double s = 3.0 + rho1 + rho2 - rho1 * rho2;  // recurring numerator
  GsssssParameters p;
  p.l1 = 1.0;
  p.l2 = 0.5;
  p.l4 = 1.0;
  p.W3L3 = 1.0 / (p1 * p2 * p3);
  p.W1L6 = (2.0 + rho1 + rho2 + rho3 - rho1 * rho2 * rho3) / (p1 * p2 * p3);
  if (family == GsssssFamily::kU0) {
    // U0 table (reference §1.3); W1 = W2 = W3 = 1/(1+rho3) (§1.5)
    p.W1 = 1.0 / p3;
    p.W1L1 = 1.0 / p3;
    p.W2L2 = 1.0 / (2.0 * p3);
    p.W1L4 = 1.0 / p3;
    p.W2L5 = s / (2.0 * p1 * p2 * p3);
    p.l3 = 1.0 / (p1 * p2);
    p.l5 = s / (2.0 * p1 * p2);
  } else {
    // V0 table (reference §1.4); W1 = (3+r1+r2-r1 r2)/(2(1+r1)(1+r2)) (§1.5)
    p.W1 = s / (2.0 * p1 * p2);
    p.W1L1 = p.W1;
    p.W2L2 = 1.0 / (p1 * p2);
    p.W1L4 = p.W1;
    p.W2L5 = 2.0 / (p1 * p2 * p3);
    p.l3 = 1.0 / (2.0 * p3);
    p.l5 = 1.0 / p3;
  }
  return p;
}

GsssssParameters gsssss_parameters(const Settings& settings) noexcept {
  const ImplicitSettings& im = settings.implicit;
  const double r = im.rho_inf;
  switch (settings.method) {
    case Method::kNewmark:
      return gsssss_parameters(GsssssFamily::kU0, 1.0, 1.0, 0.0);
    case Method::kHht:
      // Table 2.1: rho1 = rho2 = rho, rho3 = (1 - rho1 rho2)/(rho1 + rho2 + 2 rho1 rho2)
      return gsssss_parameters(GsssssFamily::kU0, r, r, (1.0 - r * r) / (2.0 * r + 2.0 * r * r));
    case Method::kWbz:
      return gsssss_parameters(GsssssFamily::kU0, r, r, 0.0);
    case Method::kGenAlpha:
      return gsssss_parameters(GsssssFamily::kU0, r, r, r);
    case Method::kMidpoint:
      return gsssss_parameters(GsssssFamily::kV0, 1.0, 1.0, 0.0);
    default:
      return gsssss_parameters(im.family, im.rho1, im.rho2, im.rho3);
  }
}

}  // namespace rtmb
