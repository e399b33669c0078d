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
  // Adams predictor-correctors, PECE, RK4 start-up (Wu, Chiou & Lin 2000; engine/integrate/adams):
  kAmpc3,        ///< AB3 predictor, AM 2-step corrector, order 3
  kAmpc4,        ///< AB4 / AM 3-step, order 4
  kAmpc5,        ///< AB5 / AM 4-step, order 5
  kMampc3,       ///< modified AMPC_3: blend 1/10 Y^P + 9/10 Y^C, order 4
  kMampc4,       ///< modified AMPC_4: 19/270 Y^P + 251/270 Y^C, order 5
  kMampc5,       ///< modified AMPC_5: 27/502 Y^P + 475/502 Y^C, order 6
  kOdeMidpoint,  ///< implicit midpoint rule on the index-1 ODE by fixed-point iteration:
                 ///< order 2, symmetric (base of the symmetric projection)
  // Implicit index-3 methods (engine/implicit; Hoitink 2011, reference/gsssss-hoitink2011.md).
  // They keep g = 0 themselves by Newton iteration, so they need StabilizerKind::kNone.
  kGsssss,    ///< GSSSS family member given by Settings::implicit (family, rho1..rho3, option)
  kNewmark,   ///< U0(1,1,0): Newmark average acceleration
  kHht,       ///< U0(rho, rho, (1-rho)/(2 rho)): HHT-alpha, rho = implicit.rho_inf in [1/2, 1]
  kWbz,       ///< U0(rho, rho, 0): WBZ-alpha, rho = implicit.rho_inf
  kGenAlpha,  ///< U0(rho, rho, rho): Chung-Hulbert generalized-alpha, rho = implicit.rho_inf
  kMidpoint,  ///< V0(1,1,0): implicit midpoint with midpoint constraint force (Hoitink's choice)
  kGgl,       ///< GGL stabilized index-2 form (g = 0 and G v = 0), implicit midpoint rule
};

/// The two GSSSS sub-families (Hoitink 2011 §2.1; reference §1.3, §1.4).
enum class GsssssFamily {
  kU0,  ///< zero-order displacement overshoot (contains Newmark, HHT, WBZ, generalized-alpha)
  kV0,  ///< zero-order velocity overshoot (contains the implicit midpoint rule V0(1,1,0))
};

/// Settings of the implicit index-3 methods (ignored by the explicit ones).
struct ImplicitSettings {
  GsssssFamily family = GsssssFamily::kV0;  ///< kGsssss only
  double rho1 = 1.0;  ///< kGsssss: principal-root spectral radius rho1_inf [-], 0 <= rho3 <= rho1
  double rho2 = 1.0;  ///< kGsssss: principal-root spectral radius rho2_inf [-], rho1 <= rho2 <= 1
  double rho3 = 0.0;  ///< kGsssss: spurious-root spectral radius rho3_inf [-], >= 0
  double rho_inf = 0.8;  ///< kHht (in [1/2, 1]), kWbz, kGenAlpha (in [0, 1]) [-]
  /// Constraint-force time discretization (Hoitink eq. 3.8-3.11; reference §2.2), 1..4:
  /// 1 (1-W1) B_n^T l_n + W1 B_{n+1}^T l_{n+1}, 2 B(u~)^T l~ (default), 3 mean(B)^T l~,
  /// 4 B(u~)^T ((1-W1) l_n + W1 l_{n+1}).
  int option = 2;
  double newton_tolerance = 1e-8;   ///< stop when ||[da; dlambda]||inf < this (Hoitink §4), > 0
  int newton_max_iterations = 100;  ///< per step (Hoitink §4), >= 1
  /// Also accept an iterate whose increment reached round-off: l3 h^2 ||da|| at the round-off of
  /// u_{n+1}, ||dlambda|| stalled below 1e-8 ||lambda|| (GSSSS), or any stalled increment at a
  /// round-off residual (GSSSS, GGL; singular poses). Needed at small steps (Andrews, dt <= 1e-4)
  /// where the absolute test on a is below round-off. false = Hoitink's pure absolute test: then
  /// Newmark's growing a and lambda oscillation (double pendulum) fails near 4.7 s (Table 4.1).
  bool newton_round_off_floor = true;
  /// Modified Newton: keep the factored iteration matrix across iterations and steps and refactor
  /// only when an iteration fails to contract (or the step would not converge).
  bool modified_newton = false;
};

