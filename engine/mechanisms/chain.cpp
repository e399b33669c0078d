// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// N-link planar pendulum of point masses in Cartesian coordinates, the scaling test case.
// q = (x1, y1, ..., xN, yN) [m], p_0 = origin (fixed). Link i (1..N) keeps |p_i - p_{i-1}| = l via
//   g_i = 1/2 (|d_i|^2 - l^2),  d_i = p_i - p_{i-1},
// the 1/2 making the Jacobian rows plain differences of positions:
//   dg_i/dp_i = d_i^T,  dg_i/dp_{i-1} = -d_i^T,
//   L_i = g_qq(v,v) = |w_i|^2  with w_i = p_i' - p_{i-1}',
//   d(G v)_i/dp_i = w_i^T,  d(G v)_i/dp_{i-1} = -w_i^T.
// The loop variant adds g_{N+1,N+2} = p_N - p_N(0): the tip is pinned where it starts, so the
// chain becomes a closed N+1-bar linkage with N - 2 degrees of freedom (hence N >= 3).
//
// Initial configuration: link i leaves p_{i-1} at the angle
//   theta_i = -pi/6 - (2 pi / 3) (i - 1) / (N - 1)   from +x (theta_1 = -pi/6 for N = 1),
// an arc from -30 to -150 degrees. No two consecutive links are parallel, so G has full row rank
// both open and closed (a straight chain would make the loop singular).
//
// Evaluations are O(N) apart from zeroing the dense outputs the System interface asks for.

#include <Eigen/Core>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "engine/mechanisms/mechanisms_impl.hpp"

