// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// The mouse spring of the live view (issue 20 point 4; docs/protocol.md "Live view"): the `drag`
// control command pulls a point of a body towards a world target, the cursor's projection, and
// a drag without a body lets go.
//
// What acts on the body is a virtual coupling, the element haptic devices use
// (docs/model-format.md `coupling`): F = k (p* - p) - c p' on the body point p towards the
// target p*. The force goes through the haptic couplings' safety filter (ForceOutputFilter,
// rtmb/models/force_output_filter.hpp: engage ramp, magnitude clamp, rate limit) and is added to
// the tick's generalized applied force (SimulationRunner::set_force_hook) as (F, (A s) x F) on
// the body's (x, y, theta) in a planar model (on a beam body, J^T F at the material point of its
// axis nearest the grabbed point: PlanarMultibody::add_point_force), F on the centre of mass
// (x, y, z) in a spatial one:
// on top of whatever the input channels apply, so a device and the mouse both act, and the
// model's channels (force, motor or coupling-target drives alike) are untouched.
//
// Why a held command and not a stream of `set` samples: a `set` sample goes stale after the
// watchdog's 10 ms, so a drag would need the page to send samples every 10 ms through a control
// connection that admits 200 lines per second, each carrying a force computed from a 30 Hz frame;
// and a model whose channels drive elements has no force channel to set. Instead the simulation
// thread evaluates the spring every tick from the state it steps (a sampled spring, stable for
// the stiffness chosen below), and the target holds until the page moves it or lets go. A lease
// bounds the hold: a drag the page stops refreshing (a tab closed mid-drag) is released after
// kDragLeaseNs.
//
// Release: the force is scaled by a linear ramp from 1 to 0 over kDragReleaseS of simulation
// time (counted in the ticks' dt, so the ramp is the same however the loop's wake-ups jitter,
// and the frames show it ending kDragReleaseS after the release time they report); from the tick
// where it reaches 0 the spring adds nothing and is idle.
//
// Stiffness: from the body alone, so that the sampled spring cannot go unstable whatever the
// mechanism: k = m_p w^2 and c = 2 m_p w (critically damped) with w = 2 pi kDragHz, where
// m_p = 1 / (1/m + |s|^2/J) is the free body's effective mass at the point s (planar; a beam's
// frame as a rigid body, resolve_drag says why its elastic modes do not change the bound;
// spatial: m, at the centre). Joints only add mass at the point (their constraint forces can only
// reduce the point's inverse mass), so w dt = 2 pi 5 Hz * 1 ms = 0.03 bounds the spring's sampled
// frequency: far inside the explicit stability limit w dt < 2.
// The clamp is the spring's force at a stretch of kDragMaxStretchM, reached at the earliest
// after 50 ms (the rate limit): a wild cursor cannot throw the mechanism.

#include <Eigen/Core>
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "rtmb/models/force_output_filter.hpp"
#include "rtmb/net/drag_state.hpp"
#include "rtmb/state.hpp"
#include "rtmb/types.hpp"

namespace rtmb {

class PlanarMultibody;
struct PlanarModelSpec;
struct SpatialModelSpec;

inline constexpr double kDragHz = 5.0;           // spring frequency at the point [Hz]
inline constexpr double kDragMaxStretchM = 1.0;  // clamp: k times this [N]
inline constexpr double kDragRateTime = 0.05;    // 0 -> clamp no faster than this [s]
inline constexpr double kDragEngageRamp = 0.05;  // force ramps in over this [s]
inline constexpr double kDragReleaseS = 0.05;    // force ramps out over this [s, simulation time]
inline constexpr std::int64_t kDragLeaseNs = 1'000'000'000;  // an unrefreshed drag ends after

/// One drag as the simulation thread needs it: trivially copyable, it crosses the control ring.
struct DragSpec {
  int dimension = 2;  ///< 2: planar body, q = (x, y, theta); 3: spatial, q = (x, y, z, e)
  int q_offset = 0;   ///< the body's first position coordinate
  int v_offset = 0;   ///< the body's first velocity coordinate
  std::array<double, 3> point{};   ///< body frame [m] (spatial: 0)
  std::array<double, 3> target{};  ///< world [m]
  double stiffness = 0.0;          ///< k [N/m]
  double damping = 0.0;            ///< c [N s/m]
  double max_force = 0.0;          ///< clamp [N]
  int body = -1;                   ///< body index (same body: a target move)
};
static_assert(std::is_trivially_copyable_v<DragSpec>);

/// The spec of a drag on body `body` at body point `point` towards `target`, or an error message
/// (a built-in mechanism, no such body, a point or target not finite). On a beam body the point
/// is the material point (x, 0) of its axis, x clamped to [0, L]. Network thread
/// (allocates).
struct DragResolution {
  DragSpec spec;
  std::string error;  ///< non-empty: refused, why
};
[[nodiscard]] DragResolution resolve_drag(const PlanarModelSpec* planar,
                                          const SpatialModelSpec* spatial,
                                          const std::string& body,
                                          const Eigen::Vector3d& point,
                                          const Eigen::Vector3d& target);

/// The spring on the simulation thread. Every member function is RT-safe.
class MouseSpring {
 public:
  /// Starts a drag, or moves the target of the one on the same body point.
  void grab(const DragSpec& spec, std::int64_t now_ns) noexcept;
  /// Starts the release ramp (nothing unless held); t: the simulation time it is let go at, the
  /// start of the next tick [s].
  void release(double t) noexcept;
  /// Idle at once, without a ramp (reset, load: the runner zeroes the inputs itself).
  void drop() noexcept;
  /// This tick's force from the state the tick starts from, added to the generalized applied
  /// force `applied` (n_v); now_ns: the wall clock (for the lease); dt: the tick period [s];
  /// planar: the model a planar drag's body belongs to (its point kinematics and generalized
  /// force; null, or not the drag's model: the drag is dropped), unused by a spatial drag.
  void apply(const State& state,
             VecRef applied,
             std::int64_t now_ns,
             double dt,
             const PlanarMultibody* planar) noexcept;

  [[nodiscard]] bool active() const noexcept { return mode_ != Mode::kIdle; }
  /// Ramping out: let go by release() or by the lease.
  [[nodiscard]] bool releasing() const noexcept { return mode_ == Mode::kReleasing; }
  /// The force of the last apply() on the body [N, world] and where it acts (the body point's
  /// world position) [m].
  [[nodiscard]] const Eigen::Vector3d& force() const noexcept { return force_; }
  [[nodiscard]] const Eigen::Vector3d& point() const noexcept { return point_; }
  /// What a frame draws: active(), force(), point() and when the drag was let go, by release()
  /// or by the lease (NaN: held, idle since a drop(), or never released).
  [[nodiscard]] DragState state() const noexcept;

 private:
  enum class Mode { kIdle, kHeld, kReleasing };
  Mode mode_ = Mode::kIdle;
  DragSpec spec_{};
  ForceOutputFilter filter_;
  std::int64_t refreshed_ns_ = 0;  // last grab
  double released_s_ = 0.0;        // simulation time since the release (ticks' dt summed)
  double release_t_ = std::numeric_limits<double>::quiet_NaN();  // when it was let go [s]
  Eigen::Vector3d force_ = Eigen::Vector3d::Zero();
  Eigen::Vector3d point_ = Eigen::Vector3d::Zero();
};

}  // namespace rtmb
