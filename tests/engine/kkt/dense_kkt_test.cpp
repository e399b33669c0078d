// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#include "engine/kkt/dense_kkt.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <tuple>

namespace rtmb {
namespace {

// An n x m DenseKkt with a random SPD mass matrix M and full-rank Jacobian G, with M and G kept
// for the reference formulas.
struct RandomKkt {
  DenseKkt kkt;
  Mat M, G;
};

RandomKkt random_kkt(int n, int m, unsigned seed) {
  std::srand(seed);
  RandomKkt r{DenseKkt(n, m), Mat(), Mat()};
  const Mat A = Mat::Random(n, n);
  r.M = A * A.transpose() + n * Mat::Identity(n, n);
  r.G = Mat::Random(m, n);
  r.kkt.mass_block() = r.M;
  r.kkt.jacobian_block() = r.G;
  return r;
}

TEST(DenseKkt, SolveMatchesRangeSpaceFormula) {
  auto [kkt, M, G] = random_kkt(7, 6, 3);
  ASSERT_TRUE(kkt.factor());
  const Vec a = Vec::Random(7);
  const Vec b = Vec::Random(6);
  Vec x(7), mu(6);
  kkt.solve(a, b, x, mu);

  // independent path: Schur complement S = G M^-1 G^T (valid because M is SPD here)
  const Mat Minv = M.inverse();
  const Vec mu_ref = (G * Minv * G.transpose()).ldlt().solve(G * Minv * a - b);
  const Vec x_ref = Minv * (a - G.transpose() * mu_ref);
  EXPECT_LT((x - x_ref).norm(), 1e-12 * x_ref.norm());
  EXPECT_LT((mu - mu_ref).norm(), 1e-12 * mu_ref.norm());
}

TEST(DenseKkt, CorrectionRemovesLinearizedResidualWithMinimumMNorm) {
  auto [kkt, M, G] = random_kkt(5, 2, 5);
  ASSERT_TRUE(kkt.factor());
  const Vec r = Vec::Random(2);
  Vec dx(5);
  kkt.solve_correction(r, dx);
  // Chin Lemma 4.1: G J K^-1 P r = r
  EXPECT_LT((G * dx - r).norm(), 1e-13);
  // minimum M-norm: dx is in range(M^-1 G^T)
  const Vec y = M * dx;
  const Vec coeff = (G * G.transpose()).ldlt().solve(G * y);
  EXPECT_LT((y - G.transpose() * coeff).norm(), 1e-12 * y.norm());
}

TEST(DenseKkt, SingularMassPositiveDefiniteOnKernelIsSolvable) {
  // Hoitink's massless angle coordinates: M = diag(1, 0), constraint couples them
  DenseKkt kkt(2, 1);
  kkt.mass_block() << 1.0, 0.0, 0.0, 0.0;
  kkt.jacobian_block() << 1.0, -1.0;
  EXPECT_TRUE(kkt.factor());
}

TEST(DenseKkt, RedundantConstraintsAreReportedSingularWhenRankLossFails) {
  DenseKkt kkt(3, 2, DenseKkt::RankLoss::kFail);
  kkt.mass_block() = Mat::Identity(3, 3);
  kkt.jacobian_block() << 1.0, 2.0, 3.0, 2.0, 4.0, 6.0;  // second row = 2 x first
  EXPECT_FALSE(kkt.factor());
}

// G with dependent rows (a singular position): the factorization drops them and the solution
// is the KKT solution of the independent rows, which satisfies every row for a consistent c.
TEST(DenseKkt, DependentRowsGetZeroMultipliersAndEveryConsistentRowHolds) {
  std::srand(7);
  const int n = 6;
  const Mat A = Mat::Random(n, n);
  const Mat M = A * A.transpose() + n * Mat::Identity(n, n);
  Mat G(4, n);
  G.row(0) = Vec::Random(n);
  G.row(1) = Vec::Random(n);
  G.row(2) = 2.0 * G.row(0) - 0.5 * G.row(1);  // dependent on the rows before it
  G.row(3).setZero();                          // a row that vanished (Chin §4.5: G = 0)
  DenseKkt kkt(n, 4);
  kkt.mass_block() = M;
  kkt.jacobian_block() = G;
  ASSERT_TRUE(kkt.factor());
  EXPECT_FALSE(kkt.used_pivoting());
  EXPECT_EQ(kkt.dropped_rows(), 2);
  EXPECT_TRUE(kkt.rank_deficient());

  const Vec f = Vec::Random(n);
  const Vec a_true = Vec::Random(n);
  const Vec c = G * a_true;  // consistent: c in range(G)
  Vec a(n), mu(4);
  kkt.solve(f, c, a, mu);
  EXPECT_EQ(mu[2], 0.0);
  EXPECT_EQ(mu[3], 0.0);
  EXPECT_LT((G * a - c).lpNorm<Eigen::Infinity>(), 1e-12);
  EXPECT_LT((M * a + G.transpose() * mu - f).lpNorm<Eigen::Infinity>(), 1e-12);
  // independent path: the KKT system of the two independent rows by Eigen's full-pivot LU
  Mat k2 = Mat::Zero(n + 2, n + 2);
  k2.topLeftCorner(n, n) = M;
  k2.topRightCorner(n, 2) = G.topRows(2).transpose();
  k2.bottomLeftCorner(2, n) = G.topRows(2);
  Vec rhs(n + 2);
  rhs << f, c.head(2);
  const Vec ref = k2.fullPivLu().solve(rhs);
  EXPECT_LT((a - ref.head(n)).lpNorm<Eigen::Infinity>(), 1e-12);
  EXPECT_LT((mu.head(2) - ref.tail(2)).lpNorm<Eigen::Infinity>(), 1e-12);

  // the correction (Chin eq. 4.15) removes a consistent residual with the minimum M-norm step
  Vec dx(n);
  kkt.solve_correction(c, dx);
  EXPECT_LT((G * dx - c).lpNorm<Eigen::Infinity>(), 1e-12);
  Vec dx1(n), dx2(n);
  kkt.solve_correction2(c, 2.0 * c, dx1, dx2);
  EXPECT_EQ(dx1, dx);
  EXPECT_LT((dx2 - 2.0 * dx).lpNorm<Eigen::Infinity>(), 1e-14);

  // a full-rank G on the same object afterwards: nothing dropped
  kkt.jacobian_block() = G.topRows(4) + Mat::Random(4, n);
  ASSERT_TRUE(kkt.factor());
  EXPECT_EQ(kkt.dropped_rows(), 0);
}

TEST(DenseKkt, NearlyDependentRowsAboveTheDependentRowToleranceAreKept) {
  // sin of the angle between the rows 1e-3: pivot ratio sin^2 = 1e-6 > kDependentRowTol = 1e-8
  // (engine/kkt/pivot_tolerance.hpp), the row stays and the solve is the exact one
  DenseKkt kkt(2, 2);
  kkt.mass_block() = Mat::Identity(2, 2);
  kkt.jacobian_block() << 1.0, 0.0, 1.0, 1e-3;
  ASSERT_TRUE(kkt.factor());
  EXPECT_EQ(kkt.dropped_rows(), 0);
  Vec a(2), mu(2);
  kkt.solve(Vec::Zero(2), Vec::Ones(2), a, mu);
  EXPECT_NEAR(a[0], 1.0, 1e-12);
  EXPECT_NEAR(a[1], 0.0, 1e-12);
  // M a + G^T mu = 0: mu = (-1, 0)
  EXPECT_NEAR(mu[0], -1.0, 1e-9);
  EXPECT_NEAR(mu[1], 0.0, 1e-9);
  // 1e-5: ratio 1e-10, nearly dependent: dropped (the truncated solve)
  kkt.jacobian_block() << 1.0, 0.0, 1.0, 1e-5;
  ASSERT_TRUE(kkt.factor());
  EXPECT_EQ(kkt.dropped_rows(), 1);
}

TEST(DenseKkt, MassSingularOnKernelIsReportedSingular) {
  DenseKkt kkt(2, 1);
  kkt.mass_block() << 1.0, 0.0, 0.0, 0.0;
  kkt.jacobian_block() << 1.0, 0.0;  // ker G = span(e2), where M is zero
  EXPECT_FALSE(kkt.factor());
}

}  // namespace
}  // namespace rtmb

