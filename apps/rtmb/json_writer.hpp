// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>

#include "rtmb/types.hpp"

namespace rtmb::app {

/// Minimal writer for one flat JSON object on one line (the machine-readable summary of the
/// command-line tools). Non-finite numbers become null, as JSON has no NaN.
class JsonLine {
 public:
  JsonLine& field(std::string_view key, std::string_view value) {
    key_(key);
    out_ += '"';
    for (char c : value) {
      if (c == '"' || c == '\\') out_ += '\\';
      out_ += c;
    }
    out_ += '"';
    return *this;
  }
  JsonLine& field(std::string_view key, const char* value) {
    return field(key, std::string_view(value));
  }
  JsonLine& field(std::string_view key, double value) {
    key_(key);
    number_(value);
    return *this;
  }
  JsonLine& field(std::string_view key, long value) {
    key_(key);
    out_ += std::to_string(value);
    return *this;
  }
  JsonLine& field(std::string_view key, bool value) {
    key_(key);
    out_ += value ? "true" : "false";
    return *this;
  }
  JsonLine& field(std::string_view key, const Vec& values) {
    key_(key);
    out_ += '[';
    for (Eigen::Index i = 0; i < values.size(); ++i) {
      if (i > 0) out_ += ',';
      number_(values[i]);
    }
    out_ += ']';
    return *this;
  }
  [[nodiscard]] std::string str() const { return out_ + '}'; }

 private:
  void key_(std::string_view key) {
    out_ += out_.size() == 1 ? "\"" : ",\"";
    out_ += key;
    out_ += "\":";
  }
  void number_(double value) {
    if (!std::isfinite(value)) {
      out_ += "null";
      return;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", value);
    out_ += buf;
  }
  std::string out_ = "{";
};

}  // namespace rtmb::app
