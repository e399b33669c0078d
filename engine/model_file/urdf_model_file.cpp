// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// URDF -> joint-space tree. The XML and the tree (one parent per link, one root) are checked by
// liburdfdom (urdf::parseURDF); its complaints go through console_bridge, which we capture so that
// the user reads them in our error instead of on stderr. What the URDF specification
// (wiki.ros.org/urdf/XML) says and how it maps:
//   <joint><origin xyz rpy>: the child frame at q = 0 in the parent link's frame; rpy are fixed-
//     axis roll, pitch, yaw, R = Rz(yaw) Ry(pitch) Rx(roll) (urdfdom turns them into a
//     quaternion, which we read);
//   <axis xyz>: in the joint (= child) frame, default (1, 0, 0);
//   <inertial><origin xyz rpy>: the centre of mass and the frame of <inertia>, so the link-frame
//     inertia about the centre of mass is R I R^T;
//   <dynamics damping>: a viscous damper on the joint coordinate;
//   <mimic joint multiplier offset>: the constraint row q = multiplier q_joint + offset.
// Loop closures, forces and output channels come from the YAML file that names the URDF
// (read_closures, read_tree_forces, read_urdf_outputs below). Revolute and continuous joints are
// the same here (<limit> is not enforced). A planar joint moves in the plane normal to its axis
// (coordinates x, y, angle), a floating joint freely (translation, then Euler parameters e0..e3):
// rtmb/models/joint_space_tree.hpp. `floating_base: true` in the YAML file puts a floating joint
// named "floating_base" between the world and the root link (a URDF's root is otherwise welded to
// the world).

#include "engine/model_file/urdf_model_file.hpp"

#include <console_bridge/console.h>
#include <urdf_parser/urdf_parser.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "engine/model_file/driven_channels.hpp"
#include "engine/model_file/element_readers.hpp"
#include "engine/model_file/output_channel_readers.hpp"
#include "engine/model_file/planar_model_file.hpp"

namespace rtmb::detail {
namespace {

constexpr double kUrdfDefaultDt = 1e-3;  // [s]

// Collects urdfdom's messages while it parses (setup-only, one parse at a time).
class CapturedMessages final : public console_bridge::OutputHandler {
 public:
  CapturedMessages() { console_bridge::useOutputHandler(this); }
  ~CapturedMessages() override { console_bridge::restorePreviousOutputHandler(); }
  CapturedMessages(const CapturedMessages&) = delete;
  CapturedMessages& operator=(const CapturedMessages&) = delete;

  void log(const std::string& text,
           console_bridge::LogLevel level,
           const char* /*filename*/,
           int /*line*/) override {
    if (level < console_bridge::CONSOLE_BRIDGE_LOG_ERROR) return;
    if (!text_.empty()) text_ += "; ";
    text_ += text;
  }
  [[nodiscard]] const std::string& text() const noexcept { return text_; }

 private:
  std::string text_;
};

struct Position {
  int line = 0;
  int column = 0;
};

// Line and column of the element <KIND ... name="NAME" ...> in the text (0, 0 when not found):
// urdfdom keeps no positions, and an error should point at the element.
Position find_element(const std::string& text, const std::string& kind, const std::string& name) {
  const std::string open = "<" + kind;
  for (std::size_t at = text.find(open); at != std::string::npos; at = text.find(open, at + 1)) {
    const std::size_t end = text.find('>', at);
    if (end == std::string::npos) break;
    const std::string tag = text.substr(at, end - at);
    if (tag.find("name=\"" + name + "\"") == std::string::npos &&
        tag.find("name='" + name + "'") == std::string::npos) {
      continue;
    }
    Position p;
    p.line = 1;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < at; ++i) {
      if (text[i] == '\n') {
        ++p.line;
        line_start = i + 1;
      }
    }
    p.column = static_cast<int>(at - line_start) + 1;
    return p;
  }
  return {};
}

[[noreturn]] void fail(const std::string& text,
                       const std::string& path,
                       const std::string& kind,
                       const std::string& name,
                       const std::string& why) {
  const Position p = find_element(text, kind, name);
  throw ModelFileError(path, p.line, p.column, kind + " " + name, why);
}

Eigen::Matrix3d rotation_of(const urdf::Rotation& r) {
  return Eigen::Quaterniond(r.w, r.x, r.y, r.z).normalized().toRotationMatrix();
}

Eigen::Vector3d vector_of(const urdf::Vector3& v) {
  return {v.x, v.y, v.z};
}

}  // namespace

