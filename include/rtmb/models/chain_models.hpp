// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// The scaling models of `rtmb gen chain` as model-file text (docs/model-format.md): used by the
// command (which prints it), the scaling benchmarks and tests (which parse it), so all three
// time and check the same mechanism.

#include <string>

namespace rtmb {

/// A chain of `links` uniform links (0.5 m, 1 kg) under gravity, hung from the origin in a
/// zigzag (+-30 degrees, so that a pinned chain is not fully stretched, where its constraints
/// lose rank); `loop` pins the tip where it starts (needs links >= 3). Planar: revolute joints,
/// q = (x, y, theta) per link. Spatial: thin rods on spherical joints whose zigzag also leaves the
/// vertical x-z plane (y offsets +-0.3), q = (x, y, z, e0..e3) per link. Integration: RK4 + PStab,
/// dt = 1 ms. Throws std::invalid_argument for links < 1, or < 3 with loop.
[[nodiscard]] std::string chain_model_yaml(int links, bool loop, bool spatial);

}  // namespace rtmb
