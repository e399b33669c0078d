// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include <algorithm>
#include <cmath>
#include <memory>
#include <string_view>

#include "rtmb/adaptive_dopri5.hpp"
#include "rtmb/models/mechanisms.hpp"
#include "rtmb/step.hpp"

namespace rtmb::testing {

/// What a whole run measured: maxima over every step, including the final state.
struct RunSummary {
  State final_state;
  double max_position_drift = 0.0;
  double max_velocity_drift = 0.0;
  double energy_start = 0.0;
  double max_energy_deviation = 0.0;  ///< max |E(t) - E(0)| over the steps
  long steps = 0;
  long rhs_evaluations = 0;
  std::uint32_t flags = 0;
  AdaptiveCounters counters;  ///< adaptive runs only
};

inline void tally(const StepStatus& st, double e0, RunSummary& r) {
  ++r.steps;
  r.rhs_evaluations += st.rhs_evaluations;
  r.flags |= st.flags;
  r.max_position_drift = std::max(r.max_position_drift, st.position_drift);
  r.max_velocity_drift = std::max(r.max_velocity_drift, st.velocity_drift);
  if (std::isfinite(st.energy)) {
    r.max_energy_deviation = std::max(r.max_energy_deviation, std::abs(st.energy - e0));
  }
}

/// Fixed-step run of a built-in mechanism from its initial state to t_end (n = round(t_end/dt)).
inline RunSummary run_fixed(std::string_view mechanism,
                            const Settings& settings,
                            double t_end,
                            const MechanismOptions& options = {}) {
  const Model model(make_mechanism(mechanism, options), settings);
  Workspace ws(model);
  RunSummary r;
  r.final_state = initial_state(model);
  StepStatus st;
  measure(model, r.final_state, ws, st);
  r.energy_start = st.energy;
  const long n = std::lround(t_end / settings.dt);
  for (long i = 0; i < n; ++i) {
    st = step(model, r.final_state, ws);
    tally(st, r.energy_start, r);
    if (!st.ok()) break;
  }
  return r;
}

/// Adaptive DOPRI5 run of a built-in mechanism to t_end.
inline RunSummary run_adaptive(std::string_view mechanism,
                               const Settings& settings,
                               const AdaptiveOptions& options,
                               double t_end,
                               const MechanismOptions& mech_options = {}) {
  const Model model(make_mechanism(mechanism, mech_options), settings);
  Workspace ws(model);
  AdaptiveDopri5 dopri(model, options);
  RunSummary r;
  r.final_state = initial_state(model);
  StepStatus st;
  measure(model, r.final_state, ws, st);
  r.energy_start = st.energy;
  for (;;) {
    st = StepStatus{};
    if (!dopri.step(r.final_state, t_end, st)) break;
    tally(st, r.energy_start, r);
  }
  r.flags |= st.flags;
  r.counters = dopri.counters();
  return r;
}

inline Settings settings_for(
    Method method, StabilizerKind stabilizer, double dt, double gamma1 = 0.0, double gamma2 = 0.0) {
  Settings s;
  s.method = method;
  s.stabilizer = stabilizer;
  s.dt = dt;
  s.gamma1 = gamma1;
  s.gamma2 = gamma2;
  return s;
}

/// Leading decimal digit of x > 0 (7.2e-3 -> 7), to compare with a table printed to 2 digits.
inline int leading_digit(double x) {
  return static_cast<int>(std::floor(x / std::pow(10.0, std::floor(std::log10(x)))));
}

/// |measured - printed| / printed.
inline double relative_deviation(double measured, double printed) {
  return std::abs(measured - printed) / printed;
}

}  // namespace rtmb::testing
