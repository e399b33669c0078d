// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The drawing geometry of a System (rtmb/models/joint_points.hpp): the built-in mechanisms
// implement JointPoints next to their kinematics (engine/mechanisms/*.cpp); this is the one place
// that asks a System for it.

#include "rtmb/models/joint_points.hpp"

namespace rtmb {

const JointPoints* joint_points_of(const System& system) noexcept {
  // a cross cast: the mechanisms derive from System and JointPoints side by side
  return dynamic_cast<const JointPoints*>(&system);
}

}  // namespace rtmb
