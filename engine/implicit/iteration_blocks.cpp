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

/// out.col(j) = (F(x + e_j) - F(x - e_j)) / (2 e_j) for every coordinate j of x, where
/// eval(point, value) writes F(point) into value. The perturbed point lives in s.qp, the two
/// values in s.fp and s.fm (no allocation).
template <class Eval>
void central_columns(VecCRef x, MatRef out, BlockScratch& s, const Eval& eval) noexcept {
  s.qp = x;
  for (int j = 0; j < x.size(); ++j) {
    const double e = fd_step(x[j]);
    s.qp[j] = x[j] + e;
    eval(s.qp, s.fp);
    s.qp[j] = x[j] - e;
    eval(s.qp, s.fm);
    s.qp[j] = x[j];
    out.col(j) = (s.fp - s.fm) / (2.0 * e);
  }
}

}  // namespace

void force_jacobian_blocks(const System& sys,
                           double t,
                           VecCRef q,
                           VecCRef v,
                           InputValues u,
                           MatRef out_fq,
                           MatRef out_fv,
                           BlockScratch& s) noexcept {
  if (sys.force_jacobians(t, q, v, out_fq, out_fv)) return;
  central_columns(q, out_fq, s, [&](VecCRef qp, Vec& f) { sys.forces(t, qp, v, u, f); });
  central_columns(v, out_fv, s, [&](VecCRef vp, Vec& f) { sys.forces(t, q, vp, u, f); });
}

void constraint_force_block(
    const System& sys, double t, VecCRef q, VecCRef mu, MatRef out_H, BlockScratch& s) noexcept {
  if (sys.constraint_force_jacobian(t, q, mu, out_H)) return;
  central_columns(q, out_H, s, [&](VecCRef qp, Vec& f) {
    sys.jacobian(t, qp, s.Gs);
    f.noalias() = s.Gs.transpose() * mu;
  });
}

void inertia_block(
    const System& sys, double t, VecCRef q, VecCRef a, MatRef out_K, BlockScratch& s) noexcept {
  if (sys.inertia_jacobian(t, q, a, out_K)) return;
  central_columns(q, out_K, s, [&](VecCRef qp, Vec& f) {
    sys.mass(t, qp, s.Ms);
    f.noalias() = s.Ms * a;
  });
}

}  // namespace rtmb
