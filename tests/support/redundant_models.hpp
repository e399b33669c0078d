// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Model files with known redundant constraint rows, shared by the redundancy tests of the loader
// (tests/engine/model_file/) and of the rank check (tests/engine/constraints/).

#include <string>

namespace rtmb::testing {

/// The joints of three parallel cranks (crank1..3 pivoted on the ground at x = 0, 1, 2, each
/// 1 m long with its pivots at its local x = -0.5 and 0.5) sharing one coupler (pivots at the
/// coupler's local x = -1, 0, 1): the YAML `joints:` section of kParallelogramYaml and of the
/// parallel-cranks scenario (tests/support/parallel_cranks.hpp).
inline constexpr const char* kThreeParallelCranksJoints = R"(joints:
  - {name: A1, type: revolute, body_i: ground, point_i: [0, 0], body_j: crank1, point_j: [-0.5, 0]}
  - {name: A2, type: revolute, body_i: ground, point_i: [1, 0], body_j: crank2, point_j: [-0.5, 0]}
  - {name: A3, type: revolute, body_i: ground, point_i: [2, 0], body_j: crank3, point_j: [-0.5, 0]}
  - {name: B1, type: revolute, body_i: crank1, point_i: [0.5, 0], body_j: coupler, point_j: [-1, 0]}
  - {name: B2, type: revolute, body_i: crank2, point_i: [0.5, 0], body_j: coupler, point_j: [0, 0]}
  - {name: B3, type: revolute, body_i: crank3, point_i: [0.5, 0], body_j: coupler, point_j: [1, 0]}
)";

/// A planar parallelogram with a third, parallel crank (the double-supported four-bar, the classic
/// redundant example): 4 bodies, 6 revolute joints; 12 coordinates, 12 rows, 1 degree of freedom,
/// so G has rank 11 and one row is dependent. No forces and no `redundant_constraints` key: a test
/// appends what it needs.
inline const std::string kParallelogramYaml = std::string(R"(name: parallelogram
bodies:
  - {name: crank1, mass: 1.0, inertia: 0.0833, pose: [0.0, 0.5, 1.5707963267948966]}
  - {name: crank2, mass: 1.0, inertia: 0.0833, pose: [1.0, 0.5, 1.5707963267948966]}
  - {name: crank3, mass: 1.0, inertia: 0.0833, pose: [2.0, 0.5, 1.5707963267948966]}
  - {name: coupler, mass: 2.0, inertia: 0.667, pose: [1.0, 1.0, 0.0]}
)") + kThreeParallelCranksJoints;

}  // namespace rtmb::testing
