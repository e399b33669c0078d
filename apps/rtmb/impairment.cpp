// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// parse_impairment (apps/rtmb/impairment.hpp).
#include "apps/rtmb/impairment.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <stdexcept>

namespace rtmb::app {

Impairment parse_impairment(const std::string& text) {
  Impairment out;
  bool seen[3] = {false, false, false};
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t end = std::min(text.find(',', begin), text.size());
    const std::string item = text.substr(begin, end - begin);
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos) {
      throw std::invalid_argument("expected KEY=VALUE, got '" + item + "'");
    }
    const std::string key = item.substr(0, eq);
    const std::string value = item.substr(eq + 1);
    double v = 0.0;
    std::size_t used = 0;
    try {
      v = std::stod(value, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (value.empty() || used != value.size() || !std::isfinite(v)) {
      throw std::invalid_argument("'" + value + "' is not a number (key " + key + ")");
    }
    int index = -1;
    if (key == "delay") index = 0;
    if (key == "jitter") index = 1;
    if (key == "loss") index = 2;
    if (index < 0) {
      throw std::invalid_argument("unknown key '" + key + "' (valid: delay, jitter, loss)");
    }
    if (seen[index]) throw std::invalid_argument("key '" + key + "' given twice");
    seen[index] = true;
    if (index == 2 && (v < 0.0 || v > 1.0)) {
      throw std::invalid_argument("loss must be a probability in [0, 1]");
    }
    if (index < 2 && (v < 0.0 || v > 10000.0)) {
      throw std::invalid_argument(key + " must be from 0 to 10000 ms");
    }
    (index == 0 ? out.delay_ms : index == 1 ? out.jitter_ms : out.loss) = v;
    begin = end + 1;
  }
  return out;
}

}  // namespace rtmb::app
