// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Setup of a spatial model spec, shared by SpatialMultibody's constructor
// (engine/multibody/spatial_model_spec.cpp).

#include "rtmb/models/spatial_multibody.hpp"

namespace rtmb::spatial_detail {

/// Number of constraint rows: one normalization row per body plus the joints' rows.
[[nodiscard]] int constraint_row_count(const SpatialModelSpec& spec);

/// Number of nonholonomic rows (the kDiscNoSlip entries'), the last of the constraint rows.
[[nodiscard]] int nonholonomic_row_count(const SpatialModelSpec& spec);

/// The spec after validation, with the joint frames derived from the initial poses; throws
/// std::invalid_argument naming the element at fault. Setup-only.
[[nodiscard]] SpatialModelSpec validated(SpatialModelSpec spec);

}  // namespace rtmb::spatial_detail
