// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#include "apps/rtmb/round_trip_report.hpp"

#include <algorithm>
#include <cstddef>

namespace rtmb::app {

std::string round_trip_report_line(std::vector<double>& rtt_us) {
  const auto at = [&](double q) {
    const auto k = static_cast<std::ptrdiff_t>(q * static_cast<double>(rtt_us.size() - 1));
    std::nth_element(rtt_us.begin(), rtt_us.begin() + k, rtt_us.end());
    return rtt_us[static_cast<std::size_t>(k)];
  };
  const double p50 = at(0.5);
  const double p99 = std::max(at(0.99), p50);
  return R"({"command":"report","rtt_p50_us":)" + std::to_string(p50) + R"(,"rtt_p99_us":)" +
         std::to_string(p99) + R"(,"samples":)" + std::to_string(rtt_us.size()) + "}";
}

}  // namespace rtmb::app
