// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The fused System evaluations (System::jacobian_values_and_curvature / _and_constraints,
// include/rtmb/system.hpp) equal the separate calls bit for bit: the engine takes the fused path
// on the sparse step (KktBackend::load_with_curvature / load_with_constraints,
// JacobianProduct::add_with_constraints), so any difference would change trajectories. Checked
// entry by entry on the bit patterns (so -0.0 vs 0.0 counts, and an entry one path leaves
// unwritten shows up as a different sentinel) at random (t, q, v), on every joint type and driver,
// every configs/ model with a sparse structure, pinned chains and an IndependentRowsSystem; then
// one level up, Dynamics::evaluate and PostStabilizer::apply on the sparse path give bit-identical
// results with and without the fused overrides.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/constraints/redundant_constraints.hpp"
#include "engine/dynamics/dynamics.hpp"
#include "engine/stabilize/post_stabilizer.hpp"
#include "rtmb/models/planar_multibody.hpp"
#include "rtmb/models/spatial_multibody.hpp"
#include "rtmb/models/time_function.hpp"
#include "rtmb/state.hpp"
#include "rtmb/status.hpp"
#include "rtmb/system.hpp"
#include "tests/support/planar_chain_spec.hpp"
#include "tests/support/planar_test_models.hpp"
#include "tests/support/sparse_models.hpp"

