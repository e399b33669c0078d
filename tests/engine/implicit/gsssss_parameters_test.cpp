// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The GSSSS parameter generator against (1) Hoitink 2011's numeric parameter tables (seed
// 001_95e1ee7b0cc35f6b.txt), (2) the weight-function definition of W_i (seed Algorithms 1-2),
// evaluated here by its own quadrature formula, and (3) the closed forms of the classical methods
// each named parameter set must reproduce (Newmark, Chung-Hulbert generalized-alpha, HHT-alpha,
// WBZ-alpha) through beta = lambda_3, gamma = lambda_5, 1 - alpha_f = W1, 1 - alpha_m = W1 L6.
#include "engine/implicit/gsssss_parameters.hpp"

#include <gtest/gtest.h>

#include <array>

namespace rtmb {
namespace {

struct Row {
  GsssssFamily family;
  double r1, r2, r3;
  std::array<double, 10> expected;  // W1 W1L1 W2L2 W3L3 W1L4 W2L5 W1L6 l3 l5 (+ unused)
};

constexpr GsssssFamily kU = GsssssFamily::kU0;
constexpr GsssssFamily kV = GsssssFamily::kV0;

TEST(GsssssParameters, MatchReferenceTable) {
  // reference §1.6 "Numeric parameter values" (6 significant digits)
  const Row rows[] = {
      {kU, 1, 1, 0, {1, 1, 0.5, 0.25, 1, 0.5, 1, 0.25, 0.5}},
      {kU, 1, 1, 1, {0.5, 0.5, 0.25, 0.125, 0.5, 0.25, 0.5, 0.25, 0.5}},
      {kV, 1, 1, 1, {0.5, 0.5, 0.25, 0.125, 0.5, 0.25, 0.5, 0.25, 0.5}},
      {kV, 1, 1, 0, {0.5, 0.5, 0.25, 0.25, 0.5, 0.5, 1, 0.5, 1}},
      {kU,
       0.8,
       0.8,
       0.8,
       {0.555556, 0.555556, 0.277778, 0.171468, 0.555556, 0.339506, 0.666667, 0.308642, 0.611111}},
      {kU, 0.8, 0.8, 0, {1, 1, 0.5, 0.308642, 1, 0.611111, 1.11111, 0.308642, 0.611111}},
      {kU,
       0.8,
       0.8,
       0.125,
       {0.888889, 0.888889, 0.444444, 0.274348, 0.888889, 0.54321, 1, 0.308642, 0.611111}},
      {kV,
       0.8,
       0.8,
       0.8,
       {0.611111, 0.611111, 0.308642, 0.171468, 0.611111, 0.342936, 0.666667, 0.277778, 0.555556}},
      {kV,
       0.8,
       0.8,
       0,
       {0.611111, 0.611111, 0.308642, 0.308642, 0.611111, 0.617284, 1.11111, 0.5, 1}},
      {kU,
       0.8,
       1,
       0.8,
       {0.555556, 0.555556, 0.277778, 0.154321, 0.555556, 0.308642, 0.611111, 0.277778, 0.555556}},
      {kV,
       0.8,
       1,
       0.8,
       {0.555556, 0.555556, 0.277778, 0.154321, 0.555556, 0.308642, 0.611111, 0.277778, 0.555556}},
      {kU, 0, 0, 0, {1, 1, 0.5, 1, 1, 1.5, 2, 1, 1.5}},
      {kV, 0, 0, 0, {1.5, 1.5, 1, 1, 1.5, 2, 2, 0.5, 1}},
  };
  for (const Row& r : rows) {
    const GsssssParameters p = gsssss_parameters(r.family, r.r1, r.r2, r.r3);
    const std::array<double, 9> got{p.W1,   p.W1L1, p.W2L2, p.W3L3, p.W1L4,
                                    p.W2L5, p.W1L6, p.l3,   p.l5};
    for (int i = 0; i < 9; ++i) {
      EXPECT_NEAR(got[i], r.expected[i], 6e-6 * std::max(1.0, r.expected[i]))
          << (r.family == kU ? "U0(" : "V0(") << r.r1 << "," << r.r2 << "," << r.r3 << ") entry "
          << i;
    }
    EXPECT_EQ(p.l1, 1.0);
    EXPECT_EQ(p.l2, 0.5);
    EXPECT_EQ(p.l4, 1.0);
  }
}

// W_i from the seed's weight function W(tau) = sum_j w_j (tau/dt)^j:
// W_i = sum_j w_j/(1+i+j) / sum_j w_j/(1+j)
double weight(const std::array<double, 4>& w, int i) {
  double num = 0.0;
  double den = 0.0;
  for (int j = 0; j < 4; ++j) {
    num += w[j] / (1.0 + i + j);
    den += w[j] / (1.0 + j);
  }
  return num / den;
}

TEST(GsssssParameters, W1MatchesTheSeedWeightFunction) {
  // away from the removable singularities (U0: rho3 = 1/4; V0: D = 0)
  for (double r3 : {0.0, 0.1, 0.5, 0.9, 1.0}) {
    const std::array<double, 4> w{1.0, -15.0 * (1 - 2 * r3) / (1 - 4 * r3),
                                  15.0 * (3 - 4 * r3) / (1 - 4 * r3),
                                  -35.0 * (1 - r3) / (1 - 4 * r3)};
    const GsssssParameters p = gsssss_parameters(kU, 1.0, 1.0, r3);
    EXPECT_NEAR(p.W1, weight(w, 1), 1e-12) << "U0 rho3 = " << r3;
    // W3 L3 = W3 * lambda3 with W3 from the weight function
    EXPECT_NEAR(p.W3L3, weight(w, 3) * p.l3, 1e-12) << "U0 rho3 = " << r3;
  }
  for (const auto& [r1, r2] : {std::pair{1.0, 1.0}, {0.5, 0.8}, {0.0, 0.0}, {0.3, 1.0}}) {
    const double d = 9 - 11 * r1 - 11 * r2 + 19 * r1 * r2;
    const std::array<double, 4> w{1.0, -30.0 * (3 - 4 * r1 - 4 * r2 + 6 * r1 * r2) / d,
                                  15.0 * (25 - 37 * r1 - 37 * r2 + 53 * r1 * r2) / (2 * d),
                                  -35.0 * (3 - 5 * r1 - 5 * r2 + 7 * r1 * r2) / d};
    const GsssssParameters p = gsssss_parameters(kV, r1, r2, 0.3);
    EXPECT_NEAR(p.W1, weight(w, 1), 1e-12) << "V0 " << r1 << "," << r2;
    EXPECT_NEAR(p.W2L2, weight(w, 2) * p.l2, 1e-12) << "V0 " << r1 << "," << r2;
  }
}

// classical parameters of a GSSSS member (reference §1.6 dictionary)
struct Classical {
  double alpha_f, alpha_m, beta, gamma;
};
Classical classical(const GsssssParameters& p) {
  return {1.0 - p.W1, 1.0 - p.W1L6, p.l3, p.l5};
}

void expect_classical(const Settings& s, const Classical& want, const char* what) {
  const Classical got = classical(gsssss_parameters(s));
  EXPECT_NEAR(got.alpha_f, want.alpha_f, 1e-14) << what;
  EXPECT_NEAR(got.alpha_m, want.alpha_m, 1e-14) << what;
  EXPECT_NEAR(got.beta, want.beta, 1e-14) << what;
  EXPECT_NEAR(got.gamma, want.gamma, 1e-14) << what;
}

TEST(GsssssParameters, NamedSetsReproduceClassicalMethods) {
  Settings s;
  s.method = Method::kNewmark;  // average acceleration: beta 1/4, gamma 1/2
  expect_classical(s, {0.0, 0.0, 0.25, 0.5}, "newmark");
  s.method = Method::kMidpoint;  // V0(1,1,0): EOM at t_{n+1/2}, a = a~
  const GsssssParameters mid = gsssss_parameters(s);
  EXPECT_DOUBLE_EQ(mid.W1, 0.5);
  EXPECT_DOUBLE_EQ(mid.W1L6, 1.0);
  for (double rho : {0.0, 0.3, 0.6, 0.8, 1.0}) {
    s.implicit.rho_inf = rho;
    // Chung & Hulbert 1993: alpha_m = (2 rho - 1)/(rho + 1), alpha_f = rho/(rho + 1),
    // gamma = 1/2 - alpha_m + alpha_f, beta = (1 - alpha_m + alpha_f)^2 / 4
    const double am = (2 * rho - 1) / (rho + 1);
    const double af = rho / (rho + 1);
    s.method = Method::kGenAlpha;
    expect_classical(s, {af, am, 0.25 * (1 - am + af) * (1 - am + af), 0.5 - am + af}, "genalpha");
    // Wood-Bossak-Zienkiewicz: alpha_f = 0, alpha_m = (rho - 1)/(rho + 1),
    // gamma = 1/2 - alpha_m, beta = (1 - alpha_m)^2 / 4
    const double amw = (rho - 1) / (rho + 1);
    s.method = Method::kWbz;
    expect_classical(s, {0.0, amw, 0.25 * (1 - amw) * (1 - amw), 0.5 - amw}, "wbz");
  }
  for (double rho : {0.5, 0.7, 0.9, 1.0}) {
    // Hilber-Hughes-Taylor: alpha = (1 - rho)/(1 + rho) in [0, 1/3], alpha_m = 0,
    // beta = (1 + alpha)^2 / 4, gamma = 1/2 + alpha
    s.implicit.rho_inf = rho;
    s.method = Method::kHht;
    const double a = (1 - rho) / (1 + rho);
    expect_classical(s, {a, 0.0, 0.25 * (1 + a) * (1 + a), 0.5 + a}, "hht");
  }
}

}  // namespace
}  // namespace rtmb
