// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include "engine/implicit/dense_lu.hpp"
#include "engine/implicit/gsssss_parameters.hpp"
#include "engine/implicit/implicit_integrator.hpp"
#include "engine/implicit/iteration_blocks.hpp"
#include "engine/kkt/dense_kkt.hpp"
#include "rtmb/discrete_gradient.hpp"
#include "rtmb/model.hpp"
#include "rtmb/status.hpp"
#include "rtmb/system.hpp"

namespace rtmb {

/// One fixed step of a GSSSS member on the natural index-3 equations
///     M(q) a + G(q)^T lambda = f(t, q, v),   g(t, q) = 0
/// in Hoitink's single-field a-form (Hoitink 2011 §3.3-§3.4, eqs. 3.12-3.31; reference
/// gsssss-hoitink2011.md §2.3-§2.4, with the corrected constraint scaling g/chi_Cu of P1).
///
/// Unknowns per step: a = a_{n+1} (size n_v) and the multiplier lambda (size n_lambda). With the
/// tilde quantities of GsssssParameters, Newton solves
///     e1 = M(u~) a~ - f(t~, u~, v~) + (B^T lambda)~_option = 0        (eq. 3.12)
///     e2 = g(t_{n+1}, u_{n+1}) / (l3 dt^2)                    = 0        (eq. 3.13, P1)
/// with the analytic iteration matrix (eq. 3.22 / 4.15-4.18, exact for option 4)
///     [ W1L6 M + W3L3 dt^2 (dMa/dq - df/dq) - W2L5 dt df/dv + c_o H   d e1/d lambda ]
///     [ B(u_{n+1})                                                     0             ]
/// where H = d(B^T mu)/dq and the option-dependent constraint parts are those of reference §2.4.
/// Forces are evaluated "parameters inside" at (t~, u~, v~) (seed eq. 3.7); for the members with
/// W1 = 1/2, where u~ is the midpoint of u_n and u_{n+1}, a System that derives from
/// DiscreteGradientForces gives its nonlinear internal forces as discrete gradients between
/// u_n and u_{n+1} instead (rtmb/discrete_gradient.hpp; Hoitink eq. 4.44-4.45), which makes the
/// step conserve their energy.
///
/// The method carries a_n and lambda_n from step to step. They are (re)initialized from the
/// consistent KKT solve [M G^T; G 0][a0; l0] = [f; -L] whenever the state handed to step() is not
/// the one the previous step produced (first step, or the caller reset the state). For V0(1,1,0)
/// they are only Newton initial guesses (spurious root 0, reference §2.8).
///
/// Iteration stops when ||[da; dlambda]||inf < newton_tolerance (the norm that reproduces
/// Hoitink's counts, reference §8), or (newton_round_off_floor) when the position increment l3 h^2
/// ||da|| has reached the round-off level of u_{n+1} with ||dlambda|| converged or no longer
/// contracting (small steps, e.g. Andrews at 1e-5, where the absolute test on a is below
/// round-off), or (newton_round_off_floor) when the increments have stopped contracting and the
/// residual [e1; g(u_{n+1})] itself is at round-off (residual_at_round_off: near a singular
/// position, where the Newton matrix is nearly singular and amplifies the round-off of the residual
/// into increments far above the tolerance); after newton_max_iterations the step reports
/// kNotConverged and leaves the state and the carried a_n, lambda_n untouched. Setup allocates;
/// step() does not.
class GsssssIntegrator final : public ImplicitIntegrator {
 public:
  GsssssIntegrator(const System& system,
                   const GsssssParameters& parameters,
                   const ImplicitSettings& settings);

  /// Advances (t, q, v) by h into `to` (no aliasing). Returns false (state outputs
  /// unspecified, carried a_n / lambda_n unchanged) on kNotConverged or kSingularKkt; the
  /// iterations and the last increment norm are in status either way. RT-safe.
  [[nodiscard]] bool step(const StepFrom& from, StepTo to, StepStatus& status) noexcept override;

