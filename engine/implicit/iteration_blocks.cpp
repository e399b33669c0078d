// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Iteration-matrix blocks of the implicit methods (Hoitink 2011 eq. 3.22, reference
// gsssss-hoitink2011.md §2.4): the System's analytic derivatives, or central differences into
// preallocated scratch when a System does not provide them (system.hpp).
#include "engine/implicit/iteration_blocks.hpp"

#include <algorithm>
#include <cmath>

namespace rtmb {
namespace {

double fd_step(double x) noexcept {
  // central differences: truncation ~ e^2, round-off ~ eps/e; e ~ eps^(1/3) balances them
  return 6e-6 * std::max(1.0, std::fabs(x));
}

}  // namespace

void force_jacobian_blocks(const System& sys,
                           double t,
                           VecCRef q,
                           VecCRef v,
                           MatRef out_fq,
                           MatRef out_fv,
                           BlockScratch& s) noexcept {
  if (sys.force_jacobians(t, q, v, out_fq, out_fv)) return;
  s.qp = q;
  for (int j = 0; j < q.size(); ++j) {
    const double e = fd_step(q[j]);
    s.qp[j] = q[j] + e;
    sys.forces(t, s.qp, v, s.fp);
    s.qp[j] = q[j] - e;
    sys.forces(t, s.qp, v, s.fm);
    s.qp[j] = q[j];
    out_fq.col(j) = (s.fp - s.fm) / (2.0 * e);
  }
  s.qp = v;
  for (int j = 0; j < v.size(); ++j) {
    const double e = fd_step(v[j]);
    s.qp[j] = v[j] + e;
    sys.forces(t, q, s.qp, s.fp);
    s.qp[j] = v[j] - e;
    sys.forces(t, q, s.qp, s.fm);
    s.qp[j] = v[j];
    out_fv.col(j) = (s.fp - s.fm) / (2.0 * e);
  }
}

void constraint_force_block(
    const System& sys, double t, VecCRef q, VecCRef mu, MatRef out_H, BlockScratch& s) noexcept {
  if (sys.constraint_force_jacobian(t, q, mu, out_H)) return;
  s.qp = q;
  for (int j = 0; j < q.size(); ++j) {
    const double e = fd_step(q[j]);
    s.qp[j] = q[j] + e;
    sys.jacobian(t, s.qp, s.Gs);
    s.fp.noalias() = s.Gs.transpose() * mu;
    s.qp[j] = q[j] - e;
    sys.jacobian(t, s.qp, s.Gs);
    s.fm.noalias() = s.Gs.transpose() * mu;
    s.qp[j] = q[j];
    out_H.col(j) = (s.fp - s.fm) / (2.0 * e);
  }
}

void inertia_block(
    const System& sys, double t, VecCRef q, VecCRef a, MatRef out_K, BlockScratch& s) noexcept {
  if (sys.inertia_jacobian(t, q, a, out_K)) return;
  s.qp = q;
  for (int j = 0; j < q.size(); ++j) {
    const double e = fd_step(q[j]);
    s.qp[j] = q[j] + e;
    sys.mass(t, s.qp, s.Ms);
    s.fp.noalias() = s.Ms * a;
    s.qp[j] = q[j] - e;
    sys.mass(t, s.qp, s.Ms);
    s.fm.noalias() = s.Ms * a;
    s.qp[j] = q[j];
    out_K.col(j) = (s.fp - s.fm) / (2.0 * e);
  }
}

}  // namespace rtmb
