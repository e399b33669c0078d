// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

namespace rtmb {

/// Strain of an axial (truss) element of natural length l0 at length l; its energy is
/// EA l0 eps^2 / 2 (engine/multibody/truss_element.hpp, Hoitink 2011 §4.2).
enum class StrainMeasure {
  kLinear,  ///< eps = (l - l0) / l0
  kGreen,   ///< eps = (l^2 - l0^2) / (2 l0^2)
};

}  // namespace rtmb
