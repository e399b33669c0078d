// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Solve kernels of an LDL^T stored in place (unit lower L below the diagonal of a column-major
// n x n array, D on it), shared by DenseKkt (K, engine/kkt/dense_kkt.cpp) and TreeKkt (the Schur
// complement G M^-1 G^T, engine/kkt/tree_kkt.cpp). N > 0 is the size known at compile time (the
// dense path dispatches small sizes so that the loops unroll: `#pragma GCC unroll`, as the
// factorization's columns in dense_kkt.cpp), N = 0 the size at run time; every N performs the same
// operations in the same order, so results are bit-identical. RT-safe.

namespace rtmb::detail {

template <int N>
[[nodiscard]] inline int size_of(int n_rt) noexcept {
  if constexpr (N > 0) {
    return N;
  } else {
    return n_rt;
  }
}

// Solves L y = x in place for the unit lower triangle stored below the diagonal of the
// column-major n x n matrix a (shared by the LDL^T and LU solves).
template <int N = 0>
void forward_unit_lower(const double* a, int n_rt, double* x) noexcept {
  const int n = size_of<N>(n_rt);
#pragma GCC unroll 16
  for (int j = 0; j < n; ++j) {
    const double xj = x[j];
    if (xj == 0.0) continue;
    const double* col = a + j * n;
#pragma GCC unroll 16
    for (int i = j + 1; i < n; ++i) x[i] -= col[i] * xj;
  }
}

// K x = b in place with the LDL^T in a; a dropped row's D_j = inf gives x_j = 0.
template <int N>
void ldlt_solve(const double* a, int n_rt, double* x) noexcept {
  const int n = size_of<N>(n_rt);
  forward_unit_lower<N>(a, n, x);  // L y = b
  // D z = y; a dropped row's D_j = inf gives z_j = 0, its zero multiplier (ldlt_factor)
#pragma GCC unroll 16
  for (int j = 0; j < n; ++j) x[j] /= a[j + j * n];
#pragma GCC unroll 16
  // L^T x = z
  for (int j = n - 1; j >= 0; --j) {
    const double* col = a + j * n;
    double sum = x[j];
#pragma GCC unroll 16
    for (int i = j + 1; i < n; ++i) sum -= col[i] * x[i];
    x[j] = sum;
  }
}

}  // namespace rtmb::detail
