// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// O(n) factorization of a kinematic tree's joint-space mass matrix M(q) and the solve
// x = M^-1 tau, by the articulated-body algorithm without velocity terms (R. Featherstone, Rigid
// Body Dynamics Algorithms, Springer 2008, "RBDA", Table 7.1 and §7.3; issue 19). Internal to
// engine/multibody: the joint-space tree (rtmb/models/joint_space_tree.hpp) fills the links'
// spatial inertias and motion subspaces at q, in world Pluecker coordinates at the world origin
// as its recursions are (RBDA §5.3, all X = 1; JointSpaceTree::articulated_solve() and
// articulated_inputs()). What it is for: a KKT solve that applies M^-1 in O(n) and forms
// G M^-1 G^T only for the loop rows (RBDA §8.5-8.6), so that a long closed-loop chain in joint
// space steps in O(n) where the dense M costs O(n^3).

#include <Eigen/Core>
#include <vector>

#include "rtmb/types.hpp"

namespace rtmb {

/// The articulated factorization of M(q) of a tree of links with 0 to 7 coordinates per joint.
/// Setup fixes the topology; factor() and solve() are allocation-free.
class ArticulatedSolve {
 public:
  using Vec6 = Eigen::Matrix<double, 6, 1>;
  using Mat6 = Eigen::Matrix<double, 6, 6>;
  static constexpr int kMaxDofs = 7;

  /// What the caller writes per link before factor(): the link's spatial inertia I_i, its parent
  /// joint's motion subspace S_i (6 x dofs, the columns used), and a joint-space inertia A_i
  /// (dofs x dofs, symmetric) that M has on the joint's own diagonal block besides S^T I^c S (a
  /// floating joint's c e e^T, joint_space_tree.cpp "Mass matrix"; armature in general). The
  /// columns of S_i and the rows and columns of A_i beyond the joint's dofs must be zero.
  struct Link {
    Mat6 inertia = Mat6::Zero();
    Eigen::Matrix<double, 6, kMaxDofs> motion_subspace = Eigen::Matrix<double, 6, kMaxDofs>::Zero();
    Eigen::Matrix<double, kMaxDofs, kMaxDofs> joint_inertia =
        Eigen::Matrix<double, kMaxDofs, kMaxDofs>::Zero();
  };

  /// order: every link after its parent; parent[l]: parent link or -1; coordinate[l]: the first
  /// coordinate of l's parent joint (-1: none); dofs[l]: its number of coordinates (0..7). n_v:
  /// the number of coordinates. Setup-only (allocates).
  ArticulatedSolve(std::vector<int> order,
                   std::vector<int> parent,
                   std::vector<int> coordinate,
                   std::vector<int> dofs,
                   int n_v);

  [[nodiscard]] int n_v() const noexcept { return n_v_; }
  [[nodiscard]] Link& link(int l) noexcept { return links_[static_cast<std::size_t>(l)]; }

  /// Articulated inertias from the links' inertias (RBDA Table 7.1, pass 2 without bias forces).
  /// False when a joint's D_i = S_i^T I^A_i S_i + A_i is not positive definite (M singular) or
  /// not finite. RT-safe.
  [[nodiscard]] bool factor() noexcept;

  /// x <- M^-1 x with the last factor(): passes 2 (bias forces from -tau) and 3. O(n). RT-safe.
  void solve(VecRef x) noexcept;

 private:
  struct Factor {
    Mat6 articulated;                                 // I^A_i
    Eigen::Matrix<double, 6, kMaxDofs> u;             // U_i = I^A_i S_i
    Eigen::Matrix<double, kMaxDofs, kMaxDofs> d_inv;  // D_i^-1
    Vec6 bias;                                        // p^A_i of the solve
    Vec6 acceleration;                                // a_i of the solve
  };

  std::vector<int> order_;
  std::vector<int> parent_;
  std::vector<int> coordinate_;
  std::vector<int> dofs_;
  int n_v_;
  std::vector<Link> links_;
  std::vector<Factor> factors_;
};

}  // namespace rtmb
