// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Chin's deformable slider-crank (1995 §3.12, Table 5.1) written as a body model whose rod is a
// `kind: beam` body (docs/model-format.md, "Beam bodies"), for the tests of model files, outputs
// and the live view; each test edits what it needs (testing::replace_once). Inch, lb, s: the rod
// has a = pi D^2 / 4 and I = pi D^4 / 64 with D = 0.25 in, two simply supported elements, and
// starts straight along x with the crank at 180 rad/s (its velocities are consistent: the
// slider end B stays on y = 0, R2' + L theta' = 1080 - 12 * 90 = 0).

#include <string>

namespace rtmb::testing {

inline const std::string kBeamSliderCrankYaml = R"(bodies:
  - name: crank
    mass: 1.0
    inertia: 1.0
    velocity: [0, 0, 180]
  - name: rod
    kind: beam
    length: 12
    youngs_modulus: 30.0e6
    density: 0.0007331
    area: 0.04908738521234052
    second_moment: 0.00019174759848570515
    elements: 2
    support: simply_supported
    pose: [6, 0, 0]
    velocity: [0, 1080, -90]
  - name: slider
    mass: 0.001
    inertia: 0.001
    pose: [18, 0, 0]
joints:
  - {name: O, type: revolute, body_i: ground, body_j: crank}
  - {name: A, type: revolute, body_i: crank, body_j: rod, point_i: [6, 0]}
  - {name: B, type: revolute, body_i: rod, body_j: slider, point_i: [12, 0]}
  - {name: line, type: prismatic, body_i: ground, body_j: slider}
forces:
  - {type: gravity, vector: [0, -386.4]}
)";

}  // namespace rtmb::testing
