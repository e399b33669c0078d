// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#include "rtmb/model.hpp"

#include <array>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "engine/model/enum_names.hpp"
#include "rtmb/state.hpp"
#include "rtmb/status.hpp"
#include "rtmb/system.hpp"

namespace rtmb {

// Measured crossover (docs/architecture.md "The sparse path"): RK4 + PStab step time of planar
// chains, dense vs sparse, bench/sparse_step_bench.cpp. Sparse was faster at every size measured,
// down to one body (n_v = 3: 1.22 vs 1.46 us CPU per step), so auto takes it for any body model
// that has a sparse structure.
const int kSparseCrossoverNv = 3;

// Crossover of the tree path (docs/architecture.md "The tree path"): the whole RK4 + PStab step
// on the pinned spatial chain (bench/sparse_step_bench.cpp, BM_ChainStep/joint_space_loop, medians
// of 3, 2026-11-27) took dense/tree 0.91 of the time at n = 15 and 1.03 at n = 20, so the tree
// path pays from 20 coordinates on; the WAM (7) and the small arms stay dense.
const int kTreeCrossoverNv = 20;

namespace {

// The names of Method, StabilizerKind and KktSolver, in declaration order (enum_names.hpp).
constexpr std::array<std::string_view, 18> kMethods{
    "euler",   "heun",   "rk4",    "dopri5",   "ampc3",        "ampc4",
    "ampc5",   "mampc3", "mampc4", "mampc5",   "ode-midpoint", "gsssss",
    "newmark", "hht",    "wbz",    "genalpha", "midpoint",     "ggl"};
constexpr std::array<std::string_view, 15> kStabilizers{
    "none",    "baumgarte", "pstab", "sboth", "sfull", "project",   "orthproj", "orthproj-m",
    "symproj", "symproj-m", "dc-b",  "dc-c",  "dc-d",  "partition", "svf"};
constexpr std::array<std::string_view, 2> kSvfVariants{"ggt_inverse", "gt"};
constexpr std::array<std::string_view, 4> kSolvers{"auto", "dense", "sparse", "tree"};
static_assert(static_cast<std::size_t>(Method::kGgl) + 1 == kMethods.size());
static_assert(static_cast<std::size_t>(StabilizerKind::kSvf) + 1 == kStabilizers.size());
static_assert(static_cast<std::size_t>(SvfVariant::kGt) + 1 == kSvfVariants.size());
static_assert(static_cast<std::size_t>(KktSolver::kTree) + 1 == kSolvers.size());

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("invalid settings: " + what);
}

// Settings::stabilize_energy (engine/stabilize/energy_stabilization.hpp): a pass of PStab or
// S-both, on a system with energy() whose constraints do no work (g_t = 0 where it starts)
void require_energy_invariant(const System& system, StabilizerKind stabilizer) {
  require(stabilizer == StabilizerKind::kPStab || stabilizer == StabilizerKind::kSBoth,
          "stabilize_energy is a pass of stabilizer pstab or sboth");
  require(system.has_energy(),
          "stabilize_energy needs the energy of system '" + std::string(system.name()) + "'");
  State s0(system.n_q(), system.n_v());
  system.initial_state(s0);
  Vec gt = Vec::Zero(system.n_lambda());
  system.constraint_rate(s0.t, s0.q, gt);
  require(gt.size() == 0 || gt.lpNorm<Eigen::Infinity>() == 0.0,
          "stabilize_energy: system '" + std::string(system.name()) +
              "' has moving constraints (g_t != 0), which do work: its energy is no invariant");
}

}  // namespace

std::string_view to_string(Method m) noexcept {
  return detail::enum_name(kMethods, m);
}

std::string_view to_string(StabilizerKind s) noexcept {
  return detail::enum_name(kStabilizers, s);
}

std::string_view to_string(KktSolver s) noexcept {
  return detail::enum_name(kSolvers, s);
}

std::optional<KktSolver> parse_solver(std::string_view name) noexcept {
  return detail::enum_parse<KktSolver>(kSolvers, name);
}

std::string solver_names() {
  return detail::enum_names(kSolvers);
}

