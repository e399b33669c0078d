// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Beam bodies in a PlanarMultibody (engine/multibody/planar_beam_body.hpp).
//
// A revolute joint between body i and body j keeps the points p_i, p_j together, g = p_i - p_j;
// a fixed joint also keeps their material lines' angles, g_3 = phi_j - phi_i - angle, with
// phi = theta (rigid) or theta + w'(x) (beam: the slope of the Hermite deflection at the station,
// S_t'(x) q_f, the cross-section's rotation in the small-deformation model of Chin §3.12). It is
// linear in q: its row of G is constant in q, and its rows of d(G v)/dq and L are 0.
// With each side's point Jacobian J = dp/dq_b (p' = J v_b):
//     G_i = J_i,  G_j = -J_j,  L = J_i' v_i - J_j' v_j,  d(G v)/dq_b = +-d(J v_b)/dq_b.
// Rigid side (planar_multibody.cpp, u = A(theta) s, S the quarter turn):
//     p = r + u,  J = [I, S u],  d(J v)/dq = [0, -w u],  J' v = -w^2 u.
// Beam side (floating_frame_beam.hpp, Chin §3.12): r = R + A (u0 + S q_f) at the station,
//     J = [I, A I~ u, A S], its d(J v)/dq and J' v = A (-theta'^2 u + 2 theta' I~ S q_f')
// from FloatingFrameBeam, which tests them against finite differences.
#include "engine/multibody/planar_beam_body.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "engine/multibody/planar_joint_blocks.hpp"