namespace rtmb {
namespace {

// Eight bodies, every joint type and both drivers (each with its own time function), body to
// body and body to ground: a tree of joints plus drivers on free coordinates, 21 independent rows
// on 24 coordinates at a generic q, so the KKT matrix is regular for the Dynamics comparison.
// Not assembled (the identities hold at any q).
PlanarModelSpec every_joint_and_driver() {
  PlanarModelSpec s = testing::test_bodies(8, "every_joint_and_driver");
  const auto joint = [&s](PlanarJointType type, int i, int j, TimeFunction motion = {}) {
    testing::add_test_joint(s, type, i, j, std::move(motion));
  };
  joint(PlanarJointType::kRevolute, kGround, 0);
  joint(PlanarJointType::kPrismatic, 0, 1);
  joint(PlanarJointType::kFixed, 1, 2);
  joint(PlanarJointType::kDistance, 2, 3);
  joint(PlanarJointType::kRevolute, 3, 4);
  joint(PlanarJointType::kDistance, 4, kGround);
  joint(PlanarJointType::kFixed, kGround, 5);
  joint(PlanarJointType::kPrismatic, 5, 6);
  joint(PlanarJointType::kRevoluteDriver, kGround, 0, TimeFunction::sine(0.4, 1.5, 0.3, -0.2));
  joint(PlanarJointType::kPrismaticDriver, 0, 1,
        TimeFunction::table({0.0, 0.3, 0.5, 1.2, 2.0}, {0.0, 0.4, 0.1, -0.6, 0.2}));
  joint(PlanarJointType::kRevoluteDriver, 3, 4, TimeFunction::polynomial({0.1, -0.3, 0.7}));
  joint(PlanarJointType::kPrismaticDriver, 5, 6, TimeFunction::ramp(0.2, 0.5, 0.8));
  joint(PlanarJointType::kPrismaticDriver, kGround, 7, TimeFunction::sine(0.2, 0.7, 0.0, 0.1));
  return s;
}

std::vector<testing::NamedSystem> models() {
  std::vector<testing::NamedSystem> out = testing::sparse_config_models();
  EXPECT_GE(out.size(), 3u);
  const auto every = std::make_shared<PlanarMultibody>(every_joint_and_driver());
  out.push_back({"every_joint_and_driver", every});
  // every fourth row dropped: a reduced system forwards the fused calls of its full one
  // (redundant_constraints.cpp)
  std::vector<int> rows;
  for (int r = 0; r < every->n_lambda(); ++r) {
    if (r % 4 != 2) rows.push_back(r);
  }
  out.push_back(
      {"every_joint_and_driver_rows", std::make_shared<IndependentRowsSystem>(every, rows)});
  for (int n : {3, 50}) {
    out.push_back({"chain_loop_" + std::to_string(n),
                   std::make_shared<PlanarMultibody>(testing::planar_chain_spec(n, true))});
  }
  out.push_back(
      {"chain_7", std::make_shared<PlanarMultibody>(testing::planar_chain_spec(7, false))});
  return out;
}

std::uint64_t bits(double x) {
  return std::bit_cast<std::uint64_t>(x);
}

// Counts the entries of a and b whose bit patterns differ (and reports the first few).
int bitwise_differences(const std::string& what, const double* a, const double* b, Eigen::Index n) {
  int diff = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    if (bits(a[i]) != bits(b[i])) {
      if (++diff <= 3) ADD_FAILURE() << what << " entry " << i << ": " << a[i] << " vs " << b[i];
    }
  }
  return diff;
}

// A random point: the initial q perturbed, v and t random.
struct Point {
  double t = 0.0;
  Vec q;
  Vec v;
};

Point random_point(const System& sys, std::mt19937& rng) {
  State s;
  sys.initial_state(s);
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  Point p;
  p.t = 2.5 * (u(rng) + 0.5);  // [0, 2.5): inside, at and past the table's knots
  p.q = s.q;
  p.v = Vec(sys.n_v());
  for (Eigen::Index i = 0; i < p.q.size(); ++i) p.q[i] += u(rng);
  for (Eigen::Index i = 0; i < p.v.size(); ++i) p.v[i] = 4.0 * u(rng);
  return p;
}

TEST(FusedEvaluation, EqualsSeparateCallsBitwise) {
  // sentinels: an entry the fused call does not write keeps a value the separate call never has
  constexpr double kSeparate = -7.25;
  const double fused_sentinel = std::numeric_limits<double>::quiet_NaN();
  int cases = 0;
  long entries = 0;
  bool saw_driver = false;
  int spatial = 0;
  for (const auto& [name, sys, dt] : models()) {
    SparsePattern mp;
    SparsePattern gp;
    ASSERT_TRUE(sys->sparse_structure(mp, gp)) << name;
    const auto nnz = static_cast<std::size_t>(gp.nonzeros());
    if (const auto* mb = dynamic_cast<const PlanarMultibody*>(sys.get())) {
      for (const PlanarJointSpec& jt : mb->spec().joints) {
        saw_driver |= jt.type == PlanarJointType::kRevoluteDriver ||
                      jt.type == PlanarJointType::kPrismaticDriver;
      }
    }
    spatial += dynamic_cast<const SpatialMultibody*>(sys.get()) != nullptr;
    std::mt19937 rng(17);
    for (int trial = 0; trial < 8; ++trial) {
      const Point p = random_point(*sys, rng);
      std::vector<double> jac(nnz, kSeparate);
      Vec l = Vec::Constant(sys->n_lambda(), kSeparate);
      Vec g = Vec::Constant(sys->n_lambda(), kSeparate);
      sys->jacobian_values(p.t, p.q, jac);
      sys->curvature(p.t, p.q, p.v, l);
      sys->constraints(p.t, p.q, g);

      std::vector<double> jac_l(nnz, fused_sentinel);
      std::vector<double> jac_g(nnz, fused_sentinel);
      Vec fused_l = Vec::Constant(sys->n_lambda(), fused_sentinel);
      Vec fused_g = Vec::Constant(sys->n_lambda(), fused_sentinel);
      sys->jacobian_values_and_curvature(p.t, p.q, p.v, jac_l, fused_l);
      sys->jacobian_values_and_constraints(p.t, p.q, jac_g, fused_g);

      const auto n = static_cast<Eigen::Index>(nnz);
      EXPECT_EQ(bitwise_differences(name + " G (with L)", jac.data(), jac_l.data(), n), 0);
      EXPECT_EQ(bitwise_differences(name + " G (with g)", jac.data(), jac_g.data(), n), 0);
      EXPECT_EQ(bitwise_differences(name + " L", l.data(), fused_l.data(), l.size()), 0);
      EXPECT_EQ(bitwise_differences(name + " g", g.data(), fused_g.data(), g.size()), 0);
      entries += 2 * n + 2 * l.size();
      ++cases;
    }
  }
  EXPECT_TRUE(saw_driver);
  EXPECT_GE(spatial, 1);  // configs/arm6.yaml: the spatial override
  std::printf(
      "[fused] G+L and G+g equal the separate calls bitwise: %d (model, t, q, v) cases, "
      "%ld entries\n",
      cases, entries);
}

TEST(FusedEvaluation, ResultsAreNotTrivial) {
  // guards the test above against comparing two empty or all-zero evaluations: on the driven
  // model every output has entries away from zero, and the driver rows of g and L move with t
  const PlanarMultibody sys(every_joint_and_driver());
  SparsePattern mp;
  SparsePattern gp;
  ASSERT_TRUE(sys.sparse_structure(mp, gp));
  std::mt19937 rng(3);
  const Point p = random_point(sys, rng);
  std::vector<double> jac(static_cast<std::size_t>(gp.nonzeros()));
  Vec l(sys.n_lambda());
  Vec g(sys.n_lambda());
  Vec l2(sys.n_lambda());
  Vec g2(sys.n_lambda());
  sys.jacobian_values_and_curvature(p.t, p.q, p.v, jac, l);
  sys.jacobian_values_and_constraints(p.t + 0.1, p.q, jac, g2);
  sys.jacobian_values_and_constraints(p.t, p.q, jac, g);
  sys.jacobian_values_and_curvature(p.t + 0.1, p.q, p.v, jac, l2);
  EXPECT_GT(Eigen::Map<const Vec>(jac.data(), gp.nonzeros()).cwiseAbs().maxCoeff(), 0.1);
  EXPECT_GT(l.cwiseAbs().maxCoeff(), 0.1);
  EXPECT_GT(g.cwiseAbs().maxCoeff(), 0.1);
  EXPECT_GT((g2 - g).cwiseAbs().maxCoeff(), 1e-3);  // f(t) of the drivers
  EXPECT_GT((l2 - l).cwiseAbs().maxCoeff(), 1e-3);  // f''(t) of the drivers
}

// Forwards everything to a System but its fused evaluations, so those take System's defaults
// (the separate calls): the reference for the engine-level comparison below.
class SeparateCalls final : public System {
 public:
  explicit SeparateCalls(const System& s) : System(s.n_q(), s.n_v(), s.n_lambda()), s_(s) {}
  [[nodiscard]] std::string_view name() const noexcept override { return s_.name(); }
  void initial_state(State& out) const override { s_.initial_state(out); }
  void mass(double t, VecCRef q, MatRef out) const noexcept override { s_.mass(t, q, out); }
  void forces(double t, VecCRef q, VecCRef v, InputValues u, VecRef out) const noexcept override {
    s_.forces(t, q, v, u, out);
  }
  void constraints(double t, VecCRef q, VecRef out) const noexcept override {
    s_.constraints(t, q, out);
  }
  void jacobian(double t, VecCRef q, MatRef out) const noexcept override { s_.jacobian(t, q, out); }
  void constraint_rate(double t, VecCRef q, VecRef out) const noexcept override {
    s_.constraint_rate(t, q, out);
  }
  void curvature(double t, VecCRef q, VecCRef v, VecRef out) const noexcept override {
    s_.curvature(t, q, v, out);
  }
  void velocity_constraint_jacobian(double t,
                                    VecCRef q,
                                    VecCRef v,
                                    MatRef out) const noexcept override {
    s_.velocity_constraint_jacobian(t, q, v, out);
  }
  bool sparse_structure(SparsePattern& m, SparsePattern& g) const override {
    return s_.sparse_structure(m, g);
  }
  void mass_values(double t, VecCRef q, std::span<double> out) const noexcept override {
    s_.mass_values(t, q, out);
  }
  void jacobian_values(double t, VecCRef q, std::span<double> out) const noexcept override {
    s_.jacobian_values(t, q, out);
  }

