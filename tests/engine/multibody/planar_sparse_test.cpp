// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// PlanarMultibody's sparse structure (engine/multibody/planar_sparse.cpp): the CSC values of M
// and G scattered back into dense matrices equal the dense mass() and jacobian() bit for bit
// (same blocks, no arithmetic in between), the pattern is well-formed CSC with rows ascending,
// and G agrees with central differences of g(q). On every body model in configs/, pinned chains
// and a model with every joint type.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <vector>

#include "engine/multibody/planar_joint_blocks.hpp"
#include "rtmb/models/planar_multibody.hpp"
#include "rtmb/state.hpp"
#include "rtmb/system.hpp"
#include "tests/support/planar_chain_spec.hpp"
#include "tests/support/planar_test_models.hpp"
#include "tests/support/sparse_models.hpp"

namespace rtmb {
namespace {

// Four bodies and every joint type, not assembled (the Jacobian needs no consistent state).
PlanarModelSpec every_joint_type() {
  PlanarModelSpec s = testing::test_bodies(4, "");
  const auto joint = [&s](PlanarJointType type, int i, int j) {
    testing::add_test_joint(s, type, i, j);
  };
  joint(PlanarJointType::kRevolute, kGround, 0);
  joint(PlanarJointType::kPrismatic, 0, 1);
  joint(PlanarJointType::kFixed, 1, 2);
  joint(PlanarJointType::kDistance, 2, kGround);
  joint(PlanarJointType::kRevolute, 2, 3);
  joint(PlanarJointType::kDistance, 3, 0);
  return s;
}

std::vector<testing::NamedSystem> all_models() {
  int missing = 0;
  std::vector<testing::NamedSystem> out = testing::sparse_config_models(&missing);
  EXPECT_EQ(missing, 0) << "a body model file without sparse structure";
  EXPECT_GE(out.size(), 3u);
  out.push_back({"every_joint_type", std::make_shared<PlanarMultibody>(every_joint_type())});
  for (int n : {10, 100}) {
    out.push_back({"chain_loop_" + std::to_string(n),
                   std::make_shared<PlanarMultibody>(testing::planar_chain_spec(n, true))});
  }
  return out;
}

// true when a body of the model is a beam (PlanarBodyKind::kBeam)
bool sparse_test_has_beam(const PlanarMultibody& m) {
  for (int b = 0; b < static_cast<int>(m.spec().bodies.size()); ++b) {
    if (m.is_beam(b)) return true;
  }
  return false;
}

// q at the initial state and a perturbed one (the structure must not depend on q)
std::vector<Vec> test_points(const System& sys, unsigned seed) {
  State s;
  sys.initial_state(s);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-0.3, 0.3);
  Vec q2 = s.q;
  for (Eigen::Index i = 0; i < q2.size(); ++i) q2[i] += u(rng);
  return {s.q, q2};
}

TEST(PlanarSparse, PatternIsWellFormedCsc) {
  int planar = 0;
  for (const auto& [name, sys, dt] : all_models()) {
    SparsePattern m;
    SparsePattern g;
    ASSERT_TRUE(sys->sparse_structure(m, g)) << name;
    EXPECT_EQ(m.rows, sys->n_v());
    EXPECT_EQ(m.cols, sys->n_v());
    EXPECT_EQ(g.rows, sys->n_lambda());
    EXPECT_EQ(g.cols, sys->n_v());
    for (const SparsePattern* p : {&m, &g}) {
      ASSERT_EQ(p->outer.size(), static_cast<std::size_t>(p->cols) + 1) << name;
      EXPECT_EQ(p->outer.front(), 0);
      EXPECT_EQ(p->outer.back(), p->nonzeros());
      for (int c = 0; c < p->cols; ++c) {
        for (int k = p->outer[c]; k < p->outer[c + 1]; ++k) {
          EXPECT_GE(p->inner[k], p == &m ? c : 0) << name << " column " << c;
          EXPECT_LT(p->inner[k], p->rows);
          if (k > p->outer[c]) {
            EXPECT_GT(p->inner[k], p->inner[k - 1]) << name << " column " << c;
          }
        }
      }
    }
    // planar models only from here (spatial ones: tests/engine/multibody/spatial_*)
    const auto* mb = dynamic_cast<const PlanarMultibody*>(sys.get());
    if (mb == nullptr) continue;
    // a beam body's M block is dense and its joints reach its elastic columns: the counts below
    // are the rigid bodies' (beam models: PlanarBeamBody.SparseValuesEqualTheDenseMatrices)
    if (sparse_test_has_beam(*mb)) continue;
    ++planar;
    // M = diag: one entry per column; G: rows x 3 per non-ground body of each joint
    EXPECT_EQ(m.nonzeros(), sys->n_v());
    int expected = 0;
    for (const PlanarJointSpec& j : mb->spec().joints) {
      expected += 3 * constraint_rows(j.type) * ((j.body_i != kGround) + (j.body_j != kGround));
    }
    EXPECT_EQ(g.nonzeros(), expected) << name;
  }
  EXPECT_GE(planar, 5);  // the planar configs and the two chains
}

TEST(PlanarSparse, ValuesEqualTheDenseMatricesExactly) {
  int checked = 0;
  for (const auto& [name, sys, dt] : all_models()) {
    SparsePattern mp;
    SparsePattern gp;
    ASSERT_TRUE(sys->sparse_structure(mp, gp));
    std::vector<double> mv(static_cast<std::size_t>(mp.nonzeros()), -1.0);
    std::vector<double> gv(static_cast<std::size_t>(gp.nonzeros()), -1.0);
    for (const Vec& q : test_points(*sys, 7)) {
      Mat M(sys->n_v(), sys->n_v());
      Mat G(sys->n_lambda(), sys->n_v());
      sys->mass(0.0, q, M);
      sys->jacobian(0.0, q, G);
      sys->mass_values(0.0, q, mv);
      sys->jacobian_values(0.0, q, gv);
      // exact: the same blocks are scattered, so any difference is a wrong slot
      EXPECT_EQ((testing::dense_from_csc(mp, mv, true) - M).cwiseAbs().maxCoeff(), 0.0) << name;
      EXPECT_EQ((testing::dense_from_csc(gp, gv, false) - G).cwiseAbs().maxCoeff(), 0.0) << name;
      ++checked;
    }
  }
  std::printf("[sparse] M and G values exact on %d (model, q) pairs\n", checked);
}

TEST(PlanarSparse, JacobianValuesMatchFiniteDifferences) {
  // G(:, c) = (g(q + h e_c) - g(q - h e_c)) / (2h) + O(h^2): h = 1e-6 gives ~1e-10 truncation
  // and ~1e-10 roundoff (eps |g| / h) on these O(1) models
  constexpr double kH = 1e-6;
  double worst = 0.0;
  for (const auto& [name, sys, dt] : all_models()) {
    if (sys->n_v() > 60) continue;  // O(n^2) evaluations: the N = 100 chain is covered above
    SparsePattern mp;
    SparsePattern gp;
    ASSERT_TRUE(sys->sparse_structure(mp, gp));
    std::vector<double> gv(static_cast<std::size_t>(gp.nonzeros()));
    for (const Vec& q : test_points(*sys, 11)) {
      sys->jacobian_values(0.0, q, gv);
      const Mat G = testing::dense_from_csc(gp, gv, false);
      Vec gp_plus(sys->n_lambda());
      Vec gp_minus(sys->n_lambda());
      for (int c = 0; c < sys->n_v(); ++c) {
        Vec qp = q;
        Vec qm = q;
        qp[c] += kH;
        qm[c] -= kH;
        sys->constraints(0.0, qp, gp_plus);
        sys->constraints(0.0, qm, gp_minus);
        // the holonomic rows only: a nonholonomic row's G is A, the velocity Jacobian, not dg/dq
        // (g = 0 there; rtmb/system.hpp), checked against the contact kinematics in
        // planar_knife_edge_test.cpp and planar_rolling_wheel_test.cpp
        const Eigen::Index nh = sys->n_holonomic();
        const double err = ((gp_plus - gp_minus).head(nh) / (2.0 * kH) - G.col(c).head(nh))
                               .lpNorm<Eigen::Infinity>();
        worst = std::max(worst, err);
        EXPECT_LE(err, 1e-8) << name << " column " << c;
      }
    }
  }
  std::printf("[sparse] max |G - FD(g)| = %.3e\n", worst);
}

TEST(PlanarSparse, JointFastPathsEqualTheFullJointEvaluationBitwise) {
  // constraints(), curvature() and jacobian() take shortcuts for revolute and fixed joints (only
  // the block asked for, cos/sin of each body once per pass: planar_multibody.cpp). Reference:
  // the full evaluate_joint() with A(th) from std::cos/std::sin, per joint; L = H_i v_i + H_j v_j.
  // Exact equality: the shortcuts must compute the same expressions, not merely close ones.
  int joints_checked = 0;
  for (const auto& [name, sys, dt] : all_models()) {
    const auto* body_model = dynamic_cast<const PlanarMultibody*>(sys.get());
    if (body_model == nullptr) continue;  // spatial: tests/engine/multibody/spatial_*
    // the rigid joint blocks at 3 b (beam models: PlanarBeamBody.SparseValuesEqualTheDenseMatrices
    // and PlanarBeamBody.ConstraintDerivativesMatchFiniteDifferences)
    if (sparse_test_has_beam(*body_model)) continue;
    const PlanarModelSpec& spec = body_model->spec();
    const std::vector<int> offsets = planar_detail::coordinate_offsets(spec);
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> u(-2.0, 2.0);
    for (const Vec& q : test_points(*sys, 13)) {
      Vec v(sys->n_v());
      for (Eigen::Index i = 0; i < v.size(); ++i) v[i] = u(rng);
      Vec g(sys->n_lambda());
      Vec l(sys->n_lambda());
      Mat G(sys->n_lambda(), sys->n_v());
      sys->constraints(0.0, q, g);
      sys->curvature(0.0, q, v, l);
      sys->jacobian(0.0, q, G);
      int row = 0;  // joint rows are numbered in joint order
      for (const PlanarJointSpec& jt : spec.joints) {
        const int rows = constraint_rows(jt.type);
        const bool driver = jt.type == PlanarJointType::kRevoluteDriver ||
                            jt.type == PlanarJointType::kPrismaticDriver;
        const planar_detail::BodyLayout lay(offsets.data());
        const Eigen::Vector3d qi = lay.block(q, jt.body_i);
        const Eigen::Vector3d qj = lay.block(q, jt.body_j);
        const Eigen::Vector3d vi = lay.block(v, jt.body_i);
        const Eigen::Vector3d vj = lay.block(v, jt.body_j);
        planar_detail::JointBlocks b;
        planar_detail::evaluate_joint(jt, qi, qj, planar_detail::Rotation::of(qi.z()),
                                      planar_detail::Rotation::of(qj.z()), vi, vj, b);
        const Eigen::Vector3d l_ref = b.hi * vi + b.hj * vj;
        for (int r = 0; r < rows; ++r) {
          if (!driver) {  // a driver's rows also hold -f(t), -f''(t)
            EXPECT_EQ(g[row + r], b.g[r]) << name << " row " << row + r;
            EXPECT_EQ(l[row + r], l_ref[r]) << name << " row " << row + r;
          }
          for (int c = 0; c < 3; ++c) {
            if (jt.body_i != kGround) {
              EXPECT_EQ(G(row + r, 3 * jt.body_i + c), b.gi(r, c)) << name << " row " << row + r;
            }
            if (jt.body_j != kGround) {
              EXPECT_EQ(G(row + r, 3 * jt.body_j + c), b.gj(r, c)) << name << " row " << row + r;
            }
          }
        }
        row += rows;
        ++joints_checked;
      }
      EXPECT_EQ(row, sys->n_lambda()) << name;
    }
  }
  std::printf("[sparse] g, L, G of %d (joint, q, v) cases equal evaluate_joint exactly\n",
              joints_checked);
}

TEST(PlanarSparse, MasslessBodyHasNoSparseStructure) {
  // the sparse LDL^T needs every coordinate pivot > 0 (sparse_kkt.hpp); such models stay dense
  PlanarModelSpec s = every_joint_type();
  s.bodies[2].inertia = 0.0;
  const PlanarMultibody sys(s);
  SparsePattern m;
  SparsePattern g;
  EXPECT_FALSE(sys.sparse_structure(m, g));
}

}  // namespace
}  // namespace rtmb
