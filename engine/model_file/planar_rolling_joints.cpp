// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Model-file reader of `knife_edge` and `rolling_wheel` joints (planar_rolling_joints.hpp; the
// rows are engine/multibody/planar_knife_edge.hpp and planar_rolling_wheel.hpp).
#include "engine/model_file/planar_rolling_joints.hpp"

#include <Eigen/Core>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "engine/model_file/spec_refs.hpp"

namespace rtmb::detail {

namespace {

void check_unique(const YamlReader& r,
                  const YAML::Node& j,
                  const std::string& p,
                  const std::string& name,
                  const PlanarModelSpec& spec,
                  const std::vector<PlanarJointSpec>& last) {
  for (const auto* list : {&spec.joints, &last}) {
    for (const PlanarJointSpec& other : *list) {
      if (other.name == name)
        r.fail(j["name"] ? j["name"] : j, p + ".name", "duplicate joint name");
    }
  }
}

// a unit vector from a non-zero list of 2 numbers at `key`
Eigen::Vector2d unit(const YamlReader& r, const YAML::Node& n, const std::string& key) {
  const Eigen::Vector2d x = r.vec<2>(n, key);
  if (!(x.norm() > 0.0)) r.fail(n, key, "must not be zero");
  return x.normalized();
}

}  // namespace

bool read_rolling_joint(const YamlReader& r,
                        const YAML::Node& j,
                        const std::string& p,
                        PlanarModelSpec& spec,
                        std::vector<PlanarJointSpec>& last) {
  const YAML::Node type = j.IsMap() ? j["type"] : YAML::Node();
  if (!type || !type.IsScalar()) return false;
  const std::string t = type.as<std::string>();
  if (t != "knife_edge" && t != "rolling_wheel") return false;
  PlanarJointSpec jt;
  jt.name = item_name(r, j, p, p);
  check_unique(r, j, p, jt.name, spec, last);
  if (t == "knife_edge") {
    // the blade at `point` of `body` moves along `axis` (body frame), never across it
    r.check_keys(j, p, {"name", "type", "body", "point", "axis"});
    jt.type = PlanarJointType::kKnifeEdge;
    jt.body_i =
        body_ref(r, r.required(j, p, "body", "the body on the blade"), p + ".body", spec, false);
    jt.body_j = kGround;
    if (const YAML::Node m = j["point"]) jt.point_i = r.vec<2>(m, p + ".point");
    if (const YAML::Node m = j["axis"]) jt.axis = unit(r, m, p + ".axis");
    last.push_back(std::move(jt));
    return true;
  }
  // rolling_wheel: body_j the wheel (centre at `point`, body frame), body_i the ground line
  // through `origin` along `direction`, the wheel on its left
  r.check_keys(j, p, {"name", "type", "body", "point", "radius", "origin", "direction"});
  jt.type = PlanarJointType::kRollingContact;
  jt.body_i = kGround;
  jt.body_j = body_ref(r, r.required(j, p, "body", "the wheel"), p + ".body", spec, false);
  if (const YAML::Node m = j["point"]) jt.point_j = r.vec<2>(m, p + ".point");
  jt.radius = r.positive(r.required(j, p, "radius", "m"), p + ".radius");
  if (const YAML::Node m = j["origin"]) jt.point_i = r.vec<2>(m, p + ".origin");
  const YAML::Node dir = r.required(j, p, "direction", "the line's world direction");
  jt.axis = unit(r, dir, p + ".direction");
  // the contact row n . (c - o) = r keeps the centre on the left (n = S t); a wheel given on the
  // right would be pulled through the line by assembly, so say so instead
  const Eigen::Vector3d& pose = spec.bodies[static_cast<std::size_t>(jt.body_j)].pose;
  const double c = std::cos(pose.z());
  const double sn = std::sin(pose.z());
  const Eigen::Vector2d centre =
      pose.head<2>() + Eigen::Vector2d(c * jt.point_j.x() - sn * jt.point_j.y(),
                                       sn * jt.point_j.x() + c * jt.point_j.y());
  const Eigen::Vector2d n(-jt.axis.y(), jt.axis.x());
  if (!(n.dot(centre - jt.point_i) > 0.0)) {
    r.fail(dir, p + ".direction",
           "the wheel's centre must start on the left of the line's direction (reverse it)");
  }
  PlanarJointSpec no_slip = jt;
  no_slip.name = jt.name + ".no_slip";
  no_slip.type = PlanarJointType::kRollingNoSlip;
  check_unique(r, j, p, no_slip.name, spec, last);
  spec.joints.push_back(std::move(jt));
  last.push_back(std::move(no_slip));
  return true;
}

}  // namespace rtmb::detail