JointSpaceSpec parse_urdf(const std::string& text, const std::string& path) {
  urdf::ModelInterfaceSharedPtr robot;
  std::string complaints;
  {
    CapturedMessages messages;
    robot = urdf::parseURDF(text);
    complaints = messages.text();
  }
  if (!robot) {
    throw ModelFileError(path + ": not a valid URDF robot (urdfdom: " +
                         (complaints.empty() ? std::string("no reason given") : complaints) + ")");
  }
  JointSpaceSpec spec;
  spec.name = robot->getName().empty() ? std::string("urdf") : robot->getName();
  // links in depth-first order from the root, children in the file's order of their joints
  std::map<std::string, int> index;
  std::vector<urdf::LinkConstSharedPtr> stack{robot->getRoot()};
  while (!stack.empty()) {
    const urdf::LinkConstSharedPtr link = stack.back();
    stack.pop_back();
    index[link->name] = static_cast<int>(spec.links.size());
    TreeLinkSpec l;
    l.name = link->name;
    if (const urdf::InertialSharedPtr& in = link->inertial) {
      Eigen::Matrix3d inertia;
      inertia << in->ixx, in->ixy, in->ixz, in->ixy, in->iyy, in->iyz, in->ixz, in->iyz, in->izz;
      const Eigen::Matrix3d r = rotation_of(in->origin.rotation);
      l.mass = in->mass;
      l.com = vector_of(in->origin.position);
      l.inertia = r * inertia * r.transpose();
      if (!(l.mass >= 0.0)) fail(text, path, "link", l.name, "inertial mass must be >= 0");
    }
    spec.links.push_back(std::move(l));
    for (auto it = link->child_links.rbegin(); it != link->child_links.rend(); ++it) {
      stack.push_back(*it);
    }
  }
  // joints in the order of their child links, so coordinate k follows the tree's order
  std::vector<std::pair<int, TreeJointSpec>> joints;
  for (const auto& [name, joint] : robot->joints_) {
    TreeJointSpec j;
    j.name = name;
    switch (joint->type) {
      case urdf::Joint::REVOLUTE:
      case urdf::Joint::CONTINUOUS:
        j.type = TreeJointType::kRevolute;
        break;
      case urdf::Joint::PRISMATIC:
        j.type = TreeJointType::kPrismatic;
        break;
      case urdf::Joint::FIXED:
        j.type = TreeJointType::kFixed;
        break;
      case urdf::Joint::PLANAR:
        j.type = TreeJointType::kPlanar;
        break;
      case urdf::Joint::FLOATING:
        j.type = TreeJointType::kFloating;
        break;
      default:
        fail(text, path, "joint", name,
             "this joint type is not supported (revolute, continuous, prismatic, fixed, planar, "
             "floating)");
    }
    j.parent = index.at(joint->parent_link_name);
    j.child = index.at(joint->child_link_name);
    j.origin_xyz = vector_of(joint->parent_to_joint_origin_transform.position);
    j.origin_rotation = rotation_of(joint->parent_to_joint_origin_transform.rotation);
    j.axis = vector_of(joint->axis);
    if (j.type != TreeJointType::kFixed && j.type != TreeJointType::kFloating &&
        !(j.axis.norm() > 0.0)) {
      fail(text, path, "joint", name, "axis must be non-zero");
    }
    if (joint->dynamics && tree_joint_coordinates(j.type) > 1 && joint->dynamics->damping != 0.0) {
      fail(text, path, "joint", name,
           "<dynamics damping> is not supported on a planar or floating joint");
    }
    if (joint->dynamics && tree_joint_coordinates(j.type) == 1) {
      j.damping = joint->dynamics->damping;
      if (!(j.damping >= 0.0)) fail(text, path, "joint", name, "dynamics damping must be >= 0");
    }
    joints.emplace_back(j.child, std::move(j));
  }
  std::sort(joints.begin(), joints.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [child, j] : joints) spec.joints.push_back(std::move(j));
  // <mimic joint multiplier offset>: q = multiplier q_joint + offset as a constraint row (the URDF
  // specification's meaning), named after the mimicking joint
  for (const auto& [name, joint] : robot->joints_) {
    if (!joint->mimic) continue;
    TreeClosureSpec c;
    c.name = name;
    c.type = TreeClosureType::kMimic;
    for (std::size_t k = 0; k < spec.joints.size(); ++k) {
      if (spec.joints[k].name == name) c.joint = static_cast<int>(k);
      if (spec.joints[k].name == joint->mimic->joint_name) c.mimicked = static_cast<int>(k);
    }
    if (c.mimicked < 0) {
      fail(text, path, "joint", name,
           "<mimic> names joint '" + joint->mimic->joint_name + "', which is not in the robot");
    }
    c.multiplier = joint->mimic->multiplier;
    c.offset = joint->mimic->offset;
    spec.closures.push_back(std::move(c));
  }
  std::unique_ptr<JointSpaceTree> probe;
  try {
    probe = std::make_unique<JointSpaceTree>(spec);
  } catch (const std::invalid_argument& e) {
    throw ModelFileError(path + ": " + e.what());
  }
  // A joint that carries no mass and no inertia about its own axis leaves M singular (a zero
  // diagonal entry, H_ii = S_i^T I^c_i S_i, RBDA eq. 6.12), and the step would fail at its first
  // solve: refuse it here, by name. Checked at q = 0, where a URDF robot starts.
  const Vec q = Vec::Zero(probe->n_q());
  Mat m(probe->n_v(), probe->n_v());
  probe->mass(0.0, q, m);
  const double scale = std::max(1.0, m.diagonal().cwiseAbs().maxCoeff());
  for (std::size_t j = 0; j < spec.joints.size(); ++j) {
    const int k = probe->coordinate(static_cast<int>(j));
    if (k >= 0 && !(m(k, k) > 1e-12 * scale)) {
      fail(text, path, "joint", spec.joints[j].name,
           "moves no mass (the links it carries have no <inertial> with mass or inertia about its "
           "axis): the mass matrix would be singular");
    }
  }
  return spec;
}

