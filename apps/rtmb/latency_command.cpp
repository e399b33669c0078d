// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// `rtmb latency` (apps/rtmb/latency_command.hpp): its options, the in-process server and the
// report. The measurements themselves are in apps/rtmb/latency_measurement.cpp.
#include "apps/rtmb/latency_command.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "apps/rtmb/impairment.hpp"
#include "apps/rtmb/latency_measurement.hpp"
#include "apps/rtmb/subcommand.hpp"
#include "net/json_writer.hpp"
#include "rtmb/models/mechanisms.hpp"
#include "rtmb/net/client.hpp"
#include "rtmb/net/server.hpp"
#include "rtmb/net/wire.hpp"

namespace rtmb::app {

namespace {

constexpr double kMaxRateHz = 100000.0;
constexpr double kMaxCount = 1e7;  // inputs per run (memory for the records)
/// Splits "HOST:PORT". Throws std::invalid_argument.
void parse_endpoint(const std::string& text, std::string& out_host, std::uint16_t& out_port) {
  const std::size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    throw std::invalid_argument("--connect wants HOST:PORT, got '" + text + "'");
  }
  out_host = text.substr(0, colon);
  const std::string port = text.substr(colon + 1);
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != port.npos ||
      std::stoi(port) < 1 || std::stoi(port) > 65535) {
    throw std::invalid_argument("--connect: bad port '" + port + "'");
  }
  out_port = static_cast<std::uint16_t>(std::stoi(port));
}

/// Resolves --channel (a name from hello, or an index). Throws std::invalid_argument.
std::uint16_t resolve_channel(const std::string& text, const ClientSchema& schema) {
  if (schema.inputs.empty()) throw std::invalid_argument("the model has no input channels");
  if (text.empty()) return 0;
  for (std::size_t i = 0; i < schema.inputs.size(); ++i) {
    if (schema.inputs[i] == text) return static_cast<std::uint16_t>(i);
  }
  if (text.find_first_not_of("0123456789") == std::string::npos && text.size() <= 5) {
    const unsigned long i = std::stoul(text);
    if (i < schema.inputs.size()) return static_cast<std::uint16_t>(i);
  }
  std::string names;
  for (const std::string& n : schema.inputs) names += (names.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown input channel '" + text + "' (valid: " + names +
                              ", or an index from 0 to " +
                              std::to_string(schema.inputs.size() - 1) + ")");
}

void print_rtt(const char* name, const RttSummary& s, bool with_p90) {
  std::printf("  %-22s p50 %8.1f", name, s.p50);
  if (with_p90) std::printf("  p90 %8.1f", s.p90);
  std::printf("  p99 %8.1f  max %8.1f us  (%zu samples)\n", s.p99, s.max, s.count);
}

}  // namespace

void add_latency_command(CLI::App& app, LatencyOptions& o, int* exit_code) {
  CLI::App* cmd = add_subcommand(
      app, "latency",
      "Emulate a device: send inputs at a rate, read the state stream, report input->state "
      "round-trip percentiles, loss and reordering, next to the raw UDP loopback floor.",
      exit_code, [&o] { return latency(o); });
  cmd->add_option("--rate", o.rate_hz, "Inputs per second [Hz]")
      ->capture_default_str()
      ->check(CLI::Range(1e-3, kMaxRateHz));
  cmd->add_option("--duration", o.duration_s, "How long to send inputs [s]")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--channel", o.channel,
                  "Input channel, by name (f0, ...) or index (default: the first)");
  cmd->add_option("--impair", o.impair,
                  "Emulate the network on the device side: delay=MS,jitter=MS,loss=P (any "
                  "subset); datagrams wait delay +- uniform jitter, drop with probability P "
                  "(fixed seed)");
  cmd->add_flag("--json", o.json, "Print one JSON object as the last line");
  cmd->add_option("--model", o.model,
                  "Built-in mechanism of the in-process server: " + mechanism_names())
      ->capture_default_str();
  cmd->add_option("--connect", o.connect,
                  "HOST:PORT of a running `rtmb serve` (control port) instead of an in-process "
                  "server");
}

