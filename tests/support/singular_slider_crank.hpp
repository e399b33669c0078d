// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Chin's singular slider-crank (thesis §4.5 after Petzold, Ren & Maly; reference
// post-stabilization-chin1995.md §3.10), as a System for the scenario test
// tests/scenarios/singular_slider_crank_test.cpp.
//
// Two massless links of unit length with unit point masses at their ends; theta1, theta2 from the
// upward vertical, gravity g = 9.8 downwards; the second mass slides on the horizontal line
// through the pivot. Positions p1 = (sin th1, cos th1), p2 = p1 + (sin th2, cos th2), so
//   T = th1'^2 + 1/2 th2'^2 + cos(th1 - th2) th1' th2',   V = 2 g cos th1 + g cos th2,
// and Lagrange's equations M th'' = f - G^T lambda with (s, c = sin, cos(th1 - th2))
//   M = [2 c; c 1],   f = (-s th2'^2 + 2 g sin th1,  s th1'^2 + g sin th2)
// (the reference's "sign caution": the thesis prints these signs with theta_d = th1 - th2).
// Constraint (4.27): g = -cos th1 - cos th2 = 0 (the second mass at height 0), G = (sin th1,
// sin th2), L = d^2g/dt^2 - G th'' = cos th1 th1'^2 + cos th2 th2'^2. G = 0 at (0, pi) and
// (pi, 0): there two branches of g = 0 cross (th2 = pi - th1, the slider-crank, and
// th2 = pi + th1, the folded one) and the KKT matrix is singular.
//
// Remark 4.4 reformulation (linear = true): since the links are equal, the slider-crank branch is
// g = th1 + th2 - pi = 0, G = (1, 1), L = 0: no singularity. On it th2' = -th1' and the motion has
// one degree of freedom with T = (3/2 + cos 2 th1) th1'^2 and V = g cos th1.
//
// Initial values (the thesis omits them; reference pitfall 11): on the slider-crank branch with
// energy E = 21.3297 J such that a full turn of th1 takes 1.7 s (quadrature of
// dt = sqrt((3/2 + cos 2th) / (E - g cos th)) dth over a turn), starting 1 s before th1 passes 0:
// th1(0) = -3.6881, th1'(0) = 3.8931 rad/s, th2 = pi - th1, th2' = -th1'. The motion then passes
// the singular configuration th1 = 0 (mod 2 pi) at t = 1.0 and 2.7 as the thesis figures do (and
// th1 = pi, the other singular configuration, at t = 0.15, 1.85, ...), every 0.85 s on [0, 10].

#include <cmath>
#include <numbers>
#include <string_view>

#include "rtmb/state.hpp"
#include "rtmb/system.hpp"

namespace rtmb::testing {

class SingularSliderCrank final : public System {
 public:
  static constexpr double kGravity = 9.8;
  static constexpr double kTheta10 = -3.6881;
  static constexpr double kOmega10 = 3.8931;

  explicit SingularSliderCrank(bool linear) noexcept : System(2, 2, 1), linear_(linear) {}

  [[nodiscard]] std::string_view name() const noexcept override {
    return linear_ ? "singular_slider_crank_linear" : "singular_slider_crank";
  }
  void initial_state(State& out) const override {
    out = State(2, 2);
    out.q << kTheta10, std::numbers::pi - kTheta10;
    out.v << kOmega10, -kOmega10;
  }
  void mass(double /*t*/, VecCRef q, MatRef out_M) const noexcept override {
    const double c = std::cos(q(0) - q(1));
    out_M << 2.0, c, c, 1.0;
  }
  void forces(
      double /*t*/, VecCRef q, VecCRef v, InputValues /*u*/, VecRef out_f) const noexcept override {
    const double s = std::sin(q(0) - q(1));
    out_f(0) = -s * v(1) * v(1) + 2.0 * kGravity * std::sin(q(0));
    out_f(1) = s * v(0) * v(0) + kGravity * std::sin(q(1));
  }
  void constraints(double /*t*/, VecCRef q, VecRef out_g) const noexcept override {
    out_g(0) = linear_ ? q(0) + q(1) - std::numbers::pi : -std::cos(q(0)) - std::cos(q(1));
  }
  void jacobian(double /*t*/, VecCRef q, MatRef out_G) const noexcept override {
    if (linear_) {
      out_G << 1.0, 1.0;
    } else {
      out_G << std::sin(q(0)), std::sin(q(1));
    }
  }
  void curvature(double /*t*/, VecCRef q, VecCRef v, VecRef out_L) const noexcept override {
    out_L(0) = linear_ ? 0.0 : std::cos(q(0)) * v(0) * v(0) + std::cos(q(1)) * v(1) * v(1);
  }
  void velocity_constraint_jacobian(double /*t*/,
                                    VecCRef q,
                                    VecCRef v,
                                    MatRef out_Gv_q) const noexcept override {
    if (linear_) {
      out_Gv_q.setZero();
    } else {
      out_Gv_q << std::cos(q(0)) * v(0), std::cos(q(1)) * v(1);
    }
  }
  [[nodiscard]] bool has_energy() const noexcept override { return true; }
  [[nodiscard]] double energy(double /*t*/,
                              VecCRef q,
                              VecCRef v,
                              InputValues /*u*/) const noexcept override {
    const double c = std::cos(q(0) - q(1));
    return v(0) * v(0) + 0.5 * v(1) * v(1) + c * v(0) * v(1) +
           kGravity * (2.0 * std::cos(q(0)) + std::cos(q(1)));
  }

 private:
  bool linear_;
};

}  // namespace rtmb::testing