namespace {

// Per coordinate of joint j: its channel name (the joint's name; a planar or floating joint's
// coordinates get /x, /y, /angle or /x, /y, /z, /e0 .. /e3) and whether it is an angle-like
// coordinate (rad, N m) rather than a length (m, N). Euler parameters are dimensionless: their
// conjugate generalized force is a torque.
struct CoordinateName {
  std::string name;
  bool angular;
};

std::vector<CoordinateName> coordinate_names(const TreeJointSpec& j) {
  switch (j.type) {
    case TreeJointType::kRevolute:
      return {{j.name, true}};
    case TreeJointType::kPrismatic:
      return {{j.name, false}};
    case TreeJointType::kFixed:
      return {};
    case TreeJointType::kPlanar:
      return {{j.name + "/x", false}, {j.name + "/y", false}, {j.name + "/angle", true}};
    case TreeJointType::kFloating:
      return {{j.name + "/x", false}, {j.name + "/y", false}, {j.name + "/z", false},
              {j.name + "/e0", true}, {j.name + "/e1", true}, {j.name + "/e2", true},
              {j.name + "/e3", true}};
  }
  return {};
}

}  // namespace

std::vector<InputChannelSpec> urdf_input_channels(const JointSpaceSpec& spec) {
  if (!spec.inputs.empty()) {
    // named channels (`drive` keys): unit and watchdog kind from what each drives
    std::vector<InputChannelSpec> named;
    for (const TreeInputSpec& u : spec.inputs) {
      const bool prismatic =
          u.type == TreeInputType::kJointForce &&
          spec.joints[static_cast<std::size_t>(u.joint)].type == TreeJointType::kPrismatic;
      const InputKind kind = u.type != TreeInputType::kJointForce ? InputKind::kPosition
                             : prismatic                          ? InputKind::kForce
                                                                  : InputKind::kTorque;
      named.push_back(named_input_channel(u.name, u.initial, kind));
    }
    return named;
  }
  std::vector<InputChannelSpec> out;
  for (const TreeJointSpec& j : spec.joints) {
    for (const CoordinateName& n : coordinate_names(j)) {
      InputChannelSpec c;
      c.name = n.name;
      c.unit = n.angular ? "N*m" : "N";
      c.config.kind = InputKind::kForce;
      c.config.policy = MissPolicy::kHold;
      out.push_back(std::move(c));
    }
  }
  return out;
}

