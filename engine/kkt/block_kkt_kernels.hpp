// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// BlockKkt's fixed-size dense kernels: Cholesky of a small block, triangular solves and the
// block products of the factorization and the substitutions. Included only by block_kkt.cpp,
// the numeric factor and solve: every kernel is always_inline into it, so the step's sparse path
// runs them as straight-line code (engine/CMakeLists.txt compiles that file with
// -fno-tree-loop-vectorize, for the reason given there).
#pragma once

#include <cmath>
#include <type_traits>

#include "engine/kkt/pivot_tolerance.hpp"

namespace rtmb::block_kkt_kernels {

// Pivots below kPivotTol (engine/kkt/pivot_tolerance.hpp) of the diagonal they come from are
// rejected.

// The kernels below are templates on the sizes of the blocks they work on (a body's coordinates
// S and rows NR, a group's rows N) so that their loops have compile-time trip counts and become
// straight-line code: with run-time sizes of 2 to 4 the loop control, its mispredicted exits and
// the vectorizer's run-time alias checks cost more than the arithmetic (measured with callgrind:
// the first run-time-size version of this solver executed as many instructions per body as
// SparseKkt). A size of 0 means "read at run time", the fallback for uncommon sizes.

template <int N>
constexpr int dim(int n) noexcept {
  return N > 0 ? N : n;
}

template <int N>
using Size = std::integral_constant<int, N>;

// f(Size<n>{}) for K <= n <= Max, else f(Size<0>{}): the run-time size n as a compile-time one
// where a kernel has an instantiation for it. One compare per size, as a switch of this size.
template <int Max, int K = 1, class F>
[[gnu::always_inline]] inline void with_size_up_to(int n, F&& f) {
  if constexpr (K > Max) {
    return f(Size<0>{});
  } else {
    if (n == K) return f(Size<K>{});
    return with_size_up_to<Max, K + 1>(n, f);
  }
}

// f(Size<n>{}) for 1 <= n <= 8, else f(Size<0>{}).
template <class F>
[[gnu::always_inline]] inline void with_size(int n, F&& f) {
  with_size_up_to<8>(n, f);
}

// f(Size<s>{}, Size<nr>{}) for a body block: s = 3 (planar) or 7 (spatial) and 1 <= nr <= 6
// compile-time, anything else at run time.
template <class F>
[[gnu::always_inline]] inline void with_body_shape(int s, int nr, F&& f) {
  const auto rows = [&](auto sc) { with_size_up_to<6>(nr, [&](auto rc) { f(sc, rc); }); };
  if (s == 3) return rows(Size<3>{});
  if (s == 7) return rows(Size<7>{});
  return f(Size<0>{}, Size<0>{});
}

// In-place Cholesky of the n x n column-major block l (lower triangle read and written), with
// 1 / L(j, j) stored on the diagonal. ref[j] is the diagonal entry the pivot came from (nullptr:
// the block's own diagonal, read before it is overwritten): a pivot must be positive and above
// kPivotTol * ref[j] (0 < pivot <= ref[j] in exact arithmetic for a positive definite matrix).
//
// kDropDependent (cholesky_dropping): a block of the Schur complement A = G M^-1 G^T (ref
// non-null), where a pivot at most kDependentRowTol * ref[j] in magnitude means row j depends on
// the rows eliminated before it at this configuration (G lost rank; 0 <= pivot <= ref[j] in exact
// arithmetic for A positive semidefinite, and the pivot is ref[j] sin^2 of the angle between the
// row and their span): the row is dropped, its 1 / L(j, j) and its column below the diagonal set
// to 0, so the later pivots are the Cholesky of the block without it and the substitutions give
// it 0. Counts the dropped rows in dropped; false only for a non-finite or clearly negative pivot.
template <int N, bool kDropDependent>
[[gnu::always_inline]] inline bool cholesky_factor(double* l,
                                                   int n_rt,
                                                   const double* ref,
                                                   int& dropped) noexcept {
  const int n = dim<N>(n_rt);
  for (int j = 0; j < n; ++j) {
    const double r = ref != nullptr ? ref[j] : l[j + j * n];
    double d = l[j + j * n];
    for (int k = 0; k < j; ++k) d -= l[j + k * n] * l[j + k * n];
    if constexpr (kDropDependent) {
      if (r >= 0.0 && std::abs(d) <= kDependentRowTol * r) {
        ++dropped;
        for (int i = j; i < n; ++i) l[i + j * n] = 0.0;
        continue;
      }
    }
    if (!(r > 0.0 && d > kPivotTol * r)) return false;  // NaN fails too
    const double inv = 1.0 / std::sqrt(d);
    l[j + j * n] = inv;
    for (int i = j + 1; i < n; ++i) {
      double x = l[i + j * n];
      for (int k = 0; k < j; ++k) x -= l[i + k * n] * l[j + k * n];
      l[i + j * n] = x * inv;
    }
  }
  return true;
}

template <int N>
[[gnu::always_inline]] inline bool cholesky(double* l, int n_rt, const double* ref) noexcept {
  int dropped = 0;
  return cholesky_factor<N, false>(l, n_rt, ref, dropped);
}

template <int N>
[[gnu::always_inline]] inline bool cholesky_dropping(double* l,
                                                     int n_rt,
                                                     const double* ref,
                                                     int& dropped) noexcept {
  return cholesky_factor<N, true>(l, n_rt, ref, dropped);
}

// X <- X L^-T for X (rows x n, column-major) and L from cholesky(): row by row L x = x.
template <int N>
[[gnu::always_inline]] inline void right_solve_lt(double* __restrict x,
                                                  int rows,
                                                  const double* __restrict l,
                                                  int n_rt) noexcept {
  const int n = dim<N>(n_rt);
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < n; ++j) {
      double v = x[i + j * rows];
      for (int k = 0; k < j; ++k) v -= l[j + k * n] * x[i + k * rows];
      x[i + j * rows] = v * l[j + j * n];
    }
  }
}

