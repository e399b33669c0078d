// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The live view's `scene` message (include/rtmb/net/view_server.hpp, view_scene_json;
// docs/protocol.md "Live view"): what the page draws, written once per model on the view's
// thread, and the built-in mechanisms' own instance whose joint points the frames carry.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "net/json_writer.hpp"
#include "rtmb/models/joint_points.hpp"
#include "rtmb/models/planar_multibody.hpp"
#include "rtmb/net/view_server.hpp"

namespace rtmb {

namespace {

void append_json_vector(std::string& out, const Eigen::Vector3d& p) {
  append_json_point(out, p.x(), p.y(), p.z());
}

}  // namespace

namespace {

// The points each body shows: its centre of mass first, then every joint and spring point, once.
struct SceneGeometry {
  explicit SceneGeometry(std::size_t bodies)
      : points(bodies, std::vector<Eigen::Vector3d>{Eigen::Vector3d::Zero()}) {}

  void add(int body, const Eigen::Vector3d& p) {
    std::vector<Eigen::Vector3d>& list =
        body == kGround ? ground : points[static_cast<std::size_t>(body)];
    for (const Eigen::Vector3d& x : list) {
      if ((x - p).norm() < 1e-12) return;
    }
    list.push_back(p);
  }
  void spring(int bi, const Eigen::Vector3d& pi, int bj, const Eigen::Vector3d& pj) {
    add(bi, pi);
    add(bj, pj);
    springs.push_back({bi, pi, bj, pj});
  }
  // a distance joint: a massless rod between its two points, drawn as a bar
  void bar(int bi, const Eigen::Vector3d& pi, int bj, const Eigen::Vector3d& pj) {
    add(bi, pi);
    add(bj, pj);
    bars.push_back({bi, pi, bj, pj});
  }

