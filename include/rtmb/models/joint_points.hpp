// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Where a built-in mechanism's joints are, so that it can be drawn (the live view, issue 20).
//
// The built-in mechanisms (rtmb/models/mechanisms.hpp) are written in their own coordinates
// (Cartesian point masses, relative angles, absolute angles with a rod's centre of mass), not as
// bodies with attachment points, so the view cannot place their links from a body list. Each one
// therefore also implements JointPoints: a fixed list of points (pivots, pins, a slider, a tip)
// whose world positions follow from q by the mechanism's own kinematics (the same formulas its
// constraints use), and a fixed list of links between them. Drawn as bars, the links are the
// mechanism; where a loop is cut (a closure constraint), both sides of the cut are points of their
// own, so the drawing shows the constraint drift instead of hiding it.
//
// joint_points() writes into caller-owned storage and allocates nothing, so the view's network
// thread can evaluate it for every frame.

#include <Eigen/Core>
#include <span>

#include "rtmb/system.hpp"
#include "rtmb/types.hpp"

namespace rtmb {

/// A bar between two joint points (indices into JointPoints::joint_points' output).
struct JointLink {
  int a;
  int b;
};

/// The drawing geometry of a built-in mechanism (see the file comment).
class JointPoints {
 public:
  virtual ~JointPoints() = default;
  JointPoints(const JointPoints&) = delete;
  JointPoints& operator=(const JointPoints&) = delete;

  /// Number of points; fixed at construction.
  [[nodiscard]] virtual int n_joint_points() const noexcept = 0;
  /// The bars to draw; fixed at construction.
  [[nodiscard]] virtual std::span<const JointLink> joint_links() const noexcept = 0;
  /// The points fixed to the ground (pivots, the pinned tip of a closed chain), drawn as blocks.
  [[nodiscard]] virtual std::span<const int> ground_points() const noexcept = 0;
  /// World positions [m] of the points at (t, q); z = 0 for the planar mechanisms.
  /// out.size() == n_joint_points(). Allocates nothing.
  virtual void joint_points(double t, VecCRef q, std::span<Eigen::Vector3d> out) const noexcept = 0;

 protected:
  JointPoints() = default;
};

/// The drawing geometry of `system` when it has one (every built-in mechanism), else nullptr
/// (body models: their bodies carry the geometry, rtmb/net/view_server.hpp).
[[nodiscard]] const JointPoints* joint_points_of(const System& system) noexcept;

}  // namespace rtmb
