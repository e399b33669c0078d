// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include "rtmb/model.hpp"

namespace rtmb {

/// Coefficients of one GSSSS member (Hoitink 2011 Algorithms 1-2; reference
/// gsssss-hoitink2011.md §1.2-§1.5). With dA = a_{n+1} - a_n the EOM-level ("tilde") quantities
/// at t~ = t_n + W1 dt are
///   u~ = u_n + W1L1 dt v_n + W2L2 dt^2 a_n + W3L3 dt^2 dA
///   v~ = v_n + W1L4 dt a_n + W2L5 dt dA
///   a~ = a_n + W1L6 dA
/// and the updates are
///   u_{n+1} = u_n + l1 dt v_n + l2 dt^2 a_n + l3 dt^2 dA,  v_{n+1} = v_n + l4 dt a_n + l5 dt dA.
/// The scalars l1..l5 are the seed's lambda_1..lambda_5, unrelated to the multipliers (P12).
struct GsssssParameters {
  double W1 = 0.0;    ///< EOM time level t_n + W1 dt [-]
  double W1L1 = 0.0;  ///< products W_i Lambda_j [-]
  double W2L2 = 0.0;
  double W3L3 = 0.0;
  double W1L4 = 0.0;
  double W2L5 = 0.0;
  double W1L6 = 0.0;
  double l1 = 1.0;  ///< update parameters lambda_1..lambda_5 [-]
  double l2 = 0.5;
  double l3 = 0.0;  ///< Newmark beta
  double l4 = 1.0;
  double l5 = 0.0;  ///< Newmark gamma
};

/// Parameters of U0 or V0 from the spectral radii, 0 <= rho3 <= rho1 <= rho2 <= 1. Uses the
/// closed forms of reference §1.3-§1.5, which are regular where the seed's weight-function
/// coefficients w_j are singular (U0 at rho3 = 1/4, V0 where D = 0).
[[nodiscard]] GsssssParameters gsssss_parameters(GsssssFamily family,
                                                 double rho1,
                                                 double rho2,
                                                 double rho3) noexcept;

/// The GSSSS member an implicit Method names (Hoitink Table 2.1; reference §1.6):
/// kNewmark U0(1,1,0), kHht U0(r,r,(1-r)/(2r)), kWbz U0(r,r,0), kGenAlpha U0(r,r,r),
/// kMidpoint V0(1,1,0), kGsssss the explicit (family, rho1, rho2, rho3); r = implicit.rho_inf.
/// Precondition: is_implicit(settings.method).
[[nodiscard]] GsssssParameters gsssss_parameters(const Settings& settings) noexcept;

}  // namespace rtmb