enum class Mode { kStore, kAdd, kSubtract };

// dst (n1 x n2) = / += / -= X1 X2^T, X1 (n1 x n), X2 (n2 x n), column-major with leading
// dimensions ld1, ld2: L_IJ = A_IJ D^-1 and the Schur updates A_I1I2 -= L_I1J A_I2J^T.
template <int N, int N1, int N2, Mode M>
[[gnu::always_inline]] inline void product_fixed(double* __restrict dst,
                                                 int n1_rt,
                                                 int n2_rt,
                                                 const double* __restrict x1,
                                                 int ld1,
                                                 const double* __restrict x2,
                                                 int ld2,
                                                 int n_rt) noexcept {
  const int n = dim<N>(n_rt);
  const int n1 = dim<N1>(n1_rt);
  const int n2 = dim<N2>(n2_rt);
  for (int j = 0; j < n2; ++j) {
    for (int i = 0; i < n1; ++i) {
      double acc = 0.0;
      for (int k = 0; k < n; ++k) acc += x1[i + k * ld1] * x2[j + k * ld2];
      if constexpr (M == Mode::kStore) {
        dst[i + j * n1] = acc;
      } else if constexpr (M == Mode::kAdd) {
        dst[i + j * n1] += acc;
      } else {
        dst[i + j * n1] -= acc;
      }
    }
  }
}

// product_fixed with n1, n2 compile-time when both are 1..3 (joints of 1 to 3 rows)
template <int N, Mode M>
[[gnu::always_inline]] inline void product(double* dst,
                                           int n1,
                                           int n2,
                                           const double* x1,
                                           int ld1,
                                           const double* x2,
                                           int ld2,
                                           int n) noexcept {
  const bool joint_rows = n1 >= 1 && n1 <= 3 && n2 >= 1 && n2 <= 3;
  if (!joint_rows) return product_fixed<N, 0, 0, M>(dst, n1, n2, x1, ld1, x2, ld2, n);
  with_size_up_to<3>(n1, [&](auto r1) {
    with_size_up_to<3>(
        n2, [&](auto r2) { product_fixed<N, r1(), r2(), M>(dst, n1, n2, x1, ld1, x2, ld2, n); });
  });
}

// x_j <- L^-1 x_j (W interleaved columns), L from cholesky()
template <int N, int W>
[[gnu::always_inline]] inline void forward_lower(const double* __restrict l,
                                                 double* __restrict x,
                                                 int n_rt) noexcept {
  const int n = dim<N>(n_rt);
  for (int j = 0; j < n; ++j) {
    for (int w = 0; w < W; ++w) {
      double v = x[W * j + w];
      for (int k = 0; k < j; ++k) v -= l[j + k * n] * x[W * k + w];
      x[W * j + w] = v * l[j + j * n];
    }
  }
}

// x_j <- L^-T x_j (W interleaved columns)
template <int N, int W>
[[gnu::always_inline]] inline void backward_upper(const double* __restrict l,
                                                  double* __restrict x,
                                                  int n_rt) noexcept {
  const int n = dim<N>(n_rt);
  for (int j = n - 1; j >= 0; --j) {
    for (int w = 0; w < W; ++w) {
      double v = x[W * j + w];
      for (int i = j + 1; i < n; ++i) v -= l[i + j * n] * x[W * i + w];
      x[W * j + w] = v * l[j + j * n];
    }
  }
}

enum class Sweep { kForward, kBackward };

// One off-diagonal block L_IJ (n_i x n) in a triangular sweep, W interleaved columns: forward
// (L z = x) x_i -= L_IJ x_j, backward (L^T y = w) x_j -= L_IJ^T x_i
template <int N, int NI, int W, Sweep S>
[[gnu::always_inline]] inline void sub_sweep(const double* __restrict li,
                                             double* __restrict xi,
                                             double* __restrict xj,
                                             int ni_rt,
                                             int n_rt) noexcept {
  const int n = dim<N>(n_rt);
  const int ni = dim<NI>(ni_rt);
  if constexpr (S == Sweep::kForward) {
    for (int i = 0; i < ni; ++i) {
      for (int w = 0; w < W; ++w) {
        double v = xi[W * i + w];
        for (int k = 0; k < n; ++k) v -= li[i + k * ni] * xj[W * k + w];
        xi[W * i + w] = v;
      }
    }
  } else {
    for (int k = 0; k < n; ++k) {
      for (int w = 0; w < W; ++w) {
        double v = xj[W * k + w];
        for (int i = 0; i < ni; ++i) v -= li[i + k * ni] * xi[W * i + w];
        xj[W * k + w] = v;
      }
    }
  }
}

// x_j <- D^-1 x_j with D^-1 full n x n, t scratch of W n
template <int N, int W>
[[gnu::always_inline]] inline void diag_apply(const double* __restrict dinv,
                                              double* __restrict xj,
                                              double* __restrict t,
                                              int n_rt) noexcept {
  const int n = dim<N>(n_rt);
  for (int i = 0; i < n; ++i) {
    for (int w = 0; w < W; ++w) {
      double v = 0.0;
      for (int k = 0; k < n; ++k) v += dinv[i + k * n] * xj[W * k + w];
      t[W * i + w] = v;
    }
  }
  for (int i = 0; i < W * n; ++i) xj[i] = t[i];
}

}  // namespace rtmb::block_kkt_kernels
