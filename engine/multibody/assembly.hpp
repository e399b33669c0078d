// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Internal: consistent initial conditions for the body models (planar_multibody.cpp,
// spatial_multibody.cpp; docs/model-format.md "Consistent initial conditions"). Setup-only.

#include <string>
#include <vector>

#include "rtmb/state.hpp"
#include "rtmb/system.hpp"

namespace rtmb::detail {

/// The constraint rows of one joint, for naming the joints an assembly could not satisfy.
struct JointRows {
  std::string name;
  int row = 0;   ///< first row in g
  int rows = 0;  ///< number of rows
};

/// The rows of each joint of a body model (PlanarMultibody or SpatialMultibody and its spec's
/// joints), in joint order.
template <class BodyModel, class Joints>
[[nodiscard]] std::vector<JointRows> joint_rows(const BodyModel& sys, const Joints& joints) {
  std::vector<JointRows> out;
  for (std::size_t k = 0; k < joints.size(); ++k) {
    out.push_back({joints[k].name, sys.joint_row(k), constraint_rows(joints[k].type)});
  }
  return out;
}

/// Makes s consistent with sys at t = 0: Newton on g(q) = 0 with the minimum-norm step
/// dq = -G^+ g (complete orthogonal decomposition, so redundant joints do not break it), at most
/// `max_iterations`; then the minimum-norm velocity change that satisfies G v + g_t = 0. Returns
/// a note for each change made. Throws AssemblyError naming the joints whose rows stay above
/// `tolerance`.
std::vector<std::string> assemble_state(const System& sys,
                                        const std::vector<JointRows>& joints,
                                        State& s,
                                        double tolerance,
                                        int max_iterations);

/// assemble_state for a body model: s starts as sys's initial state and is made consistent with
/// the rows of its spec's joints.
template <class BodyModel>
std::vector<std::string> assemble_initial_state(const BodyModel& sys,
                                                State& s,
                                                double tolerance,
                                                int max_iterations) {
  sys.initial_state(s);
  return assemble_state(sys, joint_rows(sys, sys.spec().joints), s, tolerance, max_iterations);
}

/// assemble_initial_state on BodyModel(spec); store(sys, s) then writes the consistent state s
/// back into spec. Returns the notes.
template <class BodyModel, class Spec, class Store>
std::vector<std::string> assemble_spec(Spec& spec,
                                       double tolerance,
                                       int max_iterations,
                                       Store store) {
  const BodyModel sys(spec);
  State s;
  std::vector<std::string> notes = assemble_initial_state(sys, s, tolerance, max_iterations);
  store(sys, s);
  return notes;
}

}  // namespace rtmb::detail