  /// Re-initializes a_n and lambda_n from the consistent KKT solve at (t, q, v). RT-safe.
  void initialize(double t, VecCRef q, VecCRef v, StepStatus& status) noexcept;

  [[nodiscard]] const GsssssParameters& parameters() const noexcept { return p_; }
  /// Stored acceleration a_{n+1} of the last step [m/s^2 | rad/s^2], size n_v. It lives at
  /// t_{n+W1} when W1L6 = 1 (a_{n+1} = a~, e.g. V0(1,1,0): the midpoint), else at t_{n+1}.
  [[nodiscard]] const Vec& acceleration() const noexcept { return a_; }
  /// Multiplier of the last step, size n_lambda. For options 2 and 3 it is lambda~ at t_{n+W1}
  /// (reference §2.2), for options 1 and 4 the endpoint value.
  [[nodiscard]] const Vec& lambda() const noexcept { return lambda_; }
  /// a and lambda aligned to t_{n+1} by the linear extrapolation of seed eq. 3.31,
  /// x(t_{n+1}) = (2 - W1) x_{n+1} - (1 - W1) x_n, applied where the stored value lives at
  /// t_{n+W1} (identity otherwise). RT-safe.
  void acceleration_at_end(VecRef out_a) const noexcept;
  void lambda_at_end(VecRef out_lambda) const noexcept;
  /// Factorizations of the iteration matrix since construction (modified Newton reuses them).
  [[nodiscard]] long factorizations() const noexcept { return factorizations_; }

 private:
  void evaluate_point(double t_tilde, double t_end) noexcept;
  void residual() noexcept;
  [[nodiscard]] bool at_round_off_floor(double previous_dl) const noexcept;
  /// True when the residual rhs_ = -[e1; e2] of the current iterate is at the round-off level of
  /// its terms (after residual()). RT-safe.
  [[nodiscard]] bool residual_at_round_off() const noexcept;
  [[nodiscard]] bool build_and_factor(double t, StepStatus& status) noexcept;

  const System& sys_;
  GsssssParameters p_;
  ImplicitSettings settings_;
  int n_;
  int m_;
  DenseKkt kkt_;  ///< consistent initialization only
  DenseLu lu_;    ///< Newton matrix, (n + m)^2
  bool factored_ = false;
  long factorizations_ = 0;

  // carried between steps
  bool initialized_ = false;
  double t_last_ = 0.0;
  Vec q_last_, v_last_;       ///< state produced by the last step, to detect resets
  Vec a_, lambda_;            ///< a_{n+1}, lambda_{n+1} of the last step
  Vec a_prev_, lambda_prev_;  ///< the values one step earlier (for the eq. 3.31 alignment)

  // the system's discrete-gradient forces when W1 == 1/2 exactly (V0(1,1,0), U0/V0(1,1,1)) and
  // it has them, else nullptr (forces() at u~)
  const DiscreteGradientForces* discrete_gradient_ = nullptr;

  // per step
  double h_ = 0.0;
  double dt2_ = 0.0;
  Vec an_, ln_;                ///< a_n, lambda_n at the start of the step
  Vec qn_;                     ///< u_n (the discrete gradient's first end point)
  Vec u1_0_, ut_0_, vt_0_;     ///< predictors of u_{n+1}, u~, v~ with dA = 0
  Vec a_it_, l_it_;            ///< Newton iterates
  Vec u1_, ut_, vt_, at_;      ///< u_{n+1}, u~, v~, a~ of the iterate
  Vec mu_;                     ///< multiplier combination inside B^T (option 4)
  Mat M_, fq_, fv_, Kin_, H_;  ///< M(u~), df/dq, df/dv, d(Ma)/dq, d(B^T mu)/dq
  Mat Gt_, G1_, Gn_;           ///< B(u~), B(u_{n+1}), B(u_n)
  Vec f_, g1_, cforce_n_;      ///< f(t~,u~,v~), g(u_{n+1}), (1-W1) B_n^T lambda_n (option 1)
  Vec rhs_;                    ///< -[e1; e2], then the increment, n + m
  BlockScratch scratch_;       ///< finite-difference fallback
};

}  // namespace rtmb
