// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "rtmb/system.hpp"

namespace rtmb {

/// Options for the built-in reference mechanisms that take any.
struct MechanismOptions {
  int chain_links = 5;      ///< `chain`: number of links N (1..100000; >= 3 with chain_loop)
  bool chain_loop = false;  ///< `chain`: pin the tip at its initial position (closed loop)
  /// `robot_sine`: angular frequency of the prescribed tip height sin^2(omega t) [rad/s], > 0.
  /// 1 reproduces Chin's Table 4.7 (reference §3.6); his Figs 4.19-4.20 use 0.5.
  double robot_omega = 1.0;
  /// `deformable_slider_crank`: the crank's initial speed phi'(0) [rad/s], > 0; Chin's runs use
  /// 180, 120 and 60 (reference post-stabilization-chin1995.md §3.12).
  double crank_speed = 180.0;
};

/// One built-in reference mechanism, selectable by name (`rtmb run NAME`).
struct MechanismInfo {
  std::string_view name;
  std::string_view description;  ///< one line, with the source of its data
  double default_dt;             ///< fixed step used by `rtmb run` when --dt is not given [s]
  double default_t_end;          ///< end time used by `rtmb run` when --t-end is not given [s]
};

/// All built-in mechanisms, in a stable order.
[[nodiscard]] std::span<const MechanismInfo> mechanisms() noexcept;

/// Looks up a mechanism by name; nullptr when unknown.
[[nodiscard]] const MechanismInfo* find_mechanism(std::string_view name) noexcept;

/// Builds a mechanism by name. Setup-only. Throws std::invalid_argument for an unknown name
/// (the message lists the valid names) or invalid options.
[[nodiscard]] std::unique_ptr<System> make_mechanism(std::string_view name,
                                                     const MechanismOptions& options = {});

/// Comma-separated list of the valid mechanism names, for error messages and --help.
[[nodiscard]] std::string mechanism_names();

}  // namespace rtmb
