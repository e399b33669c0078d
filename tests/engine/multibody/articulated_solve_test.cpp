// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// ArticulatedSolve (engine/multibody/articulated_solve.cpp) filled by JointSpaceTree:
// M^-1 tau by the articulated-body algorithm's passes (RBDA Table 7.1 without velocity terms)
// against the inverse of the dense M(q) of the composite-rigid-body algorithm (RBDA Table 6.2,
// JointSpaceTree::mass), at random states of a branched tree with every joint type the tree has
// (floating base off the unit sphere, revolute, prismatic, fixed, planar) and of a 30-link
// spatial chain. Independent algorithms: CRBA sums composite inertias and never eliminates a
// joint; ABA eliminates joints leaf to root.

#include "engine/multibody/articulated_solve.hpp"

#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <Eigen/LU>
#include <random>
#include <string>

#include "rtmb/models/joint_space_tree.hpp"
#include "tests/support/joint_space_chain_spec.hpp"
#include "tests/support/tilted_inertia.hpp"

namespace rtmb {
namespace {

using testing::tilted_inertia;

TreeLinkSpec link_of(int l) {
  TreeLinkSpec link;
  link.name = "l" + std::to_string(l);
  link.mass = 1.0 + 0.3 * (l % 4);
  link.com = {0.05 * (l % 3), -0.1, 0.2 - 0.03 * (l % 5)};
  link.inertia = tilted_inertia(0.02 + 0.01 * (l % 3), 0.03, 0.015 + 0.005 * (l % 2), 0.3 * l);
  return link;
}

// l0 floating on the world, l1 revolute on l0, l2 prismatic on l1, l3 welded to l1 (a branch
// through a fixed joint), l4 planar on l3, l5 revolute on l4
JointSpaceSpec every_joint_type() {
  JointSpaceSpec s;
  s.name = "every_joint_type";
  for (int l = 0; l < 6; ++l) s.links.push_back(link_of(l));
  const TreeJointType types[] = {TreeJointType::kFloating,  TreeJointType::kRevolute,
                                 TreeJointType::kPrismatic, TreeJointType::kFixed,
                                 TreeJointType::kPlanar,    TreeJointType::kRevolute};
  const int parents[] = {-1, 0, 1, 1, 3, 4};
  for (int l = 0; l < 6; ++l) {
    TreeJointSpec j;
    j.name = "j" + std::to_string(l);
    j.type = types[l];
    j.parent = parents[l];
    j.child = l;
    j.origin_xyz = {0.1 * l, 0.2, -0.1 * (l % 2)};
    j.origin_rotation =
        Eigen::AngleAxisd(0.4 * l, Eigen::Vector3d(0.3, 1.0, 0.2).normalized()).toRotationMatrix();
    j.axis = {0.2 * l, 1.0, 0.5};
    s.joints.push_back(j);
  }
  return s;
}

// the chain of tests/support/joint_space_chain_spec.hpp (n links, each revolute on the one before
// about axes turning x, y, z) with the links of link_of
JointSpaceSpec spatial_chain(int n) {
  JointSpaceSpec s = rtmb::testing::joint_space_chain_spec(n, false);
  s.name = "chain";
  for (int l = 0; l < n; ++l) s.links[static_cast<std::size_t>(l)] = link_of(l);
  return s;
}

// max |X - M^-1| / max |M^-1| over random states, X = mass_factor()'s solve of every column of
// the identity and M^-1 the dense inverse of mass()
double worst_relative_error(const JointSpaceTree& tree, int states) {
  std::mt19937 rng(19);
  std::uniform_real_distribution<double> angle(-3.0, 3.0);
  const int n = tree.n_v();
  const auto factor = tree.articulated_solve();
  Mat m(n, n);
  Vec x(n);
  double worst = 0.0;
  for (int s = 0; s < states; ++s) {
    Vec q(n);
    for (int i = 0; i < n; ++i) q(i) = angle(rng);
    tree.mass(0.0, q, m);
    const Mat m_inv = m.fullPivLu().inverse();
    tree.articulated_inputs(q, *factor);
    EXPECT_TRUE(factor->factor());
    for (int c = 0; c < n; ++c) {
      x = Vec::Unit(n, c);
      factor->solve(x);
      worst =
          std::max(worst, (x - m_inv.col(c)).cwiseAbs().maxCoeff() / m_inv.cwiseAbs().maxCoeff());
    }
  }
  return worst;
}

TEST(ArticulatedSolve, InvertsTheCrbaMassMatrixForEveryJointType) {
  const JointSpaceTree tree(every_joint_type());
  ASSERT_EQ(tree.n_v(), 7 + 1 + 1 + 3 + 1);
  // random q puts the Euler parameters off the unit sphere (|e| up to ~5): the c e e^T block of
  // mass() then differs from the sphere's, and the joint-space inertia A_i must carry it
  EXPECT_LT(worst_relative_error(tree, 20), 1e-10);
}

TEST(ArticulatedSolve, InvertsTheCrbaMassMatrixOfALongSpatialChain) {
  const JointSpaceTree tree(spatial_chain(30));
  EXPECT_LT(worst_relative_error(tree, 5), 1e-10);
}

TEST(ArticulatedSolve, RefusesASingularMassMatrix) {
  // a massless, inertia-free end link about its own joint: that joint has no inertia, M is
  // singular, D_i = 0
  JointSpaceSpec spec = spatial_chain(3);
  spec.links[2].mass = 0.0;
  spec.links[2].inertia.setZero();
  const JointSpaceTree tree(spec);
  const auto factor = tree.articulated_solve();
  tree.articulated_inputs(Vec::Constant(3, 0.3), *factor);
  EXPECT_FALSE(factor->factor());
}

}  // namespace
}  // namespace rtmb
