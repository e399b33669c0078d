// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// One KKT factorization + one solve for a planar N-link chain with its tip pinned (closed loop),
// absolute coordinates: SparseKkt (engine/kkt/sparse_kkt) for N = 10 .. 1000 and DenseKkt for
// N <= 300 side by side. Values are rewritten before every factor() as in a step. The counter
// per_body is the time per iteration divided by N. Registered statically; main() is in
// step_bench.cpp.
//
//   ./build/bin/rtmb_bench --benchmark_filter=BM_Kkt --benchmark_repetitions=9
//       --benchmark_report_aggregates_only=true         (one command line)
#include <benchmark/benchmark.h>

#include <type_traits>

#include "engine/kkt/block_kkt.hpp"
#include "engine/kkt/dense_kkt.hpp"
#include "engine/kkt/sparse_kkt.hpp"
#include "tests/support/planar_chain_kkt.hpp"

namespace {

using rtmb::BlockKkt;
using rtmb::DenseKkt;
using rtmb::SparseKkt;
using rtmb::Vec;
using rtmb::testing::ChainOptions;
using rtmb::testing::PlanarChainKkt;

ChainOptions pinned_chain(int n) {
  ChainOptions opt;
  opt.n_bodies = n;
  opt.pinned_tip = true;
  return opt;
}

void set_counters(benchmark::State& bs, int n) {
  bs.counters["per_body"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate |
                                                     benchmark::Counter::kInvert);
}

template <class Kkt>
void bm_sparse(benchmark::State& bs) {
  const int n = static_cast<int>(bs.range(0));
  PlanarChainKkt chain(pinned_chain(n), 1);
  Kkt kkt(chain.mass_pattern(), chain.jacobian_pattern());
  chain.bind(kkt);
  const Vec f = Vec::LinSpaced(kkt.n_v(), -1.0, 1.0);
  const Vec c = Vec::LinSpaced(kkt.n_lambda(), 0.5, -0.5);
  Vec a(kkt.n_v()), lambda(kkt.n_lambda());
  for (auto _ : bs) {
    chain.write_values(kkt);
    if (!kkt.factor()) bs.SkipWithError("sparse factor failed");
    kkt.solve(f, c, a, lambda);
    benchmark::DoNotOptimize(a.data());
    benchmark::DoNotOptimize(lambda.data());
  }
  set_counters(bs, n);
  if constexpr (std::is_same_v<Kkt, SparseKkt>) {
    bs.counters["nnz_L"] = kkt.factor_nonzeros();
  } else {
    bs.counters["nnz_L"] = kkt.factor_entries();
  }
}

void bm_dense(benchmark::State& bs) {
  const int n = static_cast<int>(bs.range(0));
  PlanarChainKkt chain(pinned_chain(n), 1);
  DenseKkt kkt(chain.n_v(), chain.n_lambda());
  const rtmb::Mat m = chain.mass_dense();
  const rtmb::Mat g = chain.jacobian_dense();
  const Vec f = Vec::LinSpaced(kkt.n_v(), -1.0, 1.0);
  const Vec c = Vec::LinSpaced(kkt.n_lambda(), 0.5, -0.5);
  Vec a(kkt.n_v()), lambda(kkt.n_lambda());
  for (auto _ : bs) {
    kkt.mass_block() = m;  // the dense path also rewrites its blocks per evaluation
    kkt.jacobian_block() = g;
    if (!kkt.factor()) bs.SkipWithError("dense factor failed");
    kkt.solve(f, c, a, lambda);
    benchmark::DoNotOptimize(a.data());
    benchmark::DoNotOptimize(lambda.data());
  }
  set_counters(bs, n);
}

// Pinned chains of 10 to 1000 links; the dense solver only up to 300.
void chain_lengths(benchmark::internal::Benchmark* b, int longest) {
  for (int n : {10, 30, 100, 300, 1000}) {
    if (n <= longest) b->Arg(n);
  }
  b->Unit(benchmark::kMicrosecond);
}
void all_chains(benchmark::internal::Benchmark* b) {
  chain_lengths(b, 1000);
}
void dense_chains(benchmark::internal::Benchmark* b) {
  chain_lengths(b, 300);
}

BENCHMARK(bm_sparse<BlockKkt>)->Name("BM_KktPinnedChain/block")->Apply(all_chains);
BENCHMARK(bm_sparse<SparseKkt>)->Name("BM_KktPinnedChain/sparse")->Apply(all_chains);
BENCHMARK(bm_dense)->Name("BM_KktPinnedChain/dense")->Apply(dense_chains);

}  // namespace