std::vector<std::string> urdf_output_units(const JointSpaceSpec& spec) {
  std::vector<std::string> out;
  for (const bool rate : {false, true}) {
    for (const TreeJointSpec& j : spec.joints) {
      for (const CoordinateName& n : coordinate_names(j)) {
        const bool euler = j.type == TreeJointType::kFloating && n.angular;
        if (euler) {
          out.emplace_back(rate ? "1/s" : "1");
        } else {
          out.emplace_back(n.angular ? (rate ? "rad/s" : "rad") : (rate ? "m/s" : "m"));
        }
      }
    }
  }
  return out;
}

ModelFile urdf_model_file(const std::string& text, const std::string& path) {
  ModelFile f;
  f.path = path;
  f.joint_space = std::make_shared<const JointSpaceSpec>(parse_urdf(text, path));
  f.settings.dt = kUrdfDefaultDt;
  // a tree without <mimic> rows has nothing for a stabilizer to correct
  f.settings.stabilizer = joint_space_stabilizer(*f.joint_space);
  f.inputs = urdf_input_channels(*f.joint_space);
  f.output_units = urdf_output_units(*f.joint_space);
  return f;
}

StabilizerKind joint_space_stabilizer(const JointSpaceSpec& spec) noexcept {
  return joint_space_constraint_rows(spec) > 0 ? StabilizerKind::kPStab : StabilizerKind::kNone;
}

