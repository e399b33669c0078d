// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace rtmb {

/// Trouble inside a step is reported here, never thrown or logged. Each flag says what to change.
enum class StepFlag : std::uint32_t {
  kNone = 0,
  /// The KKT matrix [M G^T; G 0] was numerically singular (redundant constraints, or M not
  /// positive definite on ker G). The step result is not trustworthy: check the model.
  kSingularKkt = 1u << 0,
  /// Iterated projection hit its iteration limit before ||g||inf <= tolerance; raise
  /// projection max_iterations or the tolerance, or reduce dt.
  kStabilizerNotConverged = 1u << 1,
  /// A non-finite value appeared in q or v; the state was restored to the start of the step.
  kNonFinite = 1u << 2,
  /// The stacked position/velocity(/energy) system of direct correction (dc-c, dc-d) was
  /// singular (a change point of the mechanism); this step used the sequential correction (dc-b)
  /// instead. Expected at singular configurations; persistent flags mean redundant constraints.
  kCorrectionSingular = 1u << 3,
  /// An implicit method's iteration (Newton for the index-3 methods, fixed point for
  /// ode-midpoint) hit its iteration limit before reaching the tolerance; the Newton methods
  /// restored the state to the start of the step. Reduce dt or raise newton_max_iterations /
  /// newton_tolerance (Settings::implicit).
  kNotConverged = 1u << 4,
  /// G lost rank at the configuration of a KKT factorization (a singular position of the
  /// mechanism, e.g. a parallelogram whose links all line up): the rows found dependent there by
  /// the factorization's relative pivot test got zero multipliers and their equations were left
  /// out (the others hold exactly). Expected while a mechanism passes a singular position; if it
  /// persists, the model has redundant constraints (redundant_constraints: remove).
  kRankDeficient = 1u << 5,
};

[[nodiscard]] constexpr std::uint32_t operator|(std::uint32_t a, StepFlag b) noexcept {
  return a | static_cast<std::uint32_t>(b);
}
[[nodiscard]] constexpr bool has_flag(std::uint32_t flags, StepFlag f) noexcept {
  return (flags & static_cast<std::uint32_t>(f)) != 0u;
}

/// The names of the flags set in flags ("singular_kkt", "stabilizer_not_converged",
/// "non_finite", "correction_singular", "not_converged", "rank_deficient"), joined by separator; ""
/// for none. For reports, not for the real-time path (allocates).
[[nodiscard]] std::string step_flag_names(std::uint32_t flags, std::string_view separator = ",");

/// Per-step report. Trivially copyable so it can cross the real-time boundary by value.
struct StepStatus {
  std::uint32_t flags = 0;        ///< OR of StepFlag
  double position_drift = 0.0;    ///< ||g(t,q)||inf after the step [m | rad]
  double velocity_drift = 0.0;    ///< ||G v + g_t||inf after the step [m/s | rad/s]
  double energy = 0.0;            ///< T + V after the step [J]; NaN where undefined
  int rhs_evaluations = 0;        ///< KKT right-hand-side evaluations in this step
  int stabilizer_iterations = 0;  ///< correction passes done by the stabilizer
  int kkt_factorizations = 0;     ///< factorizations of [M G^T; G 0] in this step
  int newton_iterations = 0;      ///< implicit methods: Newton iterations (linear solves) this step
  double newton_residual = 0.0;   ///< implicit methods: ||[da; dlambda]||inf of the last iteration

  void set(StepFlag f) noexcept { flags = flags | f; }
  [[nodiscard]] bool ok() const noexcept { return flags == 0u; }
};

}  // namespace rtmb
