// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#include "rtmb/system.hpp"

#include <limits>

#include "rtmb/system.hpp"

namespace rtmb {

void System::constraint_rate(double /*t*/, VecCRef /*q*/, VecRef out_gt) const noexcept {
  out_gt.setZero();
}

// Not provided by default: engine/implicit falls back to finite differences (system.hpp).
bool System::force_jacobians(double /*t*/,
                             VecCRef /*q*/,
                             VecCRef /*v*/,
                             MatRef /*out_fq*/,
                             MatRef /*out_fv*/) const noexcept {
  return false;
}

bool System::constraint_force_jacobian(double /*t*/,
                                       VecCRef /*q*/,
                                       VecCRef /*lambda*/,
                                       MatRef /*out_H*/) const noexcept {
  return false;
}

bool System::inertia_jacobian(double /*t*/,
                              VecCRef /*q*/,
                              VecCRef /*a*/,
                              MatRef /*out_K*/) const noexcept {
  return false;
}

// No sparse description by default: the engine uses the dense path (system.hpp).
bool System::sparse_structure(SparsePattern& /*mass_lower*/, SparsePattern& /*jacobian*/) const {
  return false;
}

void System::mass_values(double /*t*/, VecCRef /*q*/, std::span<double> /*out*/) const noexcept {}

void System::jacobian_values(double /*t*/,
                             VecCRef /*q*/,
                             std::span<double> /*out*/) const noexcept {}

// Fused evaluations: the separate calls, so every System without an override is unchanged.
void System::jacobian_values_and_curvature(
    double t, VecCRef q, VecCRef v, std::span<double> out_jacobian, VecRef out_L) const noexcept {
  jacobian_values(t, q, out_jacobian);
  curvature(t, q, v, out_L);
}

void System::jacobian_values_and_constraints(double t,
                                             VecCRef q,
                                             std::span<double> out_jacobian,
                                             VecRef out_g) const noexcept {
  jacobian_values(t, q, out_jacobian);
  constraints(t, q, out_g);
}

double System::energy(double /*t*/,
                      VecCRef /*q*/,
                      VecCRef /*v*/,
                      InputValues /*u*/) const noexcept {
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace rtmb
