// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Small look-ups the model tests share: the path of an example file in configs/, the index of a
// named body or joint of a planar body model, and the default RK4 + PStab settings. Needs
// RTMB_SOURCE_DIR (set for every test executable in tests/CMakeLists.txt).

#include <gtest/gtest.h>

#include <cstddef>
#include <string>

#include "rtmb/model.hpp"
#include "rtmb/models/planar_multibody.hpp"

namespace rtmb::testing {

/// configs/NAME in the source tree.
inline std::string config_path(const std::string& name) {
  // appended in place: GCC 12's -Warray-bounds misfires on `std::string(...) + "..." + name`
  // inlined here for some lengths of RTMB_SOURCE_DIR (a false positive that depends on the
  // checkout's path)
  std::string path = RTMB_SOURCE_DIR;
  path += "/configs/";
  path += name;
  return path;
}

/// RK4 with Chin's post-stabilization at step dt, every other setting at its default.
inline Settings rk4_pstab(double dt) {
  Settings s;
  s.method = Method::kRk4;
  s.stabilizer = StabilizerKind::kPStab;
  s.dt = dt;
  return s;
}

/// Index of the body called `name`; a test failure (and 0) when there is none.
inline int body_index(const PlanarModelSpec& spec, const std::string& name) {
  for (std::size_t b = 0; b < spec.bodies.size(); ++b) {
    if (spec.bodies[b].name == name) return static_cast<int>(b);
  }
  ADD_FAILURE() << "no body " << name;
  return 0;
}

/// Index of the joint called `name`; a test failure (and 0) when there is none.
inline int joint_index(const PlanarModelSpec& spec, const std::string& name) {
  for (std::size_t k = 0; k < spec.joints.size(); ++k) {
    if (spec.joints[k].name == name) return static_cast<int>(k);
  }
  ADD_FAILURE() << "no joint " << name;
  return 0;
}

}  // namespace rtmb::testing
