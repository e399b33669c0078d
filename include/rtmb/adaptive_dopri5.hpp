// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include <memory>

#include "rtmb/model.hpp"
#include "rtmb/state.hpp"
#include "rtmb/status.hpp"
#include "rtmb/step.hpp"

namespace rtmb {

/// Tolerances and limits of the adaptive integrator.
struct AdaptiveOptions {
  double rtol = 1e-6;            ///< relative tolerance, > 0
  double atol = 0.0;             ///< absolute tolerance; 0 means rtol/10 (Chin p. 92)
  double h_initial = 0.0;        ///< first step [s]; 0 means Hairer's HINIT estimate
  double h_max = 0.0;            ///< largest step [s]; 0 means t_end - t
  long max_steps = 100'000'000;  ///< attempted-step limit, then step() fails
  /// false (default): the local error estimate is Chin's eq. (4.8) applied to the modified scheme,
  /// h sum_j E_j k_j with k7 taken at the stabilized point (eq. 4.11, 4.13) -- the 5th-order
  /// solution it compares is the unstabilized one of eq. (4.10). This reproduces Chin's Table 4.1
  /// PStab counts to 0.2 % at rtol 1e-4/1e-5. true: the stabilization correction y_stab - y~ is
  /// added to the estimate (the reading in reference/post-stabilization-chin1995.md §2.2).
  bool error_includes_stabilization = false;
};

/// Counters as in Hairer's DOPRI5 and Chin's RKSTAB (§2.3, pitfall 15): NSTEP counts accepted and
/// rejected steps, NFCN = 6 NSTEP + 2 (the initial f(y0) and the HINIT evaluation), rejections
/// before the first accepted step are not counted in NREJCT, NSTAB counts stabilizer calls.
struct AdaptiveCounters {
  long nstep = 0;
  long naccpt = 0;
  long nrejct = 0;
  long nfcn = 0;
  long nstab = 0;
};

/// Dormand-Prince 5(4) with step-size control and Chin's stabilized FSAL modification
/// (Chin 1995 eq. 4.10-4.14, reference/post-stabilization-chin1995.md §2.2-2.3):
///   1. the fifth-order solution y~ is post-stabilized (the Model's stabilizer) to y;
///   2. k7 = f(t + h, y) at the STABILIZED point, which is also k1 of the next step (FSAL);
///   3. the error estimate is y~ - (y_n + h sum_{j<=6} b^_j k_j + h b^_7 k7) = h sum E_j k_j
///      (eq. 4.8, 4.13), optionally plus the stabilization correction;
///   4. classic controller without PI term: err in the RMS norm with
///      sk = atol + rtol max(|y_n|, |y_{n+1}|), fac = clamp(err^(1/5)/0.9, 1/10, 5), h_new = h/fac,
///      no step increase right after a rejection; the last step is clipped to hit t_end.
/// With Baumgarte (or no stabilizer) this is the unmodified DOPRI5.
/// The driver runs on a Workspace, as step() does: its right-hand side is the Workspace's
/// (acceleration(ws, ...): inputs, and the Baumgarte gains under any stabilizer, e.g. Baumgarte +
/// PStab), its stabilizer the Workspace's (stabilize(ws, ...)), so the two agree on every setting.
/// Allocation-free after construction; not bounded in time (rejections), so offline use only.
class AdaptiveDopri5 {
 public:
  /// Runs on ws, built from model; both must outlive the driver. ws must not be stepped by
  /// anything else meanwhile (the driver keeps its FSAL stage between calls).
  AdaptiveDopri5(const Model& model, Workspace& ws, const AdaptiveOptions& options);
  /// Runs on a Workspace of its own.
  AdaptiveDopri5(const Model& model, const AdaptiveOptions& options);
  ~AdaptiveDopri5();
  AdaptiveDopri5(const AdaptiveDopri5&) = delete;
  AdaptiveDopri5& operator=(const AdaptiveDopri5&) = delete;

  /// Advances s by one accepted step towards t_end (never past it). Returns false when s.t
  /// already equals t_end, or on failure (status flags set: kNonFinite when the step size
  /// underflows or max_steps is exceeded, kSingularKkt). status describes the accepted step
  /// (drift and energy are measured when the model's monitor setting is on).
  bool step(State& s, double t_end, StepStatus& status) noexcept;

  [[nodiscard]] const AdaptiveCounters& counters() const noexcept;
  /// Step size proposed for the next step [s].
  [[nodiscard]] double next_step_size() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rtmb
