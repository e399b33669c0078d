// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Sparse structure of a particle model (System::sparse_structure; the sparse path of
// docs/architecture.md). M = diag(m I) is its own lower triangle: one entry per column. Rod row k,
// g = (|d|^2 - l^2) / (2 l) with d = x_j - x_i, has G = [-d^T, d^T] / l: D entries on particle j
// and D more on particle i unless that end is a fixed anchor, so G has at most 2 D entries per rod
// and a beam of N elements O(N) non-zeros. The CSC order (column by column, rows ascending) is
// fixed at construction in jacobian_slots_, so jacobian_values only walks that list.
#include <algorithm>

#include "rtmb/models/particle_system.hpp"

namespace rtmb {

void ParticleSystem::build_jacobian_slots() {
  const int dim = spec_.dimension;
  const int n_v = dim * static_cast<int>(spec_.particles.size());
  // the rods touching each coordinate column, in row order (rows are visited ascending)
  std::vector<std::vector<JacobianSlot>> columns(static_cast<std::size_t>(n_v));
  for (std::size_t k = 0; k < spec_.rods.size(); ++k) {
    const ParticleRodSpec& r = spec_.rods[k];
    for (int a = 0; a < dim; ++a) {
      columns[static_cast<std::size_t>(dim * r.j + a)].push_back({static_cast<int>(k), a, 1.0});
      if (r.i != kFixedPoint) {
        columns[static_cast<std::size_t>(dim * r.i + a)].push_back({static_cast<int>(k), a, -1.0});
      }
    }
  }
  jacobian_outer_.assign(1, 0);
  for (const std::vector<JacobianSlot>& column : columns) {
    jacobian_slots_.insert(jacobian_slots_.end(), column.begin(), column.end());
    jacobian_outer_.push_back(static_cast<int>(jacobian_slots_.size()));
  }
}

bool ParticleSystem::sparse_structure(SparsePattern& mass_lower, SparsePattern& jacobian) const {
  const int n_v = this->n_v();
  mass_lower.rows = mass_lower.cols = n_v;
  mass_lower.outer.resize(static_cast<std::size_t>(n_v) + 1);
  mass_lower.inner.resize(static_cast<std::size_t>(n_v));
  for (int c = 0; c <= n_v; ++c) mass_lower.outer[static_cast<std::size_t>(c)] = c;
  for (int c = 0; c < n_v; ++c) mass_lower.inner[static_cast<std::size_t>(c)] = c;
  jacobian.rows = n_lambda();
  jacobian.cols = n_v;
  jacobian.outer = jacobian_outer_;
  jacobian.inner.clear();
  for (const JacobianSlot& s : jacobian_slots_) jacobian.inner.push_back(s.rod);
  return true;
}

void ParticleSystem::mass_values(double /*t*/,
                                 VecCRef /*q*/,
                                 std::span<double> out) const noexcept {
  const auto dim = static_cast<std::size_t>(spec_.dimension);
  for (std::size_t p = 0; p < spec_.particles.size(); ++p) {
    std::fill_n(out.begin() + static_cast<std::ptrdiff_t>(dim * p), dim, spec_.particles[p].mass);
  }
}

void ParticleSystem::jacobian_values(double /*t*/,
                                     VecCRef q,
                                     std::span<double> out) const noexcept {
  // the same expression as jacobian(): d(axis) / l with d = x_j - x_i (or x_j - anchor)
  for (std::size_t e = 0; e < jacobian_slots_.size(); ++e) {
    const JacobianSlot& s = jacobian_slots_[e];
    const ParticleRodSpec& r = spec_.rods[static_cast<std::size_t>(s.rod)];
    const Eigen::Vector3d xi = r.i == kFixedPoint ? r.anchor : position(q, r.i);
    const Eigen::Vector3d d = (position(q, r.j) - xi) / r.length;
    out[e] = s.sign * d(s.axis);
  }
}

}  // namespace rtmb
