// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Test-only helpers for the reference mechanisms: allocating wrappers around the System
// evaluation methods, finite-difference derivatives, a KKT solve for the accelerations and a small
// RK4 integrator with projection used to compare trajectories against published states. None of
// this is engine code; it is written independently of engine/ so the tests cross-check it.

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <string>

#include "rtmb/state.hpp"
#include "rtmb/system.hpp"
#include "rtmb/types.hpp"

namespace rtmb::test {

// ---- allocating wrappers --------------------------------------------------------------------

inline Mat eval_mass(const System& s, double t, const Vec& q) {
  Mat m = Mat::Zero(s.n_v(), s.n_v());
  s.mass(t, q, m);
  return m;
}

inline Vec eval_forces(const System& s, double t, const Vec& q, const Vec& v) {
  Vec f = Vec::Zero(s.n_v());
  s.forces(t, q, v, {}, f);
  return f;
}

inline Vec eval_g(const System& s, double t, const Vec& q) {
  Vec g = Vec::Zero(s.n_lambda());
  s.constraints(t, q, g);
  return g;
}

inline Mat eval_G(const System& s, double t, const Vec& q) {
  Mat m = Mat::Zero(s.n_lambda(), s.n_v());
  s.jacobian(t, q, m);
  return m;
}

inline Vec eval_gt(const System& s, double t, const Vec& q) {
  Vec g = Vec::Zero(s.n_lambda());
  s.constraint_rate(t, q, g);
  return g;
}

inline Vec eval_L(const System& s, double t, const Vec& q, const Vec& v) {
  Vec l = Vec::Zero(s.n_lambda());
  s.curvature(t, q, v, l);
  return l;
}

inline Mat eval_Gv_q(const System& s, double t, const Vec& q, const Vec& v) {
  Mat m = Mat::Zero(s.n_lambda(), s.n_q());
  s.velocity_constraint_jacobian(t, q, v, m);
  return m;
}

// ---- finite differences ---------------------------------------------------------------------

/// Central differences (f(x + h e_j) - f(x - h e_j)) / (2 h) of a vector function f (rows
/// entries) over the coordinates of x: column j of the result is the derivative along x_j.
template <class F>
Mat central_differences(int rows, const Vec& x, double h, F&& f) {
  Mat out(rows, x.size());
  for (int j = 0; j < x.size(); ++j) {
    Vec xp = x;
    Vec xm = x;
    xp(j) += h;
    xm(j) -= h;
    out.col(j) = (Vec(f(xp)) - Vec(f(xm))) / (2.0 * h);
  }
  return out;
}

/// Central differences of g with respect to q (step h per coordinate).
inline Mat fd_jacobian(const System& s, double t, const Vec& q, double h) {
  return central_differences(s.n_lambda(), q, h, [&](const Vec& x) { return eval_g(s, t, x); });
}

/// Central difference of g with respect to t.
inline Vec fd_constraint_rate(const System& s, double t, const Vec& q, double h) {
  return (eval_g(s, t + h, q) - eval_g(s, t - h, q)) / (2.0 * h);
}

/// d^2/ds^2 g(t + s, q + s v) at s = 0 by the fourth-order five-point stencil. Along this line
/// v' = 0, so by the definition d^2 g/dt^2 = G v' + L this second derivative is exactly L.
inline Vec fd_curvature(const System& s, double t, const Vec& q, const Vec& v, double h) {
  auto at = [&](double k) { return eval_g(s, t + k * h, q + (k * h) * v); };
  return (-at(2.0) + 16.0 * at(1.0) - 30.0 * at(0.0) + 16.0 * at(-1.0) - at(-2.0)) / (12.0 * h * h);
}

/// Central differences of G(t,q) v + g_t(t,q) with respect to q.
inline Mat fd_velocity_constraint_jacobian(
    const System& s, double t, const Vec& q, const Vec& v, double h) {
  return central_differences(s.n_lambda(), q, h, [&](const Vec& x) {
    return Vec(eval_G(s, t, x) * v + eval_gt(s, t, x));
  });
}

/// Central differences of the scalar energy(t, q, v) with respect to q.
inline Vec fd_energy_gradient(const System& s, double t, const Vec& q, const Vec& v, double h) {
  return central_differences(1, q, h,
                             [&](const Vec& x) { return Vec::Constant(1, s.energy(t, x, v, {})); })
      .transpose();
}

/// Velocity-dependent generalized forces that the Lagrange equations of T = 1/2 v^T M(q) v
/// require on the right-hand side of M v' = f:  -M'(q)[v] v + 1/2 d(v^T M v)/dq, by central
/// differences (M' v = d/ds M(q + s v) v).
inline Vec fd_lagrange_velocity_forces(
    const System& s, double t, const Vec& q, const Vec& v, double h) {
  const Mat m_dot = (eval_mass(s, t, q + h * v) - eval_mass(s, t, q - h * v)) / (2.0 * h);
  const Vec grad = central_differences(1, q, h, [&](const Vec& x) {
                     return Vec::Constant(1, 0.5 * v.dot(eval_mass(s, t, x) * v));
                   }).transpose();
  return -m_dot * v + grad;
}

// ---- comparisons ----------------------------------------------------------------------------

inline double max_abs(const Mat& m) {
  return m.size() == 0 ? 0.0 : m.cwiseAbs().maxCoeff();
}

/// Largest entrywise |actual - expected| relative to the tolerance atol + rtol * max|expected|;
/// <= 1 means the two agree. Scaling by the reference only (not by `actual`) keeps a wildly
/// wrong `actual` from loosening its own tolerance.
inline double scaled_error(const Mat& actual, const Mat& expected, double rtol, double atol) {
  return max_abs(actual - expected) / (atol + rtol * max_abs(expected));
}

// ---- dynamics -------------------------------------------------------------------------------

struct Accelerations {
  Vec a;       ///< v'
  Vec lambda;  ///< multipliers
};

/// Solves [M G^T; G 0] [v'; lambda] = [f; -(L + 0)] (Chin 1995 eq. 4.2, index-1 form).
inline Accelerations solve_kkt(const System& s, double t, const Vec& q, const Vec& v) {
  const int n = s.n_v();
  const int m = s.n_lambda();
  Mat k = Mat::Zero(n + m, n + m);
  const Mat g = eval_G(s, t, q);
  k.topLeftCorner(n, n) = eval_mass(s, t, q);
  k.topRightCorner(n, m) = g.transpose();
  k.bottomLeftCorner(m, n) = g;
  Vec rhs(n + m);
  rhs.head(n) = eval_forces(s, t, q, v);
  rhs.tail(m) = -eval_L(s, t, q, v);
  const Vec x = k.fullPivLu().solve(rhs);
  return {x.head(n), x.tail(m)};
}

/// Euclidean projection of (q, v) onto g = 0 and G v + g_t = 0 (Newton on g, then one linear
/// velocity projection). Only used to keep test trajectories on the manifold.
inline void project(const System& s, double t, Vec& q, Vec& v) {
  for (int it = 0; it < 20; ++it) {
    const Vec g = eval_g(s, t, q);
    if (max_abs(g) <= 1e-15) break;
    const Mat jac = eval_G(s, t, q);
    q -= jac.transpose() * (jac * jac.transpose()).ldlt().solve(g);
  }
  const Mat jac = eval_G(s, t, q);
  const Vec r = jac * v + eval_gt(s, t, q);
  v -= jac.transpose() * (jac * jac.transpose()).ldlt().solve(r);
}

/// Classical RK4 on (q' = v, v' = a(t,q,v)) with projection after every step; h must divide
/// t_end into whole steps. Returns the state at t_end.
inline State integrate_rk4(const System& s, State x, double t_end, double h) {
  const int steps = static_cast<int>(std::lround((t_end - x.t) / h));
  auto accel = [&](double t, const Vec& q, const Vec& v) { return solve_kkt(s, t, q, v).a; };
  for (int k = 0; k < steps; ++k) {
    const double t = x.t;
    const Vec& q = x.q;
    const Vec& v = x.v;
    const Vec k1q = v;
    const Vec k1v = accel(t, q, v);
    const Vec k2q = v + 0.5 * h * k1v;
    const Vec k2v = accel(t + 0.5 * h, q + 0.5 * h * k1q, k2q);
    const Vec k3q = v + 0.5 * h * k2v;
    const Vec k3v = accel(t + 0.5 * h, q + 0.5 * h * k2q, k3q);
    const Vec k4q = v + h * k3v;
    const Vec k4v = accel(t + h, q + h * k3q, k4q);
    Vec q_next = q + (h / 6.0) * (k1q + 2.0 * k2q + 2.0 * k3q + k4q);
    Vec v_next = v + (h / 6.0) * (k1v + 2.0 * k2v + 2.0 * k3v + k4v);
    x.t = t + h;
    project(s, x.t, q_next, v_next);
    x.q = q_next;
    x.v = v_next;
  }
  return x;
}

}  // namespace rtmb::test
