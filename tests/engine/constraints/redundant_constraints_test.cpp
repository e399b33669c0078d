// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// constraint_rank (engine/constraints/redundant_constraints.cpp), the sparse rank-revealing QR of
// G^T, against an independent dense reference built here: the rank as the number of singular
// values of G above 1e-9 sigma_max (JacobiSVD) and the kept rows from a column-pivoted
// Householder QR of G^T, the check the loader made before issue 16. On the models with known
// redundancy (the spatial four-bar of parallel revolutes, 5 rows each, 3 dependent rows; the
// planar parallelogram with a third crank, 1 dependent row; a spatial chain pinned twice at the
// tip, 3 dependent rows) both give the same rank and the same dependent rows, the kept rows have
// full rank and every dependent row is the combination of kept rows that constraint_rank names.
// Then the 1000-body spatial chain with a loop (`rtmb gen chain --n 1000 --spatial --loop`): it
// loads, its G has full rank, and with the tip pinned twice the 3 dependent rows are found and
// the file refused naming both joints, or loaded with them removed.
#include "engine/constraints/redundant_constraints.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "rtmb/models/chain_models.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/models/spatial_multibody.hpp"
#include "rtmb/state.hpp"
#include "rtmb/step.hpp"
#include "tests/support/model_file_errors.hpp"
#include "tests/support/model_lookup.hpp"
#include "tests/support/redundant_models.hpp"