namespace {

// A link of the robot by name; "world" is the world (URDF's usual name for it) unless the robot
// has a link of that name, which is its root and so welded to the world anyway.
int link_named(const YamlReader& r,
               const JointSpaceSpec& spec,
               const YAML::Node& n,
               const std::string& key) {
  const std::string name = r.string(n, key);
  std::string links;
  for (std::size_t l = 0; l < spec.links.size(); ++l) {
    if (spec.links[l].name == name) return static_cast<int>(l);
    links += (links.empty() ? "" : ", ") + spec.links[l].name;
  }
  if (name == "world") return -1;
  r.fail(n, key, "no link '" + name + "' in the URDF (links: world, " + links + ")");
}

// `floating_base: true`: a floating joint from the world to the root link (link 0, the root in
// parse_urdf's order), placed first so that its 7 coordinates lead q.
void add_floating_base(const YamlReader& r, const YAML::Node& n, JointSpaceSpec& spec) {
  for (const TreeJointSpec& j : spec.joints) {
    if (j.child == 0) {
      r.fail(n, "floating_base",
             "the root link '" + spec.links[0].name + "' already has joint '" + j.name +
                 "' to the world");
    }
    if (j.name == "floating_base") {
      r.fail(n, "floating_base", "the URDF already has a joint named 'floating_base'");
    }
  }
  TreeJointSpec base;
  base.name = "floating_base";
  base.type = TreeJointType::kFloating;
  base.parent = -1;
  base.child = 0;
  spec.joints.insert(spec.joints.begin(), std::move(base));
  // the closures index joints: shift them past the new first joint
  for (TreeClosureSpec& c : spec.closures) {
    if (c.joint >= 0) ++c.joint;
    if (c.mimicked >= 0) ++c.mimicked;
  }
}

int moving_joint_named(const YamlReader& r,
                       const JointSpaceSpec& spec,
                       const YAML::Node& n,
                       const std::string& key) {
  const std::string name = r.string(n, key);
  std::string moving;
  for (std::size_t j = 0; j < spec.joints.size(); ++j) {
    if (spec.joints[j].type == TreeJointType::kFixed) continue;
    if (spec.joints[j].name == name) return static_cast<int>(j);
    moving += (moving.empty() ? "" : ", ") + spec.joints[j].name;
  }
  r.fail(n, key, "no moving joint '" + name + "' in the URDF (joints: " + moving + ")");
}

// `joints:` of a YAML file with `urdf:`: loop closures between named links and mimic rows
// (docs/model-format.md, "Loop closures").
void read_closures(const YamlReader& r, const YAML::Node& list, JointSpaceSpec& spec) {
  if (!list.IsSequence()) r.fail(list, "joints", "expected a list of closures");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YAML::Node n = list[i];
    const std::string at = "joints[" + std::to_string(i) + "]";
    r.check_keys(n, at,
                 {"name", "type", "link_i", "point_i", "link_j", "point_j", "axis_i", "axis_j",
                  "normal", "joint", "mimics", "multiplier", "offset"});
    TreeClosureSpec c;
    c.name = r.string(r.required(n, at, "name", "the closure's name"), at + ".name");
    const std::string key = "joints." + c.name;
    const std::string type = r.string(r.required(n, key, "type", "closure type"), key + ".type");
    auto allow = [&](std::initializer_list<std::string_view> keys) { r.check_keys(n, key, keys); };
    if (type == "mimic") {
      allow({"name", "type", "joint", "mimics", "multiplier", "offset"});
      c.type = TreeClosureType::kMimic;
      c.joint = moving_joint_named(r, spec, r.required(n, key, "joint", "the following joint"),
                                   key + ".joint");
      c.mimicked = moving_joint_named(r, spec, r.required(n, key, "mimics", "the joint it follows"),
                                      key + ".mimics");
      if (c.joint == c.mimicked)
        r.fail(n["mimics"], key + ".mimics", "a joint cannot mimic itself");
      if (const YAML::Node m = n["multiplier"]) c.multiplier = r.number(m, key + ".multiplier");
      if (const YAML::Node o = n["offset"]) c.offset = r.number(o, key + ".offset");
    } else {
      if (type == "planar_revolute") {
        allow({"name", "type", "link_i", "point_i", "link_j", "point_j", "normal"});
        c.type = TreeClosureType::kPlanarRevolute;
        if (const YAML::Node v = n["normal"]) c.normal = r.nonzero3(v, key + ".normal");
      } else if (type == "spherical") {
        allow({"name", "type", "link_i", "point_i", "link_j", "point_j"});
        c.type = TreeClosureType::kSpherical;
      } else if (type == "revolute") {
        allow({"name", "type", "link_i", "point_i", "link_j", "point_j", "axis_i", "axis_j"});
        c.type = TreeClosureType::kRevolute;
        c.axis_a =
            r.nonzero3(r.required(n, key, "axis_i", "the axis in link_i's frame"), key + ".axis_i");
        c.axis_b =
            r.nonzero3(r.required(n, key, "axis_j", "the axis in link_j's frame"), key + ".axis_j");
      } else {
        r.fail(n["type"], key + ".type",
               "unknown closure type '" + type +
                   "' (valid: revolute, spherical, planar_revolute, mimic)");
      }
      c.link_a = link_named(r, spec, r.required(n, key, "link_i", "a link name"), key + ".link_i");
      c.link_b = link_named(r, spec, r.required(n, key, "link_j", "a link name"), key + ".link_j");
      if (c.link_a == c.link_b) r.fail(n["link_j"], key + ".link_j", "joins a link to itself");
      if (const YAML::Node p = n["point_i"]) c.point_a = r.vec3(p, key + ".point_i");
      if (const YAML::Node p = n["point_j"]) c.point_b = r.vec3(p, key + ".point_j");
    }
    for (const TreeClosureSpec& other : spec.closures) {
      if (other.name == c.name) r.fail(n["name"], key, "a closure of this name exists already");
    }
    spec.closures.push_back(std::move(c));
  }
}