  struct Spring {
    int body_i;
    Eigen::Vector3d point_i;
    int body_j;
    Eigen::Vector3d point_j;
  };
  std::vector<std::vector<Eigen::Vector3d>> points;
  std::vector<Eigen::Vector3d> ground;
  std::vector<Spring> springs;
  std::vector<Spring> bars;
};

Eigen::Vector3d lift(const Eigen::Vector2d& p) {
  return {p.x(), p.y(), 0.0};
}

// A beam body's "beam" member: its stations along the axis, each with the nonzero columns of
// S(x) (docs/protocol.md "Live view"), so that the page draws the deformed axis
// R + A(theta) ((x, 0) + S(x) q_f) from q alone, with the engine's shape functions; and, for each
// of the body's points (all on its axis: only revolute joints attach to a beam), the station it
// sits at.
std::string beam_json(const PlanarBeamSpec& beam, const std::vector<Eigen::Vector3d>& points) {
  std::vector<double> at;
  at.reserve(points.size());
  for (const Eigen::Vector3d& p : points) at.push_back(p.x());
  const std::vector<PlanarBeamStation> stations = beam_stations(beam, at);
  std::string out = R"(,"beam":{"length":)";
  append_json_number(out, beam.length);
  out += R"(,"stations":[)";
  for (std::size_t k = 0; k < stations.size(); ++k) {
    const PlanarBeamStation& s = stations[k];
    if (k > 0) out += ',';
    out += R"({"x":)";
    append_json_number(out, s.x);
    out += R"(,"index":[)";
    for (std::size_t c = 0; c < s.index.size(); ++c) {
      if (c > 0) out += ',';
      out += std::to_string(s.index[c]);
    }
    out += R"(],"shape":[)";
    for (std::size_t c = 0; c < s.shape.size(); ++c) {
      if (c > 0) out += ',';
      out += '[';
      append_json_number(out, s.shape[c].x());
      out += ',';
      append_json_number(out, s.shape[c].y());
      out += ']';
    }
    out += "]}";
  }
  out += R"(],"point_stations":[)";
  for (std::size_t k = 0; k < at.size(); ++k) {
    if (k > 0) out += ',';
    // the station nearest the point: beam_stations keeps every point's abscissa (or one within
    // rounding of it)
    std::size_t best = 0;
    for (std::size_t j = 1; j < stations.size(); ++j) {
      if (std::abs(stations[j].x - at[k]) < std::abs(stations[best].x - at[k])) best = j;
    }
    out += std::to_string(best);
  }
  out += "]}";
  return out;
}

// offsets: each body's first coordinate in q; extras: what follows a body's points (a beam's
// "beam" member), empty for most
void write_scene(std::string& out,
                 int dimension,
                 const std::vector<int>& offsets,
                 const std::vector<std::string>& names,
                 const std::vector<std::string>& extras,
                 const SceneGeometry& g) {
  out += R"(,"dimension":)" + std::to_string(dimension) + R"(,"bodies":[)";
  for (std::size_t b = 0; b < names.size(); ++b) {
    if (b > 0) out += ',';
    out += R"({"name":)";
    append_json_string(out, names[b]);
    out += R"(,"q_offset":)" + std::to_string(offsets[b]) + R"(,"points":[)";
    for (std::size_t k = 0; k < g.points[b].size(); ++k) {
      if (k > 0) out += ',';
      append_json_vector(out, g.points[b][k]);
    }
    out += ']';
    out += extras[b];
    out += '}';
  }
  out += R"(],"ground_points":[)";
  for (std::size_t k = 0; k < g.ground.size(); ++k) {
    if (k > 0) out += ',';
    append_json_vector(out, g.ground[k]);
  }
  // springs are drawn as lines between their two points, distance joints as bars
  const auto pairs = [&out](const std::vector<SceneGeometry::Spring>& list) {
    for (std::size_t k = 0; k < list.size(); ++k) {
      const SceneGeometry::Spring& sp = list[k];
      if (k > 0) out += ',';
      out += R"({"body_i":)" + std::to_string(sp.body_i) + R"(,"point_i":)";
      append_json_vector(out, sp.point_i);
      out += R"(,"body_j":)" + std::to_string(sp.body_j) + R"(,"point_j":)";
      append_json_vector(out, sp.point_j);
      out += '}';
    }
  };
  out += R"(],"links":[)";
  pairs(g.springs);
  out += R"(],"bars":[)";
  pairs(g.bars);
  out += "]}";
}

}  // namespace

std::string view_scene_json(const ModelFile& file) {
  std::string out = R"({"type":"scene","model":)";
  append_json_string(out, model_name(file));
  std::vector<std::string> names;
  if (file.bodies) {
    // planar: q = (x, y, theta) per rigid body, (R1, R2, theta, q_f) per beam; points [x, y, 0]
    const PlanarModelSpec& spec = *file.bodies;
    SceneGeometry g(spec.bodies.size());
    for (const PlanarJointSpec& j : spec.joints) {
      if (j.type == PlanarJointType::kDistance) {
        g.bar(j.body_i, lift(j.point_i), j.body_j, lift(j.point_j));
      } else {
        g.add(j.body_i, lift(j.point_i));
        g.add(j.body_j, lift(j.point_j));
      }
    }
    for (const PlanarForceSpec& f : spec.forces) {
      if (f.type == PlanarForceType::kSpringDamper) {
        g.spring(f.body_i, lift(f.point_i), f.body_j, lift(f.point_j));
      } else if (f.type == PlanarForceType::kCoupling) {
        g.add(f.body_i, lift(f.point_i));
      }
    }
    // a beam has 3 + n_elastic coordinates, so the offsets are the model's, not 3 b
    const std::vector<int> offsets = planar_coordinate_offsets(spec);
    std::vector<std::string> extras;
    for (std::size_t b = 0; b < spec.bodies.size(); ++b) {
      const PlanarBodySpec& body = spec.bodies[b];
      names.push_back(body.name);
      extras.push_back(body.kind == PlanarBodyKind::kBeam ? beam_json(body.beam, g.points[b])
                                                          : std::string());
    }
    write_scene(out, 2, offsets, names, extras, g);
    return out;
  }
  if (file.spatial) {
    // spatial: q = (x, y, z, e0, e1, e2, e3) per body
    const SpatialModelSpec& spec = *file.spatial;
    SceneGeometry g(spec.bodies.size());
    for (const SpatialJointSpec& j : spec.joints) {
      if (j.type == SpatialJointType::kDistance) {
        g.bar(j.body_i, j.point_i, j.body_j, j.point_j);
      } else {
        g.add(j.body_i, j.point_i);
        g.add(j.body_j, j.point_j);
      }
    }
    for (const SpatialForceSpec& f : spec.forces) {
      if (f.type == SpatialForceType::kSpringDamper) {
        g.spring(f.body_i, f.point_i, f.body_j, f.point_j);
      }
    }
    std::vector<int> offsets;
    for (const SpatialBodySpec& b : spec.bodies) {
      offsets.push_back(7 * static_cast<int>(names.size()));
      names.push_back(b.name);
    }
    write_scene(out, 3, offsets, names, std::vector<std::string>(names.size()), g);
    return out;
  }
  // built-in mechanisms are written in their own coordinates, without bodies: their joint points
  // (rtmb/models/joint_points.hpp) come in every frame, computed from q by the view's thread, and
  // the scene says which of them the bars join and which are fixed to the ground
  out += R"(,"dimension":2,"bodies":[],"ground_points":[],"links":[],"bars":[])";
  if (const std::unique_ptr<const System> system = view_geometry(file)) {
    const JointPoints* joints = joint_points_of(*system);
    out += R"(,"joints":{"count":)" + std::to_string(joints->n_joint_points()) + R"(,"bars":[)";
    bool first = true;
    for (const JointLink& l : joints->joint_links()) {
      if (!first) out += ',';
      first = false;
      out += '[' + std::to_string(l.a) + ',' + std::to_string(l.b) + ']';
    }
    out += R"(],"ground":[)";
    first = true;
    for (const int g : joints->ground_points()) {
      if (!first) out += ',';
      first = false;
      out += std::to_string(g);
    }
    out += "]}";
  }
  out += '}';
  return out;
}

std::unique_ptr<const System> view_geometry(const ModelFile& file) {
  // built-in mechanisms and particle models (ParticleSystem) carry their drawing as JointPoints
  if (file.mechanism.empty() && !file.particles) return nullptr;
  std::unique_ptr<const System> system = make_system(file);
  return joint_points_of(*system) != nullptr ? std::move(system) : nullptr;
}

}  // namespace rtmb
