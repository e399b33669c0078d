// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Force output safety (include/rtmb/models/force_output_filter.hpp).
#include "rtmb/models/force_output_filter.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace rtmb {

namespace {

void set(std::uint32_t& flags, ForceOutputFlag f) noexcept {
  flags |= static_cast<std::uint32_t>(f);
}

// Scales f so that |f| <= limit, keeping its direction; true when it did.
bool clamp_norm(Eigen::Vector3d& f, double limit) noexcept {
  if (!(limit > 0.0)) return false;
  const double n = f.norm();
  if (!(n > limit)) return false;
  f *= limit / n;
  return true;
}

}  // namespace

ForceOutputFilter::ForceOutputFilter(const ForceSafetyConfig& config) : config_(config) {
  const auto bad = [](double x) { return !(x >= 0.0) || !std::isfinite(x); };
  if (bad(config.max_force) || bad(config.max_rate) || bad(config.engage_force) ||
      bad(config.engage_ramp_s) || bad(config.max_damping) || bad(config.passivity_margin)) {
    throw std::invalid_argument(
        "force safety: max_force, max_rate, engage_force, engage_ramp_s, max_damping and "
        "passivity_margin must be finite and >= 0");
  }
  if (config.passivity && !(config.max_damping > 0.0)) {
    throw std::invalid_argument(
        "force safety: the passivity controller needs max_damping > 0 (about the device mass / "
        "sample period)");
  }
  reset();
}

void ForceOutputFilter::reset() noexcept {
  engaged_ = !(config_.engage_force > 0.0);
  ramp_ = engaged_ && config_.engage_ramp_s > 0.0 ? 0.0 : 1.0;
  energy_ = 0.0;
  last_.setZero();
  sent_.setZero();
  position_.setZero();
  have_position_ = false;
}

ForceOutput ForceOutputFilter::filter(const Eigen::Vector3d& raw,
                                      const Eigen::Vector3d& position,
                                      const Eigen::Vector3d& velocity,
                                      double dt) noexcept {
  ForceOutput out;
  // observer: the exact work of the force held over the last period (zero-order hold)
  if (position.allFinite()) {
    if (have_position_) energy_ += sent_.dot(position - position_);
    position_ = position;
    have_position_ = true;
  }
  // a non-finite force or velocity never reaches the device: treat as zero force
  Eigen::Vector3d f = raw.allFinite() ? raw : Eigen::Vector3d::Zero();
  const Eigen::Vector3d v = velocity.allFinite() ? velocity : Eigen::Vector3d::Zero();
  if (!(dt > 0.0) || !std::isfinite(dt)) dt = 0.0;

  // 1. engage: wait for a small raw force, then ramp up
  if (!engaged_) {
    if (f.norm() <= config_.engage_force) {
      engaged_ = true;
      ramp_ = config_.engage_ramp_s > 0.0 ? 0.0 : 1.0;
    } else {
      set(out.flags, ForceOutputFlag::kWaiting);
      f.setZero();
    }
  }
  if (engaged_ && ramp_ < 1.0) {
    ramp_ = std::min(1.0, ramp_ + dt / config_.engage_ramp_s);
    f *= ramp_;
    if (ramp_ < 1.0) set(out.flags, ForceOutputFlag::kRamping);
  }

  // 2. magnitude clamp, direction kept
  if (clamp_norm(f, config_.max_force)) set(out.flags, ForceOutputFlag::kClamped);

  // 3. rate limit: the change since the last sample, scaled along its own direction
  if (config_.max_rate > 0.0) {
    Eigen::Vector3d change = f - last_;
    if (clamp_norm(change, config_.max_rate * dt)) {
      f = last_ + change;
      set(out.flags, ForceOutputFlag::kRateLimited);
    }
  }
  last_ = f;  // the smooth part: the controller's damping below is not rate limited

  // 4. passivity controller: damp the coming period's predicted excess (capped)
  if (config_.passivity && dt > 0.0) {
    const double excess = energy_ + f.dot(v) * dt + config_.passivity_margin;
    const double v2 = v.squaredNorm();
    if (excess > 0.0 && v2 > 0.0) {
      out.damping = std::min(excess / (v2 * dt), config_.max_damping);
      f -= out.damping * v;
      set(out.flags, ForceOutputFlag::kDamping);
      // 5. the clamp again
      if (clamp_norm(f, config_.max_force)) set(out.flags, ForceOutputFlag::kClamped);
    }
  }
  sent_ = f;
  out.force = f;
  out.observed_energy = energy_;
  return out;
}

}  // namespace rtmb
