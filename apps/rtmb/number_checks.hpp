// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Number checks shared by every rtmb subcommand (not real-time code; issue 15, point 4).
//
// Why not CLI::PositiveNumber / CLI::NonNegativeNumber: they are CLI::Range over doubles, so NaN
// passes (every comparison with NaN is false) and their message prints DBL_MAX with
// std::to_string, a 309-digit number. These say what is wrong with %g-formatted values, and
// refuse NaN and infinities. check_finite_numbers() adds the finite check to every floating-point
// option of every subcommand, so an option without a range check refuses NaN and Inf too.

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace rtmb::app {

namespace detail {

/// The option's text as a double; false when it is not a number.
inline bool parse_number(const std::string& text, double& value) {
  if (text.empty()) return false;
  char* end = nullptr;
  value = std::strtod(text.c_str(), &end);
  return end != nullptr && *end == '\0';
}

/// `x` as %g (short, and the same spelling on every platform).
inline std::string short_number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

/// A validator that refuses non-numbers and non-finite values, then applies `ok` with `what`
/// ("positive", ...) in its message.
template <class Predicate>
CLI::Validator number_check(const char* name, const char* what, Predicate ok) {
  return CLI::Validator(
      [what, ok](std::string& text) -> std::string {
        double x = 0.0;
        if (!parse_number(text, x)) return "'" + text + "' is not a number";
        if (!std::isfinite(x)) return "'" + text + "' is not a finite number";
        if (!ok(x)) return short_number(x) + " is not " + what;
        return {};
      },
      "", name);
}

}  // namespace detail

/// A finite number (no NaN, no infinity).
inline const CLI::Validator kFiniteNumber =
    detail::number_check("FINITE", "finite", [](double) { return true; });
/// A finite number > 0.
inline const CLI::Validator kPositiveNumber =
    detail::number_check("POSITIVE", "positive", [](double x) { return x > 0.0; });
/// A finite number >= 0.
inline const CLI::Validator kNonNegativeNumber =
    detail::number_check("NONNEGATIVE", "non-negative", [](double x) { return x >= 0.0; });

/// A CPU number as rt_setup's set_cpu_affinity takes it (0 .. CPU_SETSIZE - 1 = 1023); whether
/// the machine has that CPU is checked when the thread is pinned.
inline const CLI::Validator kCpuIndex = CLI::Range(0, 1023);

/// Adds kFiniteNumber to every floating-point option (CLI11 type name FLOAT) of `app` and of its
/// subcommands, so that no floating-point option anywhere takes NaN or an infinity.
inline void check_finite_numbers(CLI::App& app) {
  for (CLI::Option* opt : app.get_options()) {
    if (opt->get_type_name().rfind("FLOAT", 0) == 0) opt->check(kFiniteNumber);
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    check_finite_numbers(*sub);
  }
}

}  // namespace rtmb::app
