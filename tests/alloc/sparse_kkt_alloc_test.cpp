// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The sparse KKT solvers' contract (SparseKkt, and BlockKkt, the one the step uses): after setup,
// writing new values, factor(), solve() and solve_correction() / solve_correction2() never
// allocate, also when rows are dropped as dependent and when the factorization fails.
// Counted by the malloc-family interposer (tests/support/alloc_counter.cpp) over thousands of
// factor + solve calls on pinned planar chains, with values changing every call as in a step.
#include <gtest/gtest.h>

#include <cmath>
#include <type_traits>
#include <vector>

#include "engine/kkt/block_kkt.hpp"
#include "engine/kkt/sparse_kkt.hpp"
#include "tests/support/alloc_counter.hpp"
#include "tests/support/planar_chain_kkt.hpp"

namespace rtmb {
namespace {

using testing::AllocationCounts;
using testing::AllocationScope;

template <class Kkt>
void check_no_allocation(int n) {
  testing::ChainOptions opt;
  opt.n_bodies = n;
  opt.pinned_tip = true;
  opt.full_blocks = true;
  // two value sets, alternated, so that every factor() works on changed numbers
  testing::PlanarChainKkt chain_a(opt, 1);
  testing::PlanarChainKkt chain_b(opt, 2);
  Kkt kkt(chain_a.mass_pattern(), chain_a.jacobian_pattern());
  chain_a.bind(kkt);
  chain_b.bind(kkt);
  const Vec f = Vec::LinSpaced(kkt.n_v(), -1.0, 1.0);
  const Vec c = Vec::LinSpaced(kkt.n_lambda(), 0.5, -0.5);
  Vec a(kkt.n_v()), lambda(kkt.n_lambda()), dx(kkt.n_v()), dx2(kkt.n_v());

  constexpr int kCalls = 5000;
  int failures = 0;
  double checksum = 0.0;
  AllocationCounts counts;
  {
    AllocationScope scope;
    for (int i = 0; i < kCalls; ++i) {
      (i % 2 == 0 ? chain_a : chain_b).write_values(kkt);
      if (!kkt.factor()) ++failures;
      kkt.solve(f, c, a, lambda);
      kkt.solve_correction(c, dx);
      kkt.solve_correction2(c, c, dx, dx2);
      checksum += a[0] + lambda[0] + dx[0] + dx2[0];
    }
    // a zero Jacobian: BlockKkt drops every row as dependent (the rank-deficient path, issue
    // 16), the scalar reference SparseKkt fails at the first constraint pivot
    for (double& v : kkt.jacobian_values()) v = 0.0;
    if constexpr (std::is_same_v<Kkt, BlockKkt>) {
      if (!kkt.factor() || kkt.dropped_rows() != kkt.n_lambda()) ++failures;
    } else {
      if (kkt.factor()) ++failures;
    }
    kkt.solve(f, c, a, lambda);
    kkt.solve_correction(c, dx);
    kkt.solve_correction2(c, c, dx, dx2);
    // the failure path: a non-finite Jacobian fails the factorization
    for (double& v : kkt.jacobian_values()) v = std::nan("");
    if (kkt.factor()) ++failures;
    kkt.solve(f, c, a, lambda);
    kkt.solve_correction(c, dx);
    kkt.solve_correction2(c, c, dx, dx2);
    counts = scope.counts();
  }
  EXPECT_EQ(counts.allocations, 0u);
  EXPECT_EQ(counts.deallocations, 0u);
  EXPECT_EQ(failures, 0);
  EXPECT_TRUE(std::isfinite(checksum));
}

class SparseKktAllocations : public ::testing::TestWithParam<int> {};

TEST_P(SparseKktAllocations, FactorAndSolveAllocateNothing) {
  check_no_allocation<SparseKkt>(GetParam());
}

TEST_P(SparseKktAllocations, BlockFactorAndSolveAllocateNothing) {
  check_no_allocation<BlockKkt>(GetParam());
}

INSTANTIATE_TEST_SUITE_P(PinnedChains, SparseKktAllocations, ::testing::Values(2, 10, 300));

}  // namespace
}  // namespace rtmb