namespace rtmb {
namespace {

// The dense reference: SVD rank and greedy max-norm pivoting on G^T (Golub & Van Loan §5.4.1).
struct DenseRank {
  int rank = 0;
  std::vector<int> dependent;  // ascending
  Eigen::VectorXd sigma;
};

DenseRank dense_rank(const Mat& G, double rel_tol = 1e-9) {
  DenseRank out;
  const Eigen::JacobiSVD<Mat> svd(G);
  out.sigma = svd.singularValues();
  for (Eigen::Index k = 0; k < out.sigma.size(); ++k) {
    if (out.sigma(k) > rel_tol * out.sigma(0)) ++out.rank;
  }
  const Mat Gt = G.transpose();
  const Eigen::ColPivHouseholderQR<Mat> qr(Gt);
  const auto& perm = qr.colsPermutation().indices();
  for (Eigen::Index k = out.rank; k < G.rows(); ++k) out.dependent.push_back(perm(k));
  std::sort(out.dependent.begin(), out.dependent.end());
  return out;
}

Mat dense_jacobian(const System& sys, const Vec& q) {
  Mat G(sys.n_lambda(), sys.n_v());
  sys.jacobian(0.0, q, G);
  return G;
}

Mat rows_of(const Mat& G, const std::vector<int>& rows) {
  Mat out(static_cast<Eigen::Index>(rows.size()), G.cols());
  for (std::size_t k = 0; k < rows.size(); ++k) {
    out.row(static_cast<Eigen::Index>(k)) = G.row(rows[k]);
  }
  return out;
}

// constraint_rank of `sys` at its initial state against the dense reference; returns the result.
ConstraintRank check_against_dense(const System& sys, const char* name, int expected_dependent) {
  State s0;
  sys.initial_state(s0);
  const Mat G = dense_jacobian(sys, s0.q);
  const DenseRank ref = dense_rank(G);
  const ConstraintRank r = constraint_rank(sys, s0.q);
  EXPECT_EQ(ref.rank, sys.n_lambda() - expected_dependent) << name;
  EXPECT_EQ(r.rank, ref.rank) << name;
  EXPECT_EQ(r.dependent, ref.dependent) << name;
  EXPECT_EQ(r.independent.size() + r.dependent.size(), static_cast<std::size_t>(sys.n_lambda()));
  EXPECT_TRUE(std::is_sorted(r.independent.begin(), r.independent.end()));
  // the kept rows have full rank: their smallest singular value is far above the threshold
  const Mat GK = rows_of(G, r.independent);
  const Eigen::JacobiSVD<Mat> svd_k(GK);
  const double sigma_min = svd_k.singularValues()(svd_k.singularValues().size() - 1);
  EXPECT_GT(sigma_min, 1e-6 * ref.sigma(0)) << name;
  // each dependent row is a combination of the kept rows of its group (least squares over them)
  EXPECT_EQ(r.groups.size(), r.dependent.size()) << name;
  if (r.groups.size() != r.dependent.size()) return r;
  for (std::size_t k = 0; k < r.dependent.size(); ++k) {
    const int d = r.dependent[k];
    std::vector<int> others;
    for (const int row : r.groups[k]) {
      if (row != d) others.push_back(row);
    }
    EXPECT_FALSE(others.empty()) << name << " row " << d;
    if (others.empty()) continue;
    const Mat B = rows_of(G, others).transpose();
    const Vec gd = G.row(d).transpose();
    const Vec c = B.completeOrthogonalDecomposition().solve(gd);
    EXPECT_LE((B * c - gd).norm(), 1e-10 * (1.0 + gd.norm())) << name << " row " << d;
  }
  std::printf("%s: rank %d of %d rows (dense SVD: %d; sigma_rank/sigma_max = %.2e), dependent:",
              name, r.rank, sys.n_lambda(), ref.rank,
              ref.rank < ref.sigma.size() ? ref.sigma(ref.rank) / ref.sigma(0) : 0.0);
  for (const int d : r.dependent) std::printf(" %d", d);
  std::printf("\n");
  return r;
}

// The double-supported four-bar (tests/support/redundant_models.hpp): 12 coordinates, 12 rows,
// 1 degree of freedom, rank 11.
std::string parallelogram() {
  std::string text = testing::kParallelogramYaml;
  text += "redundant_constraints: remove\n";
  return text;
}

// `rtmb gen chain --n N --spatial --loop` with the tip pinned a second time (joint tip_again,
// the same point on the same body): its 3 rows repeat the rows of joint tip.
std::string doubly_pinned_chain(int n, bool remove) {
  std::string text = chain_model_yaml(n, true, true);
  const std::string key = "  - {name: tip, ";
  const std::size_t at = text.find(key);
  EXPECT_NE(at, std::string::npos);
  const std::size_t end = text.find('\n', at);
  std::string again = text.substr(at, end - at + 1);
  again.replace(0, key.size(), "  - {name: tip_again, ");
  text.insert(end + 1, again);
  if (remove) text += "redundant_constraints: remove\n";
  return text;
}

TEST(ConstraintRank, SpatialFourBarOfParallelRevolutesAgreesWithTheDenseSvd) {
  // 3 bodies, four 5-row revolutes with parallel axes + 3 normalization rows: 23 rows, rank 20
  const ModelFile f = load_model_file(testing::config_path("spatial_four_bar.yaml"));
  ASSERT_TRUE(f.spatial);
  const SpatialMultibody full(*f.spatial);
  const ConstraintRank r = check_against_dense(full, "spatial four-bar", 3);
  EXPECT_EQ(f.kept_constraint_rows, r.independent);
}

TEST(ConstraintRank, PlanarParallelogramWithAThirdCrankAgreesWithTheDenseSvd) {
  const ModelFile f = parse_model_file(parallelogram(), "parallelogram.yaml");
  ASSERT_TRUE(f.bodies);
  const std::shared_ptr<const System> reduced = make_system(f);
  const auto& sys = dynamic_cast<const IndependentRowsSystem&>(*reduced);
  const ConstraintRank r = check_against_dense(sys.full(), "parallelogram", 1);
  EXPECT_EQ(f.kept_constraint_rows, r.independent);
}

TEST(ConstraintRank, DoublyPinnedSpatialChainAgreesWithTheDenseSvd) {
  const ModelFile f = parse_model_file(doubly_pinned_chain(20, true), "chain.yaml");
  ASSERT_TRUE(f.spatial);
  const SpatialMultibody full(*f.spatial);
  const ConstraintRank r = check_against_dense(full, "doubly pinned 20-link chain", 3);
  EXPECT_EQ(f.kept_constraint_rows, r.independent);
  // each dependent row is one row of tip or tip_again, and its group is the matching row of the
  // other joint only
  for (const std::vector<int>& group : r.groups) EXPECT_EQ(group.size(), 2u);
}

TEST(ConstraintRank, ThousandBodySpatialChainWithALoopLoadsWithFullRank) {
  // loading checks G for redundancy (and would refuse the file without
  // `redundant_constraints: remove` if a row were dependent)
  const ModelFile f =
      parse_model_file(chain_model_yaml(1000, true, true), "chain_loop_spatial_1000.yaml");
  ASSERT_TRUE(f.spatial);
  EXPECT_TRUE(f.kept_constraint_rows.empty());  // nothing removed
  const SpatialMultibody sys(*f.spatial);
  // 1001 spherical joints (3 rows) + 1000 normalization rows, all independent
  EXPECT_EQ(sys.n_lambda(), 3 * 1001 + 1000);
}

TEST(ConstraintRank, ThousandBodySpatialChainPinnedTwiceIsRefusedOrReduced) {
  const std::string what = testing::model_file_error(doubly_pinned_chain(1000, false), "c.yaml");
  EXPECT_NE(what.find("redundant constraints: G has rank 4003 < 4006 rows"), std::string::npos)
      << what;
  EXPECT_NE(what.find("the rows of joint tip, joint tip_again are linearly dependent"),
            std::string::npos)
      << what;
  std::printf("refused: %s\n", what.c_str());
  const ModelFile f = parse_model_file(doubly_pinned_chain(1000, true), "c.yaml");
  ASSERT_EQ(f.kept_constraint_rows.size(), 4003u);
  ASSERT_FALSE(f.notes.empty());
  EXPECT_NE(f.notes.back().find("redundant constraints removed: 3 dependent row(s) of 4006"),
            std::string::npos)
      << f.notes.back();
  std::printf("note: %s\n", f.notes.back().c_str());
}

// Dropping rows keeps the nonholonomic ones last and counted (System::n_holonomic()): the rolling
// wheel's contact row is holonomic, its no-slip row is not (configs/rolling_wheel.yaml)
TEST(IndependentRows, KeepTheCountOfHolonomicRows) {
  const std::shared_ptr<const System> wheel =
      make_system(load_model_file(testing::config_path("rolling_wheel.yaml")));
  ASSERT_EQ(wheel->n_holonomic(), 1);
  const IndependentRowsSystem both(wheel, {0, 1});
  EXPECT_EQ(both.n_holonomic(), 1);
  EXPECT_EQ(both.n_nonholonomic(), 1);
  const IndependentRowsSystem no_slip(wheel, {1});
  EXPECT_EQ(no_slip.n_holonomic(), 0);
  EXPECT_EQ(no_slip.n_nonholonomic(), 1);
  const IndependentRowsSystem contact(wheel, {0});
  EXPECT_EQ(contact.n_holonomic(), 1);
  EXPECT_EQ(contact.n_nonholonomic(), 0);
}

// A knife edge (a skate) on a fixed heading that slides under gravity, with both kinds of rows:
// q = (x, y, theta), M = diag(m, m, J), f = (0, -m g, 0). Rows 0 and 1 hold the heading,
// theta - theta0 = 0, twice (the second a redundant copy, 2 (theta - theta0) = 0); row 2 is the
// knife edge's nonholonomic row, no velocity across its axis: -sin(theta) x' + cos(theta) y' = 0
// (Chin 1995 §1.6 / eq. 3.72; the System convention of rtmb/system.hpp: g = 0 there, A = the
// row, a = 0, L = dA/dq v v). Closed form: the skate slides along its axis with the tangential
// part of gravity, s(t) = s0' t - 1/2 g sin(theta0) t^2, (x, y) = s (cos theta0, sin theta0).
class SlidingSkate final : public System {
 public:
  static constexpr double kM = 2.0, kJ = 0.5, kG = 9.81, kTheta0 = 0.5, kSpeed0 = 1.0;
  SlidingSkate() noexcept : System(3, 3, 3, 2) {}
  [[nodiscard]] std::string_view name() const noexcept override { return "sliding_skate"; }
  void initial_state(State& out) const override {
    out = State(3, 3);
    out.q << 0.0, 0.0, kTheta0;
    out.v << kSpeed0 * std::cos(kTheta0), kSpeed0 * std::sin(kTheta0), 0.0;
  }
  void mass(double, VecCRef, MatRef out_M) const noexcept override {
    out_M.setZero();
    out_M.diagonal() << kM, kM, kJ;
  }
  void forces(double, VecCRef, VecCRef, InputValues, VecRef out_f) const noexcept override {
    out_f << 0.0, -kM * kG, 0.0;
  }
  void constraints(double, VecCRef q, VecRef out_g) const noexcept override {
    out_g << q(2) - kTheta0, 2.0 * (q(2) - kTheta0), 0.0;
  }
  void jacobian(double, VecCRef q, MatRef out_G) const noexcept override {
    out_G << 0.0, 0.0, 1.0, 0.0, 0.0, 2.0, -std::sin(q(2)), std::cos(q(2)), 0.0;
  }
  void curvature(double, VecCRef q, VecCRef v, VecRef out_L) const noexcept override {
    out_L << 0.0, 0.0, -(std::cos(q(2)) * v(0) + std::sin(q(2)) * v(1)) * v(2);
  }
  void velocity_constraint_jacobian(double,
                                    VecCRef q,
                                    VecCRef v,
                                    MatRef out_Gv_q) const noexcept override {
    out_Gv_q.setZero();
    out_Gv_q(2, 2) = -std::cos(q(2)) * v(0) - std::sin(q(2)) * v(1);
  }
};

TEST(IndependentRowsSystem, KeepsNonholonomicRowsNonholonomic) {
  const auto full = std::make_shared<const SlidingSkate>();
  State s0;
  full->initial_state(s0);
  const ConstraintRank r = constraint_rank(*full, s0.q);
  ASSERT_EQ(r.rank, 2);
  // one of the two heading rows goes (the greedy pivoting keeps the longer one), the knife edge
  // stays
  ASSERT_EQ(r.dependent.size(), 1u);
  ASSERT_LT(r.dependent[0], 2);
  ASSERT_EQ(r.independent.back(), 2);
  const auto reduced = std::make_shared<const IndependentRowsSystem>(full, r.independent);
  // one heading row and the knife edge, which stays last and nonholonomic
  EXPECT_EQ(reduced->n_lambda(), 2);
  EXPECT_EQ(reduced->n_holonomic(), 1);
  EXPECT_EQ(reduced->n_nonholonomic(), 1);
  EXPECT_EQ(reduced->for_simulation()->n_holonomic(), 1);

  // the Model still sees the velocity row: the implicit index-3 methods refuse it (they enforce
  // g = 0 only, and g is 0 identically in that row)
  Settings implicit;
  implicit.method = Method::kGenAlpha;
  implicit.stabilizer = StabilizerKind::kNone;
  try {
    const Model m(reduced, implicit);
    ADD_FAILURE() << "an implicit method accepted a nonholonomic row";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("1 nonholonomic"), std::string::npos) << e.what();
  }

  // and the reduced system moves as the closed form: RK4 + PStab, 1 s
  Settings settings;
  settings.method = Method::kRk4;
  settings.stabilizer = StabilizerKind::kPStab;
  settings.dt = 0.01;
  const Model model(reduced, settings);
  Workspace ws(model);
  State s = initial_state(model);
  for (int i = 0; i < 100; ++i) {
    const StepStatus st = step(model, s, ws);
    ASSERT_EQ(st.flags, 0u) << step_flag_names(st.flags);
  }
  const double t = s.t;
  const double along =
      SlidingSkate::kSpeed0 * t - 0.5 * SlidingSkate::kG * std::sin(SlidingSkate::kTheta0) * t * t;
  EXPECT_NEAR(t, 1.0, 1e-12);
  EXPECT_NEAR(s.q(0), along * std::cos(SlidingSkate::kTheta0), 1e-12);
  EXPECT_NEAR(s.q(1), along * std::sin(SlidingSkate::kTheta0), 1e-12);
  EXPECT_NEAR(s.q(2), SlidingSkate::kTheta0, 1e-14);
}

}  // namespace
}  // namespace rtmb
