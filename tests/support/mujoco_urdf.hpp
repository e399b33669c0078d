// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// A URDF loaded into MuJoCo 2.2.2 (Debian libmujoco-dev) for side-by-side checks (issue 19:
// tests/scenarios/wam_mujoco_test.cpp, bench/wam_mujoco_bench.cpp). MuJoCo's mj_loadXML reads
// URDF but wants every <collision> mesh on disk; the dart-doc robots ship without them, so the
// text is given to MuJoCo through its virtual file system with the <collision> elements removed
// (no contacts on either side anyway). Optionally each <inertial> is rewritten in its principal
// axes first (see in_principal_axes).
#pragma once

#include <mujoco/mujoco.h>

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

namespace rtmb::testing {

/// `text` without its <collision> ... </collision> elements.
inline std::string without_collisions(std::string text) {
  for (std::size_t at = text.find("<collision"); at != std::string::npos;
       at = text.find("<collision", at)) {
    const std::size_t end = text.find("</collision>", at);
    if (end == std::string::npos) throw std::runtime_error("unterminated <collision>");
    text.erase(at, end + std::strlen("</collision>") - at);
  }
  return text;
}

namespace urdf_text {

// The value of attribute `name` in `tag` ("" when absent).
inline std::string attribute(const std::string& tag, const std::string& name) {
  // attributes may sit on lines of their own (KR5): any white space before the name
  const std::string key = name + "=\"";
  for (std::size_t at = tag.find(key); at != std::string::npos; at = tag.find(key, at + 1)) {
    if (at == 0 || std::isspace(static_cast<unsigned char>(tag[at - 1])) == 0) continue;
    const std::size_t start = at + key.size();
    return tag.substr(start, tag.find('"', start) - start);
  }
  return "";
}

// The opening tag of the first element `name` in `block` ("" when absent).
inline std::string element(const std::string& block, const std::string& name) {
  const std::string open = "<" + name;
  for (std::size_t at = block.find(open); at != std::string::npos; at = block.find(open, at + 1)) {
    const char next = block[at + open.size()];
    if (std::isspace(static_cast<unsigned char>(next)) == 0 && next != '/' && next != '>') continue;
    return block.substr(at, block.find('>', at) - at);
  }
  return "";
}

inline Eigen::Vector3d triple(const std::string& text) {
  Eigen::Vector3d v = Eigen::Vector3d::Zero();
  std::istringstream in(text);
  in >> v.x() >> v.y() >> v.z();
  return v;
}

inline double number(const std::string& text) {
  return text.empty() ? 0.0 : std::stod(text);
}

}  // namespace urdf_text

/// Every <inertial> rewritten in its principal axes: the same inertia tensor I = R diag(l) R^T
/// (Eigen's self-adjoint solver, accurate to round-off), so that MuJoCo's own diagonalization
/// (mjuu_eig3, a Jacobi iteration that stops at an absolute off-diagonal of 1e-12 and leaves
/// full tensors' frames off by ~1e-9 relative) meets a diagonal matrix, on which it is exact.
inline std::string in_principal_axes(std::string text) {
  using namespace urdf_text;
  for (std::size_t at = text.find("<inertial>"); at != std::string::npos;
       at = text.find("<inertial>", at + 1)) {
    const std::size_t end = text.find("</inertial>", at) + std::strlen("</inertial>");
    const std::string block = text.substr(at, end - at);
    const std::string origin = element(block, "origin");
    const std::string inertia = element(block, "inertia");
    const Eigen::Vector3d rpy = triple(attribute(origin, "rpy"));
    const Eigen::Matrix3d r = (Eigen::AngleAxisd(rpy.z(), Eigen::Vector3d::UnitZ()) *
                               Eigen::AngleAxisd(rpy.y(), Eigen::Vector3d::UnitY()) *
                               Eigen::AngleAxisd(rpy.x(), Eigen::Vector3d::UnitX()))
                                  .toRotationMatrix();
    Eigen::Matrix3d i;
    const double ixx = number(attribute(inertia, "ixx"));
    const double ixy = number(attribute(inertia, "ixy"));
    const double ixz = number(attribute(inertia, "ixz"));
    const double iyy = number(attribute(inertia, "iyy"));
    const double iyz = number(attribute(inertia, "iyz"));
    const double izz = number(attribute(inertia, "izz"));
    i << ixx, ixy, ixz, ixy, iyy, iyz, ixz, iyz, izz;
    const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(i);
    Eigen::Matrix3d v = eig.eigenvectors();
    if (v.determinant() < 0.0) v.col(2) = -v.col(2);
    const Eigen::Matrix3d p = r * v;  // principal frame in the link frame
    // URDF rpy of p: p = Rz(yaw) Ry(pitch) Rx(roll)
    const double roll = std::atan2(p(2, 1), p(2, 2));
    const double pitch = std::asin(-p(2, 0));
    const double yaw = std::atan2(p(1, 0), p(0, 0));
    char out[1024];
    std::snprintf(out, sizeof out,
                  "<inertial><origin xyz=\"%s\" rpy=\"%.17g %.17g %.17g\"/>"
                  "<mass value=\"%s\"/><inertia ixx=\"%.17g\" ixy=\"0\" ixz=\"0\" iyy=\"%.17g\" "
                  "iyz=\"0\" izz=\"%.17g\"/></inertial>",
                  attribute(origin, "xyz").c_str(), roll, pitch, yaw,
                  attribute(element(block, "mass"), "value").c_str(), eig.eigenvalues()(0),
                  eig.eigenvalues()(1), eig.eigenvalues()(2));
    text.replace(at, end - at, out);
  }
  return text;
}

/// The whole text of the file at `path`.
inline std::string file_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// MuJoCo's model and data of the URDF at `urdf_path`, or of a URDF's text (FromText: e.g. one
/// edited by a test), without collisions and in principal axes when asked, loaded through the
/// virtual file system.
class MujocoUrdf {
 public:
  struct FromText {};

  MujocoUrdf(const std::string& urdf_path, bool principal_axes)
      : MujocoUrdf(FromText{}, file_text(urdf_path), principal_axes) {}
  MujocoUrdf(FromText /*tag*/, const std::string& text, bool principal_axes) {
    const std::string xml =
        principal_axes ? in_principal_axes(without_collisions(text)) : without_collisions(text);
    auto vfs = std::make_unique<mjVFS>();  // ~2 MB: heap, not stack
    mj_defaultVFS(vfs.get());
    constexpr const char* kName = "robot.urdf";
    if (mj_makeEmptyFileVFS(vfs.get(), kName, static_cast<int>(xml.size())) != 0) {
      throw std::runtime_error("mujoco: cannot make the VFS file");
    }
    std::memcpy(vfs->filedata[mj_findFileVFS(vfs.get(), kName)], xml.data(), xml.size());
    char error[1000] = "";
    model = mj_loadXML(kName, vfs.get(), error, sizeof(error));
    mj_deleteVFS(vfs.get());
    if (model == nullptr) throw std::runtime_error(std::string("mujoco: ") + error);
    data = mj_makeData(model);
  }
  ~MujocoUrdf() {
    mj_deleteData(data);
    mj_deleteModel(model);
  }
  MujocoUrdf(const MujocoUrdf&) = delete;
  MujocoUrdf& operator=(const MujocoUrdf&) = delete;

  mjModel* model = nullptr;
  mjData* data = nullptr;
};

}  // namespace rtmb::testing
