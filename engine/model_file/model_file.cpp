// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Model-file loader (include/rtmb/models/model_file.hpp, format in docs/model-format.md). yaml-cpp
// does the parsing; the loader checks every key and value and turns each problem into a
// ModelFileError that names file, line, column and the dotted key. This file: the file as a
// whole (integration settings, options, plain input and output channels) and the entry points;
// planar body models in planar_model_file.cpp and planar_model_channels.cpp, spatial ones in
// spatial_model_file.cpp.
#include "rtmb/models/model_file.hpp"

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
#include "engine/model_file/driven_channels.hpp"
#include "engine/model_file/model_file_strict.hpp"
#include "engine/model_file/model_overrides.hpp"
#include "engine/model_file/particle_model_file.hpp"
#include "engine/model_file/planar_model_file.hpp"
#include "engine/model_file/spatial_model_file.hpp"
#include "engine/model_file/urdf_model_file.hpp"
#include "engine/model_file/yaml_reader.hpp"
#include "rtmb/models/model_overrides.hpp"
#include "rtmb/runtime/simulation_runner.hpp"

namespace rtmb {

ModelFileError::ModelFileError(
    std::string file, int line, int column, std::string key, const std::string& why)
    : std::runtime_error(file + ":" + std::to_string(line) + ":" + std::to_string(column) +
                         ": key '" + key + "': " + why),
      file_(std::move(file)),
      line_(line),
      column_(column),
      key_(std::move(key)),
      reason_(why) {}

ModelFileError::ModelFileError(const std::string& message)
    : std::runtime_error(message), reason_(message) {}

namespace {

constexpr double kNsPerMs = 1e6;
constexpr double kBodyModelDefaultDt = 1e-3;  // [s] for files with `bodies:`

using Reader = detail::YamlReader;
using detail::body_input_channels;
using detail::read_body_model;

std::int64_t ms_to_ns(double ms) {
  return std::llround(ms * kNsPerMs);
}

// One of a table's names at `key`, parsed by `parse` (parse_method, parse_stabilizer, ...); an
// unknown name fails as "unknown <what> 'name' (valid: <valid>)".
template <typename Parse>
auto parse_name(const Reader& r,
                const YAML::Node& m,
                const std::string& key,
                const char* what,
                Parse parse,
                const std::string& valid) {
  const std::string name = r.string(m, key);
  const auto value = parse(name);
  if (!value)
    r.fail(m, key, "unknown " + std::string(what) + " '" + name + "' (valid: " + valid + ")");
  return *value;
}

// An integer in lo..hi at key.
int integer_in(const Reader& r, const YAML::Node& m, const std::string& key, int lo, int hi) {
  const long long k = r.integer(m, key);
  if (k < lo || k > hi) {
    r.fail(m, key, "must be in " + std::to_string(lo) + ".." + std::to_string(hi));
  }
  return static_cast<int>(k);
}

void read_integration(const Reader& r, const YAML::Node& n, Settings& s) {
  const std::string p = "integration";
  r.check_keys(n, p,
               {"method", "stabilizer", "dt", "gamma1", "gamma2", "gamma", "svf_variant",
                "projection_tolerance", "projection_max_iterations", "datol", "monitor", "solver",
                "stabilize_energy"});
  if (const YAML::Node m = n["method"]) {
    s.method = parse_name(r, m, p + ".method", "method", parse_method, method_names());
  }
  if (const YAML::Node m = n["stabilizer"]) {
    s.stabilizer =
        parse_name(r, m, p + ".stabilizer", "stabilizer", parse_stabilizer, stabilizer_names());
  }
  if (const YAML::Node m = n["dt"]) s.dt = r.positive(m, p + ".dt");
  if (const YAML::Node m = n["gamma1"]) s.gamma1 = r.non_negative(m, p + ".gamma1");
  if (const YAML::Node m = n["gamma2"]) s.gamma2 = r.non_negative(m, p + ".gamma2");
  if (const YAML::Node m = n["gamma"]) s.gamma = r.positive(m, p + ".gamma");
  if (const YAML::Node m = n["svf_variant"]) {
    s.svf_variant =
        parse_name(r, m, p + ".svf_variant", "svf_variant", parse_svf_variant, svf_variant_names());
  }
  if (const YAML::Node m = n["projection_tolerance"]) {
    s.projection_tolerance = r.positive(m, p + ".projection_tolerance");
  }
  if (const YAML::Node m = n["projection_max_iterations"]) {
    s.projection_max_iterations = integer_in(r, m, p + ".projection_max_iterations", 1, 1000);
  }
  if (const YAML::Node m = n["datol"]) s.datol = r.non_negative(m, p + ".datol");
  if (const YAML::Node m = n["monitor"]) s.monitor = r.boolean(m, p + ".monitor");
  if (const YAML::Node m = n["stabilize_energy"]) {
    s.stabilize_energy = r.boolean(m, p + ".stabilize_energy");
  }
  if (const YAML::Node m = n["solver"]) {
    s.solver = parse_name(r, m, p + ".solver", "solver", parse_solver, solver_names());
  }
}

void read_options(const Reader& r, const YAML::Node& n, MechanismOptions& o) {
  const std::string p = "options";
  r.check_keys(n, p, {"chain_links", "chain_loop", "robot_omega", "crank_speed"});
  if (const YAML::Node m = n["chain_links"]) {
    o.chain_links = integer_in(r, m, p + ".chain_links", 1, 100000);
  }
  if (const YAML::Node m = n["chain_loop"]) o.chain_loop = r.boolean(m, p + ".chain_loop");
  if (const YAML::Node m = n["robot_omega"]) o.robot_omega = r.positive(m, p + ".robot_omega");
  if (const YAML::Node m = n["crank_speed"]) o.crank_speed = r.positive(m, p + ".crank_speed");
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
    cfg.safe_after_misses = integer_in(r, m, p + ".safe_after_misses", 0, 1'000'000);
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
  } else if (f.joint_space && !f.joint_space->inputs.empty()) {
    n_v = static_cast<int>(f.joint_space->inputs.size());  // urdf_model_file.cpp's drives
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
  // A body model's defaults (body_input_channels) have one channel per velocity coordinate, a
  // beam's elastic ones included; should a default list ever be shorter, a list of n_v channels
  // starts from the per-coordinate defaults instead of writing past its end
  if (static_cast<int>(f.inputs.size()) != n_v) f.inputs = default_input_channels(n_v);
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
    if (!f.bodies && !f.spatial && !f.joint_space) {
      r.fail(n["channels"], p + ".channels", "only for body models ('bodies') and URDF robots");
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
    } else if (f.joint_space) {
      int first = 0;
      for (const TreeClosureSpec& c : f.joint_space->closures) {
        JointSpaceSpec one;
        one.closures.push_back(c);
        first += joint_space_constraint_rows(one);
        if (r < first) return "joint " + c.name;
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

namespace {

ModelFile read_model(const YAML::Node& root, const std::string& path);

YAML::Node parse_yaml(const std::string& text, const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ModelFileError(path, e.mark.line + 1, e.mark.column + 1, "(syntax)", e.msg);
  }
  if (!root || root.IsNull()) throw ModelFileError(path + ": the file is empty");
  return root;
}

// read_model, with any yaml-cpp exception that escapes a reader turned into a ModelFileError at
// its node's position, key "(yaml)". Every reader should check a node's kind before it looks
// inside (YamlReader fails with the key it reads), so such an exception is a loader bug; the user
// still gets the file, line and column. fuzz/fuzz_model.cpp reads through
// detail::parse_model_file_strict, without this guard, so that it finds such bugs.
ModelFile read_model_or_fail(const YAML::Node& root, const std::string& path) {
  try {
    return read_model(root, path);
  } catch (const YAML::Exception& e) {
    throw ModelFileError(path, e.mark.line + 1, e.mark.column + 1, "(yaml)", e.msg);
  }
}

// e with " (value set by override 'KEY' = VALUE)" appended to its reason, at e's position.
ModelFileError blame_override(const ModelFileError& e, const ModelOverride& o) {
  const std::string blame = " (value set by override '" + o.key + "' = " + o.value + ")";
  if (e.line() == 0) return ModelFileError(e.what() + blame);
  return ModelFileError(e.file(), e.line(), e.column(), e.key(), e.reason() + blame);
}

}  // namespace

ModelFile parse_model_file(const std::string& text, const std::string& path) {
  return read_model_or_fail(parse_yaml(text, path), path);
}

ModelFile detail::parse_model_file_strict(const std::string& text, const std::string& path) {
  return read_model(parse_yaml(text, path), path);
}

ModelFile parse_model_file(const std::string& text,
                           const std::string& path,
                           std::span<const ModelOverride> overrides) {
  YAML::Node root = parse_yaml(text, path);
  const std::vector<std::string> keys = detail::apply_overrides(root, overrides, path);
  try {
    return read_model_or_fail(root, path);
  } catch (const ModelFileError& e) {
    // the position of an overridden value is that of the value it replaced (or none, for a new
    // key): say which override set it
    for (std::size_t i = keys.size(); i-- > 0;) {
      if (keys[i] == e.key()) throw blame_override(e, overrides[i]);
    }
    throw;
  }
}

namespace {

ModelFile read_model(const YAML::Node& root, const std::string& path) {
  const Reader r(path);
  r.check_keys(root, "",
               {"mechanism",
                "options",
                "name",
                "dimension",
                "bodies",
                "joints",
                "forces",
                "redundant_constraints",
                "integration",
                "serve",
                "inputs",
                "outputs",
                "urdf",
                "initial_positions",
                "initial_velocities",
                "floating_base",
                "particles",
                "rods",
                "trusses",
                "bendings",
                "pulses",
                "gravity"});

  ModelFile f;
  f.path = path;
  const YAML::Node mech = root["mechanism"];
  std::shared_ptr<const System> sys;
  double default_dt = kBodyModelDefaultDt;
  if (!root["urdf"]) {
    for (const char* k : {"initial_positions", "initial_velocities", "floating_base"}) {
      if (const YAML::Node n = root[k]) r.fail(n, k, "only with 'urdf' (joint names of the robot)");
    }
  }
  if (!root["particles"]) {
    for (const char* k : detail::kParticleModelKeys) {
      if (const YAML::Node n = root[k]) r.fail(n, k, "only with 'particles'");
    }
  }
  if (root["particles"]) {
    // point masses (particle_model_file.cpp): none of the body or mechanism keys apply
    for (const char* k :
         {"mechanism", "options", "bodies", "joints", "forces", "redundant_constraints", "urdf"}) {
      if (const YAML::Node n = root[k]) r.fail(n, k, "not with 'particles'");
    }
    f.particles = detail::read_particle_model(root, path);
    sys = std::make_shared<ParticleSystem>(*f.particles);
    const int dim = f.particles->dimension;
    f.output_units.assign(static_cast<std::size_t>(sys->n_q()), "m");
    f.output_units.insert(f.output_units.end(),
                          static_cast<std::size_t>(dim) * f.particles->particles.size(), "m/s");
  } else if (const YAML::Node urdf = root["urdf"]) {
    // a URDF robot in joint space (urdf_model_file.cpp); the robot's keys come from the URDF
    for (const char* k : {"mechanism", "options", "name", "dimension", "bodies"}) {
      if (const YAML::Node n = root[k]) {
        r.fail(n, k, "not with 'urdf' (the robot is the URDF file's)");
      }
    }
    f.joint_space = detail::read_urdf_model(r, root);
    f.joint_space_outputs = detail::read_urdf_outputs(r, root, *f.joint_space);
    sys = std::make_shared<JointSpaceTree>(*f.joint_space);
    f.output_units = detail::urdf_output_units(*f.joint_space);
    // a tree without closures has no constraint rows: nothing for a stabilizer to correct
    f.settings.stabilizer = detail::joint_space_stabilizer(*f.joint_space);
    f.kept_constraint_rows = detail::resolve_redundancy(*sys, root, path, row_owner(f), f.notes);
    sys = make_system(f);
  } else if (root["bodies"]) {
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
      const auto planar = std::make_shared<PlanarMultibody>(*f.bodies);
      sys = planar;
      // one unit per coordinate of q, then of v: a beam body's elastic coordinates (nodal
      // displacements and slopes) follow its frame's three, with a built-in's generic units
      f.output_units.reserve(static_cast<std::size_t>(sys->n_q() + sys->n_v()));
      const auto body_units = [&](std::initializer_list<const char*> frame, const char* elastic) {
        for (int b = 0; b < static_cast<int>(f.bodies->bodies.size()); ++b) {
          for (const char* u : frame) f.output_units.emplace_back(u);
          for (int k = 3; k < planar->coordinate_count(b); ++k)
            f.output_units.emplace_back(elastic);
        }
      };
      body_units({"m", "m", "rad"}, "m|rad");
      body_units({"m/s", "m/s", "rad/s"}, "m/s|rad/s");
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
      // svf without its gamma: the stabilizer key asked for it
      const YAML::Node stabilizer = n["stabilizer"];
      if (stabilizer &&
          std::string_view(e.what()).find("stabilizer svf") != std::string_view::npos) {
        r.fail(stabilizer, "integration.stabilizer", e.what());
      }
      const YAML::Node energy = n["stabilize_energy"];
      if (energy && std::string_view(e.what()).find("stabilize_energy") != std::string_view::npos) {
        r.fail(energy, "integration.stabilize_energy", e.what());
      }
      r.fail(n, "integration", e.what());
    }
  }
  if (const YAML::Node n = root["serve"]) {
    r.check_keys(n, "serve", {"rate_hz", "clock", "input_margin_us"});
    if (const YAML::Node m = n["rate_hz"]) f.rate_hz = r.positive(m, "serve.rate_hz");
    if (const YAML::Node m = n["clock"]) {
      const std::string name = r.string(m, "serve.clock");
      f.clock = parse_clock_mode(name);
      if (!f.clock) {
        r.fail(m, "serve.clock",
               "unknown clock mode '" + name + "' (valid: wall, phase-lock, device)");
      }
    }
    // a bound of 0.5 s keeps the value far from overflow; the server checks it against half the
    // period, which the file alone does not fix (rtmb serve --rate)
    if (const YAML::Node m = n["input_margin_us"]) {
      f.input_margin_us = integer_in(r, m, "serve.input_margin_us", 0, 500'000);
    }
  }
  f.inputs = f.joint_space ? detail::urdf_input_channels(*f.joint_space)
             : f.bodies    ? body_input_channels(*f.bodies)
             : f.spatial   ? detail::spatial_input_channels(*f.spatial)
                           : default_input_channels(sys->n_v());
  if (const YAML::Node n = root["inputs"]) read_inputs(r, n, f, sys->n_v());
  if (const YAML::Node n = root["outputs"]) read_outputs(r, n, f, sys->n_q(), sys->n_v());
  return f;
}

}  // namespace

std::unique_ptr<System> make_system(const ModelFile& file) {
  std::unique_ptr<System> sys;
  if (file.joint_space) {
    sys = std::make_unique<JointSpaceTree>(*file.joint_space);
  } else if (file.spatial) {
    sys = std::make_unique<SpatialMultibody>(*file.spatial);
  } else if (file.bodies) {
    sys = std::make_unique<PlanarMultibody>(*file.bodies);
  } else if (file.particles) {
    sys = std::make_unique<ParticleSystem>(*file.particles);
  } else {
    sys = make_mechanism(file.mechanism, file.options);
  }
  if (file.kept_constraint_rows.empty()) return sys;
  return std::make_unique<IndependentRowsSystem>(std::shared_ptr<const System>(std::move(sys)),
                                                 file.kept_constraint_rows);
}

std::unique_ptr<OutputEvaluator> make_output_evaluator(const ModelFile& file, const System& sys) {
  if (!file.joint_space_outputs.empty()) {
    // the tree itself, or under the IndependentRowsSystem of `redundant_constraints: remove`
    const auto* tree = dynamic_cast<const JointSpaceTree*>(&underlying_system(sys));
    if (tree == nullptr) {
      throw std::invalid_argument("output channels need the joint-space tree the file describes");
    }
    return std::make_unique<JointSpaceOutputs>(sys, *tree, file.joint_space_outputs);
  }
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
  if (!file.joint_space_outputs.empty()) return output_channels(file.joint_space_outputs);
  return file.spatial_outputs.empty() ? output_channels(file.outputs)
                                      : output_channels(file.spatial_outputs);
}

std::string model_name(const ModelFile& file) {
  if (file.joint_space) return file.joint_space->name;
  if (file.particles) return file.particles->name;
  return file.spatial ? file.spatial->name : file.bodies ? file.bodies->name : file.mechanism;
}

namespace {

std::string read_file_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ModelFileError(path + ": cannot open the model file");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw ModelFileError(path + ": cannot read the model file");
  return text.str();
}

}  // namespace

ModelFile load_model_file(const std::string& path) {
  // a URDF robot is recognized by its extension, as ROS tools do
  if (path.ends_with(".urdf")) return detail::urdf_model_file(read_file_text(path), path);
  return parse_model_file(read_file_text(path), path);
}

ModelFile load_model_file(const std::string& path, std::span<const ModelOverride> overrides) {
  if (path.ends_with(".urdf")) {
    if (!overrides.empty()) {
      throw ModelFileError(path + ": overrides apply to YAML model files, not to a URDF robot");
    }
    return detail::urdf_model_file(read_file_text(path), path);
  }
  return parse_model_file(read_file_text(path), path, overrides);
}

}  // namespace rtmb