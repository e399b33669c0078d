// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// KKT data of a planar N-link chain in absolute body coordinates, for the SparseKkt tests and
// benchmark. Body b has coordinates q_b = (x_b, y_b, theta_b) (indices 3b .. 3b+2), its centre of
// mass at the middle of a link of length L_b, joint points s_A = (-L_b/2, 0) and
// s_B = (L_b/2, 0) in the body frame. Revolute joints: ground-body 0 at s_A, body b-1 at s_B to
// body b at s_A, and with `pinned_tip` body N-1 at s_B to the ground (closing the loop). A joint
// between body 1 (point s1) and body 2 (point s2) is the constraint
//     Phi = r_1 + R(theta_1) s1 - r_2 - R(theta_2) s2 = 0          (2 rows)
// with Jacobian blocks [I, R'(theta_1) s1] and -[I, R'(theta_2) s2], R'(t) = dR/dt =
// [-sin t, -cos t; cos t, -sin t]; the ground contributes no columns. Angles are random (the
// Jacobian formula does not need an assembled configuration). M = diag(m, m, J) per body, or a
// random full SPD 3x3 block with `full_blocks` (exercises off-diagonal lower-triangle slots).

#include <Eigen/Dense>
#include <Eigen/SparseCore>
#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include "engine/kkt/sparse_kkt.hpp"

namespace rtmb::testing {

struct ChainOptions {
  int n_bodies = 10;
  bool pinned_tip = false;
  bool full_blocks = false;
  /// Bodies whose rotational inertia is zero (a massless coordinate: M singular).
  std::vector<int> massless_rotation;
  /// Joints (by index) added a second time: exactly redundant constraint rows.
  std::vector<int> duplicate_joints;
};

class PlanarChainKkt {
 public:
  struct Entry {
    int row;
    int col;
    double value;
  };

  PlanarChainKkt(const ChainOptions& options, unsigned seed) : opt_(options) {
    const int n = opt_.n_bodies;
    joints_.clear();
    joints_.push_back({-1, 0});
    for (int b = 1; b < n; ++b) joints_.push_back({b - 1, b});
    if (opt_.pinned_tip) joints_.push_back({n - 1, -1});
    for (int j : opt_.duplicate_joints) joints_.push_back(joints_[static_cast<std::size_t>(j)]);
    randomize(seed);
  }

  [[nodiscard]] int n_v() const { return 3 * opt_.n_bodies; }
  [[nodiscard]] int n_lambda() const { return 2 * static_cast<int>(joints_.size()); }

  /// New random masses, lengths and angles; same pattern.
  void randomize(unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> mass(0.5, 2.0), len(0.5, 1.5),
        ang(-std::numbers::pi, std::numbers::pi), unit(-1.0, 1.0);
    const int n = opt_.n_bodies;
    length_.resize(static_cast<std::size_t>(n));
    theta_.resize(static_cast<std::size_t>(n));
    mass_.clear();
    for (int b = 0; b < n; ++b) {
      const double m = mass(rng);
      const double l = len(rng);
      length_[static_cast<std::size_t>(b)] = l;
      theta_[static_cast<std::size_t>(b)] = ang(rng);
      double j = m * l * l / 12.0;
      for (int z : opt_.massless_rotation) {
        if (z == b) j = 0.0;
      }
      Eigen::Matrix3d block = Eigen::Vector3d(m, m, j).asDiagonal();
      if (opt_.full_blocks) {
        Eigen::Matrix3d a;
        for (int i = 0; i < 9; ++i) a.data()[i] = unit(rng);
        block += 0.3 * a * a.transpose();
      }
      for (int c = 0; c < 3; ++c) {
        for (int r = c; r < 3; ++r) {
          if (opt_.full_blocks || r == c) mass_.push_back({3 * b + r, 3 * b + c, block(r, c)});
        }
      }
    }
    jac_.clear();
    for (std::size_t k = 0; k < joints_.size(); ++k) {
      const auto [b1, b2] = joints_[k];
      const int row = 2 * static_cast<int>(k);
      if (b1 >= 0) add_joint_body(row, b1, +0.5, +1.0);
      if (b2 >= 0) add_joint_body(row, b2, -0.5, -1.0);
    }
  }

