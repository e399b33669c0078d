// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#include "engine/integrate/implicit_midpoint.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "rtmb/status.hpp"

namespace rtmb {

namespace {

// how far above the tolerance a stalled update still counts as converged (round-off floor)
constexpr double kRoundOffFactor = 1e3;

}  // namespace

// Newton iterations of the fallback (each costs n_v + 1 evaluations)
constexpr int kNewtonIterations = 20;

ImplicitMidpoint::ImplicitMidpoint(int n_q, int n_v, int max_iterations)
    : max_iterations_(max_iterations),
      k_(n_q, n_v),
      mid_(n_q, n_v),
      a_(Vec::Zero(n_v)),
      kv_(Vec::Zero(n_v)),
      r_(Vec::Zero(n_v)),
      r_probe_(Vec::Zero(n_v)),
      kv_probe_(Vec::Zero(n_v)),
      lu_(n_v) {}

bool ImplicitMidpoint::residual(
    Dynamics& dynamics, const StepFrom& from, VecCRef kv, VecRef out, StepStatus& status) noexcept {
  mid_.v = from.v + (0.5 * from.h) * kv;
  mid_.q = from.q + (0.5 * from.h) * mid_.v;  // Kq = v0 + h/2 Kv
  dynamics.evaluate(from.t + 0.5 * from.h, mid_.q, mid_.v, a_, status);
  out = kv - a_;
  return out.allFinite();
}

bool ImplicitMidpoint::newton(Dynamics& dynamics,
                              const StepFrom& from,
                              double tol,
                              StepStatus& status) noexcept {
  const int n = static_cast<int>(kv_.size());
  // from the explicit Euler slope, as the fixed-point iteration
  dynamics.evaluate(from.t, from.q, from.v, kv_, status);
  // a step whose own start is singular or not finite is not an iteration's problem: give up at
  // once rather than spend n_v + 1 evaluations per iteration on it (arm6.yaml with the symmetric
  // projection at its stiff coupling fails every step that way: 4x the step's cost for nothing)
  if (!kv_.allFinite() || has_flag(status.flags, StepFlag::kSingularKkt)) return false;
  double previous = std::numeric_limits<double>::infinity();
  double previous_residual = std::numeric_limits<double>::infinity();
  for (int it = 0; it < kNewtonIterations; ++it) {
    if (!residual(dynamics, from, kv_, r_, status)) return false;
    // Newton with its exact (differenced) Jacobian shrinks the residual from one iterate to the
    // next where it converges at all; one that does not shrink it is not going to, and each
    // further iteration costs n_v + 1 evaluations (arm6.yaml with the symmetric projection at its
    // stiff coupling fails every step: this keeps the fallback's cost there to two iterations)
    // (a residual already at round-off may stall: the update below then meets the tolerance)
    const double residual_norm = r_.lpNorm<Eigen::Infinity>();
    if (!(residual_norm < previous_residual) &&
        !(std::abs(from.h) * residual_norm <= kRoundOffFactor * tol)) {
      return false;
    }
    previous_residual = residual_norm;
    // J = dR/dKv by forward differences, column by column (step ~ sqrt(eps) of the entry)
    Mat& j = lu_.matrix();
    for (int c = 0; c < n; ++c) {
      const double d = 1.5e-8 * std::max(1.0, std::abs(kv_(c)));
      kv_probe_ = kv_;
      kv_probe_(c) += d;
      if (!residual(dynamics, from, kv_probe_, r_probe_, status)) return false;
      j.col(c) = (r_probe_ - r_) / d;
    }
    if (!lu_.factor()) return false;
    lu_.solve_in_place(r_);  // r_ = J^-1 R
    kv_ -= r_;
    const double change = std::abs(from.h) * r_.lpNorm<Eigen::Infinity>();
    if (!std::isfinite(change)) return false;
    // converged, or at the round-off floor (as the fixed-point iteration)
    if (change <= tol || (change >= previous && change <= kRoundOffFactor * tol)) {
      k_.v = kv_;
      k_.q = from.v + (0.5 * from.h) * kv_;
      return true;
    }
    previous = change;
  }
  return false;
}

void ImplicitMidpoint::advance(Dynamics& dynamics,
                               const StepFrom& from,
                               StepTo to,
                               StepStatus& status) noexcept {
  const double scale = std::max({1.0, from.q.size() > 0 ? from.q.lpNorm<Eigen::Infinity>() : 0.0,
                                 from.v.size() > 0 ? from.v.lpNorm<Eigen::Infinity>() : 0.0});
  const double tol = 1e-15 * scale;
  // flags before the iteration: a diverging fixed-point iteration may flag a singular KKT matrix
  // at its wild iterates, which says nothing about the step the Newton fallback then finds
  const std::uint32_t flags_before = status.flags;
  // start from the explicit Euler slope K = F(t, Y0)
  dynamics.evaluate(from.t, from.q, from.v, a_, status);
  k_.q = from.v;
  k_.v = a_;
  double previous = std::numeric_limits<double>::infinity();
  for (int it = 0;; ++it) {
    mid_.q = from.q + (0.5 * from.h) * k_.q;
    mid_.v = from.v + (0.5 * from.h) * k_.v;
    dynamics.evaluate(from.t + 0.5 * from.h, mid_.q, mid_.v, a_, status);
    // change of h K in this sweep: K_new = (vm, a)
    const double change = std::abs(from.h) * std::max((mid_.v - k_.q).lpNorm<Eigen::Infinity>(),
                                                      (a_ - k_.v).lpNorm<Eigen::Infinity>());
    k_.q = mid_.v;
    k_.v = a_;
    if (change <= tol) break;
    // Round-off floor: once the update no longer shrinks and is within a few hundred ulps of
    // the tolerance, the iterate cannot get better (measured on arm6.yaml with its stiff tip
    // coupling: the update cycles at 3.0e-15 against a tolerance of 1.5e-15 for 100 sweeps).
    // Accept it there instead of flagging a step that has converged as far as doubles allow.
    if (change >= previous && change <= kRoundOffFactor * tol) break;
    previous = change;
    if (it + 1 >= max_iterations_ || !std::isfinite(change)) {
      const std::uint32_t flags_fixed_point = status.flags;
      status.flags = flags_before;
      if (!newton(dynamics, from, tol, status)) {
        status.flags |= flags_fixed_point;
        status.set(StepFlag::kNotConverged);
      }
      break;
    }
  }
  to.q = from.q + from.h * k_.q;
  to.v = from.v + from.h * k_.v;
}

}  // namespace rtmb
