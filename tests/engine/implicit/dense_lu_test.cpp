// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// DenseLu, the implicit methods' Newton-matrix solver: partial pivoting on a nonsingular matrix
// (against Eigen), and the complete-pivoting fallback on a Newton matrix whose constraint rows
// are dependent (a singular position): every consistent equation holds, the dependent rows'
// multiplier increments are zero.
#include "engine/implicit/dense_lu.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cstdlib>

namespace rtmb {
namespace {

TEST(DenseLu, NonsingularMatrixMatchesEigenAndDropsNothing) {
  std::srand(3);
  const int n = 9;
  DenseLu lu(n);
  const Mat a = Mat::Random(n, n) + n * Mat::Identity(n, n);
  lu.matrix() = a;
  ASSERT_TRUE(lu.factor());
  EXPECT_EQ(lu.dropped(), 0);
  const Vec b = Vec::Random(n);
  Vec x = b;
  lu.solve_in_place(x);
  EXPECT_LT((x - a.partialPivLu().solve(b)).lpNorm<Eigen::Infinity>(), 1e-13);
}

TEST(DenseLu, DependentConstraintRowsOfAnUnsymmetricNewtonMatrixAreDropped) {
  // J = [A B1^T; B 0] as in the GSSSS Newton matrix (Hoitink eq. 3.22): A unsymmetric, the
  // force block B1 differs from the constraint rows B, and B has a row that is a combination of
  // the others (and B1 the same combination: the same constraint at a nearby point), so J is
  // singular with null vectors (0, mu), B1^T mu = 0.
  std::srand(5);
  const int n = 6;
  const int m = 3;
  Mat B = Mat::Random(m, n);
  B.row(2) = B.row(0) - 3.0 * B.row(1);
  Mat B1 = B + 0.1 * Mat::Random(m, n);
  B1.row(2) = B1.row(0) - 3.0 * B1.row(1);
  Mat J = Mat::Zero(n + m, n + m);
  J.topLeftCorner(n, n) = Mat::Random(n, n) + n * Mat::Identity(n, n);
  J.topRightCorner(n, m) = B1.transpose();
  J.bottomLeftCorner(m, n) = B;
  DenseLu lu(n + m);
  lu.matrix() = J;
  ASSERT_TRUE(lu.factor());
  EXPECT_EQ(lu.dropped(), 1);

  // a consistent right-hand side (in the range of J) is solved exactly
  const Vec rhs = J * Vec::Random(n + m);
  Vec x = rhs;
  lu.solve_in_place(x);
  EXPECT_LT((J * x - rhs).lpNorm<Eigen::Infinity>(), 1e-12);
  // the increment of the acceleration is unique (J's null space is (0, mu)) and equals the one
  // of the reduced system without the dependent row
  Mat Jr = Mat::Zero(n + 2, n + 2);
  Jr.topLeftCorner(n, n) = J.topLeftCorner(n, n);
  Jr.topRightCorner(n, 2) = B1.topRows(2).transpose();
  Jr.bottomLeftCorner(2, n) = B.topRows(2);
  Vec rr(n + 2);
  rr << rhs.head(n), rhs.segment(n, 2);
  const Vec xr = Jr.fullPivLu().solve(rr);
  EXPECT_LT((x.head(n) - xr.head(n)).lpNorm<Eigen::Infinity>(), 1e-12);

  // a nonsingular matrix afterwards takes the partial-pivoting path again
  lu.matrix() = Mat::Random(n + m, n + m) + (n + m) * Mat::Identity(n + m, n + m);
  ASSERT_TRUE(lu.factor());
  EXPECT_EQ(lu.dropped(), 0);
}

TEST(DenseLu, ZeroOrNonFiniteMatrixFails) {
  DenseLu lu(3);
  lu.matrix().setZero();
  EXPECT_FALSE(lu.factor());
  lu.matrix() = Mat::Identity(3, 3);
  lu.matrix()(1, 2) = std::nan("");
  EXPECT_FALSE(lu.factor());
}

}  // namespace
}  // namespace rtmb
