// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The live view's mouse spring (net/mouse_spring.hpp): resolving a drag on the network thread,
// the spring on the simulation thread.
#include "net/mouse_spring.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "rtmb/models/planar_multibody.hpp"
#include "rtmb/models/spatial_multibody.hpp"

namespace rtmb {

DragResolution resolve_drag(const PlanarModelSpec* planar,
                            const SpatialModelSpec* spatial,
                            const std::string& body,
                            const Eigen::Vector3d& point,
                            const Eigen::Vector3d& target) {
  DragResolution r;
  if (planar == nullptr && spatial == nullptr) {
    r.error = "drag needs a model with bodies (a built-in mechanism has none)";
    return r;
  }
  if (!point.allFinite() || !target.allFinite()) {
    r.error = "drag: the point and the target must be finite";
    return r;
  }
  DragSpec& s = r.spec;
  const double w = 2.0 * std::numbers::pi * kDragHz;
  double effective_mass = 0.0;  // m_p, net/mouse_spring.hpp "Stiffness"
  if (planar != nullptr) {
    const auto& bodies = planar->bodies;
    const auto it = std::find_if(bodies.begin(), bodies.end(),
                                 [&](const PlanarBodySpec& b) { return b.name == body; });
    if (it == bodies.end()) {
      r.error = "drag: no body \"" + body.substr(0, 64) + "\" in this model";
      return r;
    }
    const auto b = static_cast<int>(it - bodies.begin());
    s.dimension = 2;
    s.body = b;
    // the model's own offset: a beam body before this one has 3 + n_elastic coordinates
    s.q_offset = planar_coordinate_offsets(*planar)[static_cast<std::size_t>(b)];
    s.v_offset = s.q_offset;
    s.target = {target.x(), target.y(), 0.0};
    if (it->kind == PlanarBodyKind::kBeam) {
      // the material point of the axis nearest to the grabbed point, (x, 0) with x clamped to
      // [0, L] (PlanarMultibody::point_position's beam points), which moves with the deformation.
      // m_p as for a rigid body: the beam's frame (mass rho a L, central inertia m L^2 / 12,
      // centre at x = L/2 before it deforms) at the point. The elastic modes add mobility at the
      // point, but a mode whose modal mass at the point is small is stiff (K_ff), and a stiff
      // mode's answer to the spring's held force within a tick is its static one, k |phi|^2 /
      // (modal stiffness) << 1; the low modes' masses are of the frame's order (the first
      // bending mode of a free or simply supported beam: m/2 at midspan), so w dt stays ~0.03.
      const PlanarBeamSpec& beam = it->beam;
      const double x = std::clamp(point.x(), 0.0, beam.length);
      s.point = {x, 0.0, 0.0};
      const double m = beam.density * beam.area * beam.length;
      const double j = m * beam.length * beam.length / 12.0;
      const double d = x - 0.5 * beam.length;
      effective_mass = 1.0 / (1.0 / m + d * d / j);
    } else {
      s.point = {point.x(), point.y(), 0.0};
      // 1/m_p = 1/m + |s|^2 / J: a free planar body's inverse mass at a point, along the
      // direction normal to s (the largest of the two principal values)
      const double inverse = 1.0 / it->mass + point.head<2>().squaredNorm() / it->inertia;
      effective_mass = 1.0 / inverse;
    }
  } else {
    const auto& bodies = spatial->bodies;
    const auto it = std::find_if(bodies.begin(), bodies.end(),
                                 [&](const SpatialBodySpec& b) { return b.name == body; });
    if (it == bodies.end()) {
      r.error = "drag: no body \"" + body.substr(0, 64) + "\" in this model";
      return r;
    }
    const auto b = static_cast<int>(it - bodies.begin());
    s.dimension = 3;
    s.body = b;
    s.q_offset = 7 * b;  // (r, e) per body, v = q'
    s.v_offset = s.q_offset;
    s.point = {0.0, 0.0, 0.0};  // spatial drags pull the centre of mass
    s.target = {target.x(), target.y(), target.z()};
    effective_mass = it->mass;
  }
  s.stiffness = effective_mass * w * w;
  s.damping = 2.0 * effective_mass * w;
  s.max_force = s.stiffness * kDragMaxStretchM;
  return r;
}

void MouseSpring::grab(const DragSpec& spec, std::int64_t now_ns) noexcept {
  const bool same = mode_ == Mode::kHeld && spec.body == spec_.body &&
                    spec.dimension == spec_.dimension && spec.point == spec_.point;
  spec_ = spec;
  refreshed_ns_ = now_ns;
  release_t_ = std::numeric_limits<double>::quiet_NaN();  // held (again)
  if (same) return;  // a target move: the filter's ramp and rate limit carry on
  ForceSafetyConfig safety;
  safety.max_force = spec.max_force;
  safety.max_rate = spec.max_force / kDragRateTime;
  safety.engage_ramp_s = kDragEngageRamp;
  filter_ = ForceOutputFilter(safety);
  mode_ = Mode::kHeld;
}

void MouseSpring::release(double t) noexcept {
  if (mode_ != Mode::kHeld) return;
  mode_ = Mode::kReleasing;
  released_s_ = 0.0;
  release_t_ = t;
}

void MouseSpring::drop() noexcept {
  mode_ = Mode::kIdle;
  force_.setZero();
  release_t_ = std::numeric_limits<double>::quiet_NaN();
}

DragState MouseSpring::state() const noexcept {
  DragState s;
  s.active = active();
  for (int i = 0; i < 3; ++i) {
    s.force[static_cast<std::size_t>(i)] = force_[i];
    s.point[static_cast<std::size_t>(i)] = point_[i];
  }
  s.release_t = release_t_;
  return s;
}

void MouseSpring::apply(const State& state,
                        VecRef applied,
                        std::int64_t now_ns,
                        double dt,
                        const PlanarMultibody* planar) noexcept {
  if (mode_ == Mode::kIdle) return;
  if (mode_ == Mode::kHeld && now_ns - refreshed_ns_ > kDragLeaseNs) release(state.t);
  const auto qo = static_cast<Eigen::Index>(spec_.q_offset);
  const auto vo = static_cast<Eigen::Index>(spec_.v_offset);
  const bool planar_drag = spec_.dimension == 2;
  // a planar drag needs the model its body is in; a spatial one its body's (r, e) in q
  const bool fits = planar_drag
                        ? planar != nullptr && spec_.body >= 0 &&
                              static_cast<std::size_t>(spec_.body) < planar->spec().bodies.size() &&
                              planar->n_q() == state.q.size() && planar->n_v() == applied.size()
                        : qo + 7 <= state.q.size() && vo + 7 <= applied.size();
  if (!fits) {
    drop();  // not this model's body (cannot happen: load drops the drag)
    return;
  }
  // the body point's world position p and velocity p': planar through the model's own point
  // kinematics (a rigid body's p = r + A(theta) s, a beam's material point R + A (u0 + S q_f));
  // spatial, the centre of mass
  const Eigen::Vector2d s2(spec_.point[0], spec_.point[1]);
  Eigen::Vector3d p;
  Eigen::Vector3d pv;
  if (planar_drag) {
    p << planar->point_position(state.q, spec_.body, s2), 0.0;
    pv << planar->point_velocity(state.q, state.v, spec_.body, s2), 0.0;
  } else {
    p = state.q.segment<3>(qo);
    pv = state.v.segment<3>(vo);
  }
  // the coupling force, F = k (p* - p) - c p' (docs/model-format.md `coupling`), filtered as a
  // haptic coupling's is (engage ramp, clamp, rate limit)
  const Eigen::Vector3d target(spec_.target[0], spec_.target[1], spec_.target[2]);
  const Eigen::Vector3d raw = spec_.stiffness * (target - p) - spec_.damping * pv;
  Eigen::Vector3d f = filter_.filter(raw, p, pv, dt).force;
  if (mode_ == Mode::kReleasing) {
    released_s_ += dt;  // this tick's share of the ramp: the force over [t, t + dt]
    const double left = 1.0 - released_s_ / kDragReleaseS;
    f *= std::clamp(left, 0.0, 1.0);
    if (left <= 1e-9) {  // the end, within the rounding of the summed dt
      f.setZero();
      mode_ = Mode::kIdle;  // no force from the next tick on
    }
  }
  force_ = f;
  point_ = p;
  // generalized force on the body: planar the model's (F, (A s) x F) on a rigid body's
  // (x, y, theta), J^T F on a beam's coordinates; spatial F on r
  if (planar_drag) {
    planar->add_point_force(state.q, spec_.body, s2, f.head<2>(), applied);
  } else {
    applied.segment<3>(vo) += f;
  }
}

}  // namespace rtmb
