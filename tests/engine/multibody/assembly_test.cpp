// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// assemble_state (engine/multibody/assembly.cpp) on a model large enough for its sparse path (G
// above 2^18 entries): the 100-body spatial chain of `rtmb gen chain --n 100 --spatial --loop`
// (403 rows x 700 coordinates), its pose and velocities disturbed. The result is compared with
// the same Newton iteration made here with dense minimum-norm steps (complete orthogonal
// decomposition of G), the method of the small-model path: same number of iterations, same
// assembled q and v to round-off, and g = 0, G v = 0 hold.
#include "engine/multibody/assembly.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstdio>

#include "rtmb/models/chain_models.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/models/spatial_multibody.hpp"

namespace rtmb {
namespace {

TEST(Assembly, SparsePathMatchesDenseMinimumNormNewton) {
  const ModelFile f = parse_model_file(chain_model_yaml(100, true, true), "chain.yaml");
  ASSERT_TRUE(f.spatial);
  const SpatialMultibody sys(*f.spatial);
  ASSERT_GT(static_cast<double>(sys.n_lambda()) * sys.n_v(), 262144.0);  // the sparse path
  State start;
  sys.initial_state(start);
  for (Eigen::Index i = 0; i < start.q.size(); ++i) {
    start.q(i) += 1e-3 * std::sin(0.7 * static_cast<double>(i));
  }
  for (Eigen::Index i = 0; i < start.v.size(); ++i) {
    start.v(i) = 0.1 * std::cos(1.1 * static_cast<double>(i));
  }
  const double tolerance = 1e-12;

  // reference: dense Newton with minimum-norm steps, then the minimum-norm velocity change
  State ref = start;
  Vec g(sys.n_lambda());
  Mat G(sys.n_lambda(), sys.n_v());
  sys.constraints(0.0, ref.q, g);
  int ref_iterations = 0;
  while (g.lpNorm<Eigen::Infinity>() > tolerance && ref_iterations < 30) {
    sys.jacobian(0.0, ref.q, G);
    ref.q -= G.completeOrthogonalDecomposition().solve(g);
    sys.constraints(0.0, ref.q, g);
    ++ref_iterations;
  }
  ASSERT_LE(g.lpNorm<Eigen::Infinity>(), tolerance);
  sys.jacobian(0.0, ref.q, G);
  ref.v -= G.completeOrthogonalDecomposition().solve(Vec(G * ref.v));

  State s = start;
  const auto notes =
      detail::assemble_state(sys, detail::joint_rows(sys, sys.spec().joints), s, tolerance, 30);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_NE(notes[0].find("in " + std::to_string(ref_iterations) + " Newton iteration(s)"),
            std::string::npos)
      << notes[0];
  sys.constraints(0.0, s.q, g);
  EXPECT_LE(g.lpNorm<Eigen::Infinity>(), tolerance);
  sys.jacobian(0.0, s.q, G);
  EXPECT_LE((G * s.v).lpNorm<Eigen::Infinity>(), 1e-12);
  const double dq = (s.q - ref.q).lpNorm<Eigen::Infinity>();
  const double dv = (s.v - ref.v).lpNorm<Eigen::Infinity>();
  EXPECT_LE(dq, 1e-12);
  EXPECT_LE(dv, 1e-12);
  std::printf("%d Newton iterations; sparse vs dense: |dq| = %.2e, |dv| = %.2e\n%s\n%s\n",
              ref_iterations, dq, dv, notes[0].c_str(), notes[1].c_str());
}

}  // namespace
}  // namespace rtmb
