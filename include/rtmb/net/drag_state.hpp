// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// The live view's mouse spring (`drag`, net/mouse_spring.hpp) as one tick left it: what a frame
// draws as the drag arrow. It travels with the positions of the same tick (ViewState), so that a
// frame never pairs the state at t with the spring of an earlier tick (docs/protocol.md
// "Live view").

#include <array>
#include <limits>
#include <type_traits>

namespace rtmb {

struct DragState {
  bool active = false;            ///< the spring pulls, or ramps out after a release
  std::array<double, 3> force{};  ///< its force on the body this tick [N, world]
  std::array<double, 3> point{};  ///< the body point it acts at [m, world]
  /// simulation time the drag was let go [s]; NaN: not released (or grabbed again since)
  double release_t = std::numeric_limits<double>::quiet_NaN();
};
static_assert(std::is_trivially_copyable_v<DragState>);

}  // namespace rtmb
