// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

namespace rtmb {

// The relative pivot test every KKT factorization applies (SparseKkt, BlockKkt, and DenseKkt's
// test for constraint rows dependent at the factored configuration): a pivot is rejected, or its
// row treated as dependent, when it is smaller than this fraction of the terms it was computed
// from. Why relative to the terms: for a redundant constraint the exact pivot is 0 and the
// computed one is the roundoff left by cancelling terms of size `scale`, i.e. a few eps * scale
// (1e-16 .. 1e-14 relative, growing slowly with the number of terms). 1e-12 leaves a margin of
// 100 above that and still accepts every configuration whose solution would carry more than ~4
// correct digits (the relative pivot is roughly 1/cond of the leading block it completes). One
// value, so that the dense and the sparse paths drop the same rows.
inline constexpr double kPivotTol = 1e-12;

}  // namespace rtmb