namespace rtmb::detail {
namespace {

constexpr double kMass = 1.0;      // per point mass [kg]
constexpr double kLength = 1.0;    // per link [m]
constexpr double kGravity = 9.81;  // [m/s^2]
constexpr int kMinLinksLoop = 3;
// M alone is (2N)^2 doubles; far beyond any useful size, and keeps 2N well inside int.
constexpr int kMaxLinks = 100000;

// Validates the options before the System base is built from them; returns n_q = 2N.
[[nodiscard]] int checked_coordinates(int links, bool loop) {
  if (links < 1 || links > kMaxLinks) {
    throw std::invalid_argument("chain: chain_links must be in [1, " + std::to_string(kMaxLinks) +
                                "], got " + std::to_string(links));
  }
  if (loop && links < kMinLinksLoop) {
    throw std::invalid_argument(
        "chain: a closed loop (chain_loop) needs chain_links >= 3 so that it can move, got " +
        std::to_string(links));
  }
  return 2 * links;
}

// Constraint rows: one per link, two more for the pinned tip. Validates first, so that the
// arithmetic cannot overflow whichever base-constructor argument is evaluated first.
[[nodiscard]] int checked_constraints(int links, bool loop) {
  static_cast<void>(checked_coordinates(links, loop));
  return links + (loop ? 2 : 0);
}

// Initial angle of link i (1-based) from +x [rad].
[[nodiscard]] double link_angle(Eigen::Index i, Eigen::Index links) {
  const double first = -std::numbers::pi / 6.0;
  if (links == 1) {
    return first;
  }
  return first - (2.0 * std::numbers::pi / 3.0) * static_cast<double>(i - 1) /
                     static_cast<double>(links - 1);
}

// Difference x_i - x_{i-1} of the point pairs of x (positions q or velocities v) across link i
// (0-based), x_0 = 0 for the fixed origin: d_i for q, w_i for v. Subtracting the 0 of the
// origin keeps the value bit-for-bit what the first link's x gives.
[[nodiscard]] Eigen::Vector2d link_difference(VecCRef x, Eigen::Index i) noexcept {
  const double px = i > 0 ? x(2 * i - 2) : 0.0;
  const double py = i > 0 ? x(2 * i - 1) : 0.0;
  return {x(2 * i) - px, x(2 * i + 1) - py};
}

// The link rows of G (x = q, entries d_i) or of d(G v)/dq (x = v, entries w_i): +diff^T on p_i,
// -diff^T on p_{i-1}; p_0 is fixed, so link 1 has no left block. out is zero on entry.
void write_link_rows(VecCRef x, Eigen::Index links, MatRef out) noexcept {
  for (Eigen::Index i = 0; i < links; ++i) {
    const Eigen::Vector2d d = link_difference(x, i);
    out(i, 2 * i) = d.x();
    out(i, 2 * i + 1) = d.y();
    if (i > 0) {
      out(i, 2 * i - 2) = -d.x();
      out(i, 2 * i - 1) = -d.y();
    }
  }
}

}  // namespace

Chain::Chain(int links, bool loop)
    : ConstantMassAndForceSystem(checked_coordinates(links, loop),
                                 checked_coordinates(links, loop),
                                 checked_constraints(links, loop)),
      links_(links),
      loop_(loop),
      tip_x_(0.0),
      tip_y_(0.0) {
  for (Eigen::Index i = 1; i <= links_; ++i) {
    const double angle = link_angle(i, links_);
    tip_x_ += kLength * std::cos(angle);
    tip_y_ += kLength * std::sin(angle);
  }
  bars_.reserve(static_cast<std::size_t>(links_));
  for (int i = 1; i <= links_; ++i) bars_.push_back({i - 1, i});
  ground_ = {0, links_ + 1};
}

void Chain::initial_state(State& out) const {
  out = State(n_q(), n_v());
  double x = 0.0;
  double y = 0.0;
  for (Eigen::Index i = 1; i <= links_; ++i) {
    const double angle = link_angle(i, links_);
    x += kLength * std::cos(angle);
    y += kLength * std::sin(angle);
    out.q(2 * i - 2) = x;
    out.q(2 * i - 1) = y;
  }
  // the loop pins the tip exactly where the open chain puts it
  if (loop_) {
    out.q(out.q.size() - 2) = tip_x_;
    out.q(out.q.size() - 1) = tip_y_;
  }
}

void Chain::mass(double /*t*/, VecCRef /*q*/, MatRef out_M) const noexcept {
  out_M.setZero();
  out_M.diagonal().setConstant(kMass);
}

void Chain::forces(
    double /*t*/, VecCRef /*q*/, VecCRef /*v*/, InputValues /*u*/, VecRef out_f) const noexcept {
  const Eigen::Index n = links_;
  for (Eigen::Index i = 0; i < n; ++i) {
    out_f(2 * i) = 0.0;
    out_f(2 * i + 1) = -kMass * kGravity;
  }
}

void Chain::constraints(double /*t*/, VecCRef q, VecRef out_g) const noexcept {
  const Eigen::Index n = links_;
  for (Eigen::Index i = 0; i < n; ++i) {
    const Eigen::Vector2d d = link_difference(q, i);
    out_g(i) = 0.5 * (d.x() * d.x() + d.y() * d.y() - kLength * kLength);
  }
  if (loop_) {
    out_g(n) = q(2 * n - 2) - tip_x_;
    out_g(n + 1) = q(2 * n - 1) - tip_y_;
  }
}

void Chain::jacobian(double /*t*/, VecCRef q, MatRef out_G) const noexcept {
  const Eigen::Index n = links_;
  out_G.setZero();
  write_link_rows(q, n, out_G);
  if (loop_) {
    out_G(n, 2 * n - 2) = 1.0;
    out_G(n + 1, 2 * n - 1) = 1.0;
  }
}

void Chain::curvature(double /*t*/, VecCRef /*q*/, VecCRef v, VecRef out_L) const noexcept {
  const Eigen::Index n = links_;
  for (Eigen::Index i = 0; i < n; ++i) {
    const Eigen::Vector2d w = link_difference(v, i);
    out_L(i) = w.x() * w.x() + w.y() * w.y();
  }
  // the pin rows are linear in q
  if (loop_) {
    out_L(n) = 0.0;
    out_L(n + 1) = 0.0;
  }
}

void Chain::velocity_constraint_jacobian(double /*t*/,
                                         VecCRef /*q*/,
                                         VecCRef v,
                                         MatRef out_Gv_q) const noexcept {
  // G v = sum_i d_i . w_i is bilinear, so its q-derivative has the pattern of G with w for d;
  // the constant pin rows contribute nothing
  out_Gv_q.setZero();
  write_link_rows(v, links_, out_Gv_q);
}

double Chain::energy(double /*t*/, VecCRef q, VecCRef v, InputValues /*u*/) const noexcept {
  const Eigen::Index n = links_;
  double e = 0.0;
  for (Eigen::Index i = 0; i < n; ++i) {
    e += 0.5 * kMass * (v(2 * i) * v(2 * i) + v(2 * i + 1) * v(2 * i + 1)) +
         kMass * kGravity * q(2 * i + 1);
  }
  return e;
}

// ---- iteration-matrix blocks for the implicit methods (system.hpp) --------------------------

bool Chain::constraint_force_jacobian(double /*t*/,
                                      VecCRef /*q*/,
                                      VecCRef lambda,
                                      MatRef out_H) const noexcept {
  // link i adds l_i (p_i - p_{i-1}) to p_i and its negative to p_{i-1}, so
  // H = sum_i l_i (e_i - e_{i-1})(e_i - e_{i-1})^T (x) I_2 (p_0 fixed); the loop rows are linear
  const Eigen::Index n = links_;
  out_H.setZero();
  for (Eigen::Index i = 0; i < n; ++i) {
    const double l = lambda(i);
    for (int c = 0; c < 2; ++c) {
      out_H(2 * i + c, 2 * i + c) += l;
      if (i > 0) {
        out_H(2 * i - 2 + c, 2 * i - 2 + c) += l;
        out_H(2 * i + c, 2 * i - 2 + c) -= l;
        out_H(2 * i - 2 + c, 2 * i + c) -= l;
      }
    }
  }
  return true;
}

// ---- drawing geometry (rtmb/models/joint_points.hpp) -----------------------------------------
// Points: the origin p_0, the masses p_1 .. p_N (q itself), and with `loop` the anchor where the
// tip is pinned (the last two constraint rows hold p_N there). Bars: link i joins p_{i-1}, p_i.

int Chain::n_joint_points() const noexcept {
  return links_ + 1 + (loop_ ? 1 : 0);
}
std::span<const JointLink> Chain::joint_links() const noexcept {
  return bars_;
}
std::span<const int> Chain::ground_points() const noexcept {
  return std::span<const int>(ground_.data(), loop_ ? 2 : 1);
}
void Chain::joint_points(double /*t*/, VecCRef q, std::span<Eigen::Vector3d> out) const noexcept {
  out[0].setZero();
  for (int i = 1; i <= links_; ++i) {
    out[static_cast<std::size_t>(i)] = {q(2 * i - 2), q(2 * i - 1), 0.0};
  }
  if (loop_) out[static_cast<std::size_t>(links_) + 1] = {tip_x_, tip_y_, 0.0};
}

}  // namespace rtmb::detail
