// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// x = M(q)^-1 tau in O(n) (engine/multibody/articulated_solve.hpp). Source: R. Featherstone,
// Rigid Body Dynamics Algorithms (Springer 2008), "RBDA", the articulated-body algorithm of
// Table 7.1, with every velocity and gravity term zero: the forward dynamics of q' = 0 and zero
// gravity under the joint forces tau is exactly q'' = M^-1 tau (RBDA eq. 7.1 with C = 0), and the
// algorithm's pass 2 splits into a part that depends on q alone (the articulated inertias, here
// factor()) and a part linear in tau (the bias forces, here solve()). In base coordinates
// (RBDA §5.3) every link-to-link transform is the identity, so the sums need no X.
//   factor, leaves to root (RBDA eqs. 7.38-7.47 at v = 0):
//     I^A_i = I_i + sum over children c of I^a_c,
//     U_i = I^A_i S_i,  D_i = S_i^T U_i + A_i,  I^a_i = I^A_i - U_i D_i^-1 U_i^T.
//   A_i, a joint-space inertia on the joint's own block of M (armature, a floating joint's
//   c e e^T), enters D_i only: the joint equation tau_i = S_i^T f_i + A_i q''_i is the one of an
//   actuator with inertia A_i, whose elimination RBDA §7.3 carries out with D_i in place of
//   S^T I^A S.
//   solve, leaves to root (RBDA Table 7.1, pass 2, at p_i = 0 and c_i = 0):
//     u_i = tau_i - S_i^T p^A_i,  p^A_parent += p^A_i + U_i D_i^-1 u_i  (p^A_i starts at 0, the
//     children's p^a summed in: RBDA eqs. 7.41 and 7.45 with the bias from -tau folded into u).
//   solve, root to leaves (pass 3, base acceleration 0: no gravity):
//     q''_i = D_i^-1 (u_i - U_i^T a_parent),  a_i = a_parent + S_i q''_i.
// Each pass visits a link once with fixed-size 6 x 6 work: O(n) per factor and per solve, against
// CRBA's O(n d) mass matrix (d the depth) and its O(n^3) dense factorization.

#include "engine/multibody/articulated_solve.hpp"

#include <Eigen/Cholesky>
#include <cmath>
#include <utility>

namespace rtmb {

ArticulatedSolve::ArticulatedSolve(std::vector<int> order,
                                   std::vector<int> parent,
                                   std::vector<int> coordinate,
                                   std::vector<int> dofs,
                                   int n_v)
    : order_(std::move(order)),
      parent_(std::move(parent)),
      coordinate_(std::move(coordinate)),
      dofs_(std::move(dofs)),
      n_v_(n_v),
      links_(parent_.size()),
      factors_(parent_.size()) {}

bool ArticulatedSolve::factor() noexcept {
  for (std::size_t l = 0; l < links_.size(); ++l) factors_[l].articulated = links_[l].inertia;
  for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
    const auto l = static_cast<std::size_t>(*it);
    Factor& f = factors_[l];
    const Link& link = links_[l];
    const int d = dofs_[l];
    const int p = parent_[l];
    if (d == 1) {
      // the common case (revolute, prismatic): D_i is a scalar
      f.u.col(0).noalias() = f.articulated * link.motion_subspace.col(0);
      const double dii = link.motion_subspace.col(0).dot(f.u.col(0)) + link.joint_inertia(0, 0);
      if (!(dii > 0.0) || !std::isfinite(dii)) return false;
      f.d_inv(0, 0) = 1.0 / dii;
      if (p >= 0) {
        factors_[static_cast<std::size_t>(p)].articulated +=
            f.articulated - f.u.col(0) * (f.d_inv(0, 0) * f.u.col(0).transpose());
      }
    } else if (d > 1) {
      // planar (3) and floating (7): D_i by Cholesky at the fixed size 7 x 7, the unused
      // columns of S_i being zero and D_i padded with the identity there, so that no product or
      // decomposition has a run-time size (no allocation)
      using Mat7 = Eigen::Matrix<double, kMaxDofs, kMaxDofs>;
      f.u.noalias() = f.articulated * link.motion_subspace;
      Mat7 dii;
      dii.noalias() = link.motion_subspace.transpose() * f.u;
      dii += link.joint_inertia;
      for (int i = d; i < kMaxDofs; ++i) dii(i, i) = 1.0;
      const Eigen::LLT<Mat7> llt(dii);
      if (llt.info() != Eigen::Success || !dii.allFinite()) return false;
      const auto diag = llt.matrixLLT().diagonal();
      if (!(diag.minCoeff() > 1e-7 * diag.maxCoeff())) return false;  // cond(D_i) > 1e14
      f.d_inv = llt.solve(Mat7::Identity());
      for (int i = d; i < kMaxDofs; ++i) f.d_inv(i, i) = 0.0;  // the padding acts on nothing
      if (p >= 0) {
        const Eigen::Matrix<double, 6, kMaxDofs> ud = f.u * f.d_inv;
        factors_[static_cast<std::size_t>(p)].articulated += f.articulated - ud * f.u.transpose();
      }
    } else if (p >= 0) {
      // a welded link: its articulated inertia is rigidly attached to its parent
      factors_[static_cast<std::size_t>(p)].articulated += f.articulated;
    }
  }
  return true;
}