/// True for the methods of engine/implicit, which need StabilizerKind::kNone.
[[nodiscard]] constexpr bool is_implicit(Method m) noexcept {
  return m == Method::kGsssss || m == Method::kNewmark || m == Method::kHht || m == Method::kWbz ||
         m == Method::kGenAlpha || m == Method::kMidpoint || m == Method::kGgl;
}

/// How drift off the constraint manifold is controlled.
enum class StabilizerKind {
  kNone,       ///< plain index reduction: drift grows
  kBaumgarte,  ///< B(gamma1, gamma2) feedback in the right-hand side (Chin eq. 2.14)
  kPStab,      ///< post-stabilization S-both2 (Chin eq. 4.15), the default
  kSBoth,      ///< one pass of the PStab correction (Chin eq. 3.66)
  kSFull,      ///< S-full, F = H^T (H H^T)^-1 (Chin Algorithm 3.2)
  kProject,    ///< iterated M-metric coordinate projection of q, then v
  // projections and direct correction (issue 6; engine/stabilize):
  kOrthProj,   ///< orthogonal projection, Euclidean metric: Newton on g(q), then v (= dc-b)
  kOrthProjM,  ///< orthogonal projection, M metric: Newton on g(q), then v
  kSymProj,    ///< Hairer's symmetric projection around the method, Euclidean metric on (q, v)
  kSymProjM,   ///< symmetric projection in the metric diag(M, M) (M positive definite)
  kDcB,        ///< direct correction (b): positions by Newton, then one velocity step
  kDcC,        ///< direct correction (c): positions and velocities together
  kDcD,        ///< direct correction (d): (c) plus the energy row E - E0
  kPartition,  ///< coordinate partitioning: dependent q, v from the constraints, re-partitioned
  kSvf,  ///< Chin's stabilized vector field (eq. 2.58) in the right-hand side, Settings::gamma
};

/// Correction direction of the stabilized vector field (StabilizerKind::kSvf; Chin eq. 2.58 with
/// the index-2 choices of S, reference post-stabilization-chin1995.md §1.4).
enum class SvfVariant {
  kGgtInverse,  ///< S = G^T (G G^T)^-1, P1 = P2 = G G^T: g'' + 2 gamma g' + gamma^2 g = 0 (2.60)
  kGt,          ///< S = G^T, P1 = I, P2^-1 = G G^T (eq. 2.61)
};

/// Linear solver of the KKT systems [M G^T; G 0] on the step path (docs/architecture.md
/// "Sparse path").
enum class KktSolver {
  kAuto,    ///< kSparse when supported (sparse_unsupported_reason() empty) and n_v >=
            ///< kSparseCrossoverNv, else kTree when supported (tree_unsupported_reason() empty)
            ///< and n_v >= kTreeCrossoverNv, else kDense; resolved by Model
  kDense,   ///< DenseKkt: O((n_v + n_lambda)^3), any System, M only PD on ker G
  kSparse,  ///< BlockKkt: O(N) for body-coordinate models with M positive definite
  kTree,    ///< TreeKkt: O(n) M^-1 by the articulated-body algorithm and the n_lambda x
            ///< n_lambda G M^-1 G^T, for joint-space trees (System::mass_factor()) with M
            ///< positive definite
};

/// n_v from which `auto` picks the sparse solver: the crossover measured with
/// bench/sparse_step_bench.cpp (RK4 + PStab on planar chains, dense vs sparse step time;
/// docs/architecture.md "The sparse path"). Defined in engine/model/model.cpp.
extern const int kSparseCrossoverNv;
/// n_v from which `auto` picks the tree solver for a joint-space tree (where the whole step crossed
/// over in bench/sparse_step_bench.cpp's joint_space_loop family). Defined in
/// engine/model/model.cpp.
extern const int kTreeCrossoverNv;