namespace rtmb::planar_detail {

namespace {

using Vec2 = Eigen::Vector2d;
using StridedMap = Eigen::Map<Mat, 0, Eigen::OuterStride<>>;

// A(th) s, the rigid side's u (the same products as the rigid joints' blocks)
Vec2 rotated(double th, const Vec2& s) noexcept {
  return rotate(Rotation::of(th), s);
}

}  // namespace

FloatingFrameBeamSpec beam_spec(const PlanarBeamSpec& b) noexcept {
  FloatingFrameBeamSpec s;
  s.length = b.length;
  s.youngs_modulus = b.youngs_modulus;
  s.density = b.density;
  s.area = b.area;
  s.second_moment = b.second_moment;
  s.elements = b.elements;
  s.support = b.support == PlanarBeamSupport::kClamped ? BeamSupport::kClamped
                                                       : BeamSupport::kSimplySupported;
  return s;
}

PlanarBeamBodies::PlanarBeamBodies(const PlanarModelSpec& spec, const std::vector<int>& offsets) {
  beam_of_.assign(spec.bodies.size(), -1);
  for (std::size_t b = 0; b < spec.bodies.size(); ++b) {
    const PlanarBodySpec& body = spec.bodies[b];
    if (body.kind != PlanarBodyKind::kBeam) continue;
    beam_of_[b] = static_cast<int>(bodies_.size());
    bodies_.push_back(
        Body{static_cast<int>(b), offsets[b], FloatingFrameBeam(beam_spec(body.beam))});
  }
  on_beam_.assign(spec.joints.size(), 0);
  sides_.resize(spec.joints.size());
  rows_.assign(spec.joints.size(), 2);
  angle_.assign(spec.joints.size(), 0.0);
  for (std::size_t k = 0; k < spec.joints.size(); ++k) {
    const PlanarJointSpec& jt = spec.joints[k];
    const bool touches = beam(jt.body_i) != nullptr || beam(jt.body_j) != nullptr;
    if (!touches) continue;
    on_beam_[k] = 1;
    rows_[k] = rtmb::constraint_rows(jt.type);  // 2 (revolute) or 3 (fixed, validated)
    angle_[k] = jt.angle;
    const std::array<int, 2> body{jt.body_i, jt.body_j};
    const std::array<Vec2, 2> point{jt.point_i, jt.point_j};
    for (std::size_t side = 0; side < 2; ++side) {
      Side& s = sides_[k][side];
      s.body = body[side];
      s.point = point[side];
      if (s.body == kGround) continue;
      s.offset = offsets[static_cast<std::size_t>(s.body)];
      s.beam = beam_of_[static_cast<std::size_t>(s.body)];
      // a point (x, 0) of the beam's axis (validated): the material point at abscissa x
      if (s.beam >= 0)
        s.station = bodies_[static_cast<std::size_t>(s.beam)].beam.station(s.point.x());
    }
  }
}

const FloatingFrameBeam* PlanarBeamBodies::beam(int body) const noexcept {
  if (body == kGround) return nullptr;
  const int i = beam_of_[static_cast<std::size_t>(body)];
  return i < 0 ? nullptr : &bodies_[static_cast<std::size_t>(i)].beam;
}

int PlanarBeamBodies::coordinates(const Side& s) const noexcept {
  return s.beam < 0 ? 3 : bodies_[static_cast<std::size_t>(s.beam)].beam.n_coordinates();
}

Eigen::Vector2d PlanarBeamBodies::position(const Side& s, VecCRef q) const noexcept {
  if (s.body == kGround) return s.point;
  const auto qb = q.segment(s.offset, coordinates(s));
  if (s.beam >= 0)
    return bodies_[static_cast<std::size_t>(s.beam)].beam.point_position(qb, s.station);
  return qb.head<2>() + rotated(qb(2), s.point);
}

void PlanarBeamBodies::point_jacobian(const Side& s, VecCRef q, MatRef out) const noexcept {
  const auto qb = q.segment(s.offset, coordinates(s));
  if (s.beam >= 0) {
    bodies_[static_cast<std::size_t>(s.beam)].beam.point_jacobian(qb, s.station, out);
    return;
  }
  const Vec2 u = rotated(qb(2), s.point);
  out.setZero();
  out(0, 0) = 1.0;
  out(1, 1) = 1.0;
  out(0, 2) = -u.y();
  out(1, 2) = u.x();
}

void PlanarBeamBodies::point_velocity_jacobian(const Side& s,
                                               VecCRef q,
                                               VecCRef v,
                                               MatRef out) const noexcept {
  const int n = coordinates(s);
  const auto qb = q.segment(s.offset, n);
  const auto vb = v.segment(s.offset, n);
  if (s.beam >= 0) {
    bodies_[static_cast<std::size_t>(s.beam)].beam.point_velocity_jacobian(qb, vb, s.station, out);
    return;
  }
  const Vec2 u = rotated(qb(2), s.point);
  out.setZero();
  out.col(2) = -vb(2) * u;
}

Eigen::Vector2d PlanarBeamBodies::point_curvature(const Side& s,
                                                  VecCRef q,
                                                  VecCRef v) const noexcept {
  if (s.body == kGround) return Vec2::Zero();
  const int n = coordinates(s);
  const auto qb = q.segment(s.offset, n);
  const auto vb = v.segment(s.offset, n);
  if (s.beam >= 0) {
    return bodies_[static_cast<std::size_t>(s.beam)].beam.point_curvature(qb, vb, s.station);
  }
  const double w = vb(2);
  return -w * w * rotated(qb(2), s.point);
}

double PlanarBeamBodies::angle(const Side& s, VecCRef q) const noexcept {
  if (s.body == kGround) return 0.0;
  const double theta = q(s.offset + 2);
  if (s.beam < 0) return theta;
  const FloatingFrameBeam& b = bodies_[static_cast<std::size_t>(s.beam)].beam;
  return theta + b.slope(s.station, q.segment(s.offset + 3, b.n_elastic()));
}

void PlanarBeamBodies::angle_row(const Side& s, MatRef out) const noexcept {
  out.setZero();
  out(0, 2) = 1.0;
  if (s.beam < 0) return;
  for (int c = 0; c < 6; ++c) {
    const int i = s.station.index[static_cast<std::size_t>(c)];
    if (i >= 0) out(0, 3 + i) += s.station.slope(c);
  }
}

void PlanarBeamBodies::side_jacobian(std::size_t k,
                                     std::size_t side,
                                     VecCRef q,
                                     MatRef out) const noexcept {
  const Side& s = sides_[k][side];
  const int n = coordinates(s);
  // g = p_i - p_j: +J_i, -J_j; g_3 = phi_j - phi_i: -d(phi_i), +d(phi_j)
  MatRef point = out.topRows(2);
  point_jacobian(s, q, point);
  if (side == 1) point = -point;
  if (rows_[k] == 3) {
    MatRef row = out.block(2, 0, 1, n);
    angle_row(s, row);
    if (side == 0) row = -row;
  }
}

void PlanarBeamBodies::constraint_rows(std::size_t k, VecCRef q, double* out_g) const noexcept {
  const Vec2 g = position(sides_[k][0], q) - position(sides_[k][1], q);
  out_g[0] = g.x();
  out_g[1] = g.y();
  if (rows_[k] == 3) out_g[2] = angle(sides_[k][1], q) - angle(sides_[k][0], q) - angle_[k];
}

void PlanarBeamBodies::curvature_rows(std::size_t k,
                                      VecCRef q,
                                      VecCRef v,
                                      double* out_L) const noexcept {
  const Vec2 l = point_curvature(sides_[k][0], q, v) - point_curvature(sides_[k][1], q, v);
  out_L[0] = l.x();
  out_L[1] = l.y();
  if (rows_[k] == 3) out_L[2] = 0.0;  // the angle row is linear in q
}

void PlanarBeamBodies::jacobian_rows(std::size_t k,
                                     VecCRef q,
                                     int row,
                                     MatRef out_G) const noexcept {
  for (std::size_t side = 0; side < 2; ++side) {
    const Side& s = sides_[k][side];
    if (s.body == kGround) continue;
    MatRef block = out_G.block(row, s.offset, rows_[k], coordinates(s));
    side_jacobian(k, side, q, block);
  }
}

void PlanarBeamBodies::velocity_jacobian_rows(
    std::size_t k, VecCRef q, VecCRef v, int row, MatRef out_Gv_q) const noexcept {
  for (std::size_t side = 0; side < 2; ++side) {
    const Side& s = sides_[k][side];
    if (s.body == kGround) continue;
    MatRef block = out_Gv_q.block(row, s.offset, 2, coordinates(s));
    point_velocity_jacobian(s, q, v, block);
    if (side == 1) block = -block;
    if (rows_[k] == 3) out_Gv_q.block(row + 2, s.offset, 1, coordinates(s)).setZero();
  }
}

void PlanarBeamBodies::jacobian_values(std::size_t k,
                                       VecCRef q,
                                       const int* slots,
                                       double* values) const noexcept {
  // a body's columns each hold the same rows (planar_sparse.cpp), so its block of G is a
  // rows x n column-major matrix with the column stride slots[1] - slots[0]
  for (std::size_t side = 0; side < 2; ++side) {
    const Side& s = sides_[k][side];
    if (s.body == kGround) continue;
    const int* at = slots + 3 * side;
    StridedMap map(values + at[0], rows_[k], coordinates(s), Eigen::OuterStride<>(at[1] - at[0]));
    MatRef block(map);
    side_jacobian(k, side, q, block);
  }
}

void PlanarBeamBodies::mass_blocks(VecCRef q, MatRef out_M) const noexcept {
  for (const Body& b : bodies_) {
    const int n = b.beam.n_coordinates();
    b.beam.mass_matrix(q.segment(b.offset, n), out_M.block(b.offset, b.offset, n, n));
  }
}

void PlanarBeamBodies::inertia_blocks(VecCRef q, VecCRef a, MatRef out_K) const noexcept {
  for (const Body& b : bodies_) {
    const int n = b.beam.n_coordinates();
    b.beam.inertia_jacobian(q.segment(b.offset, n), a.segment(b.offset, n),
                            out_K.block(b.offset, b.offset, n, n));
  }
}

int PlanarBeamBodies::mass_lower_count(int body) const noexcept {
  const int n = beam(body)->n_coordinates();
  return n * (n + 1) / 2;
}

void PlanarBeamBodies::mass_lower_values(int body, VecCRef q, double* out) const noexcept {
  const FloatingFrameBeam& b = *beam(body);
  const int offset =
      bodies_[static_cast<std::size_t>(beam_of_[static_cast<std::size_t>(body)])].offset;
  b.mass_lower(q.segment(offset, b.n_coordinates()), out);
}

void PlanarBeamBodies::set_forces(VecCRef q,
                                  VecCRef v,
                                  const Eigen::Vector2d& g,
                                  VecRef out_f) const noexcept {
  for (const Body& b : bodies_) {
    const int n = b.beam.n_coordinates();
    b.beam.generalized_forces(q.segment(b.offset, n), v.segment(b.offset, n), g,
                              out_f.segment(b.offset, n));
  }
}

double PlanarBeamBodies::energy(VecCRef q, VecCRef v, const Eigen::Vector2d& g) const noexcept {
  double e = 0.0;
  for (const Body& b : bodies_) {
    const int n = b.beam.n_coordinates();
    const auto qb = q.segment(b.offset, n);
    e += b.beam.kinetic_energy(qb, v.segment(b.offset, n)) + b.beam.strain_energy(qb) +
         b.beam.field_potential(qb, g);
  }
  return e;
}

}  // namespace rtmb::planar_detail

