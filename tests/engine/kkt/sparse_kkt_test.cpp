// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The sparse KKT solvers, SparseKkt (scalar LDL^T of K) and BlockKkt (block range-space), against
// the dense reference (engine/kkt/dense_kkt) on planar chains in absolute coordinates
// (tests/support/planar_chain_kkt.hpp) and a spatial block pattern, plus the failure modes they
// must report: singular M (massless coordinate), redundant constraints, non-finite values. Every
// check runs on both solvers (typed tests, or both types in the parameterized ones).
#include "engine/kkt/sparse_kkt.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/kkt/block_kkt.hpp"
#include "engine/kkt/dense_kkt.hpp"
#include "tests/support/planar_chain_kkt.hpp"

namespace rtmb {
namespace {

using testing::ChainOptions;
using testing::PlanarChainKkt;
using Pattern = Eigen::SparseMatrix<double>;

template <class Kkt>
int factor_size(const Kkt& kkt) {
  if constexpr (std::is_same_v<Kkt, SparseKkt>) {
    return kkt.factor_nonzeros();
  } else {
    return kkt.factor_entries();
  }
}

template <class Kkt>
const char* solver_name() {
  return std::is_same_v<Kkt, SparseKkt> ? "SparseKkt" : "BlockKkt";
}

struct SolverNames {
  template <class T>
  static std::string GetName(int) {
    return solver_name<T>();
  }
};

template <class Kkt>
class KktSolver : public ::testing::Test {};
using Solvers = ::testing::Types<SparseKkt, BlockKkt>;
TYPED_TEST_SUITE(KktSolver, Solvers, SolverNames);

struct Errors {
  double a_rel = 0.0;       ///< |a - a_dense| / |a_dense|
  double lambda_rel = 0.0;  ///< |lambda - lambda_dense| / |lambda_dense|
  double residual = 0.0;    ///< |K x - rhs|_inf / (|K|_inf |x|_inf + |rhs|_inf)
};

// Options of a chain of n_bodies, its tip pinned (closing the loop) or free.
ChainOptions chain_options(int n_bodies, bool pinned_tip, bool full_blocks = false) {
  return ChainOptions{n_bodies, pinned_tip, full_blocks, {}, {}};
}

// The chain's K in a DenseKkt (not yet factored): the reference the sparse solvers are held to.
DenseKkt dense_reference(const PlanarChainKkt& chain) {
  DenseKkt dense(chain.n_v(), chain.n_lambda());
  dense.mass_block() = chain.mass_dense();
  dense.jacobian_block() = chain.jacobian_dense();
  return dense;
}

// Solves one random right-hand side with both solvers and measures the disagreement.
template <class Kkt>
Errors compare_with_dense(PlanarChainKkt& chain, Kkt& sparse, unsigned seed) {
  chain.write_values(sparse);
  EXPECT_TRUE(sparse.factor());
  DenseKkt dense = dense_reference(chain);
  EXPECT_TRUE(dense.factor());

  std::srand(seed);
  const Vec f = Vec::Random(chain.n_v());
  const Vec c = Vec::Random(chain.n_lambda());
  Vec a(chain.n_v()), lambda(chain.n_lambda()), a_ref(chain.n_v()), lambda_ref(chain.n_lambda());
  sparse.solve(f, c, a, lambda);
  dense.solve(f, c, a_ref, lambda_ref);

  const Mat k = chain.kkt_dense();
  Vec x(k.rows()), rhs(k.rows());
  x << a, lambda;
  rhs << f, c;
  Errors e;
  e.a_rel = (a - a_ref).norm() / a_ref.norm();
  e.lambda_rel = (lambda - lambda_ref).norm() / lambda_ref.norm();
  e.residual = (k * x - rhs).lpNorm<Eigen::Infinity>() /
               (k.cwiseAbs().rowwise().sum().maxCoeff() * x.lpNorm<Eigen::Infinity>() +
                rhs.lpNorm<Eigen::Infinity>());
  return e;
}

struct ChainCase {
  int n;
  bool pinned;
  bool full_blocks;
};

class KktSolverChain : public ::testing::TestWithParam<ChainCase> {};

template <class Kkt>
void check_chain_against_dense(const ChainCase& cc) {
  PlanarChainKkt chain(chain_options(cc.n, cc.pinned, cc.full_blocks), 1);
  Kkt sparse(chain.mass_pattern(), chain.jacobian_pattern());
  chain.bind(sparse);
  ASSERT_EQ(sparse.n_v(), 3 * cc.n);
  ASSERT_EQ(sparse.n_lambda(), 2 * cc.n + (cc.pinned ? 2 : 0));

  // several value sets through the same symbolic analysis (the per-step use)
  Errors worst;
  for (unsigned seed = 1; seed <= 5; ++seed) {
    chain.randomize(seed);
    const Errors e = compare_with_dense(chain, sparse, 100 + seed);
    // agreement with the pivoted dense solver, and the normwise backward error of the sparse
    // solution: a stable factorization gives a few eps (measured <= 4e-16), 1e-14 is ~45 eps
    EXPECT_LE(e.a_rel, 1e-12) << "seed " << seed;
    EXPECT_LE(e.lambda_rel, 1e-12) << "seed " << seed;
    EXPECT_LE(e.residual, 1e-14) << "seed " << seed;
    worst.a_rel = std::max(worst.a_rel, e.a_rel);
    worst.lambda_rel = std::max(worst.lambda_rel, e.lambda_rel);
    worst.residual = std::max(worst.residual, e.residual);
  }
  std::printf(
      "[ measured ] %s N=%d %s%s: max rel diff a %.2e lambda %.2e, residual %.2e, factor %d\n",
      solver_name<Kkt>(), cc.n, cc.pinned ? "pinned" : "open", cc.full_blocks ? " full blocks" : "",
      worst.a_rel, worst.lambda_rel, worst.residual, factor_size(sparse));
}

TEST_P(KktSolverChain, AgreesWithDenseKkt) {
  check_chain_against_dense<SparseKkt>(GetParam());
  check_chain_against_dense<BlockKkt>(GetParam());
}

INSTANTIATE_TEST_SUITE_P(PlanarChains,
                         KktSolverChain,
                         ::testing::Values(ChainCase{1, false, false},
                                           ChainCase{2, false, false},
                                           ChainCase{2, true, false},
                                           ChainCase{10, false, false},
                                           ChainCase{10, true, false},
                                           ChainCase{100, false, false},
                                           ChainCase{100, true, false},
                                           ChainCase{10, true, true},
                                           ChainCase{100, true, true}),
                         [](const ::testing::TestParamInfo<ChainCase>& p) {
                           return "n" + std::to_string(p.param.n) +
                                  (p.param.pinned ? "_pinned" : "_open") +
                                  (p.param.full_blocks ? "_full_blocks" : "");
                         });

TYPED_TEST(KktSolver, CorrectionMatchesDenseAndSatisfiesTheLinearizedConstraint) {
  // Chin eq. 4.15: dx = top(K^-1 [0; r]) solves G dx = r with minimum M-norm, i.e. M dx lies in
  // range(G^T). Checked directly and against DenseKkt::solve_correction.
  for (int n : {2, 10, 100}) {
    PlanarChainKkt chain(chain_options(n, true), 21);
    TypeParam sparse(chain.mass_pattern(), chain.jacobian_pattern());
    chain.bind(sparse);
    chain.write_values(sparse);
    ASSERT_TRUE(sparse.factor());
    DenseKkt dense = dense_reference(chain);
    ASSERT_TRUE(dense.factor());

    std::srand(static_cast<unsigned>(n));
    const Vec r = Vec::Random(chain.n_lambda());
    Vec dx(chain.n_v()), dx_ref(chain.n_v());
    sparse.solve_correction(r, dx);
    dense.solve_correction(r, dx_ref);
    const Mat g = chain.jacobian_dense();
    const Mat m = chain.mass_dense();
    const double rel = (dx - dx_ref).norm() / dx_ref.norm();
    const double constraint = (g * dx - r).norm() / r.norm();
    const Vec y = m * dx;
    const Vec coeff = (g * g.transpose()).ldlt().solve(g * y);
    const double range = (y - g.transpose() * coeff).norm() / y.norm();
    EXPECT_LE(rel, 1e-12) << "N " << n;
    EXPECT_LE(constraint, 1e-13) << "N " << n;
    EXPECT_LE(range, 1e-12) << "N " << n;
    std::printf(
        "[ measured ] %s correction N=%d: rel diff %.2e, |G dx - r|/|r| %.2e, "
        "M dx off range(G^T) %.2e\n",
        solver_name<TypeParam>(), n, rel, constraint, range);
  }
}

TYPED_TEST(KktSolver, TwoColumnCorrectionEqualsTwoSingleCorrectionsBitwise) {
  // solve_correction2 (PStab's q and v corrections in one sweep) must do exactly the arithmetic
  // of two solve_correction calls: compared for equality, not within a tolerance
  for (int n : {1, 10, 100}) {
    PlanarChainKkt chain(chain_options(n, n > 1, n == 10), 31);
    TypeParam sparse(chain.mass_pattern(), chain.jacobian_pattern());
    chain.bind(sparse);
    chain.write_values(sparse);
    ASSERT_TRUE(sparse.factor());
    std::srand(static_cast<unsigned>(n) + 7u);
    const Vec r1 = Vec::Random(chain.n_lambda());
    const Vec r2 = Vec::Random(chain.n_lambda()) * 1e3;
    Vec dx1(chain.n_v()), dx2(chain.n_v()), ref1(chain.n_v()), ref2(chain.n_v());
    sparse.solve_correction(r1, ref1);
    sparse.solve_correction(r2, ref2);
    sparse.solve_correction2(r1, r2, dx1, dx2);
    EXPECT_TRUE(ref1.allFinite() && ref2.allFinite()) << "N " << n;
    for (int i = 0; i < chain.n_v(); ++i) {
      EXPECT_EQ(dx1[i], ref1[i]) << "N " << n << " i " << i;
      EXPECT_EQ(dx2[i], ref2[i]) << "N " << n << " i " << i;
    }
  }
  // after a failed factorization both outputs are NaN, as for solve_correction
  PlanarChainKkt chain(chain_options(3, false), 1);
  TypeParam sparse(chain.mass_pattern(), chain.jacobian_pattern());
  for (double& v : sparse.jacobian_values()) v = 0.0;
  EXPECT_FALSE(sparse.factor());
  const Vec r = Vec::Ones(chain.n_lambda());
  Vec dx1(chain.n_v()), dx2(chain.n_v());
  sparse.solve_correction2(r, r, dx1, dx2);
  EXPECT_TRUE(dx1.array().isNaN().all());
  EXPECT_TRUE(dx2.array().isNaN().all());
}

TYPED_TEST(KktSolver, SpatialBlockPatternAgreesWithDense) {
  // The pattern of a spatial chain: full 6 x 6 SPD mass blocks (lower triangle given), 5 rows
  // per joint (revolute) coupling bodies b-1 and b (the first to the ground), the tip held by a
  // 3-row spherical joint. Random values in the blocks: this checks the algebra on a bigger
  // block structure, not joint kinematics (those are the chain tests above).
  constexpr int kBodies = 20;
  constexpr int kNv = 6 * kBodies;
  constexpr int kRows = 5 * kBodies + 3;
  std::srand(4);
  Mat m = Mat::Zero(kNv, kNv);
  Mat g = Mat::Zero(kRows, kNv);
  for (int b = 0; b < kBodies; ++b) {
    const Mat a = Mat::Random(6, 6);
    m.block(6 * b, 6 * b, 6, 6) = a * a.transpose() + 0.5 * Mat::Identity(6, 6);
    g.block(5 * b, 6 * b, 5, 6) = Mat::Random(5, 6);
    if (b > 0) g.block(5 * b, 6 * (b - 1), 5, 6) = Mat::Random(5, 6);
  }
  g.block(5 * kBodies, 6 * (kBodies - 1), 3, 6) = Mat::Random(3, 6);

  std::vector<Eigen::Triplet<double>> tm, tg;
  for (int j = 0; j < kNv; ++j) {
    for (int i = j; i < kNv; ++i) {
      if (i / 6 == j / 6) tm.emplace_back(i, j, 1.0);
    }
    for (int r = 0; r < kRows; ++r) {
      if (g(r, j) != 0.0) tg.emplace_back(r, j, 1.0);
    }
  }
  Pattern mp(kNv, kNv), gp(kRows, kNv);
  mp.setFromTriplets(tm.begin(), tm.end());
  gp.setFromTriplets(tg.begin(), tg.end());
  TypeParam sparse(mp, gp);
  for (const auto& t : tm)
    sparse.mass_values()[std::size_t(sparse.mass_slot(t.row(), t.col()))] = m(t.row(), t.col());
  for (const auto& t : tg) {
    sparse.jacobian_values()[std::size_t(sparse.jacobian_slot(t.row(), t.col()))] =
        g(t.row(), t.col());
  }
  ASSERT_TRUE(sparse.factor());
  DenseKkt dense(kNv, kRows);
  dense.mass_block() = m;
  dense.jacobian_block() = g;
  ASSERT_TRUE(dense.factor());
  const Vec f = Vec::Random(kNv);
  const Vec c = Vec::Random(kRows);
  Vec a(kNv), lambda(kRows), a_ref(kNv), lambda_ref(kRows);
  sparse.solve(f, c, a, lambda);
  dense.solve(f, c, a_ref, lambda_ref);
  const double a_rel = (a - a_ref).norm() / a_ref.norm();
  const double l_rel = (lambda - lambda_ref).norm() / lambda_ref.norm();
  EXPECT_LE(a_rel, 1e-12);
  EXPECT_LE(l_rel, 1e-12);
  std::printf(
      "[ measured ] %s spatial block pattern N=%d: rel diff a %.2e lambda %.2e, nnz(L) %d\n",
      solver_name<TypeParam>(), kBodies, a_rel, l_rel, factor_size(sparse));
}

TEST(BlockKkt, FactorSolveEqualsFactorThenSolveBitwise) {
  // the dynamics' fused factor + solve must do exactly the arithmetic of the two calls, and
  // leave a factorization that later solves use as after factor()
  for (const bool full : {false, true}) {
    PlanarChainKkt chain(chain_options(30, true, full), 41);
    BlockKkt a(chain.mass_pattern(), chain.jacobian_pattern());
    BlockKkt b(chain.mass_pattern(), chain.jacobian_pattern());
    chain.bind(a);
    chain.write_values(a);
    chain.write_values(b);
    std::srand(17);
    const Vec f = Vec::Random(chain.n_v());
    const Vec c = Vec::Random(chain.n_lambda());
    const Vec r = Vec::Random(chain.n_lambda());
    Vec x1(chain.n_v()), l1(chain.n_lambda()), x2(chain.n_v()), l2(chain.n_lambda());
    ASSERT_TRUE(a.factor());
    a.solve(f, c, x1, l1);
    ASSERT_TRUE(b.factor_solve(f, c, x2, l2));
    for (int i = 0; i < chain.n_v(); ++i) EXPECT_EQ(x1[i], x2[i]) << "full " << full << " i " << i;
    for (int i = 0; i < chain.n_lambda(); ++i) EXPECT_EQ(l1[i], l2[i]) << "full " << full;
    Vec d1(chain.n_v()), d2(chain.n_v());
    a.solve_correction(r, d1);
    b.solve_correction(r, d2);
    EXPECT_EQ(d1, d2);
  }
  // a failed factorization gives NaN, as factor() then solve() would
  PlanarChainKkt chain(chain_options(3, false), 1);
  BlockKkt kkt(chain.mass_pattern(), chain.jacobian_pattern());
  for (double& v : kkt.jacobian_values()) v = 0.0;
  Vec x(chain.n_v()), l(chain.n_lambda());
  EXPECT_FALSE(kkt.factor_solve(Vec::Ones(chain.n_v()), Vec::Ones(chain.n_lambda()), x, l));
  EXPECT_TRUE(x.array().isNaN().all());
  EXPECT_TRUE(l.array().isNaN().all());
}

TEST(BlockKkt, FindsBodiesAndJointsAndKeepsAChainFreeOfFill) {
  // A pinned planar chain: N bodies of 3 coordinates (diagonal M merged into one block each),
  // N + 1 revolute joints of 2 rows. A path of joints has a fill-free elimination (from the ends,
  // and also with the middle cut the ordering uses to split the chain), so the factor holds one
  // 2 x 2 D^-1 per joint and one 2 x 2 L block per joint but the last: 8 N entries (N + 1 joints).
  for (const int n : {10, 100, 1000}) {
    PlanarChainKkt chain(chain_options(n, true), 1);
    BlockKkt kkt(chain.mass_pattern(), chain.jacobian_pattern());
    ASSERT_EQ(kkt.n_blocks(), n);
    for (int b = 0; b < n; ++b) ASSERT_EQ(kkt.block_size(b), 3) << "body " << b;
    EXPECT_EQ(kkt.n_groups(), n + 1);
    EXPECT_EQ(kkt.factor_entries(), 4 * (n + 1) + 4 * n) << "N " << n;
  }
}

TEST(SparseKkt, EachConstraintIsEliminatedAfterTheCoordinatesItCouples) {
  PlanarChainKkt chain(chain_options(50, true), 3);
  const SparseKkt::Pattern g = chain.jacobian_pattern();
  SparseKkt sparse(chain.mass_pattern(), g);
  const auto& order = sparse.elimination_order();
  ASSERT_EQ(static_cast<int>(order.size()), sparse.n_v() + sparse.n_lambda());
  std::vector<int> pos(order.size(), -1);
  for (std::size_t k = 0; k < order.size(); ++k) pos[static_cast<std::size_t>(order[k])] = int(k);
  for (int p : pos) ASSERT_GE(p, 0);  // a permutation
  for (int j = 0; j < g.outerSize(); ++j) {
    for (SparseKkt::Pattern::InnerIterator it(g, j); it; ++it) {
      EXPECT_GT(pos[static_cast<std::size_t>(sparse.n_v() + it.row())], pos[std::size_t(j)])
          << "constraint " << it.row() << " before coordinate " << j;
    }
  }
  // the elimination tree points forward (parent > child) and has roots only where K decouples
  const auto& parent = sparse.elimination_tree();
  int roots = 0;
  for (std::size_t i = 0; i < parent.size(); ++i) {
    if (parent[i] == -1) {
      ++roots;
    } else {
      EXPECT_GT(parent[i], static_cast<int>(i));
    }
  }
  EXPECT_EQ(roots, 1);  // a connected mechanism
}

TEST(SparseKkt, FillGrowsLinearlyAlongAPinnedChain) {
  // O(N) cost needs O(N) entries in L; a poor order (e.g. the natural one of a closed loop
  // eliminated without care) gives more. Entries per body must not grow from N = 100 to 1000.
  double per_body[2];
  const int sizes[2] = {100, 1000};
  for (int s = 0; s < 2; ++s) {
    PlanarChainKkt chain(chain_options(sizes[s], true), 1);
    SparseKkt sparse(chain.mass_pattern(), chain.jacobian_pattern());
    per_body[s] = double(sparse.factor_nonzeros()) / sizes[s];
  }
  std::printf("[ measured ] nnz(L) per body: N=100 %.2f, N=1000 %.2f\n", per_body[0], per_body[1]);
  EXPECT_LE(per_body[1], 1.05 * per_body[0]);
  EXPECT_LE(per_body[1], 40.0);  // the K pattern alone has ~ 3*3 + 4*3 = 21 per body
}

TYPED_TEST(KktSolver, SingularMassWithInvertibleKktIsReportedNotSolved) {
  // A massless rotation (J = 0) at body 3 of an open chain: M is singular, but M is positive
  // definite on ker G (rotating body 3 moves its centre, which has mass), so K is invertible and
  // the pivoted dense path solves it. The no-pivot sparse LDL^T meets the zero pivot of that
  // coordinate and must say so; such models go to DenseKkt (see sparse_kkt.hpp).
  ChainOptions opt;
  opt.n_bodies = 10;
  opt.massless_rotation = {3};
  PlanarChainKkt chain(opt, 7);

  const Mat k = chain.kkt_dense();
  Eigen::FullPivLU<Mat> lu(k);
  ASSERT_EQ(lu.rank(), k.rows());  // K invertible
  DenseKkt dense = dense_reference(chain);
  ASSERT_TRUE(dense.factor());
  EXPECT_TRUE(dense.used_pivoting());

  TypeParam sparse(chain.mass_pattern(), chain.jacobian_pattern());
  chain.bind(sparse);
  chain.write_values(sparse);
  EXPECT_FALSE(sparse.factor());
  // solve() after a failed factor() gives NaN, not a plausible-looking answer
  Vec a(chain.n_v()), lambda(chain.n_lambda());
  sparse.solve(Vec::Ones(chain.n_v()), Vec::Ones(chain.n_lambda()), a, lambda);
  EXPECT_TRUE(a.array().isNaN().all());
  EXPECT_TRUE(lambda.array().isNaN().all());
  Vec dx(chain.n_v());
  sparse.solve_correction(Vec::Ones(chain.n_lambda()), dx);
  EXPECT_TRUE(dx.array().isNaN().all());
}

TYPED_TEST(KktSolver, MassCoordinateMissingFromThePatternIsReported) {
  // Hoitink's massless angle: M = diag(1, 0) with M(1,1) not even in the pattern, G = [1 1]
  Pattern m(2, 2), g(1, 2);
  m.insert(0, 0) = 1.0;
  g.insert(0, 0) = 1.0;
  g.insert(0, 1) = 1.0;
  TypeParam sparse(m, g);
  sparse.mass_values()[0] = 1.0;
  sparse.jacobian_values()[0] = 1.0;
  sparse.jacobian_values()[1] = 1.0;
  EXPECT_FALSE(sparse.factor());
}

class KktSolverRedundant : public ::testing::TestWithParam<ChainOptions> {};

// SparseKkt (the scalar reference) reports dependent rows as a failed factorization.
void check_redundant_fails(const ChainOptions& opt) {
  PlanarChainKkt chain(opt, 11);
  // the dense rank confirms the test data: G really is rank deficient
  Eigen::FullPivLU<Mat> lu_g(chain.jacobian_dense());
  ASSERT_LT(lu_g.rank(), chain.n_lambda());

  SparseKkt sparse(chain.mass_pattern(), chain.jacobian_pattern());
  chain.bind(sparse);
  for (unsigned seed = 11; seed < 16; ++seed) {
    chain.randomize(seed);
    chain.write_values(sparse);
    EXPECT_FALSE(sparse.factor()) << "SparseKkt seed " << seed;
  }
}

// BlockKkt drops the dependent rows (zero multipliers) and solves the rest exactly: for a
// consistent c = G a_true every row holds, and a and the constraint force G^T lambda (both unique
// when M is positive definite, whichever dependent rows are dropped) equal DenseKkt's, which
// drops rows by the same relative pivot test in its own order.
void check_redundant_drops(const ChainOptions& opt) {
  PlanarChainKkt chain(opt, 11);
  BlockKkt block(chain.mass_pattern(), chain.jacobian_pattern());
  chain.bind(block);
  for (unsigned seed = 11; seed < 16; ++seed) {
    chain.randomize(seed);
    chain.write_values(block);
    const Mat G = chain.jacobian_dense();
    const int rank = static_cast<int>(Eigen::FullPivLU<Mat>(G).rank());
    ASSERT_TRUE(block.factor()) << "seed " << seed;
    EXPECT_EQ(block.dropped_rows(), chain.n_lambda() - rank) << "seed " << seed;
    DenseKkt dense = dense_reference(chain);
    ASSERT_TRUE(dense.factor());
    EXPECT_EQ(dense.dropped_rows(), chain.n_lambda() - rank) << "seed " << seed;

    std::srand(seed);
    const Vec f = Vec::Random(chain.n_v());
    const Vec c = G * Vec::Random(chain.n_v());
    Vec a(chain.n_v()), lambda(chain.n_lambda()), a_ref(chain.n_v()), mu(chain.n_lambda());
    block.solve(f, c, a, lambda);
    dense.solve(f, c, a_ref, mu);
    const double scale = a_ref.lpNorm<Eigen::Infinity>();
    EXPECT_LE((G * a - c).lpNorm<Eigen::Infinity>(), 1e-11 * (1.0 + scale)) << "seed " << seed;
    EXPECT_LE((a - a_ref).lpNorm<Eigen::Infinity>(), 1e-10 * scale) << "seed " << seed;
    const Vec force = G.transpose() * lambda;
    const Vec force_ref = G.transpose() * mu;
    EXPECT_LE((force - force_ref).lpNorm<Eigen::Infinity>(),
              1e-10 * force_ref.lpNorm<Eigen::Infinity>())
        << "seed " << seed;
    Vec dx(chain.n_v());
    block.solve_correction(c, dx);
    EXPECT_LE((G * dx - c).lpNorm<Eigen::Infinity>(), 1e-11 * (1.0 + scale)) << "seed " << seed;
  }
}

TEST_P(KktSolverRedundant, SparseKktReportsFailureAndBlockKktDropsTheDependentRows) {
  check_redundant_fails(GetParam());
  check_redundant_drops(GetParam());
}

ChainOptions redundant(int n, bool pinned, std::vector<int> duplicates) {
  ChainOptions o;
  o.n_bodies = n;
  o.pinned_tip = pinned;
  o.duplicate_joints = std::move(duplicates);
  return o;
}

INSTANTIATE_TEST_SUITE_P(Chains,
                         KktSolverRedundant,
                         ::testing::Values(
                             // one link pinned at both ends: 4 rows on 3 coordinates
                             redundant(1, true, {}),
                             // the ground joint twice
                             redundant(10, false, {0}),
                             // an interior joint twice
                             redundant(10, false, {5}),
                             // the loop-closing tip pin twice, long loop
                             redundant(100, true, {100})));

TYPED_TEST(KktSolver, RecoversAfterAFailedFactorization) {
  // factor() leaves its scratch clean on the early return: a good matrix after a bad one must
  // factor to the same answer as on a fresh object.
  PlanarChainKkt chain(chain_options(20, true), 5);
  TypeParam fresh(chain.mass_pattern(), chain.jacobian_pattern());
  TypeParam reused(chain.mass_pattern(), chain.jacobian_pattern());
  chain.bind(fresh);
  chain.write_values(fresh);
  ASSERT_TRUE(fresh.factor());

  chain.write_values(reused);
  const double saved = reused.jacobian_values()[7];
  // G not finite: the first constraint pivot fails (G = 0 is a rank loss BlockKkt drops)
  for (double& v : reused.jacobian_values()) v = std::nan("");
  EXPECT_FALSE(reused.factor());
  std::fill(reused.jacobian_values().begin(), reused.jacobian_values().end(), 1.0);
  reused.mass_values()[0] = -1.0;  // negative mass: first coordinate pivot (or later) fails
  EXPECT_FALSE(reused.factor());
  chain.write_values(reused);
  EXPECT_EQ(reused.jacobian_values()[7], saved);
  ASSERT_TRUE(reused.factor());

  const Vec f = Vec::LinSpaced(chain.n_v(), -1.0, 2.0);
  const Vec c = Vec::LinSpaced(chain.n_lambda(), 0.5, -0.5);
  Vec a1(chain.n_v()), l1(chain.n_lambda()), a2(chain.n_v()), l2(chain.n_lambda());
  fresh.solve(f, c, a1, l1);
  reused.solve(f, c, a2, l2);
  EXPECT_EQ(a1, a2);
  EXPECT_EQ(l1, l2);
}

TYPED_TEST(KktSolver, NonFiniteValuesAreReported) {
  PlanarChainKkt chain(chain_options(5, false), 2);
  TypeParam sparse(chain.mass_pattern(), chain.jacobian_pattern());
  chain.bind(sparse);
  chain.write_values(sparse);
  sparse.jacobian_values()[3] = std::nan("");
  EXPECT_FALSE(sparse.factor());
}

TYPED_TEST(KktSolver, RejectsBadPatterns) {
  Pattern upper(2, 2), g(1, 2), g_wrong(1, 3);
  upper.insert(0, 0) = 1.0;
  upper.insert(0, 1) = 1.0;  // above the diagonal
  upper.insert(1, 1) = 1.0;
  g.insert(0, 0) = 1.0;
  EXPECT_THROW(TypeParam(upper, g), std::invalid_argument);
  Pattern lower(2, 2);
  lower.insert(0, 0) = 1.0;
  lower.insert(1, 1) = 1.0;
  EXPECT_THROW(TypeParam(lower, g_wrong), std::invalid_argument);
}

TYPED_TEST(KktSolver, SlotLookUpFollowsThePatternOrder) {
  Pattern m(3, 3), g(1, 3);
  m.insert(0, 0) = 1.0;
  m.insert(2, 0) = 1.0;
  m.insert(1, 1) = 1.0;
  m.insert(2, 2) = 1.0;
  g.insert(0, 2) = 1.0;
  g.insert(0, 0) = 1.0;
  TypeParam sparse(m, g);
  EXPECT_EQ(sparse.mass_slot(0, 0), 0);
  EXPECT_EQ(sparse.mass_slot(2, 0), 1);
  EXPECT_EQ(sparse.mass_slot(1, 1), 2);
  EXPECT_EQ(sparse.mass_slot(2, 2), 3);
  EXPECT_EQ(sparse.mass_slot(0, 2), -1);  // upper triangle
  EXPECT_EQ(sparse.mass_slot(1, 0), -1);  // not in the pattern
  EXPECT_EQ(sparse.jacobian_slot(0, 0), 0);
  EXPECT_EQ(sparse.jacobian_slot(0, 2), 1);
  EXPECT_EQ(sparse.jacobian_slot(0, 1), -1);

  // and the values land where the slots say: M = [2 0 1; 0 3 0; 1 0 4], G = [1 0 1]
  sparse.mass_values()[0] = 2.0;
  sparse.mass_values()[1] = 1.0;
  sparse.mass_values()[2] = 3.0;
  sparse.mass_values()[3] = 4.0;
  sparse.jacobian_values()[0] = 1.0;
  sparse.jacobian_values()[1] = 1.0;
  ASSERT_TRUE(sparse.factor());
  Mat k(4, 4);
  k << 2, 0, 1, 1, 0, 3, 0, 0, 1, 0, 4, 1, 1, 0, 1, 0;
  const Vec rhs = (Vec(4) << 1.0, -2.0, 0.5, 3.0).finished();
  const Vec ref = k.fullPivLu().solve(rhs);
  Vec a(3), lambda(1);
  sparse.solve(rhs.head(3), rhs.tail(1), a, lambda);
  EXPECT_LT((a - ref.head(3)).norm(), 1e-14);
  EXPECT_LT(std::abs(lambda[0] - ref[3]), 1e-14);
}

}  // namespace
}  // namespace rtmb
