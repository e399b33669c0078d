// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The chain at the sizes the engine is benchmarked with (N up to 1000): the initial state stays
// consistent and regular, and spot checks of the derivatives still hold. The full derivative
// checks at small N are in mechanisms_test.cpp.

#include <gtest/gtest.h>

#include <cmath>

#include "engine/mechanisms/mechanisms_impl.hpp"
#include "tests/engine/mechanisms/mechanism_test_support.hpp"

namespace rtmb::test {
namespace {

class LargeChainTest : public ::testing::TestWithParam<bool> {};

TEST_P(LargeChainTest, ThousandLinksAreConsistentAndRegular) {
  const bool loop = GetParam();
  const detail::Chain sys(1000, loop);
  EXPECT_EQ(sys.n_q(), 2000);
  EXPECT_EQ(sys.n_lambda(), loop ? 1002 : 1000);
  State x;
  sys.initial_state(x);
  EXPECT_LE(max_abs(eval_g(sys, 0.0, x.q)), 1e-12);
  EXPECT_LE(max_abs(eval_G(sys, 0.0, x.q) * x.v), 0.0);
  EXPECT_TRUE(std::isfinite(sys.energy(0.0, x.q, x.v, {})));
  // every link has unit length and consecutive links turn the same way (an arc, no fold-back)
  double prev_angle = 0.0;
  for (int i = 0; i < 1000; ++i) {
    const double dx = x.q(2 * i) - (i > 0 ? x.q(2 * i - 2) : 0.0);
    const double dy = x.q(2 * i + 1) - (i > 0 ? x.q(2 * i - 1) : 0.0);
    EXPECT_NEAR(std::hypot(dx, dy), 1.0, 1e-12);
    const double angle = std::atan2(dy, dx);
    if (i > 0) {
      EXPECT_LT(angle, prev_angle) << "link " << i;
    }
    prev_angle = angle;
  }
}

TEST_P(LargeChainTest, ThousandLinksSpotCheckDerivatives) {
  const detail::Chain sys(1000, GetParam());
  State x;
  sys.initial_state(x);
  Vec v(sys.n_v());
  for (int i = 0; i < v.size(); ++i) v(i) = std::sin(0.37 * i);
  const Mat jac = eval_G(sys, 0.0, x.q);
  const Mat gv_q = eval_Gv_q(sys, 0.0, x.q, v);
  // a few columns at the start, the middle and the tip
  for (int j : {0, 1, 2, 3, 999, 1000, 1997, 1998, 1999}) {
    const double h = 1e-6;
    Vec qp = x.q;
    Vec qm = x.q;
    qp(j) += h;
    qm(j) -= h;
    const Vec fd_col = (eval_g(sys, 0.0, qp) - eval_g(sys, 0.0, qm)) / (2.0 * h);
    EXPECT_LE(max_abs(jac.col(j) - fd_col), 1e-8) << "G column " << j;
    const Vec fd_rate_col = (eval_G(sys, 0.0, qp) * v - eval_G(sys, 0.0, qm) * v) / (2.0 * h);
    EXPECT_LE(max_abs(gv_q.col(j) - fd_rate_col), 1e-8) << "Gv_q column " << j;
  }
  const Vec l = eval_L(sys, 0.0, x.q, v);
  const Vec fd_l = fd_curvature(sys, 0.0, x.q, v, 1e-3);
  EXPECT_LE(scaled_error(l, fd_l, 1e-6, 1e-6), 1.0);
}

INSTANTIATE_TEST_SUITE_P(OpenAndClosed,
                         LargeChainTest,
                         ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& param) {
                           return std::string(param.param ? "loop" : "open");
                         });

}  // namespace
}  // namespace rtmb::test
