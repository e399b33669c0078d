// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Name -> mechanism registry behind `rtmb run NAME` (include/rtmb/models/mechanisms.hpp). The table
// is a constexpr array so that listing and lookup never allocate; only make_mechanism() and
// mechanism_names() do, and they are setup-only.

#include "rtmb/models/mechanisms.hpp"

#include <array>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "engine/mechanisms/deformable_slider_crank.hpp"
#include "engine/mechanisms/mechanisms_impl.hpp"

namespace rtmb {
namespace {

// default_dt / default_t_end: small enough for the fixed-step integrators to resolve the motion
// (Andrews oscillates at kHz rates: 5e-5 s over its customary 0.03 s window).
constexpr std::array<MechanismInfo, 10> kMechanisms{{
    {"pendulum", "Cartesian point-mass pendulum, x^2 + y^2 = l^2, 60 deg start", 1e-3, 10.0},
    {"double_pendulum",
     "double pendulum with singular M = diag(M1,M1,0,M2,M2,0) (Hoitink 2011 sec. 4.1)", 1e-3, 10.0},
    {"slider_crank", "slider-crank, absolute coordinates (Wu, Chiou & Lin 2000 sec. 9)", 1e-3,
     10.0},
    {"andrews", "Andrews' squeezing mechanism, Hairer-Wanner data (Chin 1995 sec. 3.7)", 5e-5,
     0.03},
    {"robot_parabola", "two-link robot, tip on a parabola (Chin 1995 sec. 3.6 case I)", 1e-3, 10.0},
    {"robot_sine",
     "two-link robot, tip height sin^2(omega t), rheonomic (Chin 1995 sec. 3.6 case II)", 1e-3,
     10.0},
    {"chain", "N-link Cartesian pendulum chain of point masses, optionally a closed loop", 1e-3,
     5.0},
    {"four_bar", "four-bar, relative coordinates, one cut pin (Zhang et al. 2023 Example 1)", 1e-3,
     20.0},
    // 1.8 s: the disc has fallen flat (Chin Fig. 4.39); after that it would sink through the plane
    {"rolling_disc",
     "disc rolling without slip on a plane, nonholonomic (Chin 1995 sec. 4.6), falls flat by 1.7 s",
     1e-3, 1.8},
    {"deformable_slider_crank",
     "slider-crank with a flexible floating-frame rod, inch units (Chin 1995 ch. 5, Table 5.1)",
     1e-5, 0.07},
}};

}  // namespace

std::span<const MechanismInfo> mechanisms() noexcept {
  return kMechanisms;
}

const MechanismInfo* find_mechanism(std::string_view name) noexcept {
  for (const MechanismInfo& info : kMechanisms) {
    if (info.name == name) {
      return &info;
    }
  }
  return nullptr;
}

std::unique_ptr<System> make_mechanism(std::string_view name, const MechanismOptions& options) {
  if (name == "pendulum") {
    return std::make_unique<detail::Pendulum>();
  }
  if (name == "double_pendulum") {
    return std::make_unique<detail::DoublePendulum>();
  }
  if (name == "slider_crank") {
    return std::make_unique<detail::SliderCrank>();
  }
  if (name == "andrews") {
    return std::make_unique<detail::Andrews>();
  }
  if (name == "robot_parabola") {
    return std::make_unique<detail::TwoLinkRobot>(detail::RobotPath::kParabola);
  }
  if (name == "robot_sine") {
    if (!(options.robot_omega > 0.0)) {
      throw std::invalid_argument("robot_omega must be > 0 rad/s");
    }
    return std::make_unique<detail::TwoLinkRobot>(detail::RobotPath::kSine, options.robot_omega);
  }
  if (name == "chain") {
    return std::make_unique<detail::Chain>(options.chain_links, options.chain_loop);
  }
  if (name == "four_bar") {
    return std::make_unique<detail::FourBar>();
  }
  if (name == "rolling_disc") {
    return std::make_unique<detail::RollingDisc>();
  }
  if (name == "deformable_slider_crank") {
    if (!(options.crank_speed > 0.0)) {
      throw std::invalid_argument("crank_speed must be > 0 rad/s");
    }
    detail::DeformableSliderCrankSpec spec;
    spec.crank_speed = options.crank_speed;
    return std::make_unique<detail::DeformableSliderCrank>(spec);
  }
  throw std::invalid_argument("unknown mechanism '" + std::string(name) +
                              "'; valid: " + mechanism_names());
}

std::string mechanism_names() {
  std::string names;
  for (const MechanismInfo& info : kMechanisms) {
    if (!names.empty()) {
      names += ", ";
    }
    names += info.name;
  }
  return names;
}

}  // namespace rtmb
