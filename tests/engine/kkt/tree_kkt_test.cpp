// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// TreeKkt (engine/kkt/tree_kkt.cpp), the range-space solve through the articulated M^-1 and the
// k x k G M^-1 G^T (RBDA §8.5-8.6), against DenseKkt's LDL^T / LU of the full K = [M G^T; G 0]
// (engine/kkt/dense_kkt.cpp) built from the same M (CRBA) and G, on a 20-link spatial chain in
// joint space whose tip is pinned (a spherical loop closure, 3 rows): K [x; mu] = [a; b] and the
// post-stabilization correction top(K^-1 [0; r]) (Chin eq. 4.15) at random states, and the rank
// handling (a closure stated twice: its second copy's rows are dependent, both solvers drop the
// same rows and give the same solution).

#include "engine/kkt/tree_kkt.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "engine/kkt/dense_kkt.hpp"
#include "rtmb/models/joint_space_tree.hpp"
#include "tests/support/joint_space_chain_spec.hpp"

namespace rtmb {
namespace {

// the chain of tests/support/joint_space_chain_spec.hpp (n links of 0.3 m hanging from the world,
// revolute about x, y, z in turn, every joint at 0.1), with unequal links, and its tip pinned to
// the world where it is, `copies` times
JointSpaceSpec pinned_chain(int n, int copies) {
  JointSpaceSpec s = rtmb::testing::joint_space_chain_spec(n, false);
  s.name = "pinned_chain";
  for (int l = 0; l < n; ++l) {
    TreeLinkSpec& link = s.links[static_cast<std::size_t>(l)];
    link.mass = 1.0 + 0.1 * (l % 3);
    link.com = {0.0, 0.01 * (l % 2), -0.15};
    link.inertia = Eigen::Vector3d(0.008, 0.0075, 0.001).asDiagonal();
    s.joints[static_cast<std::size_t>(l)].initial_velocity = 0.0;
  }
  const JointSpaceTree open(s);
  const Eigen::Vector3d tip = open.point_position(Vec::Constant(n, 0.1), n - 1, {0.0, 0.0, -0.3});
  for (int c = 0; c < copies; ++c) {
    TreeClosureSpec pin;
    pin.name = "pin" + std::to_string(c);
    pin.type = TreeClosureType::kSpherical;
    pin.link_a = -1;
    pin.point_a = tip;
    pin.link_b = n - 1;
    pin.point_b = {0.0, 0.0, -0.3};
    s.closures.push_back(pin);
  }
  return s;
}

struct TreeSolvers {
  explicit TreeSolvers(const JointSpaceTree& tree)
      : dense(tree.n_v(), tree.n_lambda()), tree_kkt(tree) {}
  DenseKkt dense;
  TreeKkt tree_kkt;
};

// loads M and G at q into both and factors them
void load(const JointSpaceTree& tree, VecCRef q, TreeSolvers& s) {
  tree.mass(0.0, q, s.dense.mass_block());
  tree.jacobian(0.0, q, s.dense.jacobian_block());
  s.tree_kkt.load_mass(0.0, q);
  tree.jacobian(0.0, q, s.tree_kkt.jacobian_block());
  ASSERT_TRUE(s.dense.factor());
  ASSERT_TRUE(s.tree_kkt.factor());
}

double relative(VecCRef x, VecCRef reference) {
  return (x - reference).cwiseAbs().maxCoeff() / reference.cwiseAbs().maxCoeff();
}

TEST(TreeKkt, SolvesTheKktSystemAsTheDenseFactorizationDoes) {
  const JointSpaceTree tree(pinned_chain(20, 1));
  const int n = tree.n_v();
  const int k = tree.n_lambda();
  ASSERT_EQ(k, 3);
  TreeSolvers s(tree);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  double worst = 0.0;
  for (int trial = 0; trial < 5; ++trial) {
    Vec q(n);
    for (int i = 0; i < n; ++i) q(i) = 0.1 + 0.3 * u(rng);
    load(tree, q, s);
    EXPECT_EQ(s.tree_kkt.dropped_rows(), 0);
    Vec a(n), b(k), r(k);
    for (int i = 0; i < n; ++i) a(i) = u(rng);
    for (int i = 0; i < k; ++i) b(i) = u(rng);
    for (int i = 0; i < k; ++i) r(i) = u(rng);
    Vec x_d(n), mu_d(k), x_t(n), mu_t(k), dx_d(n), dx_t(n);
    s.dense.solve(a, b, x_d, mu_d);
    s.tree_kkt.solve(a, b, x_t, mu_t);
    s.dense.solve_correction(r, dx_d);
    s.tree_kkt.solve_correction(r, dx_t);
    worst = std::max({worst, relative(x_t, x_d), relative(mu_t, mu_d), relative(dx_t, dx_d)});
    // and the equations themselves: M x + G^T mu = a, G x = b, G dx = r
    Mat m(n, n), g(k, n);
    tree.mass(0.0, q, m);
    tree.jacobian(0.0, q, g);
    EXPECT_LT((m * x_t + g.transpose() * mu_t - a).cwiseAbs().maxCoeff(), 1e-10);
    EXPECT_LT((g * x_t - b).cwiseAbs().maxCoeff(), 1e-10);
    EXPECT_LT((g * dx_t - r).cwiseAbs().maxCoeff(), 1e-10);
  }
  EXPECT_LT(worst, 1e-10);
}

TEST(TreeKkt, DropsTheDependentRowsTheDenseFactorizationDrops) {
  // the pin stated twice: rows 3..5 repeat rows 0..2 (pivots at round-off, kDependentRowTol)
  const JointSpaceTree tree(pinned_chain(20, 2));
  const int n = tree.n_v();
  TreeSolvers s(tree);
  load(tree, Vec::Constant(n, 0.2), s);
  EXPECT_EQ(s.dense.dropped_rows(), 3);
  EXPECT_EQ(s.tree_kkt.dropped_rows(), 3);
  Vec a = Vec::LinSpaced(n, -1.0, 1.0);
  Vec b(6);
  b << 0.1, -0.2, 0.3, 0.1, -0.2, 0.3;  // consistent: the copies ask the same
  Vec x_d(n), mu_d(6), x_t(n), mu_t(6);
  s.dense.solve(a, b, x_d, mu_d);
  s.tree_kkt.solve(a, b, x_t, mu_t);
  EXPECT_LT(relative(x_t, x_d), 1e-10);
  EXPECT_LT(relative(mu_t, mu_d), 1e-10);
  EXPECT_EQ(mu_t.tail<3>().cwiseAbs().maxCoeff(), 0.0);  // the dropped rows' zero multipliers
}

TEST(TreeKkt, FailsOnASingularMassMatrix) {
  JointSpaceSpec spec = pinned_chain(5, 1);
  spec.links[4].mass = 0.0;
  spec.links[4].inertia.setZero();
  const JointSpaceTree tree(spec);
  TreeKkt kkt(tree);
  kkt.load_mass(0.0, Vec::Constant(5, 0.1));
  tree.jacobian(0.0, Vec::Constant(5, 0.1), kkt.jacobian_block());
  EXPECT_FALSE(kkt.factor());
}

}  // namespace
}  // namespace rtmb
