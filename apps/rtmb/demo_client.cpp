// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#include "apps/rtmb/demo_client.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include "apps/rtmb/round_trip_report.hpp"
#include "rtmb/net/client.hpp"

namespace rtmb::app {

DemoClient::DemoClient(double amplitude, double frequency_hz, double rate_hz)
    : amplitude_(amplitude), frequency_hz_(frequency_hz), rate_hz_(rate_hz) {}

DemoClient::~DemoClient() {
  (void)stop();
}

void DemoClient::start(std::uint16_t tcp_port,
                       const std::string& host,
                       const std::string& token,
                       const std::string& tls_fingerprint) {
  thread_ = std::thread([this, tcp_port, host, token, tls_fingerprint] {
    run(tcp_port, host, token, tls_fingerprint);
  });
}

DemoReport DemoClient::stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
  return report_;
}

void DemoClient::run(std::uint16_t tcp_port,
                     const std::string& host,
                     const std::string& token,
                     const std::string& tls_fingerprint) {
  using Clock = std::chrono::steady_clock;
  try {
    Client client;
    if (tls_fingerprint.empty()) {
      client.connect(host, tcp_port);
    } else {
      client.connect(host, tcp_port, Client::Timeout{2000}, TlsOptions{{}, tls_fingerprint});
    }
    (void)client.hello(token.empty() ? std::nullopt : std::optional<std::string>(token));
    client.subscribe(1);
    const auto period = std::chrono::nanoseconds(std::llround(1e9 / rate_hz_));
    const auto t0 = Clock::now();
    auto next = t0;
    std::uint64_t last_echo = 0;
    std::uint64_t last_seq = 0;
    StateMessage m;
    // once a second the round trips of that second go to the server as a `report` (issue 20:
    // the live view charts the round trip a device sees, which only the device can measure)
    std::vector<double> window;
    auto next_report = t0 + std::chrono::seconds(1);
    while (!stop_.load(std::memory_order_relaxed)) {
      if (Clock::now() >= next_report && !window.empty()) {
        try {
          (void)client.request(round_trip_report_line(window));
        } catch (const std::exception&) {
          // a lost report costs one point of the chart, never the demo's stream
        }
        window.clear();
        next_report += std::chrono::seconds(1);
      }
      const double t = std::chrono::duration<double>(Clock::now() - t0).count();
      const std::array<InputSample, 1> sample{
          InputSample{0, amplitude_ * std::sin(2.0 * std::numbers::pi * frequency_hz_ * t)}};
      (void)client.send_input(sample);
      ++report_.inputs_sent;
      next += period;
      // read states until the next send is due
      for (;;) {
        if (Clock::now() >= next) break;
        if (!client.receive_state_until(m, next)) continue;
        const std::int64_t arrived =
            std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
                .count();
        ++report_.states_received;
        states_.store(report_.states_received, std::memory_order_relaxed);
        if (last_seq != 0 && m.header.sequence > last_seq + 1) {
          report_.states_lost += m.header.sequence - last_seq - 1;
        }
        last_seq = m.header.sequence;
        if (std::isfinite(m.position_drift)) {
          report_.max_position_drift = std::max(report_.max_position_drift, m.position_drift);
        }
        if (std::isfinite(m.velocity_drift)) {
          report_.max_velocity_drift = std::max(report_.max_velocity_drift, m.velocity_drift);
        }
        // one round trip per input: the first state that echoes it
        if (has_flag(m.header.flags, WireFlag::kEchoValid) && m.echo.sequence != last_echo) {
          last_echo = m.echo.sequence;
          const double rtt = static_cast<double>(arrived - m.echo.sender_time_ns) * 1e-3;
          report_.rtt_us.push_back(rtt);
          window.push_back(rtt);
          last_rtt_us_.store(rtt, std::memory_order_relaxed);
        }
      }
    }
    report_.states_rejected = client.state_counters().rejected();
  } catch (const std::exception& e) {
    report_.error = e.what();
  }
}

}  // namespace rtmb::app
