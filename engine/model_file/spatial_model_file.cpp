// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Spatial bodies in model files and the redundant-constraint check
// (engine/model_file/spatial_model_file.hpp; format in docs/model-format.md, "Spatial bodies").
// Kept apart from model_file.cpp, which only calls in here when `dimension: spatial` is given or
// after a body model is assembled. The small value readers repeat model_file.cpp's rules (finite
// numbers, lists of N numbers, every problem a ModelFileError at the value's position).
#include "engine/model_file/spatial_model_file.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <string_view>
#include <utility>

#include "engine/constraints/redundant_constraints.hpp"
#include "engine/model_file/driven_channels.hpp"
#include "engine/model_file/element_readers.hpp"
#include "engine/model_file/output_channel_readers.hpp"
#include "engine/model_file/spec_refs.hpp"
#include "engine/model_file/yaml_reader.hpp"
#include "rtmb/runtime/simulation_runner.hpp"
#include "rtmb/state.hpp"

namespace rtmb::detail {
namespace {

using In = YamlReader;

// the revolute joint named at n (rotational springs, motors and joint outputs act on one)
int revolute_joint(const In& in,
                   const YAML::Node& n,
                   const std::string& key,
                   const SpatialModelSpec& spec) {
  return joint_ref<SpatialJointType::kRevolute>(in, n, key, spec, "a revolute joint");
}

Eigen::Matrix3d read_inertia(const In& in, const YAML::Node& n, const std::string& key) {
  // [Jxx, Jyy, Jzz] or [Jxx, Jyy, Jzz, Jxy, Jxz, Jyz]: the tensor's entries in the body frame
  const Eigen::VectorXd x = in.list(
      n, key, {3, 6}, "[Jxx, Jyy, Jzz] or [Jxx, Jyy, Jzz, Jxy, Jxz, Jyz] (kg*m^2, body frame)");
  Eigen::Matrix3d J = x.head<3>().asDiagonal();
  if (x.size() == 6) {
    J(0, 1) = J(1, 0) = x(3);
    J(0, 2) = J(2, 0) = x(4);
    J(1, 2) = J(2, 1) = x(5);
  }
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(J);
  if (!(eig.eigenvalues().minCoeff() > 0.0)) {
    in.fail(n, key,
            "the inertia tensor must be positive definite (smallest eigenvalue " +
                std::to_string(eig.eigenvalues().minCoeff()) + " kg*m^2)");
  }
  return J;
}

void read_bodies(const In& in, const YAML::Node& n, SpatialModelSpec& spec) {
  if (!n.IsSequence() || n.size() == 0) in.fail(n, "bodies", "expected a non-empty list of bodies");
  for (std::size_t k = 0; k < n.size(); ++k) {
    const YAML::Node b = n[k];
    const std::string p = "bodies[" + std::to_string(k) + "]";
    in.check_keys(
        b, p,
        {"name", "mass", "inertia", "position", "orientation", "velocity", "angular_velocity"});
    SpatialBodySpec body;
    const YAML::Node name = in.required(b, p, "name", "every body needs a name");
    body.name = item_name(in, b, p, "");
    for (const SpatialBodySpec& other : spec.bodies) {
      if (other.name == body.name)
        in.fail(name, p + ".name", "duplicate body name '" + body.name + "'");
    }
    body.mass = in.positive(in.required(b, p, "mass", "kg"), p + ".mass");
    body.inertia = read_inertia(
        in, in.required(b, p, "inertia", "kg*m^2 about the centre of mass, body frame"),
        p + ".inertia");
    if (const YAML::Node m = b["position"]) body.position = in.vec3(m, p + ".position");
    if (const YAML::Node m = b["orientation"]) {
      const Eigen::Vector4d e =
          in.list(m, p + ".orientation", {4}, "[e0, e1, e2, e3] (a quaternion w, x, y, z)");
      if (!(e.norm() > 0.0)) in.fail(m, p + ".orientation", "must not be zero");
      body.orientation = e.normalized();
    }
    if (const YAML::Node m = b["velocity"]) body.velocity = in.vec3(m, p + ".velocity");
    if (const YAML::Node m = b["angular_velocity"]) {
      body.angular_velocity = in.vec3(m, p + ".angular_velocity");
    }
    spec.bodies.push_back(std::move(body));
  }
}

SpatialJointType joint_type(const In& in, const YAML::Node& n, const std::string& key) {
  const std::string t = in.string(n, key);
  for (const SpatialJointType type :
       {SpatialJointType::kSpherical, SpatialJointType::kRevolute, SpatialJointType::kUniversal,
        SpatialJointType::kCylindrical, SpatialJointType::kPrismatic, SpatialJointType::kFixed,
        SpatialJointType::kDistance, SpatialJointType::kPlanar}) {
    if (t == to_string(type)) return type;
  }
  in.fail(n, key,
          "unknown joint type '" + t +
              "' (valid: spherical, revolute, universal, cylindrical, prismatic, fixed, distance, "
              "planar, rolling_disc)");
}

// The name of joints[k] (at j, key p), unique among spec.joints and `last`.
std::string joint_name(const In& in,
                       const YAML::Node& j,
                       const std::string& p,
                       const std::string& name,
                       const SpatialModelSpec& spec,
                       const std::vector<SpatialJointSpec>& last) {
  for (const auto* list : {&spec.joints, &last}) {
    for (const SpatialJointSpec& other : *list) {
      if (other.name == name)
        in.fail(j["name"] ? j["name"] : j, p + ".name", "duplicate joint name");
    }
  }
  return name;
}

// A `rolling_disc` (engine/multibody/spatial_rolling_disc.hpp): `body` a thin disc of `radius`
// centred at its origin, its symmetry `axis` in the body frame, rolling without slip on the plane
// through `plane_point` with normal `plane_normal` (world; default z = 0, normal +z). Its contact
// row goes to spec.joints as "<name>", its two no-slip rows to `last` as "<name>.no_slip" (the
// caller appends them after every other joint: nonholonomic rows come last, rtmb/system.hpp).
void read_rolling_disc(const In& in,
                       const YAML::Node& j,
                       const std::string& p,
                       SpatialModelSpec& spec,
                       std::vector<SpatialJointSpec>& last) {
  in.check_keys(j, p, {"name", "type", "body", "radius", "axis", "plane_point", "plane_normal"});
  SpatialJointSpec jt;
  jt.name = joint_name(in, j, p, item_name(in, j, p, p), spec, last);
  jt.type = SpatialJointType::kDiscContact;
  jt.body_i = kGround;
  jt.body_j = body_ref(in, in.required(j, p, "body", "the disc"), p + ".body", spec, false);
  jt.radius = in.positive(in.required(j, p, "radius", "m"), p + ".radius");
  const YAML::Node axis = in.required(j, p, "axis", "the disc's symmetry axis, body frame");
  jt.axis_j = in.nonzero3(axis, p + ".axis").normalized();
  if (const YAML::Node m = j["plane_point"]) jt.point_i = in.vec3(m, p + ".plane_point");
  if (const YAML::Node m = j["plane_normal"]) {
    jt.axis_i = in.nonzero3(m, p + ".plane_normal").normalized();
  }
  // the contact row pulls the centre to R sqrt(1 - k^2) above the plane: a disc given below it
  // or lying flat (no lowest rim point) would be assembled through it or fail, so say so instead
  const SpatialBodySpec& b = spec.bodies[static_cast<std::size_t>(jt.body_j)];
  const double k = jt.axis_i.dot(rotation(b.orientation) * jt.axis_j);
  if (!(jt.axis_i.dot(b.position - jt.point_i) > 0.0)) {
    in.fail(j["plane_normal"] ? j["plane_normal"] : j["body"], p + ".plane_normal",
            "the disc's centre must start above the plane (on the side plane_normal points to)");
  }
  if (!(std::abs(k) < 1.0 - 1e-9)) {
    in.fail(axis, p + ".axis", "the disc must not start flat on the plane (axis along its normal)");
  }
  SpatialJointSpec no_slip = jt;
  no_slip.name = joint_name(in, j, p, jt.name + ".no_slip", spec, last);
  no_slip.type = SpatialJointType::kDiscNoSlip;
  spec.joints.push_back(std::move(jt));
  last.push_back(std::move(no_slip));
}

void read_joints(const In& in, const YAML::Node& n, SpatialModelSpec& spec) {
  if (!n.IsSequence()) in.fail(n, "joints", "expected a list of joints");
  std::vector<SpatialJointSpec> last;  // the no-slip rows of rolling discs, appended at the end
  for (std::size_t k = 0; k < n.size(); ++k) {
    const YAML::Node j = n[k];
    const std::string p = "joints[" + std::to_string(k) + "]";
    if (j.IsMap() && j["type"] && j["type"].IsScalar() &&
        j["type"].as<std::string>() == "rolling_disc") {
      read_rolling_disc(in, j, p, spec, last);
      continue;
    }
    in.check_keys(j, p,
                  {"name", "type", "body_i", "body_j", "point_i", "point_j", "axis_i", "axis_j",
                   "ref_i", "ref_j", "length"});
    SpatialJointSpec jt;
    jt.name = joint_name(in, j, p, item_name(in, j, p, p), spec, last);
    jt.type = joint_type(in, in.required(j, p, "type", "joint type"), p + ".type");
    read_body_pair(in, j, p, spec, "joins a body to itself", jt.body_i, jt.body_j, jt.point_i,
                   jt.point_j);
    const bool axes =
        jt.type != SpatialJointType::kSpherical && jt.type != SpatialJointType::kDistance;
    for (const char* key : {"axis_i", "axis_j", "ref_i", "ref_j"}) {
      const YAML::Node m = j[key];
      if (!m) continue;
      if (!axes)
        in.fail(m, p + "." + key, "not used by a " + std::string(to_string(jt.type)) + " joint");
      const Eigen::Vector3d v = in.nonzero3(m, p + "." + key);
      const std::string_view k2 = key;
      (k2 == "axis_i"   ? jt.axis_i
       : k2 == "axis_j" ? jt.axis_j
       : k2 == "ref_i"  ? jt.ref_i
                        : jt.ref_j) = v;
    }
    if (jt.type == SpatialJointType::kUniversal && !j["axis_j"]) {
      in.fail(j, p + ".axis_j", "missing (a universal joint's second axis, in body_j's frame)");
    }
    if (const YAML::Node m = j["length"]) {
      if (jt.type != SpatialJointType::kDistance)
        in.fail(m, p + ".length", "only for distance joints");
      jt.length = in.positive(m, p + ".length");
    } else if (jt.type == SpatialJointType::kDistance) {
      in.fail(j, p + ".length", "missing (the distance to keep, m)");
    }
    spec.joints.push_back(std::move(jt));
  }
  for (SpatialJointSpec& jt : last) spec.joints.push_back(std::move(jt));
}

bool read_frame(const In& in, const YAML::Node& e, const std::string& p) {
  const YAML::Node m = e["frame"];
  if (!m) return false;
  const std::string f = in.string(m, p + ".frame");
  if (f != "world" && f != "body") in.fail(m, p + ".frame", "expected world or body");
  return f == "body";
}

void read_forces(const In& in, const YAML::Node& n, SpatialModelSpec& spec) {
  read_force_list(
      in, n, spec,
      [&](const YAML::Node& e, const std::string& p, const std::string& t, SpatialForceSpec& f) {
        if (t == "force") {
          in.check_keys(e, p, {"name", "type", "body", "point", "force", "frame"});
          f.type = SpatialForceType::kForce;
          f.body_i =
              body_ref(in, in.required(e, p, "body", "the body pushed"), p + ".body", spec, false);
          if (const YAML::Node m = e["point"]) f.point_i = in.vec3(m, p + ".point");
          f.vector = in.vec3(in.required(e, p, "force", "N"), p + ".force");
          f.body_frame = read_frame(in, e, p);
        } else if (t == "torque") {
          in.check_keys(e, p, {"name", "type", "body", "torque", "frame"});
          f.type = SpatialForceType::kTorque;
          f.body_i =
              body_ref(in, in.required(e, p, "body", "the body turned"), p + ".body", spec, false);
          f.vector = in.vec3(in.required(e, p, "torque", "N*m"), p + ".torque");
          f.body_frame = read_frame(in, e, p);
        } else if (t == "rotational_spring_damper") {
          f.type = SpatialForceType::kRotationalSpring;
          f.joint = read_rotational_spring<SpatialJointType::kRevolute>(in, e, p, spec, f);
        } else if (t == "coupling") {
          in.check_keys(e, p, {"name", "type", "body", "point", "stiffness", "damping", "target"});
          f.type = SpatialForceType::kCoupling;
          read_coupling_spring(in, e, p, spec, f);
        } else {
          return false;
        }
        return true;
      },
      "gravity, spring_damper, force, torque, rotational_spring_damper, coupling");
}

// x, y or z
int axis_index(const In& in, const YAML::Node& n, const std::string& key) {
  const std::string a = in.string(n, key);
  if (a == "x") return 0;
  if (a == "y") return 1;
  if (a == "z") return 2;
  in.fail(n, key, "expected x, y or z");
}

// world direction: `axis: x|y|z` or `direction: [x, y, z]` (default x)
Eigen::Vector3d read_direction(const In& in, const YAML::Node& d, const std::string& p) {
  if (d["axis"] && d["direction"]) in.fail(d["direction"], p + ".direction", "not with 'axis'");
  if (const YAML::Node m = d["axis"]) return Eigen::Vector3d::Unit(axis_index(in, m, p + ".axis"));
  if (const YAML::Node m = d["direction"]) return in.nonzero3(m, p + ".direction");
  return Eigen::Vector3d::UnitX();
}

// The `drive` of one channel of a spatial model: what it acts on.
SpatialInputSpec read_drive(const In& in,
                            const YAML::Node& d,
                            const std::string& p,
                            const SpatialModelSpec& spec) {
  SpatialInputSpec u;
  const YAML::Node type = drive_type(in, d, p);
  const std::string t = in.string(type, p + ".type");
  if (t == "force") {
    read_force_drive(in, d, p, spec, u);
    u.direction = read_direction(in, d, p);
  } else if (t == "torque") {
    in.check_keys(d, p, {"type", "body", "axis", "direction"});
    u.type = SpatialInputType::kTorque;
    u.body = body_ref(in, in.required(d, p, "body", "the body turned"), p + ".body", spec, false);
    if (!d["axis"] && !d["direction"]) {
      in.fail(d, p + ".axis", "missing (the world axis of the torque: x, y, z or 'direction')");
    }
    u.direction = read_direction(in, d, p);
  } else if (t == "motor") {
    read_motor_drive<SpatialJointType::kRevolute>(in, d, p, spec, u);
  } else if (t == "coupling") {
    in.check_keys(d, p, {"type", "element", "axis"});
    u.element = coupling_ref(in, in.required(d, p, "element", "a coupling force element's name"),
                             p + ".element", spec);
    const int axis = axis_index(in, in.required(d, p, "axis", "x, y or z"), p + ".axis");
    u.type = static_cast<SpatialInputType>(static_cast<int>(SpatialInputType::kCouplingX) + axis);
    u.initial = spec.forces[static_cast<std::size_t>(u.element)].vector(axis);
  } else {
    in.fail(type, p + ".type",
            "unknown drive type '" + t + "' (valid: force, torque, motor, coupling)");
  }
  return u;
}

}  // namespace

bool spatial_dimension(const YAML::Node& root, const std::string& path) {
  const YAML::Node n = root["dimension"];
  if (!n) return false;
  const In in(path);
  const std::string d = in.string(n, "dimension");
  if (d != "planar" && d != "spatial") in.fail(n, "dimension", "expected planar or spatial");
  return d == "spatial";
}

std::shared_ptr<const SpatialModelSpec> read_spatial_model(const YAML::Node& root,
                                                           const std::string& path,
                                                           std::vector<std::string>& notes) {
  const In in(path);
  auto spec = std::make_shared<SpatialModelSpec>();
  spec->name = body_model_name(in, root);
  read_bodies(in, root["bodies"], *spec);
  if (const YAML::Node n = root["joints"]) read_joints(in, n, *spec);
  if (const YAML::Node n = root["forces"]) read_forces(in, n, *spec);
  // couplings without a target (NaN from read_forces) get the assembled position of their point
  std::vector<std::size_t> untargeted;
  for (std::size_t k = 0; k < spec->forces.size(); ++k) {
    SpatialForceSpec& f = spec->forces[k];
    if (f.type == SpatialForceType::kCoupling && !f.vector.allFinite()) {
      untargeted.push_back(k);
      f.vector.setZero();  // placeholder while assembling (forces play no part there)
    }
  }
  const std::vector<std::string> more = assemble_or_fail(in, root, *spec);
  notes.insert(notes.end(), more.begin(), more.end());
  // named channels refer to the assembled pose: a coupling's default target is where its point
  // starts
  for (const std::size_t k : untargeted) {
    SpatialForceSpec& f = spec->forces[k];
    const SpatialBodySpec& b = spec->bodies[static_cast<std::size_t>(f.body_i)];
    f.vector = b.position + rotation(b.orientation) * f.point_i;
  }
  if (const YAML::Node n = root["inputs"]) {
    read_input_drives<SpatialMultibody>(
        in, n, *spec,
        [&](const YAML::Node& d, const std::string& key) { return read_drive(in, d, key, *spec); });
  }
  return spec;
}

std::vector<int> resolve_redundancy(const System& system,
                                    const YAML::Node& root,
                                    const std::string& path,
                                    const std::function<std::string(int)>& row_owner,
                                    std::vector<std::string>& notes) {
  const In in(path);
  bool remove = false;
  const YAML::Node policy = root["redundant_constraints"];
  if (policy) {
    const std::string s = in.string(policy, "redundant_constraints");
    if (s != "error" && s != "remove")
      in.fail(policy, "redundant_constraints", "expected error or remove");
    remove = s == "remove";
  }
  State s0;
  system.initial_state(s0);
  const ConstraintRank rank = constraint_rank(system, s0.q);
  if (rank.dependent.empty()) return {};
  auto list_rows = [&](const std::vector<int>& rows) {
    std::string out;
    for (const int r : rows)
      out += (out.empty() ? "" : ", ") + std::to_string(r) + " (" + row_owner(r) + ")";
    return out;
  };
  if (!remove) {
    // the joints of every dependency: the dependent row and the kept rows it combines
    std::vector<std::string> owners;
    for (const std::vector<int>& group : rank.groups) {
      for (const int r : group) {
        const std::string o = row_owner(r);
        if (std::find(owners.begin(), owners.end(), o) == owners.end()) owners.push_back(o);
      }
    }
    std::string names;
    for (const std::string& o : owners) names += (names.empty() ? "" : ", ") + o;
    const YAML::Node at = root["joints"] ? root["joints"] : root["bodies"];
    in.fail(at, "joints",
            "redundant constraints: G has rank " + std::to_string(rank.rank) + " < " +
                std::to_string(system.n_lambda()) + " rows at the assembled pose; the rows of " +
                names + " are linearly dependent (add 'redundant_constraints: remove' to drop " +
                std::to_string(rank.dependent.size()) +
                " dependent row(s): " + list_rows(rank.dependent) + ")");
  }
  notes.push_back("redundant constraints removed: " + std::to_string(rank.dependent.size()) +
                  " dependent row(s) of " + std::to_string(system.n_lambda()) + ": " +
                  list_rows(rank.dependent));
  return rank.independent;
}

std::vector<InputChannelSpec> spatial_input_channels(const SpatialModelSpec& spec) {
  if (!spec.inputs.empty()) {
    // named channels: unit and watchdog kind from what each drives
    std::vector<InputChannelSpec> named;
    for (const SpatialInputSpec& u : spec.inputs) {
      const bool target = u.type == SpatialInputType::kCouplingX ||
                          u.type == SpatialInputType::kCouplingY ||
                          u.type == SpatialInputType::kCouplingZ;
      const InputKind kind = u.type == SpatialInputType::kForce ? InputKind::kForce
                             : target                           ? InputKind::kPosition
                                                                : InputKind::kTorque;
      named.push_back(named_input_channel(u.name, u.initial, kind));
    }
    return named;
  }
  // q = (r, e) per body: forces on the position, generalized torques on the Euler parameters
  return body_force_channels(
      spec, std::array<const char*, 7>{".fx", ".fy", ".fz", ".qe0", ".qe1", ".qe2", ".qe3"}, 3);
}

std::vector<SpatialOutputSpec> read_spatial_outputs(const YAML::Node& root,
                                                    const std::string& path,
                                                    const SpatialModelSpec& spec) {
  std::vector<SpatialOutputSpec> out;
  const YAML::Node outputs = root["outputs"];
  if (!outputs) return out;
  static const std::pair<const char*, SpatialOutputType> kKinds[] = {
      {"position", SpatialOutputType::kPosition},
      {"orientation", SpatialOutputType::kOrientation},
      {"velocity", SpatialOutputType::kVelocity},
      {"angular_velocity", SpatialOutputType::kAngularVelocity},
      {"point_position", SpatialOutputType::kPointPosition},
      {"point_velocity", SpatialOutputType::kPointVelocity},
      {"joint_position", SpatialOutputType::kJointPosition},
      {"joint_velocity", SpatialOutputType::kJointVelocity},
      {"coupling_force", SpatialOutputType::kCouplingForce},
      {"position_drift", SpatialOutputType::kPositionDrift},
      {"velocity_drift", SpatialOutputType::kVelocityDrift},
      {"energy", SpatialOutputType::kEnergy},
  };
  const In in(path);
  read_output_list(in, outputs, out,
                   [&](const YAML::Node& n, const std::string& p, SpatialOutputSpec& o) {
                     o.type = read_output_kind(in, n, p, kKinds);
                     const bool point_kind = o.type == SpatialOutputType::kPointPosition ||
                                             o.type == SpatialOutputType::kPointVelocity;
                     const bool body_kind = point_kind || o.type == SpatialOutputType::kPosition ||
                                            o.type == SpatialOutputType::kOrientation ||
                                            o.type == SpatialOutputType::kVelocity ||
                                            o.type == SpatialOutputType::kAngularVelocity;
                     const bool joint_kind = o.type == SpatialOutputType::kJointPosition ||
                                             o.type == SpatialOutputType::kJointVelocity;
                     const bool element_kind = o.type == SpatialOutputType::kCouplingForce;
                     check_kind_key(in, n, p, "body", body_kind, "body and point outputs");
                     check_kind_key(in, n, p, "point", point_kind, "point outputs");
                     check_kind_key(in, n, p, "joint", joint_kind, "joint outputs");
                     check_kind_key(in, n, p, "element", element_kind, "coupling_force outputs");
                     if (body_kind) o.body = body_ref(in, n["body"], p + ".body", spec, false);
                     if (point_kind && n["point"]) o.point = in.vec3(n["point"], p + ".point");
                     if (joint_kind) {
                       o.joint = revolute_joint(in, n["joint"], p + ".joint", spec);
                     }
                     if (element_kind)
                       o.element = coupling_ref(in, n["element"], p + ".element", spec);
                     o.units = default_output_units(o.type);
                   });
  return out;
}

std::vector<std::string> spatial_output_units(const SpatialModelSpec& spec) {
  std::vector<std::string> out;
  for (std::size_t b = 0; b < spec.bodies.size(); ++b) {
    for (const char* u : {"m", "m", "m", "1", "1", "1", "1"}) out.emplace_back(u);
  }
  for (std::size_t b = 0; b < spec.bodies.size(); ++b) {
    for (const char* u : {"m/s", "m/s", "m/s", "1/s", "1/s", "1/s", "1/s"}) out.emplace_back(u);
  }
  return out;
}

}  // namespace rtmb::detail
