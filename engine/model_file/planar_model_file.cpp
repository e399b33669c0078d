// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Model-file loader, planar body models (docs/model-format.md, "Bodies, joints and forces"):
// `bodies`, `joints` (with drivers) and `forces`, assembled into a PlanarModelSpec. Named
// channels and haptic safety are read in planar_model_channels.cpp; the file as a whole in
// model_file.cpp. Every error is a ModelFileError with file, line, column and key.
#include "engine/model_file/planar_model_file.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <filesystem>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "engine/model_file/driven_channels.hpp"
#include "engine/model_file/element_readers.hpp"
#include "engine/model_file/planar_rolling_joints.hpp"
#include "engine/multibody/floating_frame_beam.hpp"
#include "engine/multibody/planar_beam_body.hpp"

namespace rtmb::detail {

namespace {

using Reader = YamlReader;

// A `kind: beam` body's beam (docs/model-format.md, "Beam bodies"; Chin 1995 §3.12): every
// value required, each checked here so that the error names its key and line.
PlanarBeamSpec read_beam(const Reader& r, const YAML::Node& b, const std::string& p) {
  PlanarBeamSpec beam;
  beam.length = r.positive(r.required(b, p, "length", "m"), p + ".length");
  beam.youngs_modulus = r.positive(r.required(b, p, "youngs_modulus", "Pa"), p + ".youngs_modulus");
  beam.density = r.positive(r.required(b, p, "density", "kg/m^3"), p + ".density");
  beam.area = r.positive(r.required(b, p, "area", "m^2"), p + ".area");
  beam.second_moment = r.positive(r.required(b, p, "second_moment", "m^4"), p + ".second_moment");
  const YAML::Node e = r.required(b, p, "elements", "number of equal elements");
  const long long elements = r.integer(e, p + ".elements");
  if (elements < 1 || elements > kMaxBeamElements) {
    r.fail(e, p + ".elements", "must be in [1, " + std::to_string(kMaxBeamElements) + "]");
  }
  beam.elements = static_cast<int>(elements);
  const YAML::Node sup = r.required(b, p, "support", "clamped or simply_supported");
  const std::string support = r.string(sup, p + ".support");
  if (support == "clamped") {
    beam.support = PlanarBeamSupport::kClamped;
  } else if (support == "simply_supported") {
    beam.support = PlanarBeamSupport::kSimplySupported;
  } else {
    r.fail(sup, p + ".support",
           "unknown support '" + support + "' (valid: clamped, simply_supported)");
  }
  return beam;
}

void read_bodies(const Reader& r, const YAML::Node& n, PlanarModelSpec& spec) {
  if (!n.IsSequence() || n.size() == 0) r.fail(n, "bodies", "expected a non-empty list of bodies");
  for (std::size_t k = 0; k < n.size(); ++k) {
    const YAML::Node b = n[k];
    const std::string p = "bodies[" + std::to_string(k) + "]";
    PlanarBodySpec body;
    // a body that is a scalar or a list has no keys; operator[] on it would throw a YAML
    // exception past the loader (found by fuzz_model), so it fails here, as check_keys would
    if (!b.IsMap()) r.fail(b, p, "expected a mapping");
    std::string kind = "rigid";
    if (const YAML::Node m = b["kind"]) kind = r.string(m, p + ".kind");
    if (kind == "beam") {
      r.check_keys(b, p,
                   {"name", "kind", "length", "youngs_modulus", "density", "area", "second_moment",
                    "elements", "support", "pose", "velocity"});
      body.kind = PlanarBodyKind::kBeam;
      body.beam = read_beam(r, b, p);
    } else if (kind == "rigid") {
      r.check_keys(b, p, {"name", "kind", "mass", "inertia", "pose", "velocity"});
    } else {
      r.fail(b["kind"], p + ".kind", "unknown body kind '" + kind + "' (valid: rigid, beam)");
    }
    const YAML::Node name = r.required(b, p, "name", "every body needs a name");
    body.name = item_name(r, b, p, "");
    for (const PlanarBodySpec& other : spec.bodies) {
      if (other.name == body.name) {
        r.fail(name, p + ".name", "duplicate body name '" + body.name + "'");
      }
    }
    if (body.kind == PlanarBodyKind::kRigid) {
      body.mass = r.positive(r.required(b, p, "mass", "kg"), p + ".mass");
      body.inertia = r.positive(r.required(b, p, "inertia", "kg*m^2 about the centre of mass"),
                                p + ".inertia");
    }
    if (const YAML::Node m = b["pose"]) body.pose = r.vec<3>(m, p + ".pose");
    if (const YAML::Node m = b["velocity"]) body.velocity = r.vec<3>(m, p + ".velocity");
    spec.bodies.push_back(std::move(body));
  }
}

// A driver's time function (docs/model-format.md, "Drivers"): `type` selects the other keys.
TimeFunction read_time_function(const Reader& r, const YAML::Node& n, const std::string& p) {
  const YAML::Node type = r.required(n, p, "type", "time function type");
  const std::string t = r.string(type, p + ".type");
  auto optional = [&](const char* key, double fallback) {
    const YAML::Node m = n[key];
    return m ? r.number(m, Reader::join(p, key)) : fallback;
  };
  if (t == "constant") {
    r.check_keys(n, p, {"type", "value"});
    return TimeFunction::constant(r.number(r.required(n, p, "value", "rad or m"), p + ".value"));
  }
  if (t == "ramp") {
    r.check_keys(n, p, {"type", "value", "start", "rate"});
    const double rate = r.number(r.required(n, p, "rate", "rad/s or m/s"), p + ".rate");
    return TimeFunction::ramp(optional("value", 0.0), optional("start", 0.0), rate);
  }
  if (t == "sine") {
    r.check_keys(n, p, {"type", "amplitude", "frequency", "phase", "offset"});
    const double amplitude = r.number(r.required(n, p, "amplitude", "rad or m"), p + ".amplitude");
    const double frequency = r.positive(r.required(n, p, "frequency", "Hz"), p + ".frequency");
    return TimeFunction::sine(amplitude, frequency, optional("phase", 0.0),
                              optional("offset", 0.0));
  }
  if (t == "polynomial") {
    r.check_keys(n, p, {"type", "coefficients"});
    const YAML::Node c = r.required(n, p, "coefficients", "c0, c1, ... of c0 + c1 t + ...");
    const std::string key = p + ".coefficients";
    if (!c.IsSequence() || c.size() == 0) r.fail(c, key, "expected a non-empty list of numbers");
    std::vector<double> coefficients;
    for (std::size_t k = 0; k < c.size(); ++k) {
      coefficients.push_back(r.number(c[k], key + "[" + std::to_string(k) + "]"));
    }
    return TimeFunction::polynomial(std::move(coefficients));
  }
  if (t == "table") {
    r.check_keys(n, p, {"type", "points"});
    const YAML::Node pts = r.required(n, p, "points", "[time, value] pairs");
    const std::string key = p + ".points";
    if (!pts.IsSequence() || pts.size() < 2) {
      r.fail(pts, key, "expected a list of at least 2 [time, value] pairs");
    }
    std::vector<double> times;
    std::vector<double> values;
    for (std::size_t k = 0; k < pts.size(); ++k) {
      const std::string at = key + "[" + std::to_string(k) + "]";
      const Eigen::Vector2d tv = r.vec<2>(pts[k], at);
      if (k > 0 && !(tv(0) > times.back())) {
        r.fail(pts[k][0], at, "times must be strictly increasing");
      }
      times.push_back(tv(0));
      values.push_back(tv(1));
    }
    return TimeFunction::table(std::move(times), std::move(values));
  }
  r.fail(type, p + ".type",
         "unknown time function '" + t + "' (valid: constant, ramp, sine, polynomial, table)");
}

// The driver of joint `jt` (a revolute or prismatic joint) from its `driver:` mapping: one more
// constraint row, coordinate(q) - f(t) = 0, on the same bodies and points, named "<joint>.driver".
PlanarJointSpec read_driver(const Reader& r,
                            const YAML::Node& n,
                            const std::string& p,
                            const PlanarJointSpec& jt) {
  if (jt.type != PlanarJointType::kRevolute && jt.type != PlanarJointType::kPrismatic) {
    r.fail(n, p, "only revolute and prismatic joints can be driven");
  }
  PlanarJointSpec d = jt;
  d.name = jt.name + ".driver";
  d.type = jt.type == PlanarJointType::kRevolute ? PlanarJointType::kRevoluteDriver
                                                 : PlanarJointType::kPrismaticDriver;
  d.motion = read_time_function(r, n, p);
  return d;
}

// A joint on a beam body (PlanarBodySpec): a revolute or fixed joint at a point (x, 0) of its axis,
// 0 <= x <= length, the limits planar_model_spec.cpp enforces, reported here with the line.
void check_beam_attachment(const Reader& r,
                           const YAML::Node& j,
                           const std::string& p,
                           const PlanarModelSpec& spec,
                           const PlanarJointSpec& jt) {
  for (const auto& [b, point, key] : {std::tuple{jt.body_i, jt.point_i, "point_i"},
                                      std::tuple{jt.body_j, jt.point_j, "point_j"}}) {
    if (b == kGround) continue;
    const PlanarBodySpec& body = spec.bodies[static_cast<std::size_t>(b)];
    if (body.kind != PlanarBodyKind::kBeam) continue;
    if (jt.type != PlanarJointType::kRevolute && jt.type != PlanarJointType::kFixed) {
      r.fail(j["type"], p + ".type",
             "only revolute and fixed joints attach to the beam '" + body.name + "'");
    }
    if (!body.beam.on_axis(point)) {
      const YAML::Node at = j[key];
      r.fail(at ? at : j, Reader::join(p, key),
             "a point of the beam '" + body.name + "' must be [x, 0] with 0 <= x <= length");
    }
  }
}

void read_joints(const Reader& r, const YAML::Node& n, PlanarModelSpec& spec) {
  if (!n.IsSequence()) r.fail(n, "joints", "expected a list of joints");
  std::vector<PlanarJointSpec> nonholonomic;  // appended last (planar_rolling_joints.hpp)
  for (std::size_t k = 0; k < n.size(); ++k) {
    const YAML::Node j = n[k];
    const std::string p = "joints[" + std::to_string(k) + "]";
    if (read_rolling_joint(r, j, p, spec, nonholonomic)) continue;
    r.check_keys(j, p,
                 {"name", "type", "body_i", "body_j", "point_i", "point_j", "axis", "angle",
                  "length", "driver"});
    PlanarJointSpec jt;
    jt.name = item_name(r, j, p, p);
    for (const auto* list : {&spec.joints, &nonholonomic}) {
      for (const PlanarJointSpec& other : *list) {
        if (other.name == jt.name) r.fail(j["name"], p + ".name", "duplicate joint name");
      }
    }
    const YAML::Node type = r.required(j, p, "type", "joint type");
    const std::string t = r.string(type, p + ".type");
    if (t == "revolute") {
      jt.type = PlanarJointType::kRevolute;
    } else if (t == "prismatic") {
      jt.type = PlanarJointType::kPrismatic;
    } else if (t == "fixed") {
      jt.type = PlanarJointType::kFixed;
    } else if (t == "distance") {
      jt.type = PlanarJointType::kDistance;
    } else {
      r.fail(type, p + ".type",
             "unknown joint type '" + t +
                 "' (valid: revolute, prismatic, fixed, distance, knife_edge, rolling_wheel)");
    }
    read_body_pair(r, j, p, spec, "joins a body to itself", jt.body_i, jt.body_j, jt.point_i,
                   jt.point_j);
    check_beam_attachment(r, j, p, spec, jt);
    const bool prismatic = jt.type == PlanarJointType::kPrismatic;
    const bool angled = prismatic || jt.type == PlanarJointType::kFixed;
    const bool distance = jt.type == PlanarJointType::kDistance;
    if (const YAML::Node m = j["axis"]) {
      if (!prismatic) r.fail(m, p + ".axis", "only for prismatic joints");
      jt.axis = r.vec<2>(m, p + ".axis");
      if (!(jt.axis.norm() > 0.0)) r.fail(m, p + ".axis", "must not be zero");
    }
    if (const YAML::Node m = j["angle"]) {
      if (!angled) r.fail(m, p + ".angle", "only for prismatic and fixed joints");
      jt.angle = r.number(m, p + ".angle");
    }
    if (const YAML::Node m = j["length"]) {
      if (!distance) r.fail(m, p + ".length", "only for distance joints");
      jt.length = r.positive(m, p + ".length");
    } else if (distance) {
      r.fail(j, p + ".length", "missing (the distance to keep, m)");
    }
    const YAML::Node driver = j["driver"];
    PlanarJointSpec driven;
    if (driver) driven = read_driver(r, driver, p + ".driver", jt);
    spec.joints.push_back(std::move(jt));
    if (driver) spec.joints.push_back(std::move(driven));
  }
  for (PlanarJointSpec& jt : nonholonomic) spec.joints.push_back(std::move(jt));
}

// A translational spring-damper along a prismatic joint's axis (`prismatic_spring_damper`).
void read_axial_spring(const Reader& r,
                       const YAML::Node& e,
                       const std::string& p,
                       const PlanarModelSpec& spec,
                       PlanarForceSpec& f) {
  r.check_keys(e, p, {"name", "type", "joint", "stiffness", "damping", "rest_position"});
  f.type = PlanarForceType::kAxialSpring;
  f.joint = joint_ref<PlanarJointType::kPrismatic>(
      r, r.required(e, p, "joint", "a prismatic joint's name"), p + ".joint", spec,
      "a prismatic joint");
  f.body_i = spec.joints[static_cast<std::size_t>(f.joint)].body_i;
  f.body_j = spec.joints[static_cast<std::size_t>(f.joint)].body_j;
  if (const YAML::Node m = e["stiffness"]) f.stiffness = r.non_negative(m, p + ".stiffness");
  if (const YAML::Node m = e["damping"]) f.damping = r.non_negative(m, p + ".damping");
  if (const YAML::Node m = e["rest_position"]) f.rest = r.number(m, p + ".rest_position");
}

// forces[k] of type coupling: a spring-damper from a body point to a target position
void read_coupling(const Reader& r,
                   const YAML::Node& e,
                   const std::string& p,
                   const PlanarModelSpec& spec,
                   PlanarForceSpec& f) {
  r.check_keys(e, p, {"name", "type", "body", "point", "stiffness", "damping", "target", "safety"});
  f.type = PlanarForceType::kCoupling;
  if (const YAML::Node m = e["safety"]) read_safety(r, m, p + ".safety", f.safety);
  // NaN target: the point's assembled start position (default_coupling_targets)
  read_coupling_spring(r, e, p, spec, f);
}

void read_forces(const Reader& r, const YAML::Node& n, PlanarModelSpec& spec) {
  read_force_list(
      r, n, spec,
      [&](const YAML::Node& e, const std::string& p, const std::string& t, PlanarForceSpec& f) {
        if (t == "rotational_spring_damper") {
          f.type = PlanarForceType::kRotationalSpring;
          (void)read_rotational_spring<PlanarJointType::kRevolute>(r, e, p, spec, f);
        } else if (t == "prismatic_spring_damper") {
          read_axial_spring(r, e, p, spec, f);
        } else if (t == "force") {
          r.check_keys(e, p, {"name", "type", "body", "point", "force"});
          f.type = PlanarForceType::kForce;
          const YAML::Node b = r.required(e, p, "body", "the body pushed");
          f.body_i = body_ref(r, b, p + ".body", spec, false);
          if (const YAML::Node m = e["point"]) f.point_i = r.vec<2>(m, p + ".point");
          f.vector = r.vec<2>(r.required(e, p, "force", "N, world frame"), p + ".force");
        } else if (t == "torque") {
          r.check_keys(e, p, {"name", "type", "body", "torque"});
          f.type = PlanarForceType::kTorque;
          const YAML::Node b = r.required(e, p, "body", "the body turned");
          f.body_i = body_ref(r, b, p + ".body", spec, false);
          f.torque = r.number(r.required(e, p, "torque", "N*m"), p + ".torque");
        } else if (t == "coupling") {
          read_coupling(r, e, p, spec, f);
        } else if (t == "wall") {
          r.check_keys(
              e, p, {"name", "type", "body", "point", "origin", "normal", "stiffness", "damping"});
          f.type = PlanarForceType::kWall;
          f.body_i =
              body_ref(r, r.required(e, p, "body", "the body kept out"), p + ".body", spec, false);
          if (const YAML::Node m = e["point"]) f.point_i = r.vec<2>(m, p + ".point");
          if (const YAML::Node m = e["origin"]) f.point_j = r.vec<2>(m, p + ".origin");
          const YAML::Node nn = r.required(e, p, "normal", "the wall's outward normal, world");
          f.vector = r.vec<2>(nn, p + ".normal");
          if (!(f.vector.norm() > 0.0)) r.fail(nn, p + ".normal", "must be a non-zero vector");
          f.stiffness = r.non_negative(r.required(e, p, "stiffness", "N/m"), p + ".stiffness");
          if (const YAML::Node m = e["damping"]) f.damping = r.non_negative(m, p + ".damping");
        } else {
          return false;
        }
        return true;
      },
      "gravity, spring_damper, rotational_spring_damper, prismatic_spring_damper, force, torque, "
      "coupling, wall");
}

// A force element on a beam body (planar_model_spec.cpp's limits, reported here with the line):
// gravity, force, spring_damper, coupling and wall, each at a point (x, 0) of the beam's axis.
void check_beam_forces(const Reader& r, const YAML::Node& n, const PlanarModelSpec& spec) {
  for (std::size_t k = 0; k < spec.forces.size() && k < n.size(); ++k) {
    const PlanarForceSpec& f = spec.forces[k];
    if (f.type == PlanarForceType::kGravity) continue;
    const YAML::Node e = n[k];
    const std::string p = "forces[" + std::to_string(k) + "]";
    const bool spring = f.type == PlanarForceType::kSpringDamper;
    const bool two_bodies = spring || f.type == PlanarForceType::kRotationalSpring;
    for (const auto& [b, point, key] :
         {std::tuple{f.body_i, f.point_i, spring ? "point_i" : "point"},
          std::tuple{two_bodies ? f.body_j : kGround, f.point_j, "point_j"}}) {
      if (b == kGround) continue;
      const PlanarBodySpec& body = spec.bodies[static_cast<std::size_t>(b)];
      if (body.kind != PlanarBodyKind::kBeam) continue;
      if (!planar_detail::acts_at_beam_points(f.type)) {
        r.fail(e["type"], p + ".type",
               "only gravity, force, spring_damper, coupling and wall act on the beam '" +
                   body.name + "'");
      }
      if (!body.beam.on_axis(point)) {
        const YAML::Node at = e[key];
        r.fail(at ? at : e, Reader::join(p, key),
               "a point of the beam '" + body.name + "' must be [x, 0] with 0 <= x <= length");
      }
    }
  }
}

void default_coupling_targets(PlanarModelSpec& spec) {
  Vec q(3 * static_cast<Eigen::Index>(spec.bodies.size()));
  for (std::size_t b = 0; b < spec.bodies.size(); ++b) {
    q.segment<3>(3 * static_cast<Eigen::Index>(b)) = spec.bodies[b].pose;
  }
  for (PlanarForceSpec& f : spec.forces) {
    if (f.type == PlanarForceType::kCoupling && !f.vector.allFinite()) {
      f.vector = point_position(q, f.body_i, f.point_i);
    }
  }
}

}  // namespace

// Builds the body model of `root`, assembles its initial conditions and fills the defaults
// that depend on it (channel names, output units).
std::shared_ptr<const PlanarModelSpec> read_body_model(const Reader& r,
                                                       const YAML::Node& root,
                                                       ModelFile& f) {
  auto spec = std::make_shared<PlanarModelSpec>();
  spec->name = body_model_name(r, root);
  read_bodies(r, root["bodies"], *spec);
  if (const YAML::Node n = root["joints"]) read_joints(r, n, *spec);
  if (const YAML::Node n = root["forces"]) {
    read_forces(r, n, *spec);
    check_beam_forces(r, n, *spec);
  }
  f.notes = assemble_or_fail(r, root, *spec);
  // named channels refer to the assembled pose (a coupling's default target is where its point
  // starts)
  default_coupling_targets(*spec);
  if (const YAML::Node n = root["inputs"]) {
    detail::read_input_drives<PlanarMultibody>(
        r, n, *spec,
        [&](const YAML::Node& d, const std::string& key) { return read_drive(r, d, key, *spec); });
  }
  if (const YAML::Node n = root["outputs"]) read_output_channels(r, n, *spec, f.outputs);
  return spec;
}

std::vector<InputChannelSpec> body_input_channels(const PlanarModelSpec& spec) {
  if (!spec.inputs.empty()) return named_input_channels(spec);
  // q = (x, y, theta) per body: forces along x and y, the torque on theta
  const std::vector<InputChannelSpec> rigid =
      body_force_channels(spec, std::array<const char*, 3>{".fx", ".fy", ".tz"}, 2);
  // A beam body's elastic coordinates follow its frame's (planar_coordinate_offsets), one channel
  // each: the generalized force on a nodal displacement [N] or slope [N m], named after its node
  // and component (`rod.n1.axial`, `rod.n1.transverse`, `rod.n1.slope`; node 0 at x = 0), so
  // that every velocity coordinate has its channel as on a rigid model
  constexpr std::array<const char*, 3> kComponent{"axial", "transverse", "slope"};
  std::vector<InputChannelSpec> out;
  for (std::size_t b = 0; b < spec.bodies.size(); ++b) {
    for (std::size_t c = 0; c < 3; ++c) out.push_back(rigid[3 * b + c]);
    const PlanarBodySpec& body = spec.bodies[b];
    if (body.kind != PlanarBodyKind::kBeam) continue;
    const std::vector<int> index =
        beam_elastic_indices(body.beam.elements, planar_detail::beam_spec(body.beam).support);
    std::vector<InputChannelSpec> elastic = default_input_channels(
        static_cast<int>(std::count_if(index.begin(), index.end(), [](int i) { return i >= 0; })));
    for (int node = 0; node <= body.beam.elements; ++node) {
      for (int c = 0; c < 3; ++c) {
        const int e = index[static_cast<std::size_t>(3 * node + c)];
        if (e < 0) continue;  // removed by the support
        InputChannelSpec& ch = elastic[static_cast<std::size_t>(e)];
        ch.name = body.name + ".n" + std::to_string(node) + "." + kComponent[c];
        ch.unit = c < 2 ? "N" : "N*m";
        ch.config.kind = c < 2 ? InputKind::kForce : InputKind::kTorque;
      }
    }
    out.insert(out.end(), elastic.begin(), elastic.end());
  }
  return out;
}

}  // namespace rtmb::detail
