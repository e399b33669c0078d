// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// SparseRowBasis (engine/constraints/sparse_row_basis.cpp) against dense references computed here:
// on a banded G with rows that repeat or combine others, the rank equals the SVD's, the kept rows
// have full rank, each dependent row equals its combination of kept rows, min_norm_solve equals
// the pseudo-inverse solution G^+ b (complete orthogonal decomposition) for a consistent and an
// inconsistent b (the least-squares fit of rows that contradict each other), and
// largest_singular_value matches the SVD's sigma_max.
#include "engine/constraints/sparse_row_basis.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstdio>
#include <vector>

namespace rtmb {
namespace {

// A chain-like G (m x n): row r touches the coordinates 2r .. 2r + 3 (values from a fixed
// formula), then rows that repeat or combine earlier ones: dependent by construction.
Mat banded_with_dependencies(int independent, int n) {
  Mat G = Mat::Zero(independent + 3, n);
  for (int r = 0; r < independent; ++r) {
    for (int c = 2 * r; c < std::min(n, 2 * r + 4); ++c) {
      G(r, c) = 1.0 + 0.37 * std::sin(1.3 * r + 0.7 * c) + 0.1 * (c - 2 * r);
    }
  }
  G.row(independent) = G.row(3);                               // a repeated row
  G.row(independent + 1) = 2.0 * G.row(5) - 0.5 * G.row(6);    // a combination of neighbours
  G.row(independent + 2) = G.row(0) + G.row(independent - 1);  // of the two ends
  return G;
}

TEST(SparseRowBasis, FindsTheDependentRowsOfABandedMatrix) {
  const int k = 40;
  const Mat G = banded_with_dependencies(k, 2 * k + 2);
  const SparseMat Gs = G.sparseView();
  const Eigen::JacobiSVD<Mat> svd(G);
  const Vec& sigma = svd.singularValues();
  int svd_rank = 0;
  for (Eigen::Index j = 0; j < sigma.size(); ++j) svd_rank += sigma(j) > 1e-9 * sigma(0) ? 1 : 0;
  ASSERT_EQ(svd_rank, k);
  EXPECT_NEAR(largest_singular_value(Gs), sigma(0), 1e-6 * sigma(0));

  const SparseRowBasis basis(Gs, 1e-9 * sigma(0));
  EXPECT_EQ(basis.rank(), k);
  ASSERT_EQ(basis.dependent_in_pivot_order().size(), 3u);
  const std::vector<int>& kept = basis.kept_in_pivot_order();
  Mat GK(static_cast<Eigen::Index>(kept.size()), G.cols());
  for (std::size_t j = 0; j < kept.size(); ++j)
    GK.row(static_cast<Eigen::Index>(j)) = G.row(kept[j]);
  const Eigen::JacobiSVD<Mat> svd_k(GK);
  EXPECT_GT(svd_k.singularValues()(k - 1), 1e-6 * sigma(0));  // the kept rows: full rank
  for (int d = 0; d < 3; ++d) {
    const int row = basis.dependent_in_pivot_order()[static_cast<std::size_t>(d)];
    const Vec c = basis.combination(d);
    const double residual = (GK.transpose() * c - G.row(row).transpose()).norm();
    EXPECT_LE(residual, 1e-12 * G.row(row).norm()) << "row " << row;
  }
}

TEST(SparseRowBasis, MinimumNormSolveIsThePseudoInverseSolution) {
  const int k = 40;
  const Mat G = banded_with_dependencies(k, 2 * k + 2);
  const SparseMat Gs = G.sparseView();
  // a consistent right-hand side: b = G x0
  Vec x0(G.cols());
  for (Eigen::Index i = 0; i < x0.size(); ++i) x0(i) = std::cos(0.9 * static_cast<double>(i));
  const Vec b = G * x0;
  const SparseRowBasis basis(Gs, 1e-9 * largest_singular_value(Gs));
  const Vec x = basis.min_norm_solve(b);
  const Vec ref = G.completeOrthogonalDecomposition().solve(b);
  EXPECT_LE((G * x - b).norm(), 1e-12 * b.norm());
  EXPECT_LE((x - ref).norm(), 1e-12 * ref.norm());
  std::printf("min-norm solve: |G x - b| = %.2e, |x - G^+ b| = %.2e (|b| = %.2f)\n",
              (G * x - b).norm(), (x - ref).norm(), b.norm());
  // inconsistent: the dependent rows ask for something else than their combination gives
  Vec bad = b;
  bad(k) += 0.5;
  bad(k + 2) -= 1.0;
  const Vec xl = basis.min_norm_solve(bad);
  const Vec refl = G.completeOrthogonalDecomposition().solve(bad);
  EXPECT_GT((G * refl - bad).norm(), 0.1);  // no exact solution
  EXPECT_LE((xl - refl).norm(), 1e-12 * refl.norm());
  std::printf("least squares: |G x - b| = %.4f, |x - G^+ b| = %.2e\n", (G * xl - bad).norm(),
              (xl - refl).norm());
}

TEST(SparseRowBasis, ZeroRowsAndUntouchedCoordinates) {
  // a zero row is dependent; coordinates that no row touches get a zero solution component
  Mat G = Mat::Zero(3, 5);
  G(0, 1) = 2.0;
  G(2, 3) = -1.0;
  const SparseMat Gs = G.sparseView();
  const SparseRowBasis basis(Gs, 1e-9 * largest_singular_value(Gs));
  EXPECT_EQ(basis.rank(), 2);
  ASSERT_EQ(basis.dependent_in_pivot_order().size(), 1u);
  EXPECT_EQ(basis.dependent_in_pivot_order()[0], 1);
  const Vec x = basis.min_norm_solve(Vec::Constant(3, 1.0));
  Vec expected = Vec::Zero(5);
  expected(1) = 0.5;
  expected(3) = -1.0;
  EXPECT_LE((x - expected).norm(), 1e-15);
}

}  // namespace
}  // namespace rtmb