void ArticulatedSolve::solve(VecRef x) noexcept {
  for (Factor& f : factors_) f.bias.setZero();
  for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
    const auto l = static_cast<std::size_t>(*it);
    Factor& f = factors_[l];
    const Link& link = links_[l];
    const int d = dofs_[l];
    const int k = coordinate_[l];
    const int p = parent_[l];
    Vec6 passed = f.bias;  // p^a_i, what the link passes to its parent
    if (d == 1) {
      const double u = x(k) - link.motion_subspace.col(0).dot(f.bias);
      x(k) = u;
      passed += f.u.col(0) * (f.d_inv(0, 0) * u);
    } else if (d > 1) {
      const Eigen::Matrix<double, kMaxDofs, 1> s_p = link.motion_subspace.transpose() * f.bias;
      Eigen::Matrix<double, kMaxDofs, 1> u = Eigen::Matrix<double, kMaxDofs, 1>::Zero();
      for (int c = 0; c < d; ++c) {
        u(c) = x(k + c) - s_p(c);
        x(k + c) = u(c);
      }
      const Eigen::Matrix<double, kMaxDofs, 1> d_u = f.d_inv * u;
      passed += f.u * d_u;
    }
    if (p >= 0) factors_[static_cast<std::size_t>(p)].bias += passed;
  }
  for (int li : order_) {
    const auto l = static_cast<std::size_t>(li);
    Factor& f = factors_[l];
    const Link& link = links_[l];
    const int d = dofs_[l];
    const int k = coordinate_[l];
    const int p = parent_[l];
    const Vec6 parent_acceleration =
        p >= 0 ? factors_[static_cast<std::size_t>(p)].acceleration : Vec6::Zero();
    f.acceleration = parent_acceleration;
    if (d == 1) {
      const double qdd = f.d_inv(0, 0) * (x(k) - f.u.col(0).dot(parent_acceleration));
      x(k) = qdd;
      f.acceleration += link.motion_subspace.col(0) * qdd;
    } else if (d > 1) {
      const Eigen::Matrix<double, kMaxDofs, 1> u_a = f.u.transpose() * parent_acceleration;
      Eigen::Matrix<double, kMaxDofs, 1> rhs = Eigen::Matrix<double, kMaxDofs, 1>::Zero();
      for (int c = 0; c < d; ++c) rhs(c) = x(k + c) - u_a(c);
      const Eigen::Matrix<double, kMaxDofs, 1> qdd = f.d_inv * rhs;
      for (int c = 0; c < d; ++c) x(k + c) = qdd(c);
      f.acceleration += link.motion_subspace * qdd;
    }
  }
}

}  // namespace rtmb
