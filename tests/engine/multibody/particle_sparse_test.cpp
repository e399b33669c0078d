// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Sparse structure of particle models (engine/multibody/particle_sparse.cpp): the CSC patterns
// and values of M and G rebuilt as dense matrices equal System::mass and System::jacobian bit for
// bit at a moved state, planar (the thin-beam four-bar with fixed anchors, the generated beam)
// and spatial (the four-mass system, rods between two particles); rows ascending in each column;
// O(N) non-zeros: D per particle in M, D or 2 D per rod in G.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "rtmb/models/chain_models.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/models/particle_system.hpp"
#include "tests/support/sparse_models.hpp"

namespace rtmb {
namespace {

void expect_sparse_equals_dense(const ParticleSystem& sys) {
  SparsePattern mp;
  SparsePattern gp;
  ASSERT_TRUE(sys.sparse_structure(mp, gp));
  const int dim = sys.dimension();
  EXPECT_EQ(mp.nonzeros(), sys.n_v());
  int g_entries = 0;
  for (const ParticleRodSpec& r : sys.spec().rods) g_entries += r.i == kFixedPoint ? dim : 2 * dim;
  EXPECT_EQ(gp.nonzeros(), g_entries);
  for (int c = 0; c < gp.cols; ++c) {
    for (int k = gp.outer[static_cast<std::size_t>(c)] + 1;
         k < gp.outer[static_cast<std::size_t>(c) + 1]; ++k) {
      EXPECT_LT(gp.inner[static_cast<std::size_t>(k) - 1], gp.inner[static_cast<std::size_t>(k)]);
    }
  }
  State s(sys.n_q(), sys.n_v());
  sys.initial_state(s);
  for (int i = 0; i < sys.n_q(); ++i) s.q(i) += 0.01 * std::sin(1.0 + i);  // off the start
  std::vector<double> mv(static_cast<std::size_t>(mp.nonzeros()));
  std::vector<double> gv(static_cast<std::size_t>(gp.nonzeros()));
  sys.mass_values(0.0, s.q, mv);
  sys.jacobian_values(0.0, s.q, gv);
  Mat m(sys.n_v(), sys.n_v());
  Mat g(sys.n_lambda(), sys.n_v());
  sys.mass(0.0, s.q, m);
  sys.jacobian(0.0, s.q, g);
  EXPECT_EQ(testing::dense_from_csc(mp, mv, true), m) << sys.name();
  EXPECT_EQ(testing::dense_from_csc(gp, gv, false), g) << sys.name();
}

ParticleModelSpec config_spec(const std::string& file) {
  const ModelFile f = load_model_file(std::string(RTMB_SOURCE_DIR) + "/configs/" + file);
  return *f.particles;
}

TEST(ParticleSparse, ValuesEqualTheDenseMatricesBitwise) {
  expect_sparse_equals_dense(ParticleSystem(config_spec("thin_beam_four_bar.yaml")));
  expect_sparse_equals_dense(ParticleSystem(config_spec("four_mass.yaml")));
  expect_sparse_equals_dense(
      ParticleSystem(*parse_model_file(beam_model_yaml(12), "beam").particles));
}

}  // namespace
}  // namespace rtmb