std::string sparse_unsupported_reason(const System& system, const Settings& settings) {
  SparsePattern mass_lower;
  SparsePattern jacobian;
  if (!system.sparse_structure(mass_lower, jacobian)) {
    return "system '" + std::string(system.name()) +
           "' has no sparse structure (only body models with every mass and inertia > 0 and "
           "particle models have one)";
  }
  if (is_implicit(settings.method)) {
    return "the implicit method " + std::string(to_string(settings.method)) +
           " has no sparse path (dense iteration matrix)";
  }
  switch (settings.stabilizer) {
    case StabilizerKind::kNone:
    case StabilizerKind::kBaumgarte:
    case StabilizerKind::kPStab:
    case StabilizerKind::kSBoth:
    case StabilizerKind::kProject:
      return {};
    default:
      return "stabilizer " + std::string(to_string(settings.stabilizer)) +
             " has no sparse path (sparse: none, baumgarte, pstab, sboth, project)";
  }
}

std::string tree_unsupported_reason(const System& system, const Settings& settings) {
  const std::unique_ptr<MassFactor> factor = system.mass_factor();
  if (factor == nullptr) {
    return "system '" + std::string(system.name()) +
           "' has no O(n) mass factorization (only joint-space trees have one)";
  }
  if (is_implicit(settings.method)) {
    return "the implicit method " + std::string(to_string(settings.method)) +
           " has no tree path (dense iteration matrix)";
  }
  // the articulated factorization needs M positive definite (no joint without inertia about it);
  // checked where the motion starts
  State s0(system.n_q(), system.n_v());
  system.initial_state(s0);
  if (!factor->factor(s0.t, s0.q)) {
    return "the mass matrix of system '" + std::string(system.name()) +
           "' is singular at its initial state (a joint moves no mass or inertia)";
  }
  return {};
}

std::optional<Method> parse_method(std::string_view name) noexcept {
  return detail::enum_parse<Method>(kMethods, name);
}

std::optional<StabilizerKind> parse_stabilizer(std::string_view name) noexcept {
  return detail::enum_parse<StabilizerKind>(kStabilizers, name);
}

std::string method_names() {
  return detail::enum_names(kMethods);
}
std::string stabilizer_names() {
  return detail::enum_names(kStabilizers);
}

std::string_view to_string(SvfVariant v) noexcept {
  return detail::enum_name(kSvfVariants, v);
}

std::optional<SvfVariant> parse_svf_variant(std::string_view name) noexcept {
  return detail::enum_parse<SvfVariant>(kSvfVariants, name);
}

std::string svf_variant_names() {
  return detail::enum_names(kSvfVariants);
}

