// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Particle System (include/rtmb/models/particle_system.hpp). Particle p owns the coordinates
// q(D p .. D p + D - 1), D = dimension(); a planar model reads and writes only x and y, the
// element code (truss_element, bending_element) works on 3-vectors with z = 0.
//
// Rod rows, d = x_j - x_i, d' = x_j' - x_i' (the planar distance joint's row,
// docs/architecture.md):
//   g = (d.d - l^2) / (2 l),  G = [-d^T, d^T] / l,  L = G'v = d'.d' / l,
//   d(G v)/dq = [-d'^T, d'^T] / l,  d(G^T lambda)/dq = (lambda / l) [I -I; -I I].
// Element forces are -dV/dx; with r = x_j - x_i (truss) the point forces are +V_r on i and -V_r
// on j, and with r1 = x_a - x_c, r2 = x_b - x_c (bending) -V_r1 on a, -V_r2 on b and V_r1 + V_r2
// on c; their Jacobians df/dq = -D^T (d^2V/dr^2) D with the same incidence D.
#include "rtmb/models/particle_system.hpp"

#include <array>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "engine/multibody/bending_element.hpp"
#include "engine/multibody/pulse_element.hpp"
#include "engine/multibody/truss_element.hpp"
#include "rtmb/state.hpp"

