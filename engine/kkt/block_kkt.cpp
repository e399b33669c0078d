// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Block range-space KKT solver (block_kkt.hpp). The equations, with M = diag(M_b) positive
// definite and A = G M^-1 G^T:
//
//   K [a; lambda] = [f; c]  <=>  M a + G^T lambda = f,  G a = c
//   a = M^-1 (f - G^T lambda),   A lambda = G M^-1 f - c                        (1)
//
// the range-space (Schur complement) form of the KKT system; Chin eq. 4.15's correction is (1)
// with f = 0: a = M^-1 G^T A^-1 r. With M_b = L_b L_b^T (Cholesky of each body block) and
// Y_b = G_b L_b^-T (G_b: the rows of G touching body b, restricted to its columns),
//
//   A = sum_b Y_b Y_b^T,   G M^-1 f = sum_b Y_b u_b with u_b = L_b^-1 f_b,
//   a_b = L_b^-T (u_b - Y_b^T lambda_b)                                        (2)
//
// (lambda_b: the multipliers of b's rows). A is positive definite when G has full row rank and
// M is positive definite, and it is factored A = L L^T by block Cholesky over groups of rows (a
// joint's rows) in a fill-reducing order. Every group couples only the groups that share a body
// with it, so a chain's A is block tridiagonal and its factor has no fill: O(N) work.
//
// Why not the sparse LDL^T of K (SparseKkt): in the order SparseKkt uses (each constraint right
// after its coordinates) its LDL^T performs exactly these operations (the coordinate pivots are
// M's, the constraint pivots -A's), but one scalar at a time through index arrays; here each
// update is a dense product of small blocks, which cut the factorization time of a pinned planar
// chain by ~3x (docs/architecture.md "Block KKT", bench/sparse_kkt_bench.cpp).
//
// Accuracy: the same as that LDL^T (the same elimination), checked against DenseKkt's pivoted
// factorizations to 1e-12 in tests/engine/kkt/sparse_kkt_test.cpp (KktSolverChain) and on every
// example model in tests/engine/multibody/spatial_multibody_sparse_kkt_test.cpp (1e-10).
//
// This file: the numeric factorization and solves, run at every step. The symbolic analysis
// that lays out the blocks is in block_kkt_analysis.cpp, the dense kernels in
// block_kkt_kernels.hpp.
#include "engine/kkt/block_kkt.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/kkt/block_kkt_kernels.hpp"