 private:
  const System& s_;
};

TEST(FusedEvaluation, SparseDynamicsAndPStabAreBitIdentical) {
  // Dynamics::evaluate (KktBackend::load_with_curvature) and PostStabilizer::apply
  // (load_with_constraints, JacobianProduct::add_with_constraints) with the fused overrides vs
  // the same pipeline on the separate calls: v', lambda and the corrected q, v must be equal bit
  // for bit. Baumgarte on, so the g and G v terms of the right-hand side are exercised too.
  int compared = 0;
  double largest_correction = 0.0;
  for (const auto& [name, sys, dt] : models()) {
    const SeparateCalls reference(*sys);
    Dynamics fused_dyn(*sys, KktSolver::kSparse);
    Dynamics ref_dyn(reference, KktSolver::kSparse);
    fused_dyn.set_baumgarte(5.0, 20.0);
    ref_dyn.set_baumgarte(5.0, 20.0);
    PostStabilizer fused_pstab(*sys, 2, 0.0, KktSolver::kSparse);
    PostStabilizer ref_pstab(reference, 2, 0.0, KktSolver::kSparse);
    std::mt19937 rng(29);
    for (int trial = 0; trial < 3; ++trial) {
      // near the initial state (a small perturbation keeps the KKT matrix regular)
      State s;
      sys->initial_state(s);
      std::uniform_real_distribution<double> u(-0.01, 0.01);
      const double t = 0.37 * trial;
      Vec q = s.q;
      Vec v = s.v;
      for (Eigen::Index i = 0; i < q.size(); ++i) q[i] += u(rng);
      for (Eigen::Index i = 0; i < v.size(); ++i) v[i] += 10.0 * u(rng);

      StepStatus st_f;
      StepStatus st_r;
      Vec vdot_f(sys->n_v());
      Vec vdot_r(sys->n_v());
      fused_dyn.evaluate(t, q, v, vdot_f, st_f);
      ref_dyn.evaluate(t, q, v, vdot_r, st_r);
      EXPECT_TRUE(st_f.ok()) << name;
      EXPECT_EQ(bitwise_differences(name + " v'", vdot_f.data(), vdot_r.data(), vdot_f.size()), 0);
      EXPECT_EQ(bitwise_differences(name + " lambda", fused_dyn.lambda().data(),
                                    ref_dyn.lambda().data(), fused_dyn.lambda().size()),
                0);

      Vec qf = q;
      Vec vf = v;
      Vec qr = q;
      Vec vr = v;
      fused_pstab.apply(t, qf, vf, st_f);
      ref_pstab.apply(t, qr, vr, st_r);
      EXPECT_EQ(st_f.stabilizer_iterations, 2) << name;
      EXPECT_EQ(bitwise_differences(name + " PStab q", qf.data(), qr.data(), qf.size()), 0);
      EXPECT_EQ(bitwise_differences(name + " PStab v", vf.data(), vr.data(), vf.size()), 0);
      largest_correction = std::max(largest_correction, (qf - q).lpNorm<Eigen::Infinity>());
      ++compared;
    }
  }
  // the stabilizer did move q (the comparison is not between two untouched copies)
  EXPECT_GT(largest_correction, 1e-4);
  std::printf(
      "[fused] sparse Dynamics + PStab bit-identical on %d (model, t, q, v) cases; "
      "largest PStab |dq| = %.3e\n",
      compared, largest_correction);
}

}  // namespace
}  // namespace rtmb
