// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include "rtmb/system.hpp"
#include "rtmb/types.hpp"

namespace rtmb {

/// Scratch for the finite-difference fallback of the iteration-matrix blocks, sized once.
struct BlockScratch {
  BlockScratch(int n, int m)
      : qp(Vec::Zero(n)),
        fp(Vec::Zero(n)),
        fm(Vec::Zero(n)),
        Ms(Mat::Zero(n, n)),
        Gs(Mat::Zero(m, n)) {}
  Vec qp, fp, fm;  ///< perturbed point, forward and backward values, n
  Mat Ms;          ///< M at a perturbed point, n x n
  Mat Gs;          ///< G at a perturbed point, m x n
};

/// df/dq and df/dv at (t, q, v): the System's analytic force_jacobians() when it provides one,
/// else central differences of forces() (the documented fallback of system.hpp). RT-safe.
void force_jacobian_blocks(const System& sys,
                           double t,
                           VecCRef q,
                           VecCRef v,
                           InputValues u,
                           MatRef out_fq,
                           MatRef out_fv,
                           BlockScratch& s) noexcept;

/// d(G(t,q)^T mu)/dq: analytic constraint_force_jacobian() or central differences of jacobian().
void constraint_force_block(
    const System& sys, double t, VecCRef q, VecCRef mu, MatRef out_H, BlockScratch& s) noexcept;

/// d(M(t,q) a)/dq: analytic inertia_jacobian() or central differences of mass(). RT-safe.
void inertia_block(
    const System& sys, double t, VecCRef q, VecCRef a, MatRef out_K, BlockScratch& s) noexcept;

}  // namespace rtmb
