// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The sparse structure of spatial models fed to the sparse KKT solvers (engine/kkt/sparse_kkt.hpp
// and engine/kkt/block_kkt.hpp, the one the step uses): accelerations and multipliers equal a dense
// solve of [M G^T; G 0] for arm6.yaml and the reduced spatial four-bar, and the unreduced spatial
// four-bar (3 redundant rows) is refused by factor(), which is why the loader removes those rows.
// The spatial pattern exercises BlockKkt's gathered G blocks: a body's position columns lack its
// normalization row, so its columns do not share one row pattern.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "engine/constraints/redundant_constraints.hpp"
#include "engine/kkt/block_kkt.hpp"
#include "engine/kkt/sparse_kkt.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/state.hpp"
#include "rtmb/system.hpp"
#include "tests/engine/multibody/multibody_test_support.hpp"
#include "tests/support/model_lookup.hpp"

namespace rtmb {
namespace {

using testing::config_path;

SparseKkt::Pattern to_eigen(const SparsePattern& p) {
  std::vector<Eigen::Triplet<double>> t;
  for (int c = 0; c < p.cols; ++c) {
    for (int k = p.outer[static_cast<std::size_t>(c)]; k < p.outer[static_cast<std::size_t>(c) + 1];
         ++k) {
      t.emplace_back(p.inner[static_cast<std::size_t>(k)], c, 1.0);
    }
  }
  SparseKkt::Pattern m(p.rows, p.cols);
  m.setFromTriplets(t.begin(), t.end());
  return m;
}

struct Solved {
  bool factored = false;
  double diff = 0.0;  // max |sparse - dense| over a and lambda, relative
};

template <class Kkt>
Solved compare(const System& sys) {
  SparsePattern mp;
  SparsePattern gp;
  EXPECT_TRUE(sys.sparse_structure(mp, gp));
  Kkt kkt(to_eigen(mp), to_eigen(gp));
  State s;
  sys.initial_state(s);
  s.v.setConstant(0.2);
  const int n = sys.n_v();
  const int m = sys.n_lambda();
  sys.mass_values(0.0, s.q, kkt.mass_values());
  sys.jacobian_values(0.0, s.q, kkt.jacobian_values());
  Solved out;
  out.factored = kkt.factor();
  if (!out.factored) return out;
  Vec f(n);
  Vec L(m);
  sys.forces(0.0, s.q, s.v, {}, f);
  sys.curvature(0.0, s.q, s.v, L);
  Vec a(n);
  Vec lambda(m);
  kkt.solve(f, -L, a, lambda);
  Mat M(n, n);
  Mat G(m, n);
  sys.mass(0.0, s.q, M);
  sys.jacobian(0.0, s.q, G);
  const Vec x =
      multibody_test::kkt_matrix(M, G).partialPivLu().solve(multibody_test::kkt_rhs(f, L));
  Vec y(n + m);
  y << a, lambda;
  out.diff = (y - x).lpNorm<Eigen::Infinity>() / (1.0 + x.lpNorm<Eigen::Infinity>());
  return out;
}

TEST(SpatialSparseKkt, SparseSolveEqualsDenseSolve) {
  for (const char* file : {"arm6.yaml", "spatial_four_bar.yaml"}) {
    const std::unique_ptr<System> sys = make_system(load_model_file(config_path(file)));
    const Solved r = compare<SparseKkt>(*sys);
    ASSERT_TRUE(r.factored) << file;
    EXPECT_LE(r.diff, 1e-10) << file;
    std::printf("%s: SparseKkt vs dense KKT, max relative difference %.3e\n", file, r.diff);
    const Solved b = compare<BlockKkt>(*sys);
    ASSERT_TRUE(b.factored) << file;
    EXPECT_LE(b.diff, 1e-10) << file;
    std::printf("%s: BlockKkt vs dense KKT, max relative difference %.3e\n", file, b.diff);
  }
}

TEST(SpatialSparseKkt, RedundantRowsFailTheScalarLdltAndAreDroppedByTheBlockSolver) {
  const ModelFile f = load_model_file(config_path("spatial_four_bar.yaml"));
  ASSERT_TRUE(f.spatial);
  const SpatialMultibody full(*f.spatial);  // all 23 rows, rank 20
  EXPECT_FALSE(compare<SparseKkt>(full).factored);
  // BlockKkt's relative pivot test finds the 3 dependent rows in the 5-row revolute blocks
  // (block_kkt.cpp invert_spd) and drops them
  SparsePattern mp;
  SparsePattern gp;
  ASSERT_TRUE(full.sparse_structure(mp, gp));
  BlockKkt kkt(to_eigen(mp), to_eigen(gp));
  State s;
  full.initial_state(s);
  full.mass_values(0.0, s.q, kkt.mass_values());
  full.jacobian_values(0.0, s.q, kkt.jacobian_values());
  ASSERT_TRUE(kkt.factor());
  EXPECT_EQ(kkt.dropped_rows(), 3);
}

}  // namespace
}  // namespace rtmb
