// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#include "engine/integrate/explicit_rk.hpp"

namespace rtmb {

// clang-format off
const ButcherTableau& euler_tableau() noexcept {
  static const ButcherTableau t{"euler", 1, 1, {{}}, {1.0}, {0.0}};
  return t;
}

const ButcherTableau& heun_tableau() noexcept {
  static const ButcherTableau t{"heun", 2, 2,
                                {{{}, {1.0}}},
                                {0.5, 0.5},
                                {0.0, 1.0}};
  return t;
}

const ButcherTableau& rk4_tableau() noexcept {
  static const ButcherTableau t{"rk4", 4, 4,
                                {{{}, {0.5}, {0.0, 0.5}, {0.0, 0.0, 1.0}}},
                                {1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0},
                                {0.0, 0.5, 0.5, 1.0}};
  return t;
}
// Dormand & Prince 1980, "A family of embedded Runge-Kutta formulae", J. Comput. Appl. Math.
// 6(1):19-26 (RK5(4)7M); the same coefficients in Hairer-Norsett-Wanner, Solving ODEs I, II.5,
// Table 5.2. b, the 5th-order weights, is also A's 7th row (first same as last): a fixed step
// needs 6 stages; the embedded 4th-order weights b_hat use the 7th.
const ButcherTableau& dopri5_tableau() noexcept {
  static const ButcherTableau t{
      "dopri5", 5, 6,
      {{{},
        {1.0 / 5.0},
        {3.0 / 40.0, 9.0 / 40.0},
        {44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0},
        {19372.0 / 6561.0, -25360.0 / 2187.0, 64448.0 / 6561.0, -212.0 / 729.0},
        {9017.0 / 3168.0, -355.0 / 33.0, 46732.0 / 5247.0, 49.0 / 176.0, -5103.0 / 18656.0},
        {35.0 / 384.0, 0.0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0, 11.0 / 84.0}}},
      {35.0 / 384.0, 0.0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0, 11.0 / 84.0, 0.0},
      {0.0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0, 1.0}};
  return t;
}

const std::array<double, ButcherTableau::kMaxStages>& dopri5_embedded_weights() noexcept {
  static const std::array<double, ButcherTableau::kMaxStages> b_hat{
      5179.0 / 57600.0, 0.0, 7571.0 / 16695.0, 393.0 / 640.0, -92097.0 / 339200.0,
      187.0 / 2100.0, 1.0 / 40.0};
  return b_hat;
}
// clang-format on

ExplicitRk::ExplicitRk(const ButcherTableau& tableau, int n_q, int n_v)
    : tableau_(tableau),
      kq_(Mat::Zero(n_q, tableau.stages)),
      kv_(Mat::Zero(n_v, tableau.stages)),
      stage_(n_q, n_v),
      a_(Vec::Zero(n_v)) {}

void ExplicitRk::advance(Dynamics& dynamics,
                         const StepFrom& from,
                         StepTo to,
                         StepStatus& status) noexcept {
  const int s = tableau_.stages;

  // stages: Y_i = y + h sum_j a_ij k_j,  k_i = (v_i, a(t + c_i h, Y_i))
  for (int i = 0; i < s; ++i) {
    stage_.q = from.q;
    stage_.v = from.v;
    for (int j = 0; j < i; ++j) {
      const double aij = tableau_.a[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
      if (aij == 0.0) continue;
      stage_.q.noalias() += (from.h * aij) * kq_.col(j);
      stage_.v.noalias() += (from.h * aij) * kv_.col(j);
    }
    kq_.col(i) = stage_.v;
    const double ti = from.t + tableau_.c[static_cast<std::size_t>(i)] * from.h;
    dynamics.evaluate(ti, stage_.q, stage_.v, a_, status);
    kv_.col(i) = a_;
  }

  // combine: y~ = y + h sum_i b_i k_i
  to.q = from.q;
  to.v = from.v;
  for (int i = 0; i < s; ++i) {
    const double bi = tableau_.b[static_cast<std::size_t>(i)];
    to.q.noalias() += (from.h * bi) * kq_.col(i);
    to.v.noalias() += (from.h * bi) * kv_.col(i);
  }
}

}  // namespace rtmb
