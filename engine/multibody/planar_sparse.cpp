// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Sparse structure of a planar multibody model (System::sparse_structure, issue 4).
//
// In absolute coordinates M = diag(m_1, m_1, J_1, ..., m_N, m_N, J_N) and joint k's rows
// r_k .. r_k + n_k - 1 of G have non-zeros only in the three columns of each of its two bodies
// (the blocks G_i, G_j of evaluate_joint, planar_multibody.cpp). Column offset_b + c of G therefore
// holds, for every joint touching body b in joint order, that joint's n_k consecutive rows:
// ascending, as CSC requires, because joint rows are numbered in joint order. The slot of each
// block is found once here (build_sparse_slots) so that jacobian_values() is a plain scatter of
// the same blocks the dense jacobian() writes: O(N) and bit-identical values.
//
// Structural zeros: an entry of G_i that happens to be 0 (e.g. the x column of a distance row
// when d is vertical) stays in the pattern; the pattern must not depend on q.
#include <Eigen/Core>
#include <array>
#include <span>
#include <vector>

#include "engine/multibody/planar_beam_body.hpp"
#include "engine/multibody/planar_joint_blocks.hpp"
#include "rtmb/models/planar_multibody.hpp"
#include "rtmb/system.hpp"

namespace rtmb {

namespace {

// The joints touching each body, in joint order.
std::vector<std::vector<int>> joints_of_bodies(const PlanarModelSpec& spec) {
  std::vector<std::vector<int>> out(spec.bodies.size());
  for (std::size_t k = 0; k < spec.joints.size(); ++k) {
    for (const int b : {spec.joints[k].body_i, spec.joints[k].body_j}) {
      if (b != kGround) out[static_cast<std::size_t>(b)].push_back(static_cast<int>(k));
    }
  }
  return out;
}

}  // namespace

void PlanarMultibody::build_sparse_slots() {
  // column starts of G (as sparse_structure writes them), then each joint's offset in the
  // columns of its bodies
  const auto per_body = joints_of_bodies(spec_);
  jacobian_slots_.assign(spec_.joints.size(), {-1, -1, -1, -1, -1, -1});
  int start = 0;  // first slot of body b's first column
  for (std::size_t b = 0; b < per_body.size(); ++b) {
    int column_rows = 0;
    for (const int k : per_body[b]) column_rows += constraint_rows(spec_.joints[k].type);
    int offset = 0;
    for (const int k : per_body[b]) {
      const PlanarJointSpec& jt = spec_.joints[static_cast<std::size_t>(k)];
      const int side = jt.body_i == static_cast<int>(b) ? 0 : 3;
      for (int c = 0; c < 3; ++c) {
        jacobian_slots_[static_cast<std::size_t>(k)][static_cast<std::size_t>(side + c)] =
            start + c * column_rows + offset;
      }
      offset += constraint_rows(jt.type);
    }
    start += coordinate_count(static_cast<int>(b)) * column_rows;
  }
}

bool PlanarMultibody::sparse_structure(SparsePattern& mass_lower, SparsePattern& jacobian) const {
  // a zero mass or inertia is a massless coordinate: valid for the dense pivoted LU (M positive
  // definite on ker G suffices, Chin Lemma 4.1), but not for the sparse LDL^T without pivoting
  // (a beam's M_b is positive definite: its mass comes from rho a L)
  for (const PlanarBodySpec& b : spec_.bodies) {
    if (b.kind == PlanarBodyKind::kBeam) continue;
    if (!(b.mass > 0.0) || !(b.inertia > 0.0)) return false;
  }
  const int n = n_v();
  mass_lower.rows = n;
  mass_lower.cols = n;
  // a rigid body's three columns hold their diagonal entry; a beam's n_b columns the lower
  // triangle of its dense block M_b (column c: rows c .. n_b - 1 of the block)
  mass_lower.outer.assign(1, 0);
  mass_lower.inner.clear();
  for (std::size_t b = 0; b < spec_.bodies.size(); ++b) {
    const int o = offsets_[b];
    const int size = coordinate_count(static_cast<int>(b));
    const bool beam = spec_.bodies[b].kind == PlanarBodyKind::kBeam;
    for (int c = 0; c < size; ++c) {
      for (int r = c; r < (beam ? size : c + 1); ++r) mass_lower.inner.push_back(o + r);
      mass_lower.outer.push_back(static_cast<int>(mass_lower.inner.size()));
    }
  }

  jacobian.rows = n_lambda();
  jacobian.cols = n;
  jacobian.outer.assign(1, 0);
  jacobian.inner.clear();
  const auto per_body = joints_of_bodies(spec_);
  for (std::size_t b = 0; b < per_body.size(); ++b) {
    const std::vector<int>& joints = per_body[b];
    for (int c = 0; c < coordinate_count(static_cast<int>(b)); ++c) {
      for (const int k : joints) {
        const int rows = constraint_rows(spec_.joints[static_cast<std::size_t>(k)].type);
        for (int r = 0; r < rows; ++r)
          jacobian.inner.push_back(rows_[static_cast<std::size_t>(k)] + r);
      }
      jacobian.outer.push_back(static_cast<int>(jacobian.inner.size()));
    }
  }
  return true;
}

void PlanarMultibody::mass_values(double /*t*/, VecCRef q, std::span<double> out) const noexcept {
  if (!beams_) {
    // diagonal pattern: slot c is M(c, c)
    for (std::size_t b = 0; b < spec_.bodies.size(); ++b) {
      const auto o = static_cast<std::size_t>(offsets_[b]);
      out[o] = spec_.bodies[b].mass;
      out[o + 1] = spec_.bodies[b].mass;
      out[o + 2] = spec_.bodies[b].inertia;
    }
    return;
  }
  // the pattern of sparse_structure(), body by body
  std::size_t at = 0;
  for (std::size_t b = 0; b < spec_.bodies.size(); ++b) {
    if (spec_.bodies[b].kind == PlanarBodyKind::kBeam) {
      beams_->mass_lower_values(static_cast<int>(b), q, out.data() + at);
      at += static_cast<std::size_t>(beams_->mass_lower_count(static_cast<int>(b)));
      continue;
    }
    out[at++] = spec_.bodies[b].mass;
    out[at++] = spec_.bodies[b].mass;
    out[at++] = spec_.bodies[b].inertia;
  }
}

void PlanarMultibody::jacobian_values(double /*t*/,
                                      VecCRef q,
                                      std::span<double> out) const noexcept {
  // scatter of the blocks (JacobianScatter). This runs 7 times per RK4 + PStab step when the
  // fused evaluations are not used, so it computes G only and each body's cos/sin once
  // (RotationCache); revolute joints skip the 3 x 3 blocks.
  planar_detail::JointBlocks blocks;
  const planar_detail::BodyLayout lay(offsets_.data());
  planar_detail::RotationCache rot(lay);
  const planar_detail::JacobianScatter scatter(out.data());
  for (std::size_t k = 0; k < spec_.joints.size(); ++k) {
    const PlanarJointSpec& jt = spec_.joints[k];
    const planar_detail::Rotation ri = rot.get(q, jt.body_i);
    const planar_detail::Rotation rj = rot.get(q, jt.body_j);
    const int* slots = jacobian_slots_[k].data();
    if (beams_ && beams_->on_beam(k)) {
      beams_->jacobian_values(k, q, slots, out.data());
      continue;
    }
    if (jt.type == PlanarJointType::kRevolute) {
      scatter.revolute(jt, planar_detail::rotate(ri, jt.point_i),
                       planar_detail::rotate(rj, jt.point_j), slots);
      continue;
    }
    planar_detail::joint_jacobian(jt, lay.block(q, jt.body_i), lay.block(q, jt.body_j), ri, rj,
                                  blocks);
    scatter.blocks(jt, blocks, slots);
  }
}

}  // namespace rtmb