  /// Structural patterns (every entry of each block, whatever its value).
  [[nodiscard]] SparseKkt::Pattern mass_pattern() const { return pattern(mass_, n_v(), n_v()); }
  [[nodiscard]] SparseKkt::Pattern jacobian_pattern() const {
    return pattern(jac_, n_lambda(), n_v());
  }

  /// Slot of each entry in the value arrays of kkt (setup; then write_values is a plain scatter).
  /// Kkt: SparseKkt or BlockKkt (the same value interface).
  template <class Kkt>
  void bind(const Kkt& kkt) {
    mass_slot_.clear();
    jac_slot_.clear();
    for (const Entry& e : mass_) mass_slot_.push_back(kkt.mass_slot(e.row, e.col));
    for (const Entry& e : jac_) jac_slot_.push_back(kkt.jacobian_slot(e.row, e.col));
  }
  /// Writes the current values into kkt (after bind). No allocation.
  template <class Kkt>
  void write_values(Kkt& kkt) const {
    auto mv = kkt.mass_values();
    auto gv = kkt.jacobian_values();
    for (std::size_t i = 0; i < mass_.size(); ++i)
      mv[static_cast<std::size_t>(mass_slot_[i])] = mass_[i].value;
    for (std::size_t i = 0; i < jac_.size(); ++i)
      gv[static_cast<std::size_t>(jac_slot_[i])] = jac_[i].value;
  }

  [[nodiscard]] Eigen::MatrixXd mass_dense() const {
    Eigen::MatrixXd m = Eigen::MatrixXd::Zero(n_v(), n_v());
    for (const Entry& e : mass_) {
      m(e.row, e.col) = e.value;
      m(e.col, e.row) = e.value;
    }
    return m;
  }
  [[nodiscard]] Eigen::MatrixXd jacobian_dense() const {
    Eigen::MatrixXd g = Eigen::MatrixXd::Zero(n_lambda(), n_v());
    for (const Entry& e : jac_) g(e.row, e.col) = e.value;
    return g;
  }
  [[nodiscard]] Eigen::MatrixXd kkt_dense() const {
    const int n = n_v() + n_lambda();
    Eigen::MatrixXd k = Eigen::MatrixXd::Zero(n, n);
    k.topLeftCorner(n_v(), n_v()) = mass_dense();
    const Eigen::MatrixXd g = jacobian_dense();
    k.bottomLeftCorner(n_lambda(), n_v()) = g;
    k.topRightCorner(n_v(), n_lambda()) = g.transpose();
    return k;
  }

 private:
  // rows `row`, `row + 1`; half = +-1/2 picks s = (half * L, 0); sign = +-1 is the side of Phi
  void add_joint_body(int row, int body, double half, double sign) {
    const double t = theta_[static_cast<std::size_t>(body)];
    const double sx = half * length_[static_cast<std::size_t>(body)];
    const double sy = 0.0;
    const double dx = -std::sin(t) * sx - std::cos(t) * sy;  // R'(t) s
    const double dy = std::cos(t) * sx - std::sin(t) * sy;
    const int c = 3 * body;
    jac_.push_back({row, c, sign});
    jac_.push_back({row, c + 1, 0.0});
    jac_.push_back({row, c + 2, sign * dx});
    jac_.push_back({row + 1, c, 0.0});
    jac_.push_back({row + 1, c + 1, sign});
    jac_.push_back({row + 1, c + 2, sign * dy});
  }

  static SparseKkt::Pattern pattern(const std::vector<Entry>& entries, int rows, int cols) {
    std::vector<Eigen::Triplet<double>> t;
    for (const Entry& e : entries) t.emplace_back(e.row, e.col, 1.0);
    SparseKkt::Pattern p(rows, cols);
    p.setFromTriplets(t.begin(), t.end());
    p.makeCompressed();
    return p;
  }

  struct Joint {
    int body1;  ///< -1: ground
    int body2;  ///< -1: ground
  };

  ChainOptions opt_;
  std::vector<Joint> joints_;
  std::vector<double> length_, theta_;
  std::vector<Entry> mass_, jac_;
  std::vector<int> mass_slot_, jac_slot_;
};

}  // namespace rtmb::testing