namespace rtmb {
namespace {

TEST(DenseKkt, MatchesEigenLuOnRandomSaddlePointSystemsOfManySizes) {
  // the hand-written LU against Eigen's PartialPivLU, including pivoting-heavy cases
  std::srand(11);
  for (int n = 1; n <= 40; n += 3) {
    for (int m = 0; m <= n; m += 2) {
      DenseKkt kkt(n, m);
      const Mat A = Mat::Random(n, n);
      const Mat M = A * A.transpose() + 0.1 * Mat::Identity(n, n);
      const Mat G = Mat::Random(m, n);
      kkt.mass_block() = M;
      kkt.jacobian_block() = G;
      ASSERT_TRUE(kkt.factor()) << n << "x" << m;
      Mat K(n + m, n + m);
      K << M, G.transpose(), G, Mat::Zero(m, m);
      const Vec rhs = Vec::Random(n + m);
      const Vec ref = K.partialPivLu().solve(rhs);
      Vec x(n), mu(m);
      kkt.solve(rhs.head(n), rhs.tail(m), x, mu);
      EXPECT_LT((x - ref.head(n)).norm(), 1e-9 * (1.0 + ref.norm())) << n << "x" << m;
      EXPECT_LT((mu - ref.tail(m)).norm(), 1e-9 * (1.0 + ref.norm())) << n << "x" << m;
      // residual check independent of Eigen's answer
      Vec sol(n + m);
      sol << x, mu;
      EXPECT_LT((K * sol - rhs).norm(), 1e-10 * (1.0 + rhs.norm())) << n << "x" << m;
    }
  }
}

TEST(DenseKkt, NonFiniteEntriesAreReportedSingular) {
  DenseKkt kkt(2, 1);
  kkt.mass_block() << 1.0, 0.0, 0.0, std::nan("");
  kkt.jacobian_block() << 1.0, 1.0;
  EXPECT_FALSE(kkt.factor());
}

}  // namespace
}  // namespace rtmb

