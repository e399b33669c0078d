// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include <cmath>
#include <limits>
#include <string_view>

#include "rtmb/system.hpp"

namespace rtmb::testing {

/// Point mass on the unit circle driven by a tangential force, with an exact solution
/// (Hoitink 2011 App. A.1, Arevalo & Lotstedt; reference/gsssss-hoitink2011.md §4.4):
///     [2 0; 0 2] [x''; y''] + [-2x; -2y] lambda = [4y; -4x],   g = 1 - x^2 - y^2
///     x = sin t^2, y = cos t^2, lambda = -4 t^2.
/// The sign convention M v' = f - G^T lambda with G = [-2x, -2y] is the same as Hoitink's.
class CircleTrack final : public System {
 public:
  CircleTrack() : System(2, 2, 1) {}
  std::string_view name() const noexcept override { return "circle_track"; }

  void initial_state(State& out) const override {
    out.t = 0.0;
    out.q << 0.0, 1.0;
    out.v << 0.0, 0.0;
  }
  void mass(double, VecCRef, MatRef out_M) const noexcept override {
    out_M.setZero();
    out_M.diagonal().setConstant(2.0);
  }
  void forces(double, VecCRef q, VecCRef, InputValues, VecRef out_f) const noexcept override {
    out_f << 4.0 * q[1], -4.0 * q[0];
  }
  void constraints(double, VecCRef q, VecRef out_g) const noexcept override {
    out_g[0] = 1.0 - q[0] * q[0] - q[1] * q[1];
  }
  void jacobian(double, VecCRef q, MatRef out_G) const noexcept override {
    out_G << -2.0 * q[0], -2.0 * q[1];
  }
  void curvature(double, VecCRef, VecCRef v, VecRef out_L) const noexcept override {
    out_L[0] = -2.0 * (v[0] * v[0] + v[1] * v[1]);
  }
  void velocity_constraint_jacobian(double,
                                    VecCRef,
                                    VecCRef v,
                                    MatRef out) const noexcept override {
    out << -2.0 * v[0], -2.0 * v[1];
  }

  static double x(double t) { return std::sin(t * t); }
  static double y(double t) { return std::cos(t * t); }
  static double xdot(double t) { return 2.0 * t * std::cos(t * t); }
  static double ydot(double t) { return -2.0 * t * std::sin(t * t); }
  static double lambda(double t) { return -4.0 * t * t; }
};

/// A system whose forces become NaN after t_bad: for the non-finite guard of the step.
class PoisonedPendulum final : public System {
 public:
  explicit PoisonedPendulum(double t_bad) : System(2, 2, 1), t_bad_(t_bad) {}
  std::string_view name() const noexcept override { return "poisoned"; }
  void initial_state(State& out) const override {
    out.t = 0.0;
    out.q << 1.0, 0.0;
    out.v << 0.0, 0.0;
  }
  void mass(double, VecCRef, MatRef out_M) const noexcept override { out_M.setIdentity(); }
  void forces(double t, VecCRef, VecCRef, InputValues, VecRef out_f) const noexcept override {
    const double bad = t > t_bad_ ? std::numeric_limits<double>::quiet_NaN() : 0.0;
    out_f << bad, -9.81;
  }
  void constraints(double, VecCRef q, VecRef out_g) const noexcept override {
    out_g[0] = 0.5 * (q.squaredNorm() - 1.0);
  }
  void jacobian(double, VecCRef q, MatRef out_G) const noexcept override { out_G << q[0], q[1]; }
  void curvature(double, VecCRef, VecCRef v, VecRef out_L) const noexcept override {
    out_L[0] = v.squaredNorm();
  }
  void velocity_constraint_jacobian(double,
                                    VecCRef,
                                    VecCRef v,
                                    MatRef out) const noexcept override {
    out << v[0], v[1];
  }

 private:
  double t_bad_;
};

}  // namespace rtmb::testing
