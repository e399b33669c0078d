// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// The local demo client of `rtmb serve --demo` (and so of `make run`): a thread that plays a
// haptic device against the server over real loopback sockets. It says hello, subscribes to every
// state, and at 1 kHz sends a slow sinusoidal sample on input channel 0 (on the default model, a
// torque on the slider-crank's crank), reading the state stream in between. From the latency echo
// of each state it measures the input -> state round trip on its own clock (docs/protocol.md,
// "Latency echo").

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace rtmb::app {

struct DemoReport {
  std::uint64_t inputs_sent = 0;
  std::uint64_t states_received = 0;
  std::uint64_t states_lost = 0;      ///< gaps in the state sequence numbers
  std::uint64_t states_rejected = 0;  ///< datagrams the client's decoder refused
  std::vector<double> rtt_us;         ///< input -> state round trips, one per echoed input [us]
  double max_position_drift = 0.0;    ///< largest ||g||inf seen in the stream
  double max_velocity_drift = 0.0;
  std::string error;  ///< non-empty if the client failed
};

class DemoClient {
 public:
  /// amplitude: value of the sine on input channel 0 [its unit]; frequency [Hz].
  DemoClient(double amplitude, double frequency_hz, double rate_hz = 1000.0);
  ~DemoClient();
  DemoClient(const DemoClient&) = delete;
  DemoClient& operator=(const DemoClient&) = delete;

  /// Starts the client thread against a server at host (IPv4) and tcp_port, saying hello with
  /// token when non-empty. Its inputs are signed (wire version 2, rtmb::Client), so it works
  /// with a server bound beyond loopback too. A non-empty tls_fingerprint: over TLS, pinned to
  /// the server's certificate of that SHA-256 (Server::tls_fingerprint()).
  void start(std::uint16_t tcp_port,
             const std::string& host = "127.0.0.1",
             const std::string& token = "",
             const std::string& tls_fingerprint = {});
  /// Stops and joins the thread; returns what it measured.
  DemoReport stop();

  /// Live figures for the status line (any thread).
  [[nodiscard]] std::uint64_t states_received() const noexcept { return states_.load(); }
  [[nodiscard]] double last_rtt_us() const noexcept { return last_rtt_us_.load(); }

 private:
  void run(std::uint16_t tcp_port,
           const std::string& host,
           const std::string& token,
           const std::string& tls_fingerprint);

  double amplitude_;
  double frequency_hz_;
  double rate_hz_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> states_{0};
  std::atomic<double> last_rtt_us_{0.0};
  DemoReport report_;
};

}  // namespace rtmb::app
