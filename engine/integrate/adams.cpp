// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// AMPC_m / MAMPC_m of Wu, Chiou & Lin 2000 (Mech. Struct. & Mach.
// 28:201-218, seed 002_b80ca893801d8a0f.txt: the base formulas, Theorem 1 eqs. 20-26 and the
// MAMPC_m algorithm eq. 27a-c).
#include "engine/integrate/adams.hpp"

#include <stdexcept>

namespace rtmb {
namespace {

// AB m-step (eq. A2-A4) and AM (m-1)-step = m-point corrector (eq. A5-A7); MAMPC weights from
// Theorem 1, W1 = -gamma*_m, W2 = gamma_m, W1 + W2 = gamma_{m-1} (reference §4 table).
const AdamsCoefficients kAdams3{3,
                                {23.0 / 12.0, -16.0 / 12.0, 5.0 / 12.0, 0.0, 0.0},
                                {5.0 / 12.0, 8.0 / 12.0, -1.0 / 12.0, 0.0, 0.0},
                                1.0 / 10.0,
                                9.0 / 10.0};
const AdamsCoefficients kAdams4{4,
                                {55.0 / 24.0, -59.0 / 24.0, 37.0 / 24.0, -9.0 / 24.0, 0.0},
                                {9.0 / 24.0, 19.0 / 24.0, -5.0 / 24.0, 1.0 / 24.0, 0.0},
                                19.0 / 270.0,
                                251.0 / 270.0};
const AdamsCoefficients kAdams5{
    5,
    {1901.0 / 720.0, -2774.0 / 720.0, 2616.0 / 720.0, -1274.0 / 720.0, 251.0 / 720.0},
    {251.0 / 720.0, 646.0 / 720.0, -264.0 / 720.0, 106.0 / 720.0, -19.0 / 720.0},
    27.0 / 502.0,
    475.0 / 502.0};

std::string_view method_name(int steps, AdamsVariant variant) {
  static constexpr std::array<std::string_view, 3> kAmpc{"ampc3", "ampc4", "ampc5"};
  static constexpr std::array<std::string_view, 3> kMampc{"mampc3", "mampc4", "mampc5"};
  const auto i = static_cast<std::size_t>(steps - 3);
  return variant == AdamsVariant::kAmpc ? kAmpc[i] : kMampc[i];
}

}  // namespace

const AdamsCoefficients& adams_coefficients(int steps) {
  switch (steps) {
    case 3:
      return kAdams3;
    case 4:
      return kAdams4;
    case 5:
      return kAdams5;
    default:
      throw std::invalid_argument("Adams predictor-corrector needs m = 3, 4 or 5");
  }
}

AdamsPece::AdamsPece(int steps, AdamsVariant variant, int starter_substeps, int n_q, int n_v)
    : coeffs_(adams_coefficients(steps)),
      variant_(variant),
      starter_substeps_(starter_substeps),
      name_(method_name(steps, variant)),
      starter_(rk4_tableau(), n_q, n_v),
      fq_(Mat::Zero(n_q, steps)),
      fv_(Mat::Zero(n_v, steps)),
      a_(Vec::Zero(n_v)),
      predictor_(n_q, n_v),
      substep_(n_q, n_v) {
  if (starter_substeps < 1) throw std::invalid_argument("starter substeps must be >= 1");
}

int AdamsPece::order() const noexcept {
  return variant_ == AdamsVariant::kMampc ? coeffs_.steps + 1 : coeffs_.steps;
}

int AdamsPece::slot(int j) const noexcept {
  const int m = coeffs_.steps;
  return (head_ - j + m) % m;
}

void AdamsPece::advance(Dynamics& dynamics,
                        const StepFrom& from,
                        StepTo to,
                        StepStatus& status) noexcept {
  const int m = coeffs_.steps;
  // A step continues the previous one only at exactly its end time and with the same h (step()
  // computes t + h the same way, so exact comparison is right here). A second call from the same
  // t with the same h is a retake of that step from another state (the symmetric projection
  // calls the base method once per Newton iteration): it replaces F_i rather than pushing.
  const bool retake = count_ > 0 && from.t == t_start_ && from.h == h_prev_;
  if (count_ > 0 && !retake && (from.t != t_next_ || from.h != h_prev_)) count_ = 0;
  t_start_ = from.t;
  t_next_ = from.t + from.h;
  h_prev_ = from.h;

  // E: F_i at the state as handed in (the paper's final E of the previous step)
  dynamics.evaluate(from.t, from.q, from.v, a_, status);
  if (!retake) {
    head_ = count_ == 0 ? 0 : (head_ + 1) % m;
    if (count_ < m) ++count_;
  }
  fq_.col(head_) = from.v;
  fv_.col(head_) = a_;

  if (count_ < m) {
    // start-up: RK4 over substeps (reference §5 "Start-up")
    const double hs = from.h / starter_substeps_;
    substep_.q = from.q;
    substep_.v = from.v;
    for (int k = 0; k < starter_substeps_; ++k) {
      starter_.advance(dynamics, {from.t + k * hs, hs, substep_.q, substep_.v}, to, status);
      substep_.q = to.q;
      substep_.v = to.v;
    }
    return;
  }

  // P (27a): AB m-step
  predictor_.q = from.q;
  predictor_.v = from.v;
  for (int j = 0; j < m; ++j) {
    const double b = from.h * coeffs_.predictor[static_cast<std::size_t>(j)];
    predictor_.q.noalias() += b * fq_.col(slot(j));
    predictor_.v.noalias() += b * fv_.col(slot(j));
  }

  // E: F^P = f(t_{i+1}, Y^P) = (v^P, a^P)
  dynamics.evaluate(from.t + from.h, predictor_.q, predictor_.v, a_, status);

  // C (27b in ordinate form): m-point AM with F^P in place of F_{i+1}
  const double c0 = from.h * coeffs_.corrector[0];
  to.q = from.q + c0 * predictor_.v;
  to.v = from.v + c0 * a_;
  for (int j = 1; j < m; ++j) {
    const double c = from.h * coeffs_.corrector[static_cast<std::size_t>(j)];
    to.q.noalias() += c * fq_.col(slot(j - 1));
    to.v.noalias() += c * fv_.col(slot(j - 1));
  }

  // L (27c): MAMPC blends predictor and corrector with the Theorem 1 weights
  if (variant_ == AdamsVariant::kMampc) {
    to.q = coeffs_.w_ab * predictor_.q + coeffs_.w_am * to.q;
    to.v = coeffs_.w_ab * predictor_.v + coeffs_.w_am * to.v;
  }
}

}  // namespace rtmb