[[nodiscard]] std::string_view to_string(Method m) noexcept;
[[nodiscard]] std::string_view to_string(KktSolver s) noexcept;
[[nodiscard]] std::optional<KktSolver> parse_solver(std::string_view name) noexcept;
/// "auto, dense, sparse, tree".
[[nodiscard]] std::string solver_names();
[[nodiscard]] std::string_view to_string(StabilizerKind s) noexcept;
[[nodiscard]] std::optional<Method> parse_method(std::string_view name) noexcept;
[[nodiscard]] std::optional<StabilizerKind> parse_stabilizer(std::string_view name) noexcept;
/// "ggt_inverse", "gt".
[[nodiscard]] std::string_view to_string(SvfVariant v) noexcept;
[[nodiscard]] std::optional<SvfVariant> parse_svf_variant(std::string_view name) noexcept;
[[nodiscard]] std::string svf_variant_names();
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
  /// kSvf: the stabilized vector field's gamma [1/s], > 0 (Chin eq. 2.58), and its direction.
  double gamma = 0.0;
  SvfVariant svf_variant = SvfVariant::kGgtInverse;
  double projection_tolerance = 1e-12;  ///< kProject: target ||g||inf, > 0
  int projection_max_iterations = 20;   ///< kProject: correction limit per step, >= 1
  double datol = 0.0;                   ///< kPStab/kSBoth: skip while drift <= datol (0: never)
  /// kPStab/kSBoth: after the constraint passes, post-stabilize the energy invariant
  /// E(q, v) = E0 as well (Chin 1995 eq. 2.30/3.45 with F = D (H D)^-1, H = dE/d(q, v),
  /// D = (0, M^-1 E_v^T) = (0, v): the speed is rescaled so that E = E0). For conservative,
  /// scleronomic systems with energy() (issue 16: the rolling disc); E0 is the energy of
  /// System::initial_state at the Workspace's initial channel values.
  bool stabilize_energy = false;
  bool monitor = true;       ///< measure drift and energy after every step
  int starter_substeps = 8;  ///< Adams methods: RK4 substeps per start-up step, >= 1
  /// dc-b/dc-c/dc-d: mass-weighted minimum-norm steps (W = M, diag(M, M)) instead of the paper's
  /// unweighted ones. Tolerance and iteration limit: projection_tolerance, _max_iterations.
  bool correction_mass_weighted = false;
  ImplicitSettings implicit;            ///< implicit index-3 methods only
  KktSolver solver = KktSolver::kAuto;  ///< KKT solver of the step (explicit methods)
};

/// Why the sparse KKT path cannot run `system` with `settings` (no sparse structure, an implicit
/// method, a stabilizer without a sparse path), or an empty string when it can. Setup-only.
[[nodiscard]] std::string sparse_unsupported_reason(const System& system, const Settings& settings);

/// Why the tree KKT path (engine/kkt/tree_kkt.hpp) cannot run `system` with `settings` (no
/// System::mass_factor(), an implicit method, M singular at the initial state), or an empty
/// string when it can. Setup-only.
[[nodiscard]] std::string tree_unsupported_reason(const System& system, const Settings& settings);

/// The immutable description the step runs on: a System and its settings.
/// Construction validates the settings (std::invalid_argument with the offending field; for
/// solver sparse where unsupported, the message starts "invalid settings: solver sparse").
class Model {
 public:
  Model(std::shared_ptr<const System> system, const Settings& settings);

  [[nodiscard]] const System& system() const noexcept { return *system_; }
  [[nodiscard]] const Settings& settings() const noexcept { return settings_; }
  /// The KKT solver the step uses: settings().solver with kAuto resolved (kDense, kSparse or
  /// kTree).
  [[nodiscard]] KktSolver solver() const noexcept { return solver_; }

 private:
  std::shared_ptr<const System> system_;
  Settings settings_;
  KktSolver solver_ = KktSolver::kDense;
};

}  // namespace rtmb