namespace rtmb {

std::vector<PlanarBeamStation> beam_stations(const PlanarBeamSpec& beam,
                                             std::span<const double> extra,
                                             int max_stations) {
  if (max_stations < 2) throw std::invalid_argument("beam_stations: max_stations must be >= 2");
  const FloatingFrameBeam ffb(planar_detail::beam_spec(beam));  // validates the values
  const double length = beam.length;
  // nodes and midpoints where they fit (the deflection is a cubic per element: a node and a
  // midpoint per element draw it to within a pixel at any sensible size), else evenly spaced
  const int nodes_and_midpoints = 2 * beam.elements + 1;
  const int count = std::min(nodes_and_midpoints, max_stations);
  std::vector<double> xs;
  xs.reserve(static_cast<std::size_t>(count) + extra.size());
  for (int k = 0; k < count; ++k) {
    xs.push_back(k == count - 1 ? length : length * k / (count - 1));
  }
  for (const double x : extra) xs.push_back(std::clamp(x, 0.0, length));
  std::sort(xs.begin(), xs.end());
  // an extra abscissa on (or within rounding of) a station already there adds no segment
  const double same = 1e-12 * length;
  xs.erase(std::unique(xs.begin(), xs.end(), [same](double a, double b) { return b - a <= same; }),
           xs.end());
  std::vector<PlanarBeamStation> out;
  out.reserve(xs.size());
  for (const double x : xs) {
    const BeamStation s = ffb.station(x);
    PlanarBeamStation p;
    p.x = s.x;
    for (std::size_t c = 0; c < s.index.size(); ++c) {
      const Eigen::Vector2d column = s.shape.col(static_cast<Eigen::Index>(c));
      // a support's coordinate (-1) and a shape function that vanishes here add nothing
      if (s.index[c] < 0 || column.isZero(0.0)) continue;
      p.index.push_back(s.index[c]);
      p.shape.push_back(column);
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace rtmb