// `forces:` of a YAML file with `urdf:`: gravity, point springs between named links, joint
// springs and constant efforts by joint name.
void read_tree_forces(const YamlReader& r, const YAML::Node& list, JointSpaceSpec& spec) {
  if (!list.IsSequence()) r.fail(list, "forces", "expected a list of forces");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YAML::Node n = list[i];
    const std::string at = "forces[" + std::to_string(i) + "]";
    if (!n.IsMap()) r.fail(n, at, "expected a mapping");
    const std::string type = r.string(r.required(n, at, "type", "force type"), at + ".type");
    if (type == "gravity") {
      r.check_keys(n, at, {"type", "vector"});
      spec.gravity = r.vec3(r.required(n, at, "vector", "[gx, gy, gz] m/s^2"), at + ".vector");
    } else if (type == "spring") {
      r.check_keys(
          n, at,
          {"name", "type", "link_i", "point_i", "link_j", "point_j", "stiffness", "rest_length"});
      TreePointSpringSpec sp;
      if (const YAML::Node m = n["name"]) sp.name = r.string(m, at + ".name");
      sp.link_a = link_named(r, spec, r.required(n, at, "link_i", "a link name"), at + ".link_i");
      sp.link_b = link_named(r, spec, r.required(n, at, "link_j", "a link name"), at + ".link_j");
      if (const YAML::Node p = n["point_i"]) sp.point_a = r.vec3(p, at + ".point_i");
      if (const YAML::Node p = n["point_j"]) sp.point_b = r.vec3(p, at + ".point_j");
      sp.stiffness = r.non_negative(r.required(n, at, "stiffness", "N/m"), at + ".stiffness");
      if (const YAML::Node l = n["rest_length"]) {
        sp.rest_length = r.non_negative(l, at + ".rest_length");
      }
      spec.springs.push_back(std::move(sp));
    } else if (type == "coupling") {
      // a virtual coupling (joint_space_coupling.cpp): keys as the planar models' coupling, with
      // `link` for `body`; without a target it starts where its point starts (read_urdf_model)
      r.check_keys(n, at,
                   {"name", "type", "link", "point", "stiffness", "damping", "target", "safety"});
      TreeCouplingSpec c;
      c.name = at;
      if (const YAML::Node m = n["name"]) c.name = r.string(m, at + ".name");
      for (const TreeCouplingSpec& other : spec.couplings) {
        if (other.name == c.name) r.fail(n["name"], at + ".name", "a coupling of this name exists");
      }
      c.link = link_named(r, spec, r.required(n, at, "link", "the link coupled"), at + ".link");
      if (c.link < 0) r.fail(n["link"], at + ".link", "a link of the robot, not the world");
      if (const YAML::Node m = n["point"]) c.point = r.vec3(m, at + ".point");
      c.stiffness = r.non_negative(r.required(n, at, "stiffness", "N/m"), at + ".stiffness");
      if (const YAML::Node m = n["damping"]) c.damping = r.non_negative(m, at + ".damping");
      c.target.setConstant(std::numeric_limits<double>::quiet_NaN());
      if (const YAML::Node m = n["target"]) c.target = r.vec3(m, at + ".target");
      if (const YAML::Node m = n["safety"]) read_safety(r, m, at + ".safety", c.safety);
      spec.couplings.push_back(std::move(c));
    } else if (type == "joint_damper") {
      r.check_keys(n, at, {"type", "joint", "damping"});
      TreeJointSpec& j = spec.joints[static_cast<std::size_t>(
          moving_joint_named(r, spec, r.required(n, at, "joint", "a joint name"), at + ".joint"))];
      if (tree_joint_coordinates(j.type) != 1) {
        r.fail(n["joint"], at + ".joint", "a revolute or prismatic joint");
      }
      j.damping =
          r.non_negative(r.required(n, at, "damping", "N m s/rad or N s/m"), at + ".damping");
    } else if (type == "joint_spring" || type == "effort") {
      const bool spring = type == "joint_spring";
      if (spring) {
        r.check_keys(n, at, {"type", "joint", "stiffness", "rest_position"});
      } else {
        r.check_keys(n, at, {"type", "joint", "value"});
      }
      TreeJointSpec& j = spec.joints[static_cast<std::size_t>(
          moving_joint_named(r, spec, r.required(n, at, "joint", "a joint name"), at + ".joint"))];
      if (spring) {
        j.stiffness =
            r.non_negative(r.required(n, at, "stiffness", "N m/rad or N/m"), at + ".stiffness");
        if (const YAML::Node p = n["rest_position"]) {
          j.rest_position = r.number(p, at + ".rest_position");
        }
      } else {
        j.effort = r.number(r.required(n, at, "value", "N m or N"), at + ".value");
      }
    } else {
      r.fail(n["type"], at + ".type",
             "unknown force type '" + type +
                 "' for a URDF robot (valid: gravity, spring, joint_spring, joint_damper, effort, "
                 "coupling)");
    }
  }
}

// The coupling of spec named at n.
int coupling_named(const YamlReader& r,
                   const JointSpaceSpec& spec,
                   const YAML::Node& n,
                   const std::string& key) {
  const std::string name = r.string(n, key);
  std::string names;
  for (std::size_t k = 0; k < spec.couplings.size(); ++k) {
    if (spec.couplings[k].name == name) return static_cast<int>(k);
    names += (names.empty() ? "" : ", ") + spec.couplings[k].name;
  }
  r.fail(n, key, "no coupling '" + name + "' (couplings: " + names + ")");
}

