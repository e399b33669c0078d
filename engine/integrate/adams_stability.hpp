// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include <complex>

#include "engine/integrate/adams.hpp"

namespace rtmb {

/// Which scheme the linear stability analysis is about.
enum class AdamsScheme {
  kAb,     ///< Adams-Bashforth m-step alone (Table 2 row "ABP")
  kAmpc,   ///< PECE(AB_m, AM (m-1)-step)
  kMampc,  ///< PECE(AB_m, AM (m-1)-step) + Theorem 1 blend
};

/// Spectral radius of the one-step recursion matrix (companion matrix of the characteristic
/// polynomial) of the scheme applied to y' = lambda y at z = h lambda (Wu eq. 31; reference §7
/// "How to compute them"). Setup/analysis only: allocates.
[[nodiscard]] double adams_spectral_radius(AdamsScheme scheme, int steps, std::complex<double> z);

/// Real-axis stability limit: the largest x such that the spectral radius stays <= 1 for every
/// z in [-x, 0) (scan in 1e-3 steps, then bisection to 1e-10). Wu Table 2. Analysis only.
[[nodiscard]] double adams_real_stability_limit(AdamsScheme scheme, int steps);

}  // namespace rtmb
