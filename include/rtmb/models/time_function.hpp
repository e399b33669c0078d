// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Scalar functions of time f(t) with their first two derivatives, for prescribed motion
// (joint drivers, rtmb/models/planar_multibody.hpp). A driver adds the rheonomic constraint
// g = coordinate(q) - f(t), whose g_t = -f'(t) and whose curvature term g_tt = -f''(t) enters
// L = g_tt + 2 g_tq v + g_qq(v, v) (Chin 1995 §1.1), so every function supplies f, f' and f''.
//
// Construction (the named factories) validates and precomputes (the table's spline) and may
// throw std::invalid_argument; evaluate() is allocation-free and noexcept.

#include <string_view>
#include <vector>

namespace rtmb {

enum class TimeFunctionType { kConstant, kRamp, kSine, kPolynomial, kTable };

[[nodiscard]] std::string_view to_string(TimeFunctionType type) noexcept;

/// f(t), f'(t), f''(t) at one instant.
struct TimeValue {
  double f = 0.0;
  double df = 0.0;   ///< f'
  double ddf = 0.0;  ///< f''
};

class TimeFunction {
 public:
  /// f = 0.
  TimeFunction() = default;

  /// f = value.
  static TimeFunction constant(double value);
  /// f = value for t < start, value + rate (t - start) after: f' jumps from 0 to `rate` at
  /// `start` (the driven velocity steps; use a table or a polynomial for a smooth start).
  static TimeFunction ramp(double value, double start, double rate);
  /// f = offset + amplitude sin(2 pi frequency t + phase); frequency in Hz.
  static TimeFunction sine(double amplitude, double frequency, double phase, double offset);
  /// f = c0 + c1 t + c2 t^2 + ... (at least one coefficient).
  static TimeFunction polynomial(std::vector<double> coefficients);
  /// Cubic spline through (times[k], values[k]) (at least 2 points, times strictly increasing)
  /// with zero end slopes (clamped), held at the end values outside [times.front(),
  /// times.back()]. f and f' are continuous everywhere and f'' inside the table (C2 there); at
  /// the two ends f'' steps to 0. Zero end slopes rather than a natural spline's zero end
  /// curvature because the function is held constant outside: the driven velocity then does not
  /// jump when the table starts or ends.
  static TimeFunction table(std::vector<double> times, std::vector<double> values);

  [[nodiscard]] TimeFunctionType type() const noexcept { return type_; }
  /// f, f', f'' at t. RT-safe (the table search is a binary search, no allocation).
  [[nodiscard]] TimeValue evaluate(double t) const noexcept;

 private:
  TimeFunctionType type_ = TimeFunctionType::kConstant;
  double a_ = 0.0;         // constant/ramp: value; sine: amplitude
  double b_ = 0.0;         // ramp: start; sine: angular frequency 2 pi frequency [rad/s]
  double c_ = 0.0;         // ramp: rate; sine: phase
  double d_ = 0.0;         // sine: offset
  std::vector<double> x_;  // polynomial: coefficients; table: times
  std::vector<double> y_;  // table: values
  std::vector<double> m_;  // table: second derivatives at the knots
};

}  // namespace rtmb