// The `drive` of one named channel of a URDF robot: `motor` (a generalized force on a joint,
// clamped to +-limit) or `coupling` (one axis of a coupling's target).
TreeInputSpec read_tree_drive(const YamlReader& r,
                              const YAML::Node& d,
                              const std::string& p,
                              const JointSpaceSpec& spec) {
  TreeInputSpec u;
  const YAML::Node type = drive_type(r, d, p);
  const std::string t = r.string(type, p + ".type");
  if (t == "motor") {
    r.check_keys(d, p, {"type", "joint", "limit"});
    u.type = TreeInputType::kJointForce;
    u.joint = moving_joint_named(r, spec, r.required(d, p, "joint", "a joint name"), p + ".joint");
    if (tree_joint_coordinates(spec.joints[static_cast<std::size_t>(u.joint)].type) != 1) {
      r.fail(d["joint"], p + ".joint", "a revolute or prismatic joint");
    }
    if (const YAML::Node m = d["limit"]) u.limit = r.positive(m, p + ".limit");
  } else if (t == "coupling") {
    r.check_keys(d, p, {"type", "element", "axis"});
    u.element =
        coupling_named(r, spec, r.required(d, p, "element", "a coupling's name"), p + ".element");
    const YAML::Node a = r.required(d, p, "axis", "x, y or z");
    const std::string axis = r.string(a, p + ".axis");
    if (axis != "x" && axis != "y" && axis != "z") r.fail(a, p + ".axis", "expected x, y or z");
    const int i = axis[0] - 'x';
    u.type = static_cast<TreeInputType>(static_cast<int>(TreeInputType::kCouplingX) + i);
    u.initial = spec.couplings[static_cast<std::size_t>(u.element)].target(i);
  } else {
    r.fail(type, p + ".type", "unknown drive type '" + t + "' (valid: motor, coupling)");
  }
  return u;
}

}  // namespace

std::vector<JointSpaceOutputSpec> read_urdf_outputs(const YamlReader& r,
                                                    const YAML::Node& root,
                                                    const JointSpaceSpec& spec) {
  std::vector<JointSpaceOutputSpec> out;
  const YAML::Node outputs = root["outputs"];
  if (!outputs) return out;
  static const std::pair<const char*, JointSpaceOutputType> kKinds[] = {
      {"joint_position", JointSpaceOutputType::kJointPosition},
      {"joint_velocity", JointSpaceOutputType::kJointVelocity},
      {"point_position", JointSpaceOutputType::kPointPosition},
      {"point_velocity", JointSpaceOutputType::kPointVelocity},
      {"pose", JointSpaceOutputType::kPose},
      {"position_drift", JointSpaceOutputType::kPositionDrift},
      {"velocity_drift", JointSpaceOutputType::kVelocityDrift},
      {"energy", JointSpaceOutputType::kEnergy},
      {"coupling_force", JointSpaceOutputType::kCouplingForce},
      {"haptic_force", JointSpaceOutputType::kHapticForce},
      {"coupling_linearization", JointSpaceOutputType::kCouplingLinearization},
  };
  read_output_list(
      r, outputs, out,
      [&](const YAML::Node& n, const std::string& p, JointSpaceOutputSpec& o) {
        o.type = read_output_kind(r, n, p, kKinds);
        const bool joint_kind = o.type == JointSpaceOutputType::kJointPosition ||
                                o.type == JointSpaceOutputType::kJointVelocity;
        const bool point_kind = o.type == JointSpaceOutputType::kPointPosition ||
                                o.type == JointSpaceOutputType::kPointVelocity;
        const bool link_kind = point_kind || o.type == JointSpaceOutputType::kPose;
        check_kind_key(r, n, p, "joint", joint_kind, "joint outputs");
        check_kind_key(r, n, p, "link", link_kind, "link outputs");
        check_kind_key(r, n, p, "point", point_kind, "point outputs");
        const bool coupling_kind = is_coupling_output(o.type);
        check_kind_key(r, n, p, "element", coupling_kind, "coupling outputs");
        if (coupling_kind) o.element = coupling_named(r, spec, n["element"], p + ".element");
        bool prismatic = false;
        if (joint_kind) {
          o.joint = moving_joint_named(r, spec, n["joint"], p + ".joint");
          const TreeJointSpec& j = spec.joints[static_cast<std::size_t>(o.joint)];
          if (tree_joint_coordinates(j.type) != 1) {
            r.fail(
                n["joint"], p + ".joint",
                "joint '" + j.name + "' is planar or floating: read its child link's pose instead");
          }
          prismatic =
              spec.joints[static_cast<std::size_t>(o.joint)].type == TreeJointType::kPrismatic;
        }
        if (link_kind) {
          o.link = link_named(r, spec, n["link"], p + ".link");
          if (o.link < 0) r.fail(n["link"], p + ".link", "a link of the robot, not the world");
        }
        if (point_kind && n["point"]) o.point = r.vec3(n["point"], p + ".point");
        o.units = default_output_units(o.type, prismatic);
      },
      true);
  return out;
}