int latency(const LatencyOptions& o) {
  // arguments
  Impairment imp;
  std::string host = "127.0.0.1";
  std::uint16_t tcp_port = 0;
  try {
    if (!o.impair.empty()) imp = parse_impairment(o.impair);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "rtmb latency: bad --impair '%s': %s\n", o.impair.c_str(), e.what());
    return 2;
  }
  try {
    if (!o.connect.empty()) parse_endpoint(o.connect, host, tcp_port);
    if (o.rate_hz * o.duration_s < 1.0 || o.rate_hz * o.duration_s > kMaxCount) {
      throw std::invalid_argument("rate x duration must give 1 to 10^7 inputs");
    }
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "rtmb latency: %s\n", e.what());
    return 2;
  }
  if (o.connect.empty() && find_mechanism(o.model) == nullptr) {
    std::fprintf(stderr, "rtmb latency: unknown model '%s'; valid models: %s\n", o.model.c_str(),
                 mechanism_names().c_str());
    return 2;
  }
  spdlog::set_default_logger(spdlog::stderr_color_mt("rtmb"));
  spdlog::set_level(spdlog::level::warn);

  // engine run: in-process server unless --connect
  std::unique_ptr<Server> server;
  EngineResult engine;
  std::string model = o.model;
  try {
    if (o.connect.empty()) {
      ServerConfig config;
      config.model = o.model;
      // the same best-effort real-time setup as `rtmb serve` (SCHED_FIFO 80, timer slack)
      config.realtime_setup = true;
      config.rt_options.priority = 80;
      server = std::make_unique<Server>(config);
      server->start();
      tcp_port = server->tcp_port();
    }
    Client client;
    client.connect(host, tcp_port);
    const ClientSchema schema = client.hello();
    model = schema.model;
    const std::uint16_t channel = resolve_channel(o.channel, schema);
    client.subscribe(1);
    engine = run_engine(client, host, channel, o.rate_hz, o.duration_s, imp);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rtmb latency: %s\n", e.what());
    if (server) {
      server->request_stop();
      server->join();
    }
    return 2;
  }
  // inputs the in-process server accepted: the rest of `lost` were superseded within a step
  std::optional<std::uint64_t> server_accepted;
  std::optional<ServerStats> server_stats;
  if (server) {
    server_stats = server->stats();
    server_accepted = server_stats->udp_in.accepted();
    server->request_stop();
    server->join();
  }

  // floor: same rate, count and datagram size, server stopped
  RttSummary floor;
  try {
    floor = run_floor(o.rate_hz, engine.sent, input_datagram_bytes(1));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rtmb latency: floor: %s\n", e.what());
    return 2;
  }
  const std::uint64_t lost = engine.sent - engine.echoed;
  const double ratio = engine.rtt.p50 / floor.p50;

  // report
  std::printf("rtmb latency: %s, %.1f Hz for %.2f s%s%s\n", model.c_str(), o.rate_hz, o.duration_s,
              imp.active() ? ", impaired " : "", imp.active() ? o.impair.c_str() : "");
  std::printf("  inputs sent %llu  echoed %llu  lost %llu (%.2f %%)\n",
              static_cast<unsigned long long>(engine.sent),
              static_cast<unsigned long long>(engine.echoed), static_cast<unsigned long long>(lost),
              100.0 * static_cast<double>(lost) / static_cast<double>(engine.sent));
  if (server_accepted) {
    std::printf(
        "  inputs accepted by the server %llu (an input not echoed was dropped, or "
        "replaced by a newer one before a state was sent)\n",
        static_cast<unsigned long long>(*server_accepted));
  }
  std::printf("  states received %llu  sequence gaps %llu  reordered %llu\n",
              static_cast<unsigned long long>(engine.states),
              static_cast<unsigned long long>(engine.state_gaps),
              static_cast<unsigned long long>(engine.reordered));
  print_rtt("input->state RTT", engine.rtt, true);
  print_rtt("UDP loopback floor", floor, false);
  std::printf("  engine p50 / floor p50 = %.2f\n", ratio);
  // the server's side of the round trip: the input waits for the next tick (the loop's sampling
  // delay, 0..1 period, set by the phase between device and loop), then the tick's turnaround
  // (wake-up, step, hand-off to the socket) - the engine's own share
  double wait_p50_us = -1.0;
  double turnaround_p50_us = -1.0;
  if (server_stats && server_stats->input_wait.count > 0) {
    wait_p50_us = static_cast<double>(server_stats->input_wait.p50) * 1e-3;
    turnaround_p50_us = static_cast<double>(server_stats->turnaround.p50) * 1e-3;
    std::printf(
        "  server side: input waits for its tick p50 %.1f us (p99 %.1f); tick release -> "
        "state sent p50 %.1f us (p99 %.1f)\n",
        wait_p50_us, static_cast<double>(server_stats->input_wait.p99) * 1e-3, turnaround_p50_us,
        static_cast<double>(server_stats->turnaround.p99) * 1e-3);
    std::printf("  RTT p50 without the tick wait ~ %.1f us = %.2f x floor p50\n",
                engine.rtt.p50 - wait_p50_us, (engine.rtt.p50 - wait_p50_us) / floor.p50);
  }
  if (o.json) {
    JsonObjectWriter j(JsonNumbers::kDigits17);
    j.field("rate_hz", o.rate_hz)
        .field("duration_s", o.duration_s)
        .field("sent", static_cast<long>(engine.sent))
        .field("echoed", static_cast<long>(engine.echoed))
        .field("lost", static_cast<long>(lost))
        .field("reordered", static_cast<long>(engine.reordered))
        .field("state_gaps", static_cast<long>(engine.state_gaps))
        .field("rtt_p50_us", engine.rtt.p50)
        .field("rtt_p90_us", engine.rtt.p90)
        .field("rtt_p99_us", engine.rtt.p99)
        .field("rtt_max_us", engine.rtt.max)
        .field("floor_p50_us", floor.p50)
        .field("floor_p99_us", floor.p99)
        .field("floor_max_us", floor.max)
        .field("ratio_p50", ratio)
        .field("server_input_wait_p50_us", wait_p50_us)
        .field("server_turnaround_p50_us", turnaround_p50_us);
    std::printf("%s\n", j.str().c_str());
  }
  std::fflush(stdout);
  return 0;
}

}  // namespace rtmb::app
