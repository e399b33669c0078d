// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// The allocation-counting step loop of the step-contract tests (tests/alloc/step_alloc_test.cpp,
// tests/alloc/body_model_alloc_test.cpp, ...) and the counted sweep over every System
// evaluation. Link with tests/support/alloc_counter.cpp.

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "rtmb/models/model_file.hpp"
#include "rtmb/step.hpp"
#include "rtmb/system.hpp"
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
inline Settings step_allocation_settings(Method method,
                                         StabilizerKind stabilizer,
                                         double dt,
                                         KktSolver solver = KktSolver::kAuto) {
  Settings settings;
  settings.solver = solver;
  settings.method = method;
  settings.stabilizer = stabilizer;
  settings.dt = dt;
  if (stabilizer == StabilizerKind::kBaumgarte) {
    settings.gamma1 = 20.0;
    settings.gamma2 = 100.0;
  }
  if (stabilizer == StabilizerKind::kSvf) settings.gamma = 10.0;
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

/// What sweep_step_allocations() ran.
struct StepAllocationSweep {
  int ran = 0;      ///< combinations stepped and counted
  int refused = 0;  ///< combinations the Model refused at setup (each printed with its reason)
};

/// Every method x stabilizer the allocation tests cover (the implicit index-3 methods with none):
/// a Model of sys with step_allocation_settings(method, stabilizer, dt), 5 warm-up steps, then
/// check(method, stabilizer, count_step_allocations(...)) over `steps` counted ones, with the KKT
/// solver `solver` (auto: the Model's choice; tree: the joint-space tree path). A
/// combination the Model refuses (std::invalid_argument) is printed after `label` with its
/// reason and counted, never silently dropped.
template <class Check>
StepAllocationSweep sweep_step_allocations(const std::shared_ptr<const System>& sys,
                                           double dt,
                                           long steps,
                                           const std::string& label,
                                           Check check,
                                           KktSolver solver = KktSolver::kAuto) {
  StepAllocationSweep out;
  for (Method method : all_methods()) {
    for (StabilizerKind stabilizer : all_stabilizers()) {
      if (is_implicit(method) && stabilizer != StabilizerKind::kNone) continue;
      std::unique_ptr<Model> model;
      try {
        model =
            std::make_unique<Model>(sys, step_allocation_settings(method, stabilizer, dt, solver));
      } catch (const std::invalid_argument& e) {
        ++out.refused;
        std::printf("refused at setup: %s %s + %s: %s\n", label.c_str(),
                    std::string(to_string(method)).c_str(),
                    std::string(to_string(stabilizer)).c_str(), e.what());
        continue;
      }
      ++out.ran;
      check(method, stabilizer, count_step_allocations(*model, 5, steps));
    }
  }
  return out;
}

/// A model file of configs/ as a System.
inline std::shared_ptr<const System> load_config_system(const std::string& file) {
  return make_system(load_model_file(std::string(RTMB_SOURCE_DIR) + "/configs/" + file));
}

/// (index into a list of configs/ files, method, stabilizer): a step sweep over model files.
using FileCombo = std::tuple<int, Method, StabilizerKind>;

/// Success when `steps` steps of configs/files[index] with the combo's method and stabilizer
/// (dt = 1 ms, after 10 warm-up steps) touch no heap and, unless flagged_allowed, none is flagged.
template <std::size_t N>
::testing::AssertionResult config_steps_without_heap(const char* const (&files)[N],
                                                     const FileCombo& combo,
                                                     long steps,
                                                     bool flagged_allowed) {
  const auto [file, method, stabilizer] = combo;
  const Model model(load_config_system(files[file]),
                    step_allocation_settings(method, stabilizer, 1e-3));
  const StepAllocationCounts run = count_step_allocations(model, 10, steps);
  if (run.counts.allocations == 0 && run.counts.deallocations == 0 &&
      (flagged_allowed || run.flagged == 0)) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << run.counts.allocations << " allocations, " << run.counts.deallocations
         << " deallocations, " << run.flagged << " flagged steps";
}

/// What count_evaluation_allocations() saw.
struct EvaluationAllocations {
  AllocationCounts counts;        ///< heap calls of the counted evaluations
  double sum = 0.0;               ///< energies and residuals summed (finite if every call was)
  bool forces_finite = false;     ///< the last generalized forces are finite
  bool sparse_structure = false;  ///< the system gave a sparse structure (with_sparse only)
};

/// Calls every dense System evaluation 100 times inside an AllocationScope, from the initial
/// state with all velocities 0.3, at times 0, time_step, 2 time_step, ... With with_sparse, also
/// constraint_force_jacobian and the sparse values (if the system gives a sparse structure).
inline EvaluationAllocations count_evaluation_allocations(const System& sys,
                                                          double time_step = 0.0,
                                                          bool with_sparse = false) {
  State s;
  sys.initial_state(s);
  s.v.setConstant(0.3);
  Mat M(sys.n_v(), sys.n_v());
  Mat G(sys.n_lambda(), sys.n_v());
  Mat H(sys.n_lambda(), sys.n_q());
  Mat K(sys.n_v(), sys.n_q());
  Vec f(sys.n_v());
  Vec g(sys.n_lambda());
  Vec L(sys.n_lambda());
  Vec gt(sys.n_lambda());
  const Vec lambda = Vec::Ones(sys.n_lambda());
  SparsePattern mp;
  SparsePattern gp;
  EvaluationAllocations out;
  out.sparse_structure = with_sparse && sys.sparse_structure(mp, gp);
  std::vector<double> mv(static_cast<std::size_t>(mp.nonzeros()));
  std::vector<double> gv(static_cast<std::size_t>(gp.nonzeros()));
  {
    AllocationScope scope;
    for (int i = 0; i < 100; ++i) {
      const double t = time_step * i;
      sys.mass(t, s.q, M);
      sys.forces(t, s.q, s.v, {}, f);
      sys.constraints(t, s.q, g);
      sys.jacobian(t, s.q, G);
      sys.constraint_rate(t, s.q, gt);
      sys.curvature(t, s.q, s.v, L);
      sys.velocity_constraint_jacobian(t, s.q, s.v, H);
      (void)sys.inertia_jacobian(t, s.q, f, K);
      if (out.sparse_structure) {
        (void)sys.constraint_force_jacobian(t, s.q, lambda, K);
        sys.mass_values(t, s.q, mv);
        sys.jacobian_values(t, s.q, gv);
      }
      out.sum += g.sum() + gt.sum() + L.sum() + sys.energy(t, s.q, s.v, {});
    }
    out.counts = scope.counts();
  }
  out.forces_finite = f.allFinite();
  return out;
}

}  // namespace rtmb::testing
