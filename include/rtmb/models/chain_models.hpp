// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// The scaling models of `rtmb gen chain` and `rtmb gen beam` as model-file text
// (docs/model-format.md): used by the command (which prints it), the scaling benchmarks and tests
// (which parse it), so all three time and check the same mechanism.

#include <string>

namespace rtmb {

/// A chain of `links` uniform links (0.5 m, 1 kg) under gravity, hung from the origin in a
/// zigzag (+-30 degrees, so that a pinned chain is not fully stretched, where its constraints
/// lose rank); `loop` pins the tip where it starts (needs links >= 3). Planar: revolute joints,
/// q = (x, y, theta) per link. Spatial: thin rods on spherical joints whose zigzag also leaves the
/// vertical x-z plane (y offsets +-0.3), q = (x, y, z, e0..e3) per link. Integration: RK4 + PStab,
/// dt = 1 ms. Throws std::invalid_argument for links < 1, or < 3 with loop.
[[nodiscard]] std::string chain_model_yaml(int links, bool loop, bool spatial);

/// `rtmb gen beam --n N`: a simply supported planar beam (issue 17) of `elements` particle
/// elements, N + 1 particles joined by linear trusses and bending elements (C_b = 4 EI / h for
/// elements of length h), each end pinned by two rods; L = 10 m, rho A = 1 kg/m, EA = 1000 N,
/// EI = 1 N m^2, no gravity, set moving in its first mode (0.1 m/s at midspan). Integration:
/// RK4 + PStab, dt = 1 ms (the sparse path). Throws std::invalid_argument for elements < 2.
[[nodiscard]] std::string beam_model_yaml(int elements);

}  // namespace rtmb
