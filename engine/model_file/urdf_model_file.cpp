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
//   <dynamics damping>: a viscous damper on the joint coordinate.
// revolute and continuous joints are the same here (<limit> is not enforced); floating and planar
// joints are refused by name.

#include "engine/model_file/urdf_model_file.hpp"

#include <console_bridge/console.h>
#include <urdf_parser/urdf_parser.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <utility>

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
      default:
        fail(text, path, "joint", name,
             "this joint type is not supported yet (revolute, continuous, prismatic, fixed)");
    }
    j.parent = index.at(joint->parent_link_name);
    j.child = index.at(joint->child_link_name);
    j.origin_xyz = vector_of(joint->parent_to_joint_origin_transform.position);
    j.origin_rotation = rotation_of(joint->parent_to_joint_origin_transform.rotation);
    j.axis = vector_of(joint->axis);
    if (j.type != TreeJointType::kFixed && !(j.axis.norm() > 0.0)) {
      fail(text, path, "joint", name, "axis must be non-zero");
    }
    if (joint->dynamics) {
      j.damping = joint->dynamics->damping;
      if (!(j.damping >= 0.0)) fail(text, path, "joint", name, "dynamics damping must be >= 0");
    }
    joints.emplace_back(j.child, std::move(j));
  }
  std::sort(joints.begin(), joints.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [child, j] : joints) spec.joints.push_back(std::move(j));
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

std::vector<InputChannelSpec> urdf_input_channels(const JointSpaceSpec& spec) {
  std::vector<InputChannelSpec> out;
  for (const TreeJointSpec& j : spec.joints) {
    if (j.type == TreeJointType::kFixed) continue;
    InputChannelSpec c;
    c.name = j.name;
    c.unit = j.type == TreeJointType::kRevolute ? "N*m" : "N";
    c.config.kind = InputKind::kForce;
    c.config.policy = MissPolicy::kHold;
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<std::string> urdf_output_units(const JointSpaceSpec& spec) {
  std::vector<std::string> out;
  for (const bool rate : {false, true}) {
    for (const TreeJointSpec& j : spec.joints) {
      if (j.type == TreeJointType::kFixed) continue;
      const bool revolute = j.type == TreeJointType::kRevolute;
      out.emplace_back(revolute ? (rate ? "rad/s" : "rad") : (rate ? "m/s" : "m"));
    }
  }
  return out;
}

ModelFile urdf_model_file(const std::string& text, const std::string& path) {
  ModelFile f;
  f.path = path;
  f.joint_space = std::make_shared<const JointSpaceSpec>(parse_urdf(text, path));
  f.settings.dt = kUrdfDefaultDt;
  // a tree has no constraint rows: nothing for a stabilizer to correct
  f.settings.stabilizer = StabilizerKind::kNone;
  f.inputs = urdf_input_channels(*f.joint_space);
  f.output_units = urdf_output_units(*f.joint_space);
  return f;
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
        if (j.type == TreeJointType::kFixed) continue;
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
  return std::make_shared<const JointSpaceSpec>(std::move(spec));
}

}  // namespace rtmb::detail
