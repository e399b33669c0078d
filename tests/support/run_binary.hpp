// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <sstream>
#include <string>

namespace rtmb::testing {

/// The value of "key" in a flat JSON line (a command's summary), as text; empty if missing.
inline std::string json_value(const std::string& line, const std::string& key) {
  const std::string quoted = "\"" + key + "\":";
  const std::size_t at = line.find(quoted);
  if (at == std::string::npos) return {};
  const std::size_t begin = at + quoted.size();
  const std::size_t end = line.find_first_of(",}", begin);
  return line.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

/// json_value() as a number; NaN when missing or null.
inline double json_number(const std::string& line, const std::string& key) {
  const std::string v = json_value(line, key);
  return v.empty() || v == "null" ? NAN : std::strtod(v.c_str(), nullptr);
}

/// What a command-line run printed and returned.
struct CommandResult {
  int exit_code = -1;
  std::string out;        ///< stdout and stderr, interleaved
  std::string last_line;  ///< last non-empty line of out
};

/// Runs `RTMB_BINARY args` through the shell as a user would and collects its output.
inline CommandResult run_rtmb(const std::string& args) {
  const std::string cmd = std::string(RTMB_BINARY) + " " + args + " 2>&1";
  CommandResult r;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), buf.size(), pipe) != nullptr) r.out += buf.data();
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) r.last_line = line;
  }
  return r;
}

/// Success when every one of `parts` appears in out; else a failure naming the missing ones,
/// followed by out. Usage: EXPECT_TRUE(contains_all(r.out, {"closing report", "p99"})).
inline ::testing::AssertionResult contains_all(const std::string& out,
                                               std::initializer_list<std::string> parts) {
  std::string missing;
  for (const std::string& p : parts) {
    if (out.find(p) == std::string::npos) missing += " '" + p + "'";
  }
  if (missing.empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "missing" << missing << " in:\n" << out;
}

/// Reads the values printed from the first `marker` on with std::sscanf(format, values...); true
/// when the marker is there and every value was read.
template <class... Values>
bool scan_after(const std::string& out,
                const std::string& marker,
                const char* format,
                Values*... values) {
  const std::size_t at = out.find(marker);
  return at != std::string::npos &&
         std::sscanf(out.c_str() + at, format, values...) == static_cast<int>(sizeof...(values));
}

}  // namespace rtmb::testing
