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

// The relative pivot below which a constraint row counts as dependent at the factored
// configuration (DenseKkt's LDL^T and BlockKkt's Schur-complement Cholesky drop it: zero
// multiplier, its equation left out). The pivot is ref_j sin^2(phi_j), phi_j the angle between
// G_j and the span of the rows before it in the M^-1 metric, so this drops rows with
// sin(phi) <= 1e-4: nearly dependent rows as well as numerically dependent ones. Why not
// kPivotTol: near a singular pose (issue 16, the parallel cranks passing their horizontal pose)
// the rows are nearly but not numerically dependent, and at the points the Adams predictors
// evaluate, a few h^p off the constraint manifold, the right-hand side of the nearly dependent row
// is inconsistent by that drift; solving it anyway gives a multiplier of drift / sin^2 and an
// acceleration of drift / sin (measured: AMPC3 + PStab at h = 0.005 diverged to 1e150). Dropping
// the row is the truncated least-squares solve of the nearly singular block (Golub & Van Loan,
// Matrix Computations, §5.5.7: a rank decision at a tolerance above round-off); it changes the
// acceleration only by the constraint force along the dropped direction, which a motion through
// the singular pose keeps O(sin phi) small (there G_j loses the direction altogether), so the
// methods keep their order (tests/scenarios/parallel_cranks_test.cpp). One value for the dense
// and the sparse path, so that both drop the same rows.
inline constexpr double kDependentRowTol = 1e-8;

// A pivot this much smaller than the largest one means K is singular to working precision (the
// dense LDL^T and LU), or, for a constraint row's own M^-1 norm, that the row has vanished (Chin
// §4.5: G -> 0 where the singular slider-crank's branches cross; DenseKkt and TreeKkt drop it).
// Mechanism data legitimately spans ~6 orders of magnitude between inertias and Jacobian entries
// (Andrews: I2 = 4.4e-7 kg m^2 against lengths of 3e-2 m), so the threshold stays far below that.
inline constexpr double kSingularPivotRatio = 1e-14;

}  // namespace rtmb