std::shared_ptr<const JointSpaceSpec> read_urdf_model(const YamlReader& r, const YAML::Node& root) {
  const YAML::Node node = root["urdf"];
  std::filesystem::path file = r.string(node, "urdf");
  if (file.is_relative()) file = std::filesystem::path(r.path()).parent_path() / file;
  // a regular file only: a device such as /dev/zero named here (by a fuzzer, say) never ends
  std::error_code ec;
  std::ifstream in;
  if (std::filesystem::is_regular_file(file, ec)) in.open(file);
  if (!in.is_open()) r.fail(node, "urdf", "cannot open the URDF file '" + file.string() + "'");
  std::ostringstream text;
  text << in.rdbuf();
  JointSpaceSpec spec = parse_urdf(text.str(), file.string());
  if (const YAML::Node n = root["floating_base"]; n && r.boolean(n, "floating_base")) {
    add_floating_base(r, n, spec);
  }
  for (const std::string which : {"initial_positions", "initial_velocities"}) {
    const YAML::Node map = root[which];
    if (!map) continue;
    if (!map.IsMap()) r.fail(map, which, "expected a mapping from joint name to value");
    for (const auto& kv : map) {
      if (!kv.first.IsScalar()) r.fail(kv.first, which, "expected a joint name");
      const std::string name = kv.first.as<std::string>();
      const std::string key = which + "." + name;
      TreeJointSpec* joint = nullptr;
      std::string moving;
      for (TreeJointSpec& j : spec.joints) {
        if (tree_joint_coordinates(j.type) != 1) continue;  // planar, floating: start at rest
        if (j.name == name) joint = &j;
        moving += (moving.empty() ? "" : ", ") + j.name;
      }
      if (joint == nullptr) {
        r.fail(kv.first, key,
               "no moving joint '" + name + "' in the URDF (joints: " + moving + ")");
      }
      const double value = r.number(kv.second, key);
      (which == "initial_positions" ? joint->initial_position : joint->initial_velocity) = value;
    }
  }
  if (const YAML::Node n = root["joints"]) read_closures(r, n, spec);
  if (const YAML::Node n = root["forces"]) read_tree_forces(r, n, spec);
  // couplings without a target (NaN from read_tree_forces): a placeholder while assembling
  std::vector<std::size_t> untargeted;
  for (std::size_t k = 0; k < spec.couplings.size(); ++k) {
    if (spec.couplings[k].target.allFinite()) continue;
    untargeted.push_back(k);
    spec.couplings[k].target.setZero();
  }
  // the loop must close from the initial positions (assembly, JointSpaceTree::initial_state)
  try {
    State s;
    const JointSpaceTree tree(spec);
    tree.initial_state(s);
    // named channels refer to the assembled pose: a coupling's default target is where its
    // point starts
    for (const std::size_t k : untargeted) {
      TreeCouplingSpec& c = spec.couplings[k];
      c.target = tree.point_position(s.q, c.link, c.point);
    }
  } catch (const std::invalid_argument& e) {
    r.fail(root["joints"] ? root["joints"] : root["urdf"], "joints", e.what());
  }
  if (const YAML::Node n = root["inputs"]) {
    read_input_drives<JointSpaceTree>(r, n, spec, [&](const YAML::Node& d, const std::string& key) {
      return read_tree_drive(r, d, key, spec);
    });
  }
  return std::make_shared<const JointSpaceSpec>(std::move(spec));
}

}  // namespace rtmb::detail