namespace rtmb {

namespace {

using namespace block_kkt_kernels;

using Index = std::size_t;

Index ix(int i) noexcept {
  return static_cast<Index>(i);
}

}  // namespace

template <int S, int NR>
bool BlockKkt::factor_block(const Block& bl, bool new_mass) noexcept {
  const int s = dim<S>(bl.size);
  const int nr = dim<NR>(bl.n_rows);
  double* __restrict l = mfac_.data() + bl.mfac_at;
  if (new_mass) {
    // M_b = L_b L_b^T, with 1 / L_b(j, j) on the diagonal
    const double* mv = values_.data();
    if (bl.diagonal) {
      for (int j = 0; j < s; ++j) {
        const double d = mv[bl.m_begin + j];
        if (!(d > 0.0)) return false;  // massless coordinate, or NaN
        l[j + j * s] = 1.0 / std::sqrt(d);
      }
    } else {
      std::fill(l, l + s * s, 0.0);
      for (int j = 0; j < s; ++j) {
        for (int p = mass_outer_[ix(bl.col + j)]; p < mass_outer_[ix(bl.col + j + 1)]; ++p) {
          l[(mass_inner_[ix(p)] - bl.col) + j * s] = mv[p];
        }
      }
      if (!cholesky<S>(l, s, nullptr)) return false;
    }
  }
  // Y_b = G_b L_b^-T (eq. 2), column-major like G_b
  const double* __restrict gb = (bl.g_direct ? values_.data() : gbuf_.data()) + bl.g_at;
  double* __restrict y = y_.data() + bl.y_at;
  if (bl.diagonal) {
    for (int j = 0; j < s; ++j) {
      const double inv = l[j + j * s];
      for (int i = 0; i < nr; ++i) y[i + j * nr] = gb[i + j * nr] * inv;
    }
  } else {
    std::copy(gb, gb + nr * s, y);
    right_solve_lt<S>(y, nr, l, s);
  }
  // P_b = Y_b Y_b^T (lower triangle) added into A
  const int* __restrict dst = asm_dst_.data() + bl.asm_at;
  double* __restrict ab = ablk_.data();
  if constexpr (S > 0 && NR > 0) {
    // whole columns of P first: with fixed sizes the compiler turns the i loop into vector code
    double p[NR * NR];
    for (int j = 0; j < NR; ++j) {
      for (int i = 0; i < NR; ++i) p[i + j * NR] = 0.0;
      for (int k = 0; k < S; ++k) {
        for (int i = 0; i < NR; ++i) p[i + j * NR] += y[i + k * NR] * y[j + k * NR];
      }
    }
    for (int i = 0; i < NR; ++i) {
      for (int j = 0; j <= i; ++j) ab[*dst++] += p[i + j * NR];
    }
  } else {
    for (int i = 0; i < nr; ++i) {
      for (int j = 0; j <= i; ++j) {
        double acc = 0.0;
        for (int k = 0; k < s; ++k) acc += y[i + k * nr] * y[j + k * nr];
        ab[*dst++] += acc;
      }
    }
  }
  return true;
}

template <int N>
bool BlockKkt::invert_spd(const double* a, int n_rt, const double* ref, double* out) noexcept {
  // out = a^-1 for the symmetric n x n block a (column-major, lower triangle read), after
  // checking that its LDL^T pivots p_j are positive and not tiny: p_j > kPivotTol * ref[j], ref
  // the diagonal of A before elimination (0 < p_j <= ref[j] in exact arithmetic for full-rank G).
  // A pivot with |p_j| <= kDependentRowTol * ref[j] is a row dependent (or nearly so) on those
  // eliminated before it at this configuration (G lost rank, p_j = ref[j] sin^2 of its angle to
  // their span): it is dropped (dropped_), and out is the inverse of the block without that row,
  // padded with zeros, so L_IJ = A_IJ out and the Schur updates eliminate only the kept rows and
  // the solves give the dropped row a zero multiplier (cholesky_dropping). Written so that NaN
  // fails. out is full (symmetric).
  const int n = dim<N>(n_rt);
  const auto negligible = [](double p, double r) {
    return r >= 0.0 && std::abs(p) <= kDependentRowTol * r;
  };
  if constexpr (N == 1) {
    const double d = a[0];
    if (negligible(d, ref[0])) {
      ++dropped_;
      out[0] = 0.0;
      return true;
    }
    if (!(ref[0] > 0.0 && d > kPivotTol * ref[0])) return false;
    out[0] = 1.0 / d;
    return true;
  } else if constexpr (N == 2) {
    // pivots a00 and det / a00; the inverse by the adjugate: one division
    const double a00 = a[0];
    const double a10 = a[1];
    const double a11 = a[3];
    if (negligible(a00, ref[0])) {
      // row 0 dropped: the block is row 1 alone
      ++dropped_;
      out[0] = 0.0;
      out[1] = 0.0;
      out[2] = 0.0;
      if (negligible(a11, ref[1])) {
        ++dropped_;
        out[3] = 0.0;
        return true;
      }
      if (!(ref[1] > 0.0 && a11 > kPivotTol * ref[1])) return false;
      out[3] = 1.0 / a11;
      return true;
    }
    const double det = a00 * a11 - a10 * a10;
    if (!(ref[0] > 0.0 && a00 > kPivotTol * ref[0])) return false;
    if (negligible(det, ref[1] * a00)) {
      // row 1 dropped: the inverse of the block without it
      ++dropped_;
      out[0] = 1.0 / a00;
      out[1] = 0.0;
      out[2] = 0.0;
      out[3] = 0.0;
      return true;
    }
    if (!(ref[1] > 0.0 && det > kPivotTol * ref[1] * a00)) return false;
    const double inv = 1.0 / det;
    out[0] = a11 * inv;
    out[1] = -a10 * inv;
    out[2] = -a10 * inv;
    out[3] = a00 * inv;
    return true;
  } else {
    // Cholesky a = C C^T (pivot test and dropping inside), then column e of a^-1 = C^-T C^-1 e_e
    double* c = scratch_.data();
    std::copy(a, a + n * n, c);
    if (!cholesky_dropping<N>(c, n, ref, dropped_)) return false;
    double* z = scratch_.data() + n * n;
    for (int e = 0; e < n; ++e) {
      for (int j = 0; j < n; ++j) z[j] = j == e ? 1.0 : 0.0;
      forward_lower<N, 1>(c, z, n);
      backward_upper<N, 1>(c, z, n);
      for (int j = 0; j < n; ++j) out[j + e * n] = z[j];
    }
    return true;
  }
}

template <int N, bool Chain>
bool BlockKkt::factor_column(const Column& col) noexcept {
  // Block LDL^T, A = L D L^T with unit block-lower L and block-diagonal D, right-looking:
  //   D_J = A_JJ (Schur-updated),  L_IJ = A_IJ D_J^-1,  A_I1I2 -= L_I1J A_I2J^T  (I1, I2 below J)
  // Why D_J^-1 explicitly and not a Cholesky with square roots: along a chain each column waits
  // for the previous one, so the factorization runs at the latency of this dependency chain;
  // a 2 x 2 inverse costs one division, a Cholesky two square roots and two divisions. The
  // solves then need no division at all.
  const int n = dim<N>(col.n);
  double* ab = ablk_.data();
  double* lb = lblk_.data();
  if (!invert_spd<N>(ab + col.diag, n, adiag_.data() + col.pos, lb + col.diag)) return false;
  const double* dinv = lb + col.diag;
  if constexpr (N > 0 && Chain) {
    // a chain link: one block below, of the same size, and its one update (straight-line code)
    {
      const Sub& sub = subs_[ix(col.sub_begin)];
      const Update& up = updates_[ix(col.upd_begin)];
      product_fixed<N, N, N, Mode::kStore>(lb + sub.at, N, N, ab + sub.at, N, dinv, N, N);
      product_fixed<N, N, N, Mode::kSubtract>(ab + up.dst, N, N, lb + up.l1, N, ab + up.l2, N, N);
      return true;
    }
  }
  for (int s = col.sub_begin; s < col.sub_end; ++s) {
    const Sub& sub = subs_[ix(s)];
    product<N, Mode::kStore>(lb + sub.at, sub.n, n, ab + sub.at, sub.n, dinv, n, n);
  }
  for (int u = col.upd_begin; u < col.upd_end; ++u) {
    const Update& up = updates_[ix(u)];
    product<N, Mode::kSubtract>(ab + up.dst, up.n1, up.n2, lb + up.l1, up.n1, ab + up.l2, up.n2, n);
  }
  return true;
}

template <int N, class F>
void BlockKkt::for_each_below(const Column& col, bool chain, F&& f) const noexcept {
  if (N > 0 && chain) return f(subs_[ix(col.sub_begin)], Size<N>{});
  for (int s = col.sub_begin; s < col.sub_end; ++s) f(subs_[ix(s)], Size<0>{});
}

template <int N, int W>
void BlockKkt::schur_forward_column(const Column& col, bool chain, double* x) noexcept {
  // forward substitution of column J: z_J is final (every earlier column has updated it), so
  // x_I -= L_IJ z_J for the blocks below, then w_J = D_J^-1 z_J
  const double* lb = lblk_.data();
  const int n = dim<N>(col.n);
  double* xj = x + W * col.pos;
  for_each_below<N>(col, chain, [&](const Sub& sub, auto ni) {
    sub_sweep<N, ni(), W, Sweep::kForward>(lb + sub.at, x + W * sub.pos, xj, sub.n, n);
  });
  diag_apply<N, W>(lb + col.diag, xj, scratch_.data(), n);
}

template <int S, int NR, int W>
void BlockKkt::solve_block_forward(const Block& bl,
                                   const double* const* f,
                                   double* __restrict x) noexcept {
  // u_b = L_b^-1 f_b (f == nullptr: f = 0), then x += Y_b u_b at b's rows
  const int s = dim<S>(bl.size);
  const int nr = dim<NR>(bl.n_rows);
  double* __restrict ub = u_.data() + W * bl.col;
  if (f == nullptr) {
    for (int i = 0; i < W * s; ++i) ub[i] = 0.0;
    return;
  }
  const double* __restrict l = mfac_.data() + bl.mfac_at;
  for (int j = 0; j < s; ++j) {
    for (int w = 0; w < W; ++w) ub[W * j + w] = f[w][bl.col + j];
  }
  if (bl.diagonal) {
    for (int j = 0; j < s; ++j) {
      for (int w = 0; w < W; ++w) ub[W * j + w] *= l[j + j * s];
    }
  } else {
    forward_lower<S, W>(l, ub, s);
  }
  const double* __restrict y = y_.data() + bl.y_at;
  const int* __restrict rp = row_pos_.data() + bl.rows_at;
  for (int i = 0; i < nr; ++i) {
    for (int w = 0; w < W; ++w) {
      double acc = 0.0;
      for (int k = 0; k < s; ++k) acc += y[i + k * nr] * ub[W * k + w];
      x[W * rp[i] + w] += acc;
    }
  }
}

template <int S, int NR, int W>
void BlockKkt::solve_block_backward(const Block& bl,
                                    const double* __restrict x,
                                    double* const* a_out) noexcept {
  // a_b = L_b^-T (u_b - Y_b^T lambda_b)
  const int s = dim<S>(bl.size);
  const int nr = dim<NR>(bl.n_rows);
  const double* __restrict l = mfac_.data() + bl.mfac_at;
  const double* __restrict y = y_.data() + bl.y_at;
  const int* __restrict rp = row_pos_.data() + bl.rows_at;
  double* __restrict ub = u_.data() + W * bl.col;
  for (int k = 0; k < s; ++k) {
    for (int w = 0; w < W; ++w) {
      double v = ub[W * k + w];
      for (int i = 0; i < nr; ++i) v -= y[i + k * nr] * x[W * rp[i] + w];
      ub[W * k + w] = v;
    }
  }
  if (bl.diagonal) {
    for (int j = 0; j < s; ++j) {
      for (int w = 0; w < W; ++w) ub[W * j + w] *= l[j + j * s];
    }
  } else {
    backward_upper<S, W>(l, ub, s);
  }
  for (int j = 0; j < s; ++j) {
    for (int w = 0; w < W; ++w) a_out[w][bl.col + j] = ub[W * j + w];
  }
}

bool BlockKkt::factor_blocks(const double* f, double* x) noexcept {
  // M does not depend on q for planar bodies: when every value equals the last successful
  // factorization's, that factor is still exact and is kept.
  const double* mv = values_.data();
  bool same = mfac_valid_;
  for (int p = 0; same && p < n_mass_; ++p) same = mv[p] == mprev_[ix(p)];
  if (!same) mfac_valid_ = false;
  for (std::size_t e = 0; e < gather_src_.size(); ++e) {
    gbuf_[ix(gather_dst_[e])] = values_[ix(gather_src_[e])];
  }
  std::fill(ablk_.begin(), ablk_.end(), 0.0);  // A is a sum; blocks of fill start at zero
  for (const Run& run : block_runs_) {
    bool ok = true;
    with_body_shape(run.a, run.b, [&](auto sc, auto rc) {
      for (int b = run.begin; ok && b < run.end; ++b) {
        ok = factor_block<sc(), rc()>(blocks_[ix(b)], !same);
        // factor_solve(): b's share of the right-hand side while Y_b is in cache
        if (ok && f != nullptr) solve_block_forward<sc(), rc(), 1>(blocks_[ix(b)], &f, x);
      }
    });
    if (!ok) return false;
  }
  if (!same) {
    std::copy(mv, mv + n_mass_, mprev_.begin());
    mfac_valid_ = true;
  }
  for (const Column& col : columns_) {
    for (int j = 0; j < col.n; ++j) adiag_[ix(col.pos + j)] = ablk_[ix(col.diag + j + j * col.n)];
  }
  return true;
}

bool BlockKkt::factor_columns(double* x) noexcept {
  for (const Run& run : column_runs_) {
    bool ok = true;
    with_size(run.a, [&](auto nc) {
      constexpr int N = nc();
      for (int k = run.begin; ok && k < run.end; ++k) {
        const Column& col = columns_[ix(k)];
        ok = run.b != 0 ? factor_column<N, true>(col) : factor_column<N, false>(col);
        // factor_solve(): the forward substitution of this column right behind its factor
        if (ok && x != nullptr) schur_forward_column<N, 1>(col, run.b != 0, x);
      }
    });
    if (!ok) return false;
  }
  return true;
}

bool BlockKkt::factor() noexcept {
  dropped_ = 0;
  factored_ = factor_blocks(nullptr, nullptr) && factor_columns(nullptr);
  return factored_;
}

bool BlockKkt::factor_solve(VecCRef f, VecCRef c, VecRef a_out, VecRef lambda_out) noexcept {
  // factor() then solve(f, c, ...) in one pass over the bodies and one over the columns: each
  // entry gets the same operations in the same order as the two calls, so the results are
  // bit-identical (BlockKkt.FactorSolveEqualsFactorThenSolveBitwise).
  const double* cp[1] = {c.data()};
  load_rhs<1>(cp);
  dropped_ = 0;
  factored_ = factor_blocks(f.data(), x_.data()) && factor_columns(x_.data());
  if (!factored_) {
    a_out.setConstant(std::numeric_limits<double>::quiet_NaN());
    lambda_out.setConstant(std::numeric_limits<double>::quiet_NaN());
    return false;
  }
  schur_backward<1>(x_.data());
  double* ap[1] = {a_out.data()};
  blocks_backward<1>(ap);
  for (int p = 0; p < n_lambda_; ++p) lambda_out[perm_row_[ix(p)]] = x_[ix(p)];
  return true;
}

template <int W>
void BlockKkt::schur_backward(double* x) noexcept {
  // L^T y = w, columns in reverse elimination order: y_J = w_J - sum_I L_IJ^T y_I
  const double* lb = lblk_.data();
  for (auto it = column_runs_.rbegin(); it != column_runs_.rend(); ++it) {
    const Run& run = *it;
    with_size(run.a, [&](auto nc) {
      constexpr int N = nc();
      for (int k = run.end - 1; k >= run.begin; --k) {
        const Column& col = columns_[ix(k)];
        const int n = dim<N>(col.n);
        double* xj = x + W * col.pos;
        for_each_below<N>(col, run.b != 0, [&](const Sub& sub, auto ni) {
          sub_sweep<N, ni(), W, Sweep::kBackward>(lb + sub.at, x + W * sub.pos, xj, sub.n, n);
        });
      }
    });
  }
}

template <int W>
void BlockKkt::solve_schur(double* x) noexcept {
  // x <- A^-1 x with A = L D L^T: forward (L z = x, w = D^-1 z) column by column in elimination
  // order, then backward (L^T y = w). W right-hand sides interleaved, each with the operations
  // of W = 1. Chain links (one block below, of the column's size) run straight-line code.
  for (const Run& run : column_runs_) {
    with_size(run.a, [&](auto nc) {
      for (int k = run.begin; k < run.end; ++k) {
        schur_forward_column<nc(), W>(columns_[ix(k)], run.b != 0, x);
      }
    });
  }
  schur_backward<W>(x);
}

template <int W>
void BlockKkt::load_rhs(const double* const* c) noexcept {
  // x = -c in the permuted row order (G M^-1 f is added block by block)
  double* x = x_.data();
  for (int p = 0; p < n_lambda_; ++p) {
    const int r = perm_row_[ix(p)];
    for (int w = 0; w < W; ++w) x[W * p + w] = -c[w][r];
  }
}

template <int W>
void BlockKkt::blocks_backward(double* const* a_out) noexcept {
  for (const Run& run : block_runs_) {
    with_body_shape(run.a, run.b, [&](auto sc, auto rc) {
      for (int b = run.begin; b < run.end; ++b) {
        solve_block_backward<sc(), rc(), W>(blocks_[ix(b)], x_.data(), a_out);
      }
    });
  }
}

template <int W>
void BlockKkt::solve_columns(const double* const* f,
                             const double* const* c,
                             double** a_out) noexcept {
  // eq. (1)-(2) for W right-hand sides at once; f == nullptr means f = 0 (the correction)
  load_rhs<W>(c);
  double* x = x_.data();
  for (const Run& run : block_runs_) {
    with_body_shape(run.a, run.b, [&](auto sc, auto rc) {
      for (int b = run.begin; b < run.end; ++b) {
        solve_block_forward<sc(), rc(), W>(blocks_[ix(b)], f, x);  // x = G M^-1 f - c
      }
    });
  }
  solve_schur<W>(x);  // lambda = A^-1 (G M^-1 f - c)
  blocks_backward<W>(a_out);
}

void BlockKkt::solve(VecCRef f, VecCRef c, VecRef a_out, VecRef lambda_out) noexcept {
  if (!factored_) {
    a_out.setConstant(std::numeric_limits<double>::quiet_NaN());
    lambda_out.setConstant(std::numeric_limits<double>::quiet_NaN());
    return;
  }
  const double* fp[1] = {f.data()};
  const double* cp[1] = {c.data()};
  double* ap[1] = {a_out.data()};
  solve_columns<1>(fp, cp, ap);
  for (int p = 0; p < n_lambda_; ++p) lambda_out[perm_row_[ix(p)]] = x_[ix(p)];
}

void BlockKkt::solve_correction(VecCRef r, VecRef dx_out) noexcept {
  if (!factored_) {
    dx_out.setConstant(std::numeric_limits<double>::quiet_NaN());
    return;
  }
  const double* cp[1] = {r.data()};
  double* ap[1] = {dx_out.data()};
  solve_columns<1>(nullptr, cp, ap);
}

void BlockKkt::solve_correction2(VecCRef r1, VecCRef r2, VecRef dx1_out, VecRef dx2_out) noexcept {
  if (!factored_) {
    dx1_out.setConstant(std::numeric_limits<double>::quiet_NaN());
    dx2_out.setConstant(std::numeric_limits<double>::quiet_NaN());
    return;
  }
  const double* cp[2] = {r1.data(), r2.data()};
  double* ap[2] = {dx1_out.data(), dx2_out.data()};
  solve_columns<2>(nullptr, cp, ap);
}

}  // namespace rtmb
