// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Particle models in model files (engine/model_file/particle_model_file.hpp; format in
// docs/model-format.md, "Particles, rods, trusses and bending elements").
#include "engine/model_file/particle_model_file.hpp"

#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "engine/model_file/spatial_model_file.hpp"
#include "engine/model_file/spec_refs.hpp"
#include "engine/model_file/yaml_reader.hpp"

namespace rtmb::detail {
namespace {

using In = YamlReader;

// a list of `dim` numbers as a 3-vector (z = 0 in the plane)
Eigen::Vector3d point(const In& in, const YAML::Node& n, const std::string& key, int dim) {
  Eigen::Vector3d x = Eigen::Vector3d::Zero();
  if (dim == 3) return in.vec3(n, key);
  x.head<2>() = in.vec<2>(n, key);
  return x;
}

// index of the particle named at n
int particle_ref(const In& in,
                 const YAML::Node& n,
                 const std::string& key,
                 const ParticleModelSpec& spec) {
  const std::string name = in.string(n, key);
  std::string valid;
  for (std::size_t k = 0; k < spec.particles.size(); ++k) {
    if (spec.particles[k].name == name) return static_cast<int>(k);
    valid += (k == 0 ? "" : ", ") + spec.particles[k].name;
  }
  in.fail(n, key, "unknown particle '" + name + "' (valid: " + valid + ")");
}

// `key: [a, b, ...]`, exactly `count` particle names
std::vector<int> particle_list(const In& in,
                               const YAML::Node& n,
                               const std::string& key,
                               std::size_t count,
                               const ParticleModelSpec& spec) {
  if (!n.IsSequence() || n.size() != count) {
    in.fail(n, key, "expected a list of " + std::to_string(count) + " particle names");
  }
  std::vector<int> out;
  for (std::size_t i = 0; i < count; ++i) {
    const int p = particle_ref(in, n[i], key + "[" + std::to_string(i) + "]", spec);
    for (const int other : out) {
      if (other == p)
        in.fail(n[i], key,
                "names particle '" + spec.particles[static_cast<std::size_t>(p)].name + "' twice");
    }
    out.push_back(p);
  }
  return out;
}

const YAML::Node& list_of(const In& in, const YAML::Node& n, const std::string& key) {
  if (!n.IsSequence()) in.fail(n, key, "expected a list");
  return n;
}

void read_particles(const In& in, const YAML::Node& n, ParticleModelSpec& spec) {
  if (!n.IsSequence() || n.size() == 0) {
    in.fail(n, "particles", "expected a non-empty list of particles");
  }
  for (std::size_t k = 0; k < n.size(); ++k) {
    const YAML::Node e = n[k];
    const std::string p = "particles[" + std::to_string(k) + "]";
    in.check_keys(e, p, {"name", "mass", "position", "velocity"});
    ParticleSpec s;
    const YAML::Node name = in.required(e, p, "name", "every particle needs a name");
    s.name = item_name(in, e, p, "");
    for (const ParticleSpec& other : spec.particles) {
      if (other.name == s.name)
        in.fail(name, p + ".name", "duplicate particle name '" + s.name + "'");
    }
    s.mass = in.positive(in.required(e, p, "mass", "kg"), p + ".mass");
    s.position = point(in, in.required(e, p, "position", "m"), p + ".position", spec.dimension);
    if (const YAML::Node m = e["velocity"])
      s.velocity = point(in, m, p + ".velocity", spec.dimension);
    spec.particles.push_back(s);
  }
}

void read_rods(const In& in, const YAML::Node& n, ParticleModelSpec& spec) {
  for (std::size_t k = 0; k < list_of(in, n, "rods").size(); ++k) {
    const YAML::Node e = n[k];
    const std::string p = "rods[" + std::to_string(k) + "]";
    in.check_keys(e, p, {"name", "between", "particle", "anchor", "length"});
    ParticleRodSpec s;
    s.name = item_name(in, e, p, p);
    if (const YAML::Node b = e["between"]) {
      for (const char* other : {"particle", "anchor"}) {
        if (e[other]) in.fail(e[other], p + "." + other, "not with 'between'");
      }
      const std::vector<int> ends = particle_list(in, b, p + ".between", 2, spec);
      s.i = ends[0];
      s.j = ends[1];
    } else {
      s.j = particle_ref(in, in.required(e, p, "particle", "or 'between': the rod's particles"),
                         p + ".particle", spec);
      s.anchor =
          point(in, in.required(e, p, "anchor", "the fixed end, m"), p + ".anchor", spec.dimension);
    }
    const YAML::Node length = in.required(e, p, "length", "m");
    s.length = in.positive(length, p + ".length");
    // a particle model is not assembled: the given positions must satisfy the rod
    const Eigen::Vector3d xi =
        s.i == kFixedPoint ? s.anchor : spec.particles[static_cast<std::size_t>(s.i)].position;
    const double l = (spec.particles[static_cast<std::size_t>(s.j)].position - xi).norm();
    if (std::fabs(l - s.length) > 1e-9 * s.length) {
      in.fail(length, p + ".length",
              "the initial positions are " + std::to_string(l) +
                  " m apart (particle models are not assembled: give consistent positions)");
    }
    spec.rods.push_back(s);
  }
}

void read_trusses(const In& in, const YAML::Node& n, ParticleModelSpec& spec) {
  for (std::size_t k = 0; k < list_of(in, n, "trusses").size(); ++k) {
    const YAML::Node e = n[k];
    const std::string p = "trusses[" + std::to_string(k) + "]";
    in.check_keys(e, p, {"name", "between", "stiffness", "rest", "strain"});
    TrussSpec s;
    s.name = item_name(in, e, p, p);
    const std::vector<int> ends = particle_list(
        in, in.required(e, p, "between", "two particle names"), p + ".between", 2, spec);
    s.i = ends[0];
    s.j = ends[1];
    s.stiffness = in.non_negative(in.required(e, p, "stiffness", "EA, N"), p + ".stiffness");
    if (const YAML::Node m = e["rest"]) {
      s.rest = in.positive(m, p + ".rest");
    } else {
      // default: unstretched at the initial positions
      s.rest = (spec.particles[static_cast<std::size_t>(s.j)].position -
                spec.particles[static_cast<std::size_t>(s.i)].position)
                   .norm();
      if (!(s.rest > 0.0)) in.fail(e, p + ".rest", "missing, and the two particles coincide");
    }
    if (const YAML::Node m = e["strain"]) {
      const std::string strain = in.string(m, p + ".strain");
      if (strain == "green") {
        s.strain = StrainMeasure::kGreen;
      } else if (strain == "linear") {
        s.strain = StrainMeasure::kLinear;
      } else {
        in.fail(m, p + ".strain", "expected green or linear");
      }
    }
    spec.trusses.push_back(s);
  }
}

void read_bendings(const In& in, const YAML::Node& n, ParticleModelSpec& spec) {
  for (std::size_t k = 0; k < list_of(in, n, "bendings").size(); ++k) {
    const YAML::Node e = n[k];
    const std::string p = "bendings[" + std::to_string(k) + "]";
    in.check_keys(e, p, {"name", "points", "stiffness"});
    BendingSpec s;
    s.name = item_name(in, e, p, p);
    const std::vector<int> pts = particle_list(
        in, in.required(e, p, "points", "[a, b, c]: c is the vertex"), p + ".points", 3, spec);
    s.a = pts[0];
    s.b = pts[1];
    s.c = pts[2];
    s.stiffness = in.non_negative(in.required(e, p, "stiffness", "C_b, J"), p + ".stiffness");
    const Eigen::Vector3d xc = spec.particles[static_cast<std::size_t>(s.c)].position;
    const Eigen::Vector3d r1 = spec.particles[static_cast<std::size_t>(s.a)].position - xc;
    const Eigen::Vector3d r2 = spec.particles[static_cast<std::size_t>(s.b)].position - xc;
    // V = C_b (nu + psi) / (2 (nu - psi)) is infinite when the element is folded (alpha = 0)
    if (!(r1.norm() * r2.norm() - r1.dot(r2) > 1e-12 * r1.norm() * r2.norm())) {
      in.fail(e["points"], p + ".points",
              "the element is folded or degenerate at the initial positions");
    }
    spec.bendings.push_back(s);
  }
}

void read_pulses(const In& in, const YAML::Node& n, ParticleModelSpec& spec) {
  for (std::size_t k = 0; k < list_of(in, n, "pulses").size(); ++k) {
    const YAML::Node e = n[k];
    const std::string p = "pulses[" + std::to_string(k) + "]";
    in.check_keys(e, p, {"name", "particle", "peak", "start", "duration"});
    PulseSpec s;
    s.name = item_name(in, e, p, p);
    s.particle = particle_ref(in, in.required(e, p, "particle", "the particle it pushes"),
                              p + ".particle", spec);
    s.peak = point(in, in.required(e, p, "peak", "the force at the apex, N"), p + ".peak",
                   spec.dimension);
    if (const YAML::Node m = e["start"]) s.start = in.non_negative(m, p + ".start");
    s.duration = in.positive(in.required(e, p, "duration", "s"), p + ".duration");
    spec.pulses.push_back(s);
  }
}

}  // namespace

std::shared_ptr<const ParticleModelSpec> read_particle_model(const YAML::Node& root,
                                                             const std::string& path) {
  const In in(path);
  auto spec = std::make_shared<ParticleModelSpec>();
  spec->dimension = spatial_dimension(root, path) ? 3 : 2;
  if (const YAML::Node m = root["name"]) {
    spec->name = in.string(m, "name");
  } else {
    spec->name = std::filesystem::path(path).stem().string();
  }
  read_particles(in, root["particles"], *spec);
  if (const YAML::Node m = root["rods"]) read_rods(in, m, *spec);
  if (const YAML::Node m = root["trusses"]) read_trusses(in, m, *spec);
  if (const YAML::Node m = root["bendings"]) read_bendings(in, m, *spec);
  if (const YAML::Node m = root["pulses"]) read_pulses(in, m, *spec);
  if (const YAML::Node m = root["gravity"])
    spec->gravity = point(in, m, "gravity", spec->dimension);
  try {
    const ParticleSystem check(*spec);
  } catch (const std::invalid_argument& e) {
    in.fail(root["particles"], "particles", e.what());
  }
  return spec;
}

}  // namespace rtmb::detail
