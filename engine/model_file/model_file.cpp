// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Model-file loader (include/rtmb/models/model_file.hpp, format in docs/model-format.md). yaml-cpp
// does the parsing; this file checks every key and value and turns each problem into a
// ModelFileError that names file, line, column and the dotted key.
#include "rtmb/models/model_file.hpp"

#include "engine/model_file/driven_channels.hpp"
#include "engine/model_file/yaml_reader.hpp"
#include "rtmb/runtime/simulation_runner.hpp"

// GCC 12 at -O3 reports a bogus -Wrestrict inside std::string concatenation (GCC bug 105329);
// the messages built here are plain `std::string + literal` expressions.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ == 12
#pragma GCC diagnostic ignored "-Wrestrict"
#endif

#include <yaml-cpp/yaml.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <limits>
#include <memory>
#include <sstream>
#include <string_view>
#include <utility>

#include "engine/constraints/redundant_constraints.hpp"
#include "engine/model_file/spatial_model_file.hpp"

namespace rtmb {

ModelFileError::ModelFileError(
    std::string file, int line, int column, std::string key, const std::string& why)
    : std::runtime_error(file + ":" + std::to_string(line) + ":" + std::to_string(column) +
                         ": key '" + key + "': " + why),
      file_(std::move(file)),
      line_(line),
      key_(std::move(key)) {}

ModelFileError::ModelFileError(const std::string& message) : std::runtime_error(message) {}

namespace {

constexpr double kNsPerMs = 1e6;
constexpr double kBodyModelDefaultDt = 1e-3;  // [s] for files with `bodies:`

using Reader = detail::YamlReader;

std::int64_t ms_to_ns(double ms) {
  return std::llround(ms * kNsPerMs);
}

void read_integration(const Reader& r, const YAML::Node& n, Settings& s) {
  const std::string p = "integration";
  r.check_keys(n, p,
               {"method", "stabilizer", "dt", "gamma1", "gamma2", "projection_tolerance",
                "projection_max_iterations", "datol", "monitor", "solver"});
  if (const YAML::Node m = n["method"]) {
    const std::string name = r.string(m, p + ".method");
    const auto method = parse_method(name);
    if (!method)
      r.fail(m, p + ".method", "unknown method '" + name + "' (valid: " + method_names() + ")");
    s.method = *method;
  }
  if (const YAML::Node m = n["stabilizer"]) {
    const std::string name = r.string(m, p + ".stabilizer");
    const auto st = parse_stabilizer(name);
    if (!st) {
      r.fail(m, p + ".stabilizer",
             "unknown stabilizer '" + name + "' (valid: " + stabilizer_names() + ")");
    }
    s.stabilizer = *st;
  }
  if (const YAML::Node m = n["dt"]) s.dt = r.positive(m, p + ".dt");
  if (const YAML::Node m = n["gamma1"]) s.gamma1 = r.non_negative(m, p + ".gamma1");
  if (const YAML::Node m = n["gamma2"]) s.gamma2 = r.non_negative(m, p + ".gamma2");
  if (const YAML::Node m = n["projection_tolerance"]) {
    s.projection_tolerance = r.positive(m, p + ".projection_tolerance");
  }
  if (const YAML::Node m = n["projection_max_iterations"]) {
    const long long k = r.integer(m, p + ".projection_max_iterations");
    if (k < 1 || k > 1000) r.fail(m, p + ".projection_max_iterations", "must be in 1..1000");
    s.projection_max_iterations = static_cast<int>(k);
  }
  if (const YAML::Node m = n["datol"]) s.datol = r.non_negative(m, p + ".datol");
  if (const YAML::Node m = n["monitor"]) s.monitor = r.boolean(m, p + ".monitor");
  if (const YAML::Node m = n["solver"]) {
    const std::string name = r.string(m, p + ".solver");
    const auto solver = parse_solver(name);
    if (!solver) {
      r.fail(m, p + ".solver", "unknown solver '" + name + "' (valid: " + solver_names() + ")");
    }
    s.solver = *solver;
  }
}

void read_options(const Reader& r, const YAML::Node& n, MechanismOptions& o) {
  const std::string p = "options";
  r.check_keys(n, p, {"chain_links", "chain_loop", "robot_omega"});
  if (const YAML::Node m = n["chain_links"]) {
    const long long k = r.integer(m, p + ".chain_links");
    if (k < 1 || k > 100000) r.fail(m, p + ".chain_links", "must be in 1..100000");
    o.chain_links = static_cast<int>(k);
  }
  if (const YAML::Node m = n["chain_loop"]) o.chain_loop = r.boolean(m, p + ".chain_loop");
  if (const YAML::Node m = n["robot_omega"]) o.robot_omega = r.positive(m, p + ".robot_omega");
}

InputKind parse_kind(const Reader& r, const YAML::Node& n, const std::string& key) {
  const std::string s = r.string(n, key);
  if (s == "force") return InputKind::kForce;
  if (s == "torque") return InputKind::kTorque;
  if (s == "position") return InputKind::kPosition;
  if (s == "command") return InputKind::kCommand;
  r.fail(n, key, "unknown kind '" + s + "' (valid: force, torque, position, command)");
}

MissPolicy parse_policy(const Reader& r, const YAML::Node& n, const std::string& key) {
  const std::string s = r.string(n, key);
  if (s == "hold") return MissPolicy::kHold;
  if (s == "extrapolate") return MissPolicy::kExtrapolate;
  if (s == "decay") return MissPolicy::kDecay;
  r.fail(n, key, "unknown policy '" + s + "' (valid: hold, extrapolate, decay)");
}

void read_channel(const Reader& r, const YAML::Node& n, const std::string& p, InputChannelSpec& c) {
  r.check_keys(n, p,
               {"name", "unit", "kind", "policy", "initial_value", "extrapolate_horizon_ms",
                "decay_tau_ms", "safe_after_misses", "safe_value", "min", "max", "drive"});
  InputChannelConfig& cfg = c.config;
  if (const YAML::Node m = n["name"]) {
    c.name = r.string(m, p + ".name");
    if (c.name.empty() || c.name.find(',') != std::string::npos) {
      r.fail(m, p + ".name", "must be non-empty and contain no comma");
    }
  }
  if (const YAML::Node m = n["unit"]) c.unit = r.string(m, p + ".unit");
  if (const YAML::Node m = n["kind"]) cfg.kind = parse_kind(r, m, p + ".kind");
  if (const YAML::Node m = n["policy"]) cfg.policy = parse_policy(r, m, p + ".policy");
  if (const YAML::Node m = n["initial_value"])
    cfg.initial_value = r.number(m, p + ".initial_value");
  if (const YAML::Node m = n["extrapolate_horizon_ms"]) {
    cfg.extrapolate_horizon_ns = ms_to_ns(r.non_negative(m, p + ".extrapolate_horizon_ms"));
  }
  if (const YAML::Node m = n["decay_tau_ms"]) {
    cfg.decay_tau_ns = ms_to_ns(r.positive(m, p + ".decay_tau_ms"));
  }
  if (const YAML::Node m = n["safe_after_misses"]) {
    const long long k = r.integer(m, p + ".safe_after_misses");
    if (k < 0 || k > 1'000'000) r.fail(m, p + ".safe_after_misses", "must be in 0..1000000");
    cfg.safe_after_misses = static_cast<int>(k);
  }
  if (const YAML::Node m = n["safe_value"]) cfg.safe_value = r.number(m, p + ".safe_value");
  if (const YAML::Node m = n["min"]) cfg.min_value = r.number(m, p + ".min");
  if (const YAML::Node m = n["max"]) cfg.max_value = r.number(m, p + ".max");
  // the bank's own rules, reported here with the channel's position
  try {
    const InputChannelBank probe(std::span<const InputChannelConfig>(&cfg, 1));
  } catch (const std::invalid_argument& e) {
    r.fail(n, p, e.what());
  }
}

void read_inputs(const Reader& r, const YAML::Node& n, ModelFile& f, int n_v) {
  const std::string p = "inputs";
  r.check_keys(n, p, {"stale_after_ms", "watchdog_ramp_ms", "channels"});
  if (const YAML::Node m = n["stale_after_ms"]) {
    f.input_bank.stale_after_ns = ms_to_ns(r.positive(m, p + ".stale_after_ms"));
  }
  if (const YAML::Node m = n["watchdog_ramp_ms"]) {
    f.input_bank.watchdog_ramp_ns = ms_to_ns(r.non_negative(m, p + ".watchdog_ramp_ms"));
  }
  const YAML::Node channels = n["channels"];
  if (!channels) return;
  const std::string key = p + ".channels";
  if (!channels.IsSequence()) r.fail(channels, key, "expected a list of channels");
  if (f.bodies && !f.bodies->inputs.empty()) {
    // named channels (read_input_drives): one per drive, defaults from each drive
    n_v = static_cast<int>(f.bodies->inputs.size());
  } else if (f.spatial && !f.spatial->inputs.empty()) {
    n_v = static_cast<int>(f.spatial->inputs.size());  // spatial_model_file.cpp's drives
  } else {
    for (std::size_t i = 0; i < channels.size(); ++i) {
      if (channels[i].IsMap() && channels[i]["drive"]) {
        r.fail(channels[i]["drive"], key + "[" + std::to_string(i) + "].drive",
               "only for body models ('bodies'); a built-in mechanism's channel i is the "
               "generalized force on coordinate i");
      }
    }
  }
  if (static_cast<int>(channels.size()) != n_v) {
    r.fail(channels, key,
           "lists " + std::to_string(channels.size()) + " channels; model '" + model_name(f) +
               "' has " + std::to_string(n_v) +
               " (one generalized force per velocity coordinate, in order)");
  }
  for (int i = 0; i < n_v; ++i) {
    read_channel(r, channels[static_cast<std::size_t>(i)], key + "[" + std::to_string(i) + "]",
                 f.inputs[static_cast<std::size_t>(i)]);
  }
  for (int i = 0; i < n_v; ++i) {
    for (int j = 0; j < i; ++j) {
      if (f.inputs[static_cast<std::size_t>(i)].name ==
          f.inputs[static_cast<std::size_t>(j)].name) {
        r.fail(channels[static_cast<std::size_t>(i)], key + "[" + std::to_string(i) + "].name",
               "'" + f.inputs[static_cast<std::size_t>(i)].name + "' is already channel " +
                   std::to_string(j));
      }
    }
  }
}

void read_outputs(const Reader& r, const YAML::Node& n, ModelFile& f, int n_q, int n_v) {
  const std::string p = "outputs";
  r.check_keys(n, p, {"units", "channels"});
  const YAML::Node units = n["units"];
  if (n["channels"]) {
    if (!f.bodies && !f.spatial) {
      r.fail(n["channels"], p + ".channels", "only for body models ('bodies')");
    }
    if (units) {
      r.fail(units, p + ".units",
             "not with 'channels' (each output channel has its own unit); the stream carries "
             "the channels instead of q and v");
    }
    return;  // read by read_output_channels
  }
  if (!units) return;
  if (!units.IsSequence() || static_cast<int>(units.size()) != n_q + n_v) {
    r.fail(units, p + ".units",
           "expected a list of " + std::to_string(n_q + n_v) + " units (q0.., then v0..)");
  }
  f.output_units.clear();  // replaces the defaults of a body model
  for (std::size_t i = 0; i < units.size(); ++i) {
    f.output_units.push_back(r.string(units[i], p + ".units[" + std::to_string(i) + "]"));
  }
}

// ---- bodies, joints and forces (docs/model-format.md, "Bodies, joints and forces") ----------

// Index of the body a key names: kGround for "ground", else its position in `bodies`.
int body_ref(const Reader& r,
             const YAML::Node& n,
             const std::string& key,
             const PlanarModelSpec& spec,
             bool ground_allowed) {
  const std::string name = r.string(n, key);
  if (name == "ground") {
    if (!ground_allowed) r.fail(n, key, "cannot act on the ground");
    return kGround;
  }
  for (std::size_t b = 0; b < spec.bodies.size(); ++b) {
    if (spec.bodies[b].name == name) return static_cast<int>(b);
  }
  std::string valid = "ground";
  for (const PlanarBodySpec& b : spec.bodies) valid += ", " + b.name;
  r.fail(n, key, "unknown body '" + name + "' (bodies: " + valid + ")");
}

std::string item_name(const Reader& r,
                      const YAML::Node& n,
                      const std::string& p,
                      const std::string& fallback) {
  if (const YAML::Node m = n["name"]) {
    std::string name = r.string(m, p + ".name");
    if (name.empty() || name == "ground" || name.find_first_of(", ") != std::string::npos) {
      r.fail(m, p + ".name", "must be non-empty, not 'ground', without spaces or commas");
    }
    return name;
  }
  return fallback;
}

// The two bodies a joint or spring-damper connects (body_i, body_j: required, ground allowed,
// distinct; `itself` is the message when they are the same) and its optional attachment points
// point_i, point_j in their frames (left as they are when absent).
void read_body_pair(const Reader& r,
                    const YAML::Node& n,
                    const std::string& p,
                    const PlanarModelSpec& spec,
                    const char* itself,
                    int& body_i,
                    int& body_j,
                    Eigen::Vector2d& point_i,
                    Eigen::Vector2d& point_j) {
  const YAML::Node bi = r.required(n, p, "body_i", "first body or ground");
  const YAML::Node bj = r.required(n, p, "body_j", "second body or ground");
  body_i = body_ref(r, bi, p + ".body_i", spec, true);
  body_j = body_ref(r, bj, p + ".body_j", spec, true);
  if (body_i == body_j) r.fail(bj, p + ".body_j", itself);
  if (const YAML::Node m = n["point_i"]) point_i = r.vec<2>(m, p + ".point_i");
  if (const YAML::Node m = n["point_j"]) point_j = r.vec<2>(m, p + ".point_j");
}

void read_bodies(const Reader& r, const YAML::Node& n, PlanarModelSpec& spec) {
  if (!n.IsSequence() || n.size() == 0) r.fail(n, "bodies", "expected a non-empty list of bodies");
  for (std::size_t k = 0; k < n.size(); ++k) {
    const YAML::Node b = n[k];
    const std::string p = "bodies[" + std::to_string(k) + "]";
    r.check_keys(b, p, {"name", "mass", "inertia", "pose", "velocity"});
    PlanarBodySpec body;
    const YAML::Node name = r.required(b, p, "name", "every body needs a name");
    body.name = item_name(r, b, p, "");
    for (const PlanarBodySpec& other : spec.bodies) {
      if (other.name == body.name) {
        r.fail(name, p + ".name", "duplicate body name '" + body.name + "'");
      }
    }
    body.mass = r.positive(r.required(b, p, "mass", "kg"), p + ".mass");
    body.inertia =
        r.positive(r.required(b, p, "inertia", "kg*m^2 about the centre of mass"), p + ".inertia");
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

void read_joints(const Reader& r, const YAML::Node& n, PlanarModelSpec& spec) {
  if (!n.IsSequence()) r.fail(n, "joints", "expected a list of joints");
  for (std::size_t k = 0; k < n.size(); ++k) {
    const YAML::Node j = n[k];
    const std::string p = "joints[" + std::to_string(k) + "]";
    r.check_keys(j, p,
                 {"name", "type", "body_i", "body_j", "point_i", "point_j", "axis", "angle",
                  "length", "driver"});
    PlanarJointSpec jt;
    jt.name = item_name(r, j, p, p);
    for (const PlanarJointSpec& other : spec.joints) {
      if (other.name == jt.name) r.fail(j["name"], p + ".name", "duplicate joint name");
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
             "unknown joint type '" + t + "' (valid: revolute, prismatic, fixed, distance)");
    }
    read_body_pair(r, j, p, spec, "joins a body to itself", jt.body_i, jt.body_j, jt.point_i,
                   jt.point_j);
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
}

// A translational spring-damper along a prismatic joint's axis (`prismatic_spring_damper`).
void read_axial_spring(const Reader& r,
                       const YAML::Node& e,
                       const std::string& p,
                       const PlanarModelSpec& spec,
                       PlanarForceSpec& f) {
  r.check_keys(e, p, {"name", "type", "joint", "stiffness", "damping", "rest_position"});
  f.type = PlanarForceType::kAxialSpring;
  const YAML::Node jn = r.required(e, p, "joint", "a prismatic joint's name");
  const std::string joint = r.string(jn, p + ".joint");
  const auto it = std::find_if(spec.joints.begin(), spec.joints.end(),
                               [&joint](const PlanarJointSpec& j) { return j.name == joint; });
  if (it == spec.joints.end() || it->type != PlanarJointType::kPrismatic) {
    r.fail(jn, p + ".joint", "'" + joint + "' is not a prismatic joint of this model");
  }
  f.joint = static_cast<int>(it - spec.joints.begin());
  f.body_i = it->body_i;
  f.body_j = it->body_j;
  if (const YAML::Node m = e["stiffness"]) f.stiffness = r.non_negative(m, p + ".stiffness");
  if (const YAML::Node m = e["damping"]) f.damping = r.non_negative(m, p + ".damping");
  if (const YAML::Node m = e["rest_position"]) f.rest = r.number(m, p + ".rest_position");
}

void read_coupling(const Reader& r,
                   const YAML::Node& e,
                   const std::string& p,
                   const PlanarModelSpec& spec,
                   PlanarForceSpec& f);

void read_forces(const Reader& r, const YAML::Node& n, PlanarModelSpec& spec) {
  if (!n.IsSequence()) r.fail(n, "forces", "expected a list of force elements");
  for (std::size_t k = 0; k < n.size(); ++k) {
    const YAML::Node e = n[k];
    const std::string p = "forces[" + std::to_string(k) + "]";
    if (!e.IsMap()) r.fail(e, p, "expected a mapping");
    PlanarForceSpec f;
    f.name = item_name(r, e, p, p);
    const YAML::Node type = r.required(e, p, "type", "force element type");
    const std::string t = r.string(type, p + ".type");
    if (t == "gravity") {
      r.check_keys(e, p, {"name", "type", "vector"});
      f.type = PlanarForceType::kGravity;
      f.vector = r.vec<2>(r.required(e, p, "vector", "m/s^2"), p + ".vector");
    } else if (t == "spring_damper") {
      r.check_keys(e, p,
                   {"name", "type", "body_i", "body_j", "point_i", "point_j", "stiffness",
                    "damping", "rest_length", "actuator_force"});
      f.type = PlanarForceType::kSpringDamper;
      read_body_pair(r, e, p, spec, "connects a body to itself", f.body_i, f.body_j, f.point_i,
                     f.point_j);
      if (const YAML::Node m = e["stiffness"]) f.stiffness = r.non_negative(m, p + ".stiffness");
      if (const YAML::Node m = e["damping"]) f.damping = r.non_negative(m, p + ".damping");
      if (const YAML::Node m = e["rest_length"]) f.rest = r.non_negative(m, p + ".rest_length");
      if (const YAML::Node m = e["actuator_force"]) f.actuator = r.number(m, p + ".actuator_force");
    } else if (t == "rotational_spring_damper") {
      r.check_keys(e, p, {"name", "type", "joint", "stiffness", "damping", "rest_angle"});
      f.type = PlanarForceType::kRotationalSpring;
      const YAML::Node jn = r.required(e, p, "joint", "a revolute joint's name");
      const std::string joint = r.string(jn, p + ".joint");
      const auto it = std::find_if(spec.joints.begin(), spec.joints.end(),
                                   [&joint](const PlanarJointSpec& j) { return j.name == joint; });
      if (it == spec.joints.end() || it->type != PlanarJointType::kRevolute) {
        r.fail(jn, p + ".joint", "'" + joint + "' is not a revolute joint of this model");
      }
      f.body_i = it->body_i;
      f.body_j = it->body_j;
      if (const YAML::Node m = e["stiffness"]) f.stiffness = r.non_negative(m, p + ".stiffness");
      if (const YAML::Node m = e["damping"]) f.damping = r.non_negative(m, p + ".damping");
      if (const YAML::Node m = e["rest_angle"]) f.rest = r.number(m, p + ".rest_angle");
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
      r.check_keys(e, p,
                   {"name", "type", "body", "point", "origin", "normal", "stiffness", "damping"});
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
      r.fail(type, p + ".type",
             "unknown force type '" + t +
                 "' (valid: gravity, spring_damper, rotational_spring_damper, "
                 "prismatic_spring_damper, force, torque, coupling, wall)");
    }
    spec.forces.push_back(std::move(f));
  }
}

// ---- named input and output channels (docs/model-format.md, "Named channels") --------------

// "x" -> 0, "y" -> 1 at key; anything else fails.
int axis_index(const Reader& r, const YAML::Node& n, const std::string& key) {
  const std::string a = r.string(n, key);
  if (a == "x") return 0;
  if (a == "y") return 1;
  r.fail(n, key, "unknown axis '" + a + "' (valid: x, y)");
}

// Index of the element of `items` whose name is at n, or fail with `what`.
template <typename Items, typename Accept>
int find_named(const Reader& r,
               const YAML::Node& n,
               const std::string& key,
               const Items& items,
               Accept accept,
               const std::string& what) {
  const std::string name = r.string(n, key);
  for (std::size_t k = 0; k < items.size(); ++k) {
    if (items[k].name == name && accept(items[k])) return static_cast<int>(k);
  }
  r.fail(n, key, "'" + name + "' is not " + what + " of this model");
}

int revolute_joint_ref(const Reader& r,
                       const YAML::Node& n,
                       const std::string& key,
                       const PlanarModelSpec& spec) {
  return find_named(
      r, n, key, spec.joints,
      [](const PlanarJointSpec& j) { return j.type == PlanarJointType::kRevolute; },
      "a revolute joint");
}

int coupling_ref(const Reader& r,
                 const YAML::Node& n,
                 const std::string& key,
                 const PlanarModelSpec& spec) {
  return find_named(
      r, n, key, spec.forces,
      [](const PlanarForceSpec& f) { return f.type == PlanarForceType::kCoupling; },
      "a coupling force element");
}

// forces[k].safety of a coupling: the ForceOutputFilter of its haptic_force outputs
// (docs/model-format.md, "Haptic safety")
void read_safety(const Reader& r, const YAML::Node& n, const std::string& p, ForceSafetyConfig& c) {
  r.check_keys(n, p,
               {"max_force", "max_rate", "engage_force", "engage_ramp", "passivity", "max_damping",
                "passivity_margin"});
  if (const YAML::Node m = n["max_force"]) c.max_force = r.non_negative(m, p + ".max_force");
  if (const YAML::Node m = n["max_rate"]) c.max_rate = r.non_negative(m, p + ".max_rate");
  if (const YAML::Node m = n["engage_force"]) {
    c.engage_force = r.non_negative(m, p + ".engage_force");
  }
  if (const YAML::Node m = n["engage_ramp"]) {
    c.engage_ramp_s = r.non_negative(m, p + ".engage_ramp");
  }
  if (const YAML::Node m = n["max_damping"]) {
    c.max_damping = r.non_negative(m, p + ".max_damping");
  }
  if (const YAML::Node m = n["passivity_margin"]) {
    c.passivity_margin = r.non_negative(m, p + ".passivity_margin");
  }
  if (const YAML::Node m = n["passivity"]) {
    c.passivity = r.boolean(m, p + ".passivity");
    if (c.passivity && !(c.max_damping > 0.0)) {
      r.fail(m, p + ".passivity",
             "the passivity controller needs max_damping > 0 (about device mass / sample period, "
             "N*s/m)");
    }
  }
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
  f.body_i = body_ref(r, r.required(e, p, "body", "the body coupled"), p + ".body", spec, false);
  if (const YAML::Node m = e["point"]) f.point_i = r.vec<2>(m, p + ".point");
  f.stiffness = r.non_negative(r.required(e, p, "stiffness", "N/m"), p + ".stiffness");
  if (const YAML::Node m = e["damping"]) f.damping = r.non_negative(m, p + ".damping");
  // NaN: the point's assembled start position (default_coupling_targets)
  f.vector.setConstant(std::numeric_limits<double>::quiet_NaN());
  if (const YAML::Node m = e["target"]) f.vector = r.vec<2>(m, p + ".target");
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

// The `drive` of one channel: what it acts on.
PlanarInputSpec read_drive(const Reader& r,
                           const YAML::Node& d,
                           const std::string& p,
                           const PlanarModelSpec& spec) {
  PlanarInputSpec in;
  if (!d.IsMap()) r.fail(d, p, "expected a mapping with a 'type'");
  const YAML::Node type = r.required(d, p, "type", "force, torque, motor or coupling");
  const std::string t = r.string(type, p + ".type");
  if (t == "force") {
    r.check_keys(d, p, {"type", "body", "point", "axis", "direction"});
    in.type = PlanarInputType::kForce;
    in.body = body_ref(r, r.required(d, p, "body", "the body pushed"), p + ".body", spec, false);
    if (const YAML::Node m = d["point"]) in.point = r.vec<2>(m, p + ".point");
    if (d["axis"] && d["direction"]) r.fail(d["direction"], p + ".direction", "not with 'axis'");
    if (const YAML::Node m = d["axis"]) {
      in.direction =
          axis_index(r, m, p + ".axis") == 0 ? Eigen::Vector2d::UnitX() : Eigen::Vector2d::UnitY();
    }
    if (const YAML::Node m = d["direction"]) {
      in.direction = r.vec<2>(m, p + ".direction");
      if (!(in.direction.norm() > 0.0)) r.fail(m, p + ".direction", "must not be zero");
    }
  } else if (t == "torque") {
    r.check_keys(d, p, {"type", "body"});
    in.type = PlanarInputType::kTorque;
    in.body = body_ref(r, r.required(d, p, "body", "the body turned"), p + ".body", spec, false);
  } else if (t == "motor") {
    r.check_keys(d, p, {"type", "joint", "limit"});
    in.type = PlanarInputType::kMotor;
    in.joint = revolute_joint_ref(r, r.required(d, p, "joint", "a revolute joint's name"),
                                  p + ".joint", spec);
    if (const YAML::Node m = d["limit"]) in.limit = r.positive(m, p + ".limit");
  } else if (t == "coupling") {
    r.check_keys(d, p, {"type", "element", "axis"});
    in.element = coupling_ref(r, r.required(d, p, "element", "a coupling force element's name"),
                              p + ".element", spec);
    const int axis = axis_index(r, r.required(d, p, "axis", "x or y"), p + ".axis");
    in.type = axis == 0 ? PlanarInputType::kCouplingX : PlanarInputType::kCouplingY;
    in.initial = spec.forces[static_cast<std::size_t>(in.element)].vector(axis);
  } else {
    r.fail(type, p + ".type",
           "unknown drive type '" + t + "' (valid: force, torque, motor, coupling)");
  }
  return in;
}

// The channel defaults of named inputs: unit and watchdog kind from what each drives, the
// initial value from the drive (a coupling's target starts where its point is).
std::vector<InputChannelSpec> named_input_channels(const PlanarModelSpec& spec) {
  std::vector<InputChannelSpec> out;
  for (const PlanarInputSpec& in : spec.inputs) {
    const bool target =
        in.type == PlanarInputType::kCouplingX || in.type == PlanarInputType::kCouplingY;
    const InputKind kind = in.type == PlanarInputType::kForce ? InputKind::kForce
                           : target                           ? InputKind::kPosition
                                                              : InputKind::kTorque;
    out.push_back(detail::named_input_channel(in.name, in.initial, kind));
  }
  return out;
}

PlanarOutputType parse_output_kind(const Reader& r, const YAML::Node& n, const std::string& key) {
  static const std::pair<const char*, PlanarOutputType> kKinds[] = {
      {"pose", PlanarOutputType::kPose},
      {"velocity", PlanarOutputType::kVelocity},
      {"point_position", PlanarOutputType::kPointPosition},
      {"point_velocity", PlanarOutputType::kPointVelocity},
      {"joint_position", PlanarOutputType::kJointPosition},
      {"joint_velocity", PlanarOutputType::kJointVelocity},
      {"reaction", PlanarOutputType::kReaction},
      {"coupling_force", PlanarOutputType::kCouplingForce},
      {"position_drift", PlanarOutputType::kPositionDrift},
      {"velocity_drift", PlanarOutputType::kVelocityDrift},
      {"energy", PlanarOutputType::kEnergy},
      {"haptic_force", PlanarOutputType::kHapticForce},
      {"coupling_linearization", PlanarOutputType::kCouplingLinearization},
  };
  const std::string s = r.string(n, key);
  std::string valid;
  for (const auto& [name, kind] : kKinds) {
    if (s == name) return kind;
    valid += (valid.empty() ? "" : ", ") + std::string(name);
  }
  r.fail(n, key, "unknown output kind '" + s + "' (valid: " + valid + ")");
}

// outputs.channels: the named outputs streamed instead of q and v
void read_output_channels(const Reader& r,
                          const YAML::Node& outputs,
                          const PlanarModelSpec& spec,
                          std::vector<PlanarOutputSpec>& out) {
  if (!outputs.IsMap()) return;  // read_outputs reports it
  const YAML::Node channels = outputs["channels"];
  if (!channels) return;
  const std::string key = "outputs.channels";
  if (!channels.IsSequence() || channels.size() == 0) {
    r.fail(channels, key, "expected a non-empty list of output channels");
  }
  for (std::size_t i = 0; i < channels.size(); ++i) {
    const YAML::Node n = channels[i];
    const std::string p = key + "[" + std::to_string(i) + "]";
    r.check_keys(n, p, {"name", "kind", "body", "point", "joint", "element", "unit"});
    PlanarOutputSpec o;
    o.name = r.string(r.required(n, p, "name", "the channel's name"), p + ".name");
    if (o.name.empty() || o.name.find(',') != std::string::npos) {
      r.fail(n["name"], p + ".name", "must be non-empty and contain no comma");
    }
    const YAML::Node kind = r.required(n, p, "kind", "what the channel measures");
    o.type = parse_output_kind(r, kind, p + ".kind");
    const bool body_kind =
        o.type == PlanarOutputType::kPose || o.type == PlanarOutputType::kVelocity ||
        o.type == PlanarOutputType::kPointPosition || o.type == PlanarOutputType::kPointVelocity;
    const bool point_kind =
        o.type == PlanarOutputType::kPointPosition || o.type == PlanarOutputType::kPointVelocity;
    const bool joint_kind = o.type == PlanarOutputType::kJointPosition ||
                            o.type == PlanarOutputType::kJointVelocity ||
                            o.type == PlanarOutputType::kReaction;
    const bool element_kind = o.type == PlanarOutputType::kCouplingForce ||
                              o.type == PlanarOutputType::kHapticForce ||
                              o.type == PlanarOutputType::kCouplingLinearization;
    auto only = [&](const char* k, bool allowed, const char* what) {
      if (n[k] && !allowed) r.fail(n[k], p + "." + k, std::string("only for ") + what);
      if (!n[k] && allowed && std::string(k) != "point") {
        r.fail(n, p + "." + k, std::string("missing (needed by kind '") + kind.Scalar() + "')");
      }
    };
    only("body", body_kind, "pose, velocity and point outputs");
    only("point", point_kind, "point outputs");
    only("joint", joint_kind, "joint and reaction outputs");
    only("element", element_kind,
         "coupling_force, haptic_force and coupling_linearization outputs");
    if (body_kind) o.body = body_ref(r, n["body"], p + ".body", spec, false);
    if (point_kind && n["point"]) o.point = r.vec<2>(n["point"], p + ".point");
    if (joint_kind) {
      o.joint = find_named(
          r, n["joint"], p + ".joint", spec.joints,
          [&o](const PlanarJointSpec& j) {
            return o.type == PlanarOutputType::kReaction || j.type == PlanarJointType::kRevolute ||
                   j.type == PlanarJointType::kPrismatic;
          },
          o.type == PlanarOutputType::kReaction ? "a joint" : "a revolute or prismatic joint");
    }
    if (element_kind) o.element = coupling_ref(r, n["element"], p + ".element", spec);
    o.units = default_output_units(o, spec);
    if (const YAML::Node m = n["unit"]) {
      if (m.IsSequence()) {
        if (m.size() != o.units.size()) {
          r.fail(m, p + ".unit", "expected " + std::to_string(o.units.size()) + " units");
        }
        for (std::size_t c = 0; c < m.size(); ++c) {
          o.units[c] = r.string(m[c], p + ".unit[" + std::to_string(c) + "]");
        }
      } else {
        std::fill(o.units.begin(), o.units.end(), r.string(m, p + ".unit"));
      }
    }
    out.push_back(std::move(o));
    // names must be unique channel by channel, as hello announces them
    const auto all = output_channels(out);
    for (std::size_t a = 0; a + 1 < all.size(); ++a) {
      for (std::size_t b =
               all.size() - static_cast<std::size_t>(output_components(out.back().type));
           b < all.size(); ++b) {
        if (a < b && all[a].first == all[b].first) {
          r.fail(n["name"], p + ".name", "channel '" + all[b].first + "' is already defined");
        }
      }
    }
  }
  if (output_channels(out).size() > static_cast<std::size_t>(kSnapshotMaxOutputs)) {
    r.fail(channels, key,
           "at most " + std::to_string(kSnapshotMaxOutputs) + " scalar output channels");
  }
}

// Builds the body model of `root`, assembles its initial conditions and fills the defaults
// that depend on it (channel names, output units).
std::shared_ptr<const PlanarModelSpec> read_body_model(const Reader& r,
                                                       const YAML::Node& root,
                                                       ModelFile& f) {
  auto spec = std::make_shared<PlanarModelSpec>();
  spec->name = std::filesystem::path(r.path()).stem().string();
  if (const YAML::Node m = root["name"]) spec->name = r.string(m, "name");
  read_bodies(r, root["bodies"], *spec);
  if (const YAML::Node n = root["joints"]) read_joints(r, n, *spec);
  if (const YAML::Node n = root["forces"]) read_forces(r, n, *spec);
  const YAML::Node at = root["joints"] ? root["joints"] : root["bodies"];
  try {
    f.notes = assemble(*spec);
  } catch (const AssemblyError& e) {
    r.fail(at, "joints", e.what());
  } catch (const std::invalid_argument& e) {
    r.fail(at, "joints", e.what());
  }
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
  std::vector<InputChannelSpec> out =
      default_input_channels(3 * static_cast<int>(spec.bodies.size()));
  for (std::size_t b = 0; b < spec.bodies.size(); ++b) {
    const char* suffix[3] = {".fx", ".fy", ".tz"};
    for (std::size_t c = 0; c < 3; ++c) {
      InputChannelSpec& ch = out[3 * b + c];
      ch.name = spec.bodies[b].name + suffix[c];
      ch.unit = c < 2 ? "N" : "N*m";
      ch.config.kind = c < 2 ? InputKind::kForce : InputKind::kTorque;
    }
  }
  return out;
}

// Who owns constraint row r of a body model, for the redundant-constraint messages: the joint
// (planar), or the joint or the body whose normalization row it is (spatial).
std::function<std::string(int)> row_owner(const ModelFile& f) {
  return [&f](int r) -> std::string {
    if (f.spatial) {
      const SpatialMultibody sys(*f.spatial);
      if (r < static_cast<int>(f.spatial->bodies.size())) {
        return "body " + f.spatial->bodies[static_cast<std::size_t>(r)].name + " normalization";
      }
      for (std::size_t k = 0; k < f.spatial->joints.size(); ++k) {
        if (r < sys.joint_row(k) + constraint_rows(f.spatial->joints[k].type)) {
          return "joint " + f.spatial->joints[k].name;
        }
      }
    } else if (f.bodies) {
      const PlanarMultibody sys(*f.bodies);
      for (std::size_t k = 0; k < f.bodies->joints.size(); ++k) {
        if (r < sys.joint_row(k) + constraint_rows(f.bodies->joints[k].type)) {
          return "joint " + f.bodies->joints[k].name;
        }
      }
    }
    return "row " + std::to_string(r);
  };
}

}  // namespace

std::vector<InputChannelSpec> default_input_channels(int n_v) {
  std::vector<InputChannelSpec> out(static_cast<std::size_t>(n_v));
  for (int i = 0; i < n_v; ++i) {
    InputChannelSpec& c = out[static_cast<std::size_t>(i)];
    c.name = "f" + std::to_string(i);
    c.unit = "N|N*m";
    c.config.kind = InputKind::kForce;
    c.config.policy = MissPolicy::kHold;
  }
  return out;
}

ModelFile builtin_model_file(const std::string& mechanism, const MechanismOptions& options) {
  const MechanismInfo* info = find_mechanism(mechanism);
  if (info == nullptr) {
    throw std::invalid_argument("unknown model '" + mechanism + "'; valid: " + mechanism_names());
  }
  ModelFile f;
  f.path = mechanism;
  f.mechanism = mechanism;
  f.options = options;
  f.settings.dt = info->default_dt;
  const std::unique_ptr<System> sys = make_mechanism(mechanism, options);
  f.inputs = default_input_channels(sys->n_v());
  return f;
}

ModelFile parse_model_file(const std::string& text, const std::string& path) {
  const Reader r(path);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ModelFileError(path, e.mark.line + 1, e.mark.column + 1, "(syntax)", e.msg);
  }
  if (!root || root.IsNull()) throw ModelFileError(path + ": the file is empty");
  r.check_keys(root, "",
               {"mechanism", "options", "name", "dimension", "bodies", "joints", "forces",
                "redundant_constraints", "integration", "serve", "inputs", "outputs"});

  ModelFile f;
  f.path = path;
  const YAML::Node mech = root["mechanism"];
  std::shared_ptr<const System> sys;
  double default_dt = kBodyModelDefaultDt;
  if (root["bodies"]) {
    // a model described by its bodies; none of the built-in mechanism's keys apply
    for (const char* k : {"mechanism", "options"}) {
      if (const YAML::Node n = root[k]) {
        r.fail(n, k,
               "'mechanism' and 'bodies' are mutually exclusive: a file names a built-in "
               "mechanism or describes bodies, not both");
      }
    }
    if (detail::spatial_dimension(root, path)) {
      f.spatial = detail::read_spatial_model(root, path, f.notes);
      f.spatial_outputs = detail::read_spatial_outputs(root, path, *f.spatial);
      sys = std::make_shared<SpatialMultibody>(*f.spatial);
      f.output_units = detail::spatial_output_units(*f.spatial);
    } else {
      f.bodies = read_body_model(r, root, f);
      sys = std::make_shared<PlanarMultibody>(*f.bodies);
      f.output_units.reserve(static_cast<std::size_t>(sys->n_q() + sys->n_v()));
      for (std::size_t b = 0; b < f.bodies->bodies.size(); ++b) {
        for (const char* u : {"m", "m", "rad"}) f.output_units.emplace_back(u);
      }
      for (std::size_t b = 0; b < f.bodies->bodies.size(); ++b) {
        for (const char* u : {"m/s", "m/s", "rad/s"}) f.output_units.emplace_back(u);
      }
    }
    f.kept_constraint_rows = detail::resolve_redundancy(*sys, root, path, row_owner(f), f.notes);
    sys = make_system(f);
  } else {
    for (const char* k : {"name", "dimension", "joints", "forces", "redundant_constraints"}) {
      if (const YAML::Node n = root[k]) r.fail(n, k, "only with 'bodies'");
    }
    if (!mech) {
      r.fail(root, "mechanism",
             "missing (the built-in mechanism to simulate, or 'bodies' to describe one)");
    }
    f.mechanism = r.string(mech, "mechanism");
    const MechanismInfo* info = find_mechanism(f.mechanism);
    if (info == nullptr) {
      r.fail(mech, "mechanism",
             "unknown mechanism '" + f.mechanism + "' (valid: " + mechanism_names() + ")");
    }
    if (const YAML::Node n = root["options"]) read_options(r, n, f.options);
    try {
      sys = make_mechanism(f.mechanism, f.options);
    } catch (const std::exception& e) {
      r.fail(root["options"] ? root["options"] : mech, "options", e.what());
    }
    default_dt = info->default_dt;
  }
  f.settings.dt = default_dt;
  if (const YAML::Node n = root["integration"]) {
    read_integration(r, n, f.settings);
    try {
      const Model probe(sys, f.settings);
    } catch (const std::invalid_argument& e) {
      // a sparse request the model cannot run is the solver key's fault (Model's message)
      const YAML::Node solver = n["solver"];
      if (solver && std::string_view(e.what()).find("solver sparse") != std::string_view::npos) {
        r.fail(solver, "integration.solver", e.what());
      }
      r.fail(n, "integration", e.what());
    }
  }
  if (const YAML::Node n = root["serve"]) {
    r.check_keys(n, "serve", {"rate_hz"});
    if (const YAML::Node m = n["rate_hz"]) f.rate_hz = r.positive(m, "serve.rate_hz");
  }
  f.inputs = f.bodies    ? body_input_channels(*f.bodies)
             : f.spatial ? detail::spatial_input_channels(*f.spatial)
                         : default_input_channels(sys->n_v());
  if (const YAML::Node n = root["inputs"]) read_inputs(r, n, f, sys->n_v());
  if (const YAML::Node n = root["outputs"]) read_outputs(r, n, f, sys->n_q(), sys->n_v());
  return f;
}

std::unique_ptr<System> make_system(const ModelFile& file) {
  std::unique_ptr<System> sys;
  if (file.spatial) {
    sys = std::make_unique<SpatialMultibody>(*file.spatial);
  } else if (file.bodies) {
    sys = std::make_unique<PlanarMultibody>(*file.bodies);
  } else {
    sys = make_mechanism(file.mechanism, file.options);
  }
  if (file.kept_constraint_rows.empty()) return sys;
  return std::make_unique<IndependentRowsSystem>(std::shared_ptr<const System>(std::move(sys)),
                                                 file.kept_constraint_rows);
}

std::unique_ptr<OutputEvaluator> make_output_evaluator(const ModelFile& file, const System& sys) {
  if (!file.spatial_outputs.empty()) {
    const auto* spatial = dynamic_cast<const SpatialMultibody*>(&sys);
    if (spatial == nullptr) {
      throw std::invalid_argument("output channels need the spatial model the file describes");
    }
    return std::make_unique<SpatialOutputs>(*spatial, file.spatial_outputs);
  }
  if (file.outputs.empty()) return nullptr;
  const auto* body_model = dynamic_cast<const PlanarMultibody*>(&sys);
  if (body_model == nullptr) {
    throw std::invalid_argument("output channels need the body model the file describes");
  }
  return std::make_unique<PlanarOutputs>(*body_model, file.outputs);
}

std::vector<std::pair<std::string, std::string>> model_output_channels(const ModelFile& file) {
  return file.spatial_outputs.empty() ? output_channels(file.outputs)
                                      : output_channels(file.spatial_outputs);
}

std::string model_name(const ModelFile& file) {
  return file.spatial ? file.spatial->name : file.bodies ? file.bodies->name : file.mechanism;
}

ModelFile load_model_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ModelFileError(path + ": cannot open the model file");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw ModelFileError(path + ": cannot read the model file");
  return parse_model_file(text.str(), path);
}

}  // namespace rtmb
