// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Time functions of prescribed motion (include/rtmb/models/time_function.hpp).
#include "rtmb/models/time_function.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <initializer_list>
#include <numbers>
#include <stdexcept>
#include <string>
#include <utility>

#include "engine/model/enum_names.hpp"

namespace rtmb {

std::string_view to_string(TimeFunctionType type) noexcept {
  static constexpr std::array<std::string_view, 5> kNames{"constant", "ramp", "sine", "polynomial",
                                                          "table"};
  return detail::enum_name(kNames, type);
}

namespace {

void require_finite(double x, const char* what) {
  if (!std::isfinite(x)) throw std::invalid_argument(std::string(what) + " must be finite");
}

// Every named parameter of a `kind` of time function finite ("ramp: rate must be finite").
void require_finite(const char* kind,
                    std::initializer_list<std::pair<const char*, double>> parameters) {
  for (const auto& [name, x] : parameters) {
    if (!std::isfinite(x)) {
      throw std::invalid_argument(std::string(kind) + ": " + name + " must be finite");
    }
  }
}

}  // namespace

TimeFunction TimeFunction::constant(double value) {
  require_finite(value, "constant: value");
  TimeFunction f;
  f.type_ = TimeFunctionType::kConstant;
  f.a_ = value;
  return f;
}

TimeFunction TimeFunction::ramp(double value, double start, double rate) {
  require_finite("ramp", {{"value", value}, {"start", start}, {"rate", rate}});
  TimeFunction f;
  f.type_ = TimeFunctionType::kRamp;
  f.a_ = value;
  f.b_ = start;
  f.c_ = rate;
  return f;
}

TimeFunction TimeFunction::sine(double amplitude, double frequency, double phase, double offset) {
  require_finite(
      "sine",
      {{"amplitude", amplitude}, {"frequency", frequency}, {"phase", phase}, {"offset", offset}});
  TimeFunction f;
  f.type_ = TimeFunctionType::kSine;
  f.a_ = amplitude;
  f.b_ = 2.0 * std::numbers::pi * frequency;
  f.c_ = phase;
  f.d_ = offset;
  return f;
}

TimeFunction TimeFunction::polynomial(std::vector<double> coefficients) {
  if (coefficients.empty()) throw std::invalid_argument("polynomial: needs a coefficient");
  for (const double c : coefficients) require_finite(c, "polynomial: every coefficient");
  TimeFunction f;
  f.type_ = TimeFunctionType::kPolynomial;
  f.x_ = std::move(coefficients);
  return f;
}

TimeFunction TimeFunction::table(std::vector<double> times, std::vector<double> values) {
  const std::size_t n = times.size();
  if (n < 2 || values.size() != n) {
    throw std::invalid_argument("table: needs at least 2 (time, value) pairs");
  }
  for (std::size_t k = 0; k < n; ++k) {
    require_finite(times[k], "table: every time");
    require_finite(values[k], "table: every value");
    if (k > 0 && !(times[k] > times[k - 1])) {
      throw std::invalid_argument("table: times must be strictly increasing");
    }
  }
  // Knot second derivatives m_k of the cubic spline with zero end slopes (clamped): with
  // h_k = t_{k+1} - t_k and slopes d_k = (y_{k+1} - y_k)/h_k, continuity of f' at the inner
  // knots gives  h_{k-1} m_{k-1} + 2 (h_{k-1} + h_k) m_k + h_k m_{k+1} = 6 (d_k - d_{k-1}),
  // and f'(t_0) = f'(t_n) = 0 gives  2 h_0 m_0 + h_0 m_1 = 6 d_0,
  // h_{n-1} m_{n-1} + 2 h_{n-1} m_n = -6 d_{n-1}. The matrix is tridiagonal and strictly
  // diagonally dominant, so the Thomas algorithm (no pivoting) is stable.
  std::vector<double> lower(n, 0.0);
  std::vector<double> diag(n, 0.0);
  std::vector<double> upper(n, 0.0);
  std::vector<double> rhs(n, 0.0);
  for (std::size_t k = 0; k < n; ++k) {
    if (k > 0) {
      const double h = times[k] - times[k - 1];
      const double d = (values[k] - values[k - 1]) / h;
      lower[k] = h;
      diag[k] += 2.0 * h;
      rhs[k] -= 6.0 * d;
    }
    if (k + 1 < n) {
      const double h = times[k + 1] - times[k];
      const double d = (values[k + 1] - values[k]) / h;
      upper[k] = h;
      diag[k] += 2.0 * h;
      rhs[k] += 6.0 * d;
    }
  }
  for (std::size_t k = 1; k < n; ++k) {
    const double w = lower[k] / diag[k - 1];
    diag[k] -= w * upper[k - 1];
    rhs[k] -= w * rhs[k - 1];
  }
  std::vector<double> m(n, 0.0);
  m[n - 1] = rhs[n - 1] / diag[n - 1];
  for (std::size_t k = n - 1; k-- > 0;) m[k] = (rhs[k] - upper[k] * m[k + 1]) / diag[k];

  TimeFunction f;
  f.type_ = TimeFunctionType::kTable;
  f.x_ = std::move(times);
  f.y_ = std::move(values);
  f.m_ = std::move(m);
  return f;
}

TimeValue TimeFunction::evaluate(double t) const noexcept {
  TimeValue out;
  switch (type_) {
    case TimeFunctionType::kConstant:
      out.f = a_;
      break;
    case TimeFunctionType::kRamp:
      if (t < b_) {
        out.f = a_;
      } else {
        out.f = a_ + c_ * (t - b_);
        out.df = c_;
      }
      break;
    case TimeFunctionType::kSine: {
      const double arg = b_ * t + c_;
      out.f = d_ + a_ * std::sin(arg);
      out.df = a_ * b_ * std::cos(arg);
      out.ddf = -a_ * b_ * b_ * std::sin(arg);
      break;
    }
    case TimeFunctionType::kPolynomial:
      // Horner for p, p' and p'' together
      for (std::size_t k = x_.size(); k-- > 0;) {
        out.ddf = out.ddf * t + 2.0 * out.df;
        out.df = out.df * t + out.f;
        out.f = out.f * t + x_[k];
      }
      break;
    case TimeFunctionType::kTable: {
      if (t <= x_.front()) {
        out.f = y_.front();
        break;
      }
      if (t >= x_.back()) {
        out.f = y_.back();
        break;
      }
      // interval k with t_k <= t < t_{k+1}
      const auto it = std::upper_bound(x_.begin(), x_.end(), t);
      const std::size_t k = static_cast<std::size_t>(it - x_.begin()) - 1;
      const double h = x_[k + 1] - x_[k];
      const double a = (x_[k + 1] - t) / h;
      const double b = 1.0 - a;
      // f = a y_k + b y_{k+1} + ((a^3 - a) m_k + (b^3 - b) m_{k+1}) h^2 / 6
      out.f = a * y_[k] + b * y_[k + 1] +
              ((a * a * a - a) * m_[k] + (b * b * b - b) * m_[k + 1]) * h * h / 6.0;
      out.df = (y_[k + 1] - y_[k]) / h - (3.0 * a * a - 1.0) * h * m_[k] / 6.0 +
               (3.0 * b * b - 1.0) * h * m_[k + 1] / 6.0;
      out.ddf = a * m_[k] + b * m_[k + 1];
      break;
    }
  }
  return out;
}

}  // namespace rtmb
