// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// The allocation-counting step loop of the step-contract tests (tests/alloc/step_alloc_test.cpp,
// tests/alloc/body_model_alloc_test.cpp). Link with tests/support/alloc_counter.cpp.

#include <string>
#include <vector>

#include "rtmb/step.hpp"
#include "tests/support/alloc_counter.hpp"

namespace rtmb::testing {

/// The names of a comma-separated list ("a, b, c"), as method_names() and stabilizer_names()
/// give them.
inline std::vector<std::string> split_names(const std::string& list) {
  std::vector<std::string> out;
  for (std::size_t start = 0; start < list.size();) {
    const std::size_t comma = list.find(", ", start);
    out.push_back(list.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 2;
  }
  return out;
}

/// Every Method and every StabilizerKind rtmb has, in the order of method_names() and
/// stabilizer_names() (so a new one is covered by the sweeps without editing them).
inline std::vector<Method> all_methods() {
  std::vector<Method> out;
  for (const std::string& n : split_names(method_names())) out.push_back(*parse_method(n));
  return out;
}

inline std::vector<StabilizerKind> all_stabilizers() {
  std::vector<StabilizerKind> out;
  for (const std::string& n : split_names(stabilizer_names())) out.push_back(*parse_stabilizer(n));
  return out;
}

/// Settings of a fixed-step allocation run; Baumgarte gets gains (20, 100) so that it acts.
inline Settings step_allocation_settings(Method method, StabilizerKind stabilizer, double dt) {
  Settings settings;
  settings.method = method;
  settings.stabilizer = stabilizer;
  settings.dt = dt;
  if (stabilizer == StabilizerKind::kBaumgarte) {
    settings.gamma1 = 20.0;
    settings.gamma2 = 100.0;
  }
  return settings;
}

/// What count_step_allocations() saw inside its scope.
struct StepAllocationCounts {
  AllocationCounts counts;  ///< heap calls of the counted steps
  long flagged = 0;         ///< counted steps whose status was not ok()
};

/// Steps `model` from its initial state `warm_up` times outside the count, then `steps` times
/// inside an AllocationScope.
inline StepAllocationCounts count_step_allocations(const Model& model, long warm_up, long steps) {
  Workspace ws(model);
  State s = initial_state(model);
  for (long i = 0; i < warm_up; ++i) (void)step(model, s, ws);
  StepAllocationCounts out;
  {
    AllocationScope scope;
    for (long i = 0; i < steps; ++i) {
      const StepStatus st = step(model, s, ws);
      out.flagged += st.ok() ? 0 : 1;
    }
    out.counts = scope.counts();
  }
  return out;
}

}  // namespace rtmb::testing
