// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Validation of a planar model spec (include/rtmb/models/planar_multibody.hpp): every index in
// range, every joint and force of a known type with its parameters, every named input bound to
// an element that exists. Setup-only; the System's evaluations (planar_multibody.cpp) rely on it
// and check nothing at run time.
#include <array>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "engine/model/enum_names.hpp"
#include "engine/multibody/planar_beam_body.hpp"
#include "engine/multibody/planar_joint_blocks.hpp"
#include "engine/multibody/spec_checks.hpp"
#include "rtmb/models/planar_multibody.hpp"

namespace rtmb {

std::string_view to_string(PlanarJointType type) noexcept {
  static constexpr std::array<std::string_view, 9> kNames{
      "revolute",         "prismatic",  "fixed",           "distance",       "revolute_driver",
      "prismatic_driver", "knife_edge", "rolling_contact", "rolling_no_slip"};
  static_assert(static_cast<std::size_t>(PlanarJointType::kRollingNoSlip) + 1 == kNames.size());
  return detail::enum_name(kNames, type);
}

// Rows per joint type, in declaration order: revolute and prismatic 2 (the points coincide or
// slide on a line, and the angle of a prismatic joint), fixed 3, distance and the drivers 1, the
// knife edge and each of the rolling wheel's two rows 1.
int constraint_rows(PlanarJointType type) noexcept {
  static constexpr std::array<int, 9> kRows{2, 2, 3, 1, 1, 1, 1, 1, 1};
  return detail::enum_lookup(kRows, type, 0);
}

bool is_nonholonomic(PlanarJointType type) noexcept {
  return type == PlanarJointType::kKnifeEdge || type == PlanarJointType::kRollingNoSlip;
}

int planar_detail::holonomic_row_count(const PlanarModelSpec& spec) {
  int rows = 0;
  for (const PlanarJointSpec& j : spec.joints)
    rows += is_nonholonomic(j.type) ? 0 : constraint_rows(j.type);
  return rows;
}

std::vector<int> planar_detail::coordinate_offsets(const PlanarModelSpec& spec) {
  // (x, y, theta) per rigid body; a beam's (R1, R2, theta, q_f), in body order
  std::vector<int> offsets;
  offsets.reserve(spec.bodies.size() + 1);
  int at = 0;
  for (const PlanarBodySpec& b : spec.bodies) {
    offsets.push_back(at);
    if (b.kind != PlanarBodyKind::kBeam) {
      at += 3;
      continue;
    }
    try {  // the beam validates its own values (FloatingFrameBeam)
      at += FloatingFrameBeam(beam_spec(b.beam)).n_coordinates();
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("body '" + b.name + "': " + e.what());
    }
  }
  offsets.push_back(at);
  return offsets;
}

std::vector<int> planar_coordinate_offsets(const PlanarModelSpec& spec) {
  return planar_detail::coordinate_offsets(spec);
}

int planar_detail::coordinate_count(const PlanarModelSpec& spec) {
  return coordinate_offsets(spec).back();
}

int planar_detail::constraint_row_count(const PlanarModelSpec& spec) {
  int rows = 0;
  for (const PlanarJointSpec& j : spec.joints) rows += constraint_rows(j.type);
  return rows;
}

namespace {

// The bindings of the named input channels (PlanarModelSpec::inputs).
void validate_inputs(PlanarModelSpec& spec) {
  const int n = static_cast<int>(spec.bodies.size());
  for (PlanarInputSpec& in : spec.inputs) {
    const std::string what = "input '" + in.name + "'";
    switch (in.type) {
      case PlanarInputType::kForce:
      case PlanarInputType::kTorque:
        if (in.type == PlanarInputType::kForce) {
          detail::normalize_or_throw(in.direction, what + ": zero direction");
        }
        detail::check_acted_on_body(in.body, n, what);
        break;
      case PlanarInputType::kMotor:
        detail::require_of_type(spec.joints, in.joint, PlanarJointType::kRevolute,
                                what + ": a motor needs a revolute joint");
        if (!(in.limit > 0.0)) throw std::invalid_argument(what + ": limit must be > 0");
        break;
      case PlanarInputType::kCouplingX:
      case PlanarInputType::kCouplingY:
        detail::require_of_type(spec.forces, in.element, PlanarForceType::kCoupling,
                                what + ": needs a coupling force element");
        break;
    }
    if (!std::isfinite(in.initial)) throw std::invalid_argument(what + ": initial value");
  }
}

// A knife edge acts on body_i's point against the ground; a rolling wheel's rows on body_j's
// centre against the ground line of body_i = ground (rtmb/models/planar_multibody.hpp).
void validate_rolling_joint(PlanarJointSpec& j, const std::string& what) {
  const bool knife = j.type == PlanarJointType::kKnifeEdge;
  const bool wheel =
      j.type == PlanarJointType::kRollingContact || j.type == PlanarJointType::kRollingNoSlip;
  if (!knife && !wheel) return;
  if (knife && (j.body_i == kGround || j.body_j != kGround)) {
    throw std::invalid_argument(what + ": a knife edge is on body_i against the ground (body_j)");
  }
  if (wheel && (j.body_i != kGround || j.body_j == kGround)) {
    throw std::invalid_argument(what + ": a rolling wheel is body_j on a ground line (body_i)");
  }
  detail::normalize_or_throw(j.axis, what + ": zero axis");
  if (wheel && !(j.radius > 0.0 && std::isfinite(j.radius))) {
    throw std::invalid_argument(what + ": radius must be > 0");
  }
}

}  // namespace

PlanarModelSpec planar_detail::validated(PlanarModelSpec spec) {
  const int n = static_cast<int>(spec.bodies.size());
  if (n == 0) throw std::invalid_argument("a planar model needs at least one body");
  for (const PlanarBodySpec& b : spec.bodies) {
    // zero mass or inertia is allowed here (M only has to be positive definite on ker G, Chin
    // Lemma 4.1: e.g. a massless slider fully placed by its joints); model files require > 0
    if (!(b.mass >= 0.0) || !(b.inertia >= 0.0) || !std::isfinite(b.mass) ||
        !std::isfinite(b.inertia) || !b.pose.allFinite() || !b.velocity.allFinite()) {
      throw std::invalid_argument("body '" + b.name +
                                  "': mass and inertia must be finite and >= 0, pose and "
                                  "velocity finite");
    }
  }
  const auto is_beam = [&spec](int b) {
    return b != kGround && spec.bodies[static_cast<std::size_t>(b)].kind == PlanarBodyKind::kBeam;
  };
  for (const PlanarBodySpec& b : spec.bodies) {
    if (b.kind == PlanarBodyKind::kBeam && (b.mass != 0.0 || b.inertia != 0.0)) {
      throw std::invalid_argument("body '" + b.name +
                                  "': a beam's mass and inertia must be 0 (they follow from "
                                  "density, area and length)");
    }
  }
  for (PlanarJointSpec& j : spec.joints) {
    const std::string what = "joint '" + j.name + "'";
    detail::check_body(j.body_i, n, what);
    detail::check_body(j.body_j, n, what);
    if (j.body_i == j.body_j) throw std::invalid_argument(what + " joins a body to itself");
    for (const auto& [b, point] :
         {std::pair{j.body_i, j.point_i}, std::pair{j.body_j, j.point_j}}) {
      if (!is_beam(b)) continue;
      if (j.type != PlanarJointType::kRevolute && j.type != PlanarJointType::kFixed) {
        throw std::invalid_argument(what + ": only revolute and fixed joints attach to a beam");
      }
      if (!spec.bodies[static_cast<std::size_t>(b)].beam.on_axis(point)) {
        throw std::invalid_argument(what + ": a beam's point must be (x, 0) with 0 <= x <= length");
      }
    }
    if (j.type == PlanarJointType::kPrismatic || j.type == PlanarJointType::kPrismaticDriver) {
      detail::normalize_or_throw(j.axis, what + ": zero axis");
    }
    if (j.type == PlanarJointType::kDistance && !(j.length > 0.0)) {
      throw std::invalid_argument(what + ": length must be > 0");
    }
    validate_rolling_joint(j, what);
  }
  // the nonholonomic rows must be the System's last (System::n_holonomic()): their entries follow
  // every other joint
  for (std::size_t k = 1; k < spec.joints.size(); ++k) {
    if (is_nonholonomic(spec.joints[k - 1].type) && !is_nonholonomic(spec.joints[k].type)) {
      throw std::invalid_argument("joint '" + spec.joints[k].name +
                                  "': knife edges and rolling no-slip rows must follow every "
                                  "other joint (their rows are the nonholonomic ones)");
    }
  }
  for (PlanarForceSpec& f : spec.forces) {
    const std::string what = "force '" + f.name + "'";
    if (f.type == PlanarForceType::kAxialSpring) {
      detail::require_of_type(spec.joints, f.joint, PlanarJointType::kPrismatic,
                              what + ": joint index is not a prismatic joint");
      f.body_i = spec.joints[static_cast<std::size_t>(f.joint)].body_i;
      f.body_j = spec.joints[static_cast<std::size_t>(f.joint)].body_j;
    }
    detail::check_body(f.body_i, n, what);
    detail::check_body(f.body_j, n, what);
    // on a beam, forces act at material points of its axis (x, 0), 0 <= x <= L
    if (f.type != PlanarForceType::kGravity && (is_beam(f.body_i) || is_beam(f.body_j))) {
      if (!acts_at_beam_points(f.type)) {
        throw std::invalid_argument(
            what + ": only gravity, force, spring_damper, coupling and wall act on a beam");
      }
      if ((is_beam(f.body_i) &&
           !spec.bodies[static_cast<std::size_t>(f.body_i)].beam.on_axis(f.point_i)) ||
          (f.type == PlanarForceType::kSpringDamper && is_beam(f.body_j) &&
           !spec.bodies[static_cast<std::size_t>(f.body_j)].beam.on_axis(f.point_j))) {
        throw std::invalid_argument(what + ": a beam's point must be (x, 0) with 0 <= x <= length");
      }
    }
    if ((f.type == PlanarForceType::kSpringDamper ||
         f.type == PlanarForceType::kRotationalSpring) &&
        f.body_i == f.body_j) {
      throw std::invalid_argument(what + " connects a body to itself");
    }
    if (f.type == PlanarForceType::kWall) {
      detail::normalize_or_throw(f.vector, what + ": zero normal");
      if (!(f.stiffness >= 0.0) || !(f.damping >= 0.0)) {
        throw std::invalid_argument(what + ": stiffness and damping must be >= 0");
      }
    }
    if ((f.type == PlanarForceType::kForce || f.type == PlanarForceType::kTorque ||
         f.type == PlanarForceType::kCoupling || f.type == PlanarForceType::kWall) &&
        f.body_i == kGround) {
      throw std::invalid_argument(what + " acts on the ground");
    }
  }
  validate_inputs(spec);
  for (const PlanarInputSpec& in : spec.inputs) {
    const bool on_beam =
        ((in.type == PlanarInputType::kForce || in.type == PlanarInputType::kTorque) &&
         is_beam(in.body)) ||
        (in.type == PlanarInputType::kMotor &&
         (is_beam(spec.joints[static_cast<std::size_t>(in.joint)].body_i) ||
          is_beam(spec.joints[static_cast<std::size_t>(in.joint)].body_j)));
    if (on_beam) throw std::invalid_argument("input '" + in.name + "': acts on a beam");
  }
  return spec;
}

}  // namespace rtmb
