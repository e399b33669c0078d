// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// The reference sweep of the step contract and the step benchmark (tests/alloc/step_alloc_test.cpp,
// bench/step_bench.cpp): the built-in mechanisms, the fixed-step Runge-Kutta methods and the
// stabilizers every one of them is run with, and the longer list of explicit methods the sparse
// and spatial sweeps use.

#include <string>
#include <vector>

#include "rtmb/models/mechanisms.hpp"
#include "rtmb/step.hpp"

namespace rtmb::testing {

/// A built-in mechanism with its options and the label of its test or benchmark name.
struct MechanismCase {
  const char* name;
  MechanismOptions options;
  std::string label;
};

/// The reference mechanisms; the chain (open and closed loop) gets `chain_links` links.
inline std::vector<MechanismCase> reference_mechanisms(int chain_links) {
  const std::string chain = "chain" + std::to_string(chain_links);
  return {
      {"pendulum", {}, "pendulum"},
      {"double_pendulum", {}, "double_pendulum"},
      {"slider_crank", {}, "slider_crank"},
      {"andrews", {}, "andrews"},
      {"robot_parabola", {}, "robot_parabola"},
      {"robot_sine", {}, "robot_sine"},
      {"chain", {chain_links, false}, chain},
      {"chain", {chain_links, true}, chain + "_loop"},
  };
}

/// The fixed-step Runge-Kutta methods of the reference sweep.
inline constexpr Method kRungeKuttaMethods[] = {Method::kEuler, Method::kHeun, Method::kRk4,
                                                Method::kDopri5};

/// The stabilizers of the reference sweep.
inline constexpr StabilizerKind kReferenceStabilizers[] = {
    StabilizerKind::kNone,  StabilizerKind::kBaumgarte, StabilizerKind::kPStab,
    StabilizerKind::kSBoth, StabilizerKind::kSFull,     StabilizerKind::kProject,
    StabilizerKind::kSvf};

/// Every explicit method: the Runge-Kutta ones, the multistep predictor-correctors and the ODE
/// midpoint rule.
inline constexpr Method kExplicitMethods[] = {Method::kEuler,  Method::kHeun,       Method::kRk4,
                                              Method::kDopri5, Method::kAmpc3,      Method::kAmpc4,
                                              Method::kAmpc5,  Method::kMampc3,     Method::kMampc4,
                                              Method::kMampc5, Method::kOdeMidpoint};

}  // namespace rtmb::testing