namespace rtmb {
namespace {

TEST(DenseKkt, UsesUnpivotedLdltForPositiveDefiniteMassAndLuOtherwise) {
  DenseKkt spd(3, 1);
  spd.mass_block() = Mat::Identity(3, 3);
  spd.jacobian_block() << 1.0, 2.0, 3.0;
  ASSERT_TRUE(spd.factor());
  EXPECT_FALSE(spd.used_pivoting());

  // Hoitink's massless coordinate: M singular, positive definite on ker G -> pivoted LU
  DenseKkt singular(2, 1);
  singular.mass_block() << 1.0, 0.0, 0.0, 0.0;
  singular.jacobian_block() << 1.0, -1.0;
  ASSERT_TRUE(singular.factor());
  EXPECT_TRUE(singular.used_pivoting());
  Vec x(2), mu(1);
  Vec a(2), b(1);
  a << 3.0, 0.0;
  b << 0.5;
  singular.solve(a, b, x, mu);
  // x0 + mu = 3, -mu = 0, x0 - x1 = 0.5
  EXPECT_NEAR(mu[0], 0.0, 1e-15);
  EXPECT_NEAR(x[0], 3.0, 1e-15);
  EXPECT_NEAR(x[1], 2.5, 1e-15);
}

TEST(DenseKkt, BadlyScaledMassLikeAndrewsStillSolvesAccurately) {
  // inertias ~1e-7 against Jacobian entries ~1e-2: residual of the unpivoted LDL^T
  std::srand(17);
  const int n = 7;
  const int m = 6;
  DenseKkt kkt(n, m);
  Vec d(n);
  d << 2.2e-6, 4.4e-7, 5.3e-6, 5.7e-7, 1.2e-5, 5.7e-7, 1.9e-5;
  const Mat M = Mat(d.asDiagonal()) + 1e-7 * Mat::Ones(n, n);
  const Mat G = 0.03 * Mat::Random(m, n);
  kkt.mass_block() = M;
  kkt.jacobian_block() = G;
  ASSERT_TRUE(kkt.factor());
  EXPECT_FALSE(kkt.used_pivoting());
  Mat K(n + m, n + m);
  K << M, G.transpose(), G, Mat::Zero(m, m);
  const Vec rhs = Vec::Random(n + m);
  Vec x(n), mu(m), sol(n + m);
  kkt.solve(rhs.head(n), rhs.tail(m), x, mu);
  sol << x, mu;
  const Vec ref = K.fullPivLu().solve(rhs);
  EXPECT_LT((sol - ref).norm(), 1e-9 * ref.norm());
}

TEST(DenseKkt, TwoColumnCorrectionEqualsTwoSingleCorrectionsBitwise) {
  // solve_correction2 (PStab's q and v corrections, interleaved) must do exactly the arithmetic
  // of two solve_correction calls: compared for equality, not within a tolerance. Cases: the
  // LDL^T path with dense and with sparse right-hand sides (zeros the forward sweep skips, one of
  // them -0.0), and the pivoted LU path (singular M).
  for (const auto& [n, m, seed] : {std::tuple{7, 6, 41u}, std::tuple{12, 10, 43u}}) {
    auto [kkt, M, G] = random_kkt(n, m, seed);
    ASSERT_TRUE(kkt.factor());
    ASSERT_FALSE(kkt.used_pivoting());
    Vec r1 = Vec::Random(m);
    Vec r2 = Vec::Random(m) * 1e3;
    r1[1] = 0.0;
    r2[0] = -0.0;
    r2[m - 1] = 0.0;
    Vec dx1(n), dx2(n), ref1(n), ref2(n);
    kkt.solve_correction(r1, ref1);
    kkt.solve_correction(r2, ref2);
    kkt.solve_correction2(r1, r2, dx1, dx2);
    for (int i = 0; i < n; ++i) {
      EXPECT_EQ(std::signbit(dx1[i]), std::signbit(ref1[i])) << "n " << n << " i " << i;
      EXPECT_EQ(dx1[i], ref1[i]) << "n " << n << " i " << i;
      EXPECT_EQ(std::signbit(dx2[i]), std::signbit(ref2[i])) << "n " << n << " i " << i;
      EXPECT_EQ(dx2[i], ref2[i]) << "n " << n << " i " << i;
    }
  }
  DenseKkt singular(2, 1);
  singular.mass_block() << 1.0, 0.0, 0.0, 0.0;
  singular.jacobian_block() << 1.0, -1.0;
  ASSERT_TRUE(singular.factor());
  ASSERT_TRUE(singular.used_pivoting());
  Vec r1(1), r2(1);
  r1 << 0.5;
  r2 << -2.0;
  Vec dx1(2), dx2(2), ref1(2), ref2(2);
  singular.solve_correction(r1, ref1);
  singular.solve_correction(r2, ref2);
  singular.solve_correction2(r1, r2, dx1, dx2);
  EXPECT_EQ(dx1, ref1);
  EXPECT_EQ(dx2, ref2);
}

}  // namespace
}  // namespace rtmb