Model::Model(std::shared_ptr<const System> system, const Settings& settings)
    : system_(std::move(system)), settings_(settings) {
  require(system_ != nullptr, "no system");
  require(system_->n_q() == system_->n_v(),
          "this release needs n_q == n_v (q' = v); the system has n_q = " +
              std::to_string(system_->n_q()) + ", n_v = " + std::to_string(system_->n_v()));
  require(std::isfinite(settings_.dt) && settings_.dt > 0.0, "dt must be > 0");
  require(std::isfinite(settings_.gamma1) && settings_.gamma1 >= 0.0, "gamma1 must be >= 0");
  require(std::isfinite(settings_.gamma2) && settings_.gamma2 >= 0.0, "gamma2 must be >= 0");
  require(settings_.projection_tolerance > 0.0, "projection tolerance must be > 0");
  require(settings_.projection_max_iterations >= 1, "projection max iterations must be >= 1");
  require(settings_.datol >= 0.0, "datol must be >= 0");
  if (settings_.stabilize_energy) require_energy_invariant(*system_, settings_.stabilizer);
  require(std::isfinite(settings_.gamma) && settings_.gamma >= 0.0, "gamma must be >= 0");
  // gamma = 0 would be plain index reduction under another name
  require(settings_.stabilizer != StabilizerKind::kSvf || settings_.gamma > 0.0,
          "stabilizer svf needs gamma > 0 (Chin eq. 2.58)");
  require(settings_.starter_substeps >= 1, "starter substeps must be >= 1");
  if (is_implicit(settings_.method)) {
    const ImplicitSettings& im = settings_.implicit;
    // the index-3 methods (and GGL's position row) enforce g = 0 in their Newton iteration; a
    // nonholonomic row has g = 0 identically (system.hpp), so it would be a zero row of the
    // iteration matrix and A v + a = 0 would never be imposed
    require(system_->n_nonholonomic() == 0,
            "the implicit method " + std::string(to_string(settings_.method)) +
                " enforces position constraints only; system '" + std::string(system_->name()) +
                "' has " + std::to_string(system_->n_nonholonomic()) +
                " nonholonomic (velocity) constraint rows: use an explicit method");
    require(settings_.stabilizer == StabilizerKind::kNone,
            "the implicit index-3 methods keep g = 0 themselves by Newton iteration; use "
            "stabilizer none with method " +
                std::string(to_string(settings_.method)));
    require(im.option >= 1 && im.option <= 4, "implicit option must be 1..4");
    require(std::isfinite(im.newton_tolerance) && im.newton_tolerance > 0.0,
            "newton tolerance must be > 0");
    require(im.newton_max_iterations >= 1, "newton max iterations must be >= 1");
    if (settings_.method == Method::kGsssss) {
      require(0.0 <= im.rho3 && im.rho3 <= im.rho1 && im.rho1 <= im.rho2 && im.rho2 <= 1.0,
              "gsssss needs 0 <= rho3 <= rho1 <= rho2 <= 1");
    }
    if (settings_.method == Method::kHht) {
      require(im.rho_inf >= 0.5 && im.rho_inf <= 1.0, "hht needs rho_inf in [1/2, 1]");
    }
    if (settings_.method == Method::kWbz || settings_.method == Method::kGenAlpha) {
      require(im.rho_inf >= 0.0 && im.rho_inf <= 1.0, "rho_inf must be in [0, 1]");
    }
  }

  // KKT solver: an explicit request must be runnable; auto takes sparse where it is supported
  // and faster (n_v at or above the measured crossover), dense otherwise
  if (settings_.solver == KktSolver::kDense) {
    solver_ = KktSolver::kDense;
  } else if (settings_.solver == KktSolver::kTree) {
    const std::string why_not = tree_unsupported_reason(*system_, settings_);
    require(why_not.empty(), "solver tree: " + why_not);
    solver_ = KktSolver::kTree;
  } else {
    const std::string why_not = sparse_unsupported_reason(*system_, settings_);
    require(settings_.solver != KktSolver::kSparse || why_not.empty(), "solver sparse: " + why_not);
    solver_ = why_not.empty() && (settings_.solver == KktSolver::kSparse ||
                                  system_->n_v() >= kSparseCrossoverNv)
                  ? KktSolver::kSparse
                  : KktSolver::kDense;
    // auto: the tree path for a joint-space tree from the measured crossover on
    if (solver_ == KktSolver::kDense && settings_.solver == KktSolver::kAuto &&
        system_->n_v() >= kTreeCrossoverNv &&
        tree_unsupported_reason(*system_, settings_).empty()) {
      solver_ = KktSolver::kTree;
    }
  }
}

std::string step_flag_names(std::uint32_t flags, std::string_view separator) {
  static constexpr std::array<std::pair<StepFlag, std::string_view>, 6> kNames{{
      {StepFlag::kSingularKkt, "singular_kkt"},
      {StepFlag::kStabilizerNotConverged, "stabilizer_not_converged"},
      {StepFlag::kNonFinite, "non_finite"},
      {StepFlag::kCorrectionSingular, "correction_singular"},
      {StepFlag::kNotConverged, "not_converged"},
      {StepFlag::kRankDeficient, "rank_deficient"},
  }};
  std::string out;
  for (const auto& [flag, name] : kNames) {
    if (!has_flag(flags, flag)) continue;
    if (!out.empty()) out += separator;
    out += name;
  }
  return out;
}

}  // namespace rtmb
