// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Internal to the validation of the body models' specs and outputs (planar_model_spec.cpp,
// spatial_model_spec.cpp, planar_outputs.cpp, spatial_outputs.cpp): the index checks every
// joint, force, input and output needs. Setup-only; they throw std::invalid_argument.

#include <cmath>
#include <stdexcept>
#include <string>

#include "rtmb/models/planar_multibody.hpp"

namespace rtmb::detail {

// Throws unless b is a body of a model with n_bodies bodies or kGround.
inline void check_body(int b, int n_bodies, const std::string& what) {
  if (b < kGround || b >= n_bodies) {
    throw std::invalid_argument(what + ": body index " + std::to_string(b) + " out of range");
  }
}

// items[k] exists and is of `type` (a joint or force element a spec refers to by index).
template <class Items, class Type>
[[nodiscard]] bool is_of_type(const Items& items, int k, Type type) noexcept {
  return k >= 0 && k < static_cast<int>(items.size()) &&
         items[static_cast<std::size_t>(k)].type == type;
}

// Throws `message` unless items[k] exists and is of `type`.
template <class Items, class Type>
void require_of_type(const Items& items, int k, Type type, const std::string& message) {
  if (!is_of_type(items, k, type)) throw std::invalid_argument(message);
}

// check_body for what pushes or turns a body: the ground cannot be acted on.
inline void check_acted_on_body(int b, int n_bodies, const std::string& what) {
  check_body(b, n_bodies, what);
  if (b == kGround) throw std::invalid_argument(what + " acts on the ground");
}

// x scaled to unit length; throws `message` when x is zero or not finite.
template <class Vector>
void normalize_or_throw(Vector& x, const std::string& message) {
  const double a = x.norm();
  if (!(a > 0.0) || !std::isfinite(a)) throw std::invalid_argument(message);
  x /= a;
}

}  // namespace rtmb::detail