namespace rtmb {

namespace {

using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;

void require_particles(bool ok, const std::string& message) {
  if (!ok) throw std::invalid_argument(message);
}

bool finite(const Vec3& x) noexcept {
  return x.allFinite();
}

void check_particle(int p, int n, const std::string& what) {
  require_particles(p >= 0 && p < n,
                    what + ": particle index " + std::to_string(p) + " out of range");
}

ParticleModelSpec validated(ParticleModelSpec spec) {
  require_particles(spec.dimension == 2 || spec.dimension == 3,
                    "particles: dimension must be 2 or 3, got " + std::to_string(spec.dimension));
  require_particles(!spec.particles.empty(), "particles: the model has no particles");
  const bool planar = spec.dimension == 2;
  const auto n = static_cast<int>(spec.particles.size());
  for (const ParticleSpec& p : spec.particles) {
    const std::string what = "particle '" + p.name + "'";
    require_particles(std::isfinite(p.mass) && p.mass > 0.0, what + ": mass must be > 0");
    require_particles(finite(p.position) && finite(p.velocity),
                      what + ": position and velocity finite");
    require_particles(!planar || (p.position.z() == 0.0 && p.velocity.z() == 0.0),
                      what + ": a planar model has no z coordinate");
  }
  require_particles(finite(spec.gravity) && (!planar || spec.gravity.z() == 0.0),
                    "particles: gravity must be finite (and in the plane of a planar model)");
  for (const ParticleRodSpec& r : spec.rods) {
    const std::string what = "rod '" + r.name + "'";
    if (r.i != kFixedPoint) check_particle(r.i, n, what);
    check_particle(r.j, n, what);
    require_particles(r.i != r.j, what + ": its two ends are the same particle");
    require_particles(std::isfinite(r.length) && r.length > 0.0, what + ": length must be > 0");
    require_particles(finite(r.anchor) && (!planar || r.anchor.z() == 0.0),
                      what + ": anchor must be finite (and in the plane)");
  }
  for (const TrussSpec& t : spec.trusses) {
    const std::string what = "truss '" + t.name + "'";
    check_particle(t.i, n, what);
    check_particle(t.j, n, what);
    require_particles(t.i != t.j, what + ": its two ends are the same particle");
    require_particles(std::isfinite(t.stiffness) && t.stiffness >= 0.0,
                      what + ": stiffness must be >= 0");
    require_particles(std::isfinite(t.rest) && t.rest > 0.0, what + ": rest length must be > 0");
  }
  for (const BendingSpec& b : spec.bendings) {
    const std::string what = "bending element '" + b.name + "'";
    check_particle(b.a, n, what);
    check_particle(b.b, n, what);
    check_particle(b.c, n, what);
    require_particles(b.a != b.b && b.a != b.c && b.b != b.c,
                      what + ": needs three different particles");
    require_particles(std::isfinite(b.stiffness) && b.stiffness >= 0.0,
                      what + ": stiffness must be >= 0");
  }
  for (const PulseSpec& f : spec.pulses) {
    const std::string what = "pulse '" + f.name + "'";
    check_particle(f.particle, n, what);
    require_particles(finite(f.peak) && (!planar || f.peak.z() == 0.0),
                      what + ": peak must be finite (and in the plane)");
    require_particles(std::isfinite(f.start) && f.start >= 0.0, what + ": start must be >= 0");
    require_particles(std::isfinite(f.duration) && f.duration > 0.0,
                      what + ": duration must be > 0");
  }
  return spec;
}

TrussElement truss_of(const TrussSpec& t) noexcept {
  return TrussElement{t.stiffness, t.rest, t.strain};
}

PulseElement pulse_of(const PulseSpec& f) noexcept {
  return PulseElement{f.peak, f.start, f.duration};
}

// Incidence of the bending element's points in (r1, r2): a -> (1, 0), b -> (0, 1), c -> (-1, -1)
constexpr std::array<std::array<double, 2>, 3> kBendingIncidence{
    {{1.0, 0.0}, {0.0, 1.0}, {-1.0, -1.0}}};

}  // namespace

ParticleSystem::ParticleSystem(ParticleModelSpec spec)
    : System(spec.dimension * static_cast<int>(spec.particles.size()),
             spec.dimension * static_cast<int>(spec.particles.size()),
             static_cast<int>(spec.rods.size())),
      spec_(validated(std::move(spec))) {
  const auto n = static_cast<int>(spec_.particles.size());
  for (const ParticleRodSpec& r : spec_.rods) {
    int i = r.i;
    if (i == kFixedPoint) {
      i = n + static_cast<int>(ground_.size());
      ground_.push_back(i);
    }
    links_.push_back({i, r.j});
  }
  for (const TrussSpec& t : spec_.trusses) links_.push_back({t.i, t.j});
  for (const BendingSpec& b : spec_.bendings) {
    links_.push_back({b.a, b.c});
    links_.push_back({b.b, b.c});
  }
  build_jacobian_slots();
}

void ParticleSystem::joint_points(double /*t*/,
                                  VecCRef q,
                                  std::span<Eigen::Vector3d> out) const noexcept {
  const auto n = static_cast<int>(spec_.particles.size());
  for (int p = 0; p < n; ++p) out[static_cast<std::size_t>(p)] = position(q, p);
  std::size_t k = static_cast<std::size_t>(n);
  for (const ParticleRodSpec& r : spec_.rods) {
    if (r.i == kFixedPoint) out[k++] = r.anchor;
  }
}

Vec3 ParticleSystem::position(VecCRef q, int particle) const noexcept {
  const int d = spec_.dimension;
  Vec3 x = Vec3::Zero();
  for (int k = 0; k < d; ++k) x(k) = q(d * particle + k);
  return x;
}

void ParticleSystem::add(VecRef f, int particle, const Vec3& force) const noexcept {
  const int d = spec_.dimension;
  for (int k = 0; k < d; ++k) f(d * particle + k) += force(k);
}

void ParticleSystem::add_block(MatRef K, int pi, int pj, const Mat3& block) const noexcept {
  const int d = spec_.dimension;
  K.block(d * pi, d * pj, d, d) += block.topLeftCorner(d, d);
}

void ParticleSystem::initial_state(State& out) const {
  out = State(n_q(), n_v());
  const int d = spec_.dimension;
  for (std::size_t p = 0; p < spec_.particles.size(); ++p) {
    const auto base = static_cast<Eigen::Index>(d * static_cast<int>(p));
    out.q.segment(base, d) = spec_.particles[p].position.head(d);
    out.v.segment(base, d) = spec_.particles[p].velocity.head(d);
  }
}

void ParticleSystem::mass(double /*t*/, VecCRef /*q*/, MatRef out_M) const noexcept {
  out_M.setZero();
  const int d = spec_.dimension;
  for (std::size_t p = 0; p < spec_.particles.size(); ++p) {
    for (int k = 0; k < d; ++k) {
      const auto i = static_cast<Eigen::Index>(d * static_cast<int>(p) + k);
      out_M(i, i) = spec_.particles[p].mass;
    }
  }
}

void ParticleSystem::add_external(double t, VecRef f) const noexcept {
  for (std::size_t p = 0; p < spec_.particles.size(); ++p) {
    add(f, static_cast<int>(p), spec_.particles[p].mass * spec_.gravity);
  }
  for (const PulseSpec& pulse : spec_.pulses) add(f, pulse.particle, pulse_of(pulse).force(t));
}

void ParticleSystem::forces(
    double time, VecCRef q, VecCRef /*v*/, InputValues /*u*/, VecRef out_f) const noexcept {
  out_f.setZero();
  add_external(time, out_f);
  for (const TrussSpec& t : spec_.trusses) {
    const Vec3 g = truss_of(t).gradient(position(q, t.j) - position(q, t.i));
    add(out_f, t.i, g);
    add(out_f, t.j, -g);
  }
  for (const BendingSpec& b : spec_.bendings) {
    const Vec3 xc = position(q, b.c);
    const BendingGradient g =
        BendingElement{b.stiffness}.gradient(position(q, b.a) - xc, position(q, b.b) - xc);
    add(out_f, b.a, -g.d1);
    add(out_f, b.b, -g.d2);
    add(out_f, b.c, g.d1 + g.d2);
  }
}

void ParticleSystem::discrete_gradient_forces(double time,
                                              VecCRef q0,
                                              VecCRef q1,
                                              VecCRef /*v*/,
                                              InputValues /*u*/,
                                              VecRef out_f) const noexcept {
  out_f.setZero();
  add_external(time, out_f);  // at the step's t~ (the midpoint for V0(1,1,0))
  for (const TrussSpec& t : spec_.trusses) {
    const Vec3 g = truss_of(t).discrete_gradient(position(q0, t.j) - position(q0, t.i),
                                                 position(q1, t.j) - position(q1, t.i));
    add(out_f, t.i, g);
    add(out_f, t.j, -g);
  }
  for (const BendingSpec& b : spec_.bendings) {
    const Vec3 c0 = position(q0, b.c);
    const Vec3 c1 = position(q1, b.c);
    const BendingGradient g = BendingElement{b.stiffness}.discrete_gradient(
        position(q0, b.a) - c0, position(q0, b.b) - c0, position(q1, b.a) - c1,
        position(q1, b.b) - c1);
    add(out_f, b.a, -g.d1);
    add(out_f, b.b, -g.d2);
    add(out_f, b.c, g.d1 + g.d2);
  }
}

bool ParticleSystem::force_jacobians(
    double /*t*/, VecCRef q, VecCRef /*v*/, MatRef out_fq, MatRef out_fv) const noexcept {
  out_fq.setZero();
  out_fv.setZero();  // no damping
  for (const TrussSpec& t : spec_.trusses) {
    const Mat3 h = truss_of(t).hessian(position(q, t.j) - position(q, t.i));
    add_block(out_fq, t.i, t.i, -h);
    add_block(out_fq, t.j, t.j, -h);
    add_block(out_fq, t.i, t.j, h);
    add_block(out_fq, t.j, t.i, h);
  }
  for (const BendingSpec& b : spec_.bendings) {
    const Vec3 xc = position(q, b.c);
    const Eigen::Matrix<double, 6, 6> h =
        BendingElement{b.stiffness}.hessian(position(q, b.a) - xc, position(q, b.b) - xc);
    const std::array<int, 3> points{b.a, b.b, b.c};
    for (std::size_t p = 0; p < 3; ++p) {
      for (std::size_t r = 0; r < 3; ++r) {
        Mat3 block = Mat3::Zero();
        for (int k = 0; k < 2; ++k) {
          for (int l = 0; l < 2; ++l) {
            block += (kBendingIncidence[p][static_cast<std::size_t>(k)] *
                      kBendingIncidence[r][static_cast<std::size_t>(l)]) *
                     h.block<3, 3>(3 * k, 3 * l);
          }
        }
        add_block(out_fq, points[p], points[r], -block);
      }
    }
  }
  return true;
}

void ParticleSystem::constraints(double /*t*/, VecCRef q, VecRef out_g) const noexcept {
  for (std::size_t k = 0; k < spec_.rods.size(); ++k) {
    const ParticleRodSpec& r = spec_.rods[k];
    const Vec3 xi = r.i == kFixedPoint ? r.anchor : position(q, r.i);
    const Vec3 d = position(q, r.j) - xi;
    out_g(static_cast<Eigen::Index>(k)) =
        (d.squaredNorm() - r.length * r.length) / (2.0 * r.length);
  }
}

void ParticleSystem::jacobian(double /*t*/, VecCRef q, MatRef out_G) const noexcept {
  out_G.setZero();
  const int dim = spec_.dimension;
  for (std::size_t k = 0; k < spec_.rods.size(); ++k) {
    const ParticleRodSpec& r = spec_.rods[k];
    const Vec3 xi = r.i == kFixedPoint ? r.anchor : position(q, r.i);
    const Vec3 d = (position(q, r.j) - xi) / r.length;
    const auto row = static_cast<Eigen::Index>(k);
    out_G.row(row).segment(dim * r.j, dim) = d.head(dim).transpose();
    if (r.i != kFixedPoint) out_G.row(row).segment(dim * r.i, dim) = -d.head(dim).transpose();
  }
}

void ParticleSystem::curvature(double /*t*/,
                               VecCRef /*q*/,
                               VecCRef v,
                               VecRef out_L) const noexcept {
  for (std::size_t k = 0; k < spec_.rods.size(); ++k) {
    const ParticleRodSpec& r = spec_.rods[k];
    const Vec3 vi = r.i == kFixedPoint ? Vec3::Zero() : position(v, r.i);
    const Vec3 dd = position(v, r.j) - vi;
    out_L(static_cast<Eigen::Index>(k)) = dd.squaredNorm() / r.length;
  }
}

void ParticleSystem::velocity_constraint_jacobian(double /*t*/,
                                                  VecCRef /*q*/,
                                                  VecCRef v,
                                                  MatRef out_Gv_q) const noexcept {
  out_Gv_q.setZero();
  const int dim = spec_.dimension;
  for (std::size_t k = 0; k < spec_.rods.size(); ++k) {
    const ParticleRodSpec& r = spec_.rods[k];
    const Vec3 vi = r.i == kFixedPoint ? Vec3::Zero() : position(v, r.i);
    const Vec3 dd = (position(v, r.j) - vi) / r.length;
    const auto row = static_cast<Eigen::Index>(k);
    out_Gv_q.row(row).segment(dim * r.j, dim) = dd.head(dim).transpose();
    if (r.i != kFixedPoint) out_Gv_q.row(row).segment(dim * r.i, dim) = -dd.head(dim).transpose();
  }
}

bool ParticleSystem::constraint_force_jacobian(double /*t*/,
                                               VecCRef /*q*/,
                                               VecCRef lambda,
                                               MatRef out_H) const noexcept {
  out_H.setZero();
  for (std::size_t k = 0; k < spec_.rods.size(); ++k) {
    const ParticleRodSpec& r = spec_.rods[k];
    const Mat3 block = (lambda(static_cast<Eigen::Index>(k)) / r.length) * Mat3::Identity();
    add_block(out_H, r.j, r.j, block);
    if (r.i == kFixedPoint) continue;
    add_block(out_H, r.i, r.i, block);
    add_block(out_H, r.i, r.j, -block);
    add_block(out_H, r.j, r.i, -block);
  }
  return true;
}

bool ParticleSystem::inertia_jacobian(double /*t*/,
                                      VecCRef /*q*/,
                                      VecCRef /*a*/,
                                      MatRef out_K) const noexcept {
  out_K.setZero();  // M is constant
  return true;
}

double ParticleSystem::potential(VecCRef q) const noexcept {
  double e = 0.0;
  for (std::size_t p = 0; p < spec_.particles.size(); ++p) {
    e -= spec_.particles[p].mass * spec_.gravity.dot(position(q, static_cast<int>(p)));
  }
  for (const TrussSpec& t : spec_.trusses) {
    e += truss_of(t).energy(position(q, t.j) - position(q, t.i));
  }
  for (const BendingSpec& b : spec_.bendings) {
    const Vec3 xc = position(q, b.c);
    e += BendingElement{b.stiffness}.energy(position(q, b.a) - xc, position(q, b.b) - xc);
  }
  return e;
}

Vec3 ParticleSystem::linear_momentum(VecCRef v) const noexcept {
  Vec3 p = Vec3::Zero();
  for (std::size_t k = 0; k < spec_.particles.size(); ++k) {
    p += spec_.particles[k].mass * position(v, static_cast<int>(k));
  }
  return p;
}

double ParticleSystem::energy(double /*t*/,
                              VecCRef q,
                              VecCRef v,
                              InputValues /*u*/) const noexcept {
  double kinetic = 0.0;
  for (std::size_t p = 0; p < spec_.particles.size(); ++p) {
    kinetic += 0.5 * spec_.particles[p].mass * position(v, static_cast<int>(p)).squaredNorm();
  }
  return kinetic + potential(q);
}

}  // namespace rtmb
