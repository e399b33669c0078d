// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "rtmb/system.hpp"

namespace rtmb {

/// Time integrator of the index-1 form.
enum class Method {
  kEuler,   ///< forward Euler, order 1, fixed step
  kHeun,    ///< Heun (explicit trapezoidal), order 2, fixed step
  kRk4,     ///< classical Runge-Kutta, order 4, fixed step
  kDopri5,  ///< Dormand-Prince 5(4): adaptive in AdaptiveDopri5, fixed-step 5th order in step()
  // Adams predictor-correctors, PECE, RK4 start-up (Wu, Chiou & Lin 2000; engine/multistep):
  kAmpc3,     ///< AB3 predictor, AM 2-step corrector, order 3
  kAmpc4,     ///< AB4 / AM 3-step, order 4
  kAmpc5,     ///< AB5 / AM 4-step, order 5
  kMampc3,    ///< modified AMPC_3: blend 1/10 Y^P + 9/10 Y^C, order 4
  kMampc4,    ///< modified AMPC_4: 19/270 Y^P + 251/270 Y^C, order 5
  kMampc5,    ///< modified AMPC_5: 27/502 Y^P + 475/502 Y^C, order 6
  kMidpoint,  ///< implicit midpoint by fixed-point iteration: order 2, symmetric
};

/// How drift off the constraint manifold is controlled.
enum class StabilizerKind {
  kNone,       ///< plain index reduction: drift grows
  kBaumgarte,  ///< B(gamma1, gamma2) feedback in the right-hand side (Chin eq. 2.14)
  kPStab,      ///< post-stabilization S-both2 (Chin eq. 4.15), the default
  kSBoth,      ///< one pass of the PStab correction (Chin eq. 3.66)
  kSFull,      ///< S-full, F = H^T (H H^T)^-1 (Chin Algorithm 3.2)
  kProject,    ///< iterated M-metric coordinate projection of q, then v
  // projections and direct correction (issue 6; engine/correct, engine/stabilize):
  kOrthProj,   ///< orthogonal projection, Euclidean metric: Newton on g(q), then v (= dc-b)
  kOrthProjM,  ///< orthogonal projection, M metric: Newton on g(q), then v
  kSymProj,    ///< Hairer's symmetric projection around the method, Euclidean metric on (q, v)
  kSymProjM,   ///< symmetric projection in the metric diag(M, M) (M positive definite)
  kDcB,        ///< direct correction (b): positions by Newton, then one velocity step
  kDcC,        ///< direct correction (c): positions and velocities together
  kDcD,        ///< direct correction (d): (c) plus the energy row E - E0
  kPartition,  ///< coordinate partitioning: dependent q, v from the constraints, re-partitioned
};

[[nodiscard]] std::string_view to_string(Method m) noexcept;
[[nodiscard]] std::string_view to_string(StabilizerKind s) noexcept;
[[nodiscard]] std::optional<Method> parse_method(std::string_view name) noexcept;
[[nodiscard]] std::optional<StabilizerKind> parse_stabilizer(std::string_view name) noexcept;
/// Comma-separated valid names, for error messages and --help.
[[nodiscard]] std::string method_names();
[[nodiscard]] std::string stabilizer_names();

/// Integration settings of a model. Validated by Model's constructor.
struct Settings {
  Method method = Method::kRk4;
  StabilizerKind stabilizer = StabilizerKind::kPStab;
  double dt = 1e-3;  ///< fixed step [s], > 0
  /// Baumgarte gains [1/s], [1/s^2], >= 0: used by kBaumgarte, and in step() added to the
  /// right-hand side under any other stabilizer when non-zero (e.g. Baumgarte + PStab).
  /// Wu et al.'s alpha = beta is gamma1 = 2 alpha, gamma2 = alpha^2.
  double gamma1 = 0.0;
  double gamma2 = 0.0;
  double projection_tolerance = 1e-12;  ///< kProject: target ||g||inf, > 0
  int projection_max_iterations = 20;   ///< kProject: correction limit per step, >= 1
  double datol = 0.0;                   ///< kPStab/kSBoth: skip while drift <= datol (0: never)
  bool monitor = true;                  ///< measure drift and energy after every step
  int starter_substeps = 8;             ///< Adams methods: RK4 substeps per start-up step, >= 1
  /// dc-b/dc-c/dc-d: mass-weighted minimum-norm steps (W = M, diag(M, M)) instead of the paper's
  /// unweighted ones. Tolerance and iteration limit: projection_tolerance, _max_iterations.
  bool correction_mass_weighted = false;
};

/// The immutable description the step runs on: a System and its settings.
/// Construction validates the settings (std::invalid_argument with the offending field).
class Model {
 public:
  Model(std::shared_ptr<const System> system, const Settings& settings);

  [[nodiscard]] const System& system() const noexcept { return *system_; }
  [[nodiscard]] const Settings& settings() const noexcept { return settings_; }

 private:
  std::shared_ptr<const System> system_;
  Settings settings_;
};

}  // namespace rtmb
