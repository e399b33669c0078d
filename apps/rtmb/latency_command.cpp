// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// `rtmb latency` (apps/rtmb/latency_command.hpp): its options, the in-process server and the
// report. The measurements themselves are in apps/rtmb/latency_measurement.cpp.
#include "apps/rtmb/latency_command.hpp"

#include <sched.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "apps/rtmb/impairment.hpp"
#include "apps/rtmb/latency_measurement.hpp"
#include "apps/rtmb/serve_rate.hpp"
#include "apps/rtmb/subcommand.hpp"
#include "net/json_writer.hpp"
#include "rtmb/models/mechanisms.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/net/client.hpp"
#include "rtmb/net/server.hpp"
#include "rtmb/net/wire.hpp"
#include "rtmb/runtime/clock_mode.hpp"
#include "rtmb/runtime/rt_setup.hpp"

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

constexpr double kMaxStepsPerTick = 1e5;  // a tick longer than this many steps is refused

/// The in-process server's model at the device's rate (issue 14: at --rate 10000 the pendulum's
/// server ticked at its own 1 kHz, and its input limit of 4 x the loop rate dropped 60 % of the
/// device's inputs). The loop ticks at rate_hz: with the model's dt when a tick is a whole number
/// of its steps, else with the largest dt <= the model's that makes it one (dt = 1 / (k rate),
/// k = ceil(1 / (rate dt))), so a step is never coarser than the model's. Throws
/// std::invalid_argument when a tick would need more than kMaxStepsPerTick steps.
ModelFile model_at_rate(const std::string& model, double rate_hz) {
  ModelFile file = builtin_model_file(model);
  const double dt = file.settings.dt;
  const double k = std::max(1.0, std::ceil(1.0 / (rate_hz * dt) - 1e-9));
  if (k > kMaxStepsPerTick) {
    throw std::invalid_argument("--rate " + std::to_string(rate_hz) +
                                " Hz: a tick of the in-process server would be more than 1e5 "
                                "steps of the model's dt; ask for a higher rate");
  }
  if (!rate_mismatch(rate_hz, dt).empty()) file.settings.dt = 1.0 / (k * rate_hz);
  return file;
}

}  // namespace

void add_latency_command(CLI::App& app, LatencyOptions& o, int* exit_code) {
  CLI::App* cmd = add_subcommand(
      app, "latency",
      "Emulate a device: send inputs at a rate, read the state stream, report input->state "
      "round-trip percentiles, loss and reordering, next to the raw UDP loopback floor.",
      exit_code, [&o] { return latency(o); });
  cmd->add_option("--rate", o.rate_hz,
                  "Inputs per second [Hz]; the in-process server ticks at this rate too (with a "
                  "smaller dt than the model's where its dt does not divide the period)")
      ->capture_default_str()
      ->check(CLI::Range(1e-3, kMaxRateHz));
  cmd->add_option("--duration", o.duration_s, "How long to send inputs [s]")
      ->capture_default_str()
      ->check(kPositiveNumber);
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
  CLI::Option* connect =
      cmd->add_option("--connect", o.connect,
                      "HOST:PORT of a running `rtmb serve` (control port) instead of an "
                      "in-process server");
  add_tls_client_options(cmd, o.tls, connect);
  cmd->add_option("--clock", o.clock,
                  "Clock mode of the in-process server: wall (its own deadlines), phase-lock "
                  "(slews its phase so that the inputs arrive --input-margin-us before each "
                  "tick), device (one tick per input datagram, at once)")
      ->capture_default_str()
      ->check(CLI::IsMember({"wall", "phase-lock", "device"}));
  cmd->add_option("--input-margin-us", o.input_margin_us,
                  "phase-lock: how long before its tick an input should arrive [us] (default: "
                  "the server's, 30)")
      ->check(CLI::Range(0L, 500000L));
  cmd->add_option(
         "--spin-us", o.spin_us,
         "In-process server: wake this many microseconds before each deadline and "
         "busy-wait the rest (--clock device: poll for each expected input), as `rtmb serve "
         "--spin-us` (default 0)")
      ->check(CLI::Range(0.0, 1000.0));
  cmd->add_option("--device-cpu", o.device_cpu,
                  "Run the emulated device (and the floor's pinger) on this CPU (default: "
                  "anywhere)")
      ->check(kCpuIndex);
  cmd->add_option("--server-cpu", o.server_cpu,
                  "Run the in-process server's threads (and the floor's echo thread) on this CPU "
                  "(default: anywhere); with --device-cpu on another CPU, both round trips "
                  "cross between the same two CPUs, as a device and a server on their own cores")
      ->check(kCpuIndex);
  cmd->add_flag("--device-poll", o.device_poll,
                "The emulated device and the floor's pinger wait by polling their sockets, never "
                "sleeping, as a device's servo loop on a core of its own (give it one with "
                "--device-cpu); with --spin-us the floor's echo polls too, as the server then "
                "does. A datagram to a thread asleep on another CPU costs its sender the wake-up "
                "of that CPU, tens of microseconds on a VM (docs/architecture.md)");
  cmd->add_flag("--compare", o.compare,
                "Measure every clock mode of the in-process server one after the other (same "
                "rate, duration and channel), then the floor once, and print one table");
}

namespace {

// One engine measurement: against an in-process server in clock mode `clock` (none: --connect)
struct ModeRun {
  std::string clock;  ///< "wall", "phase-lock", ... or "server's" with --connect
  std::string model;
  EngineResult engine;
  std::optional<ServerStats> stats;  ///< the in-process server's, after the run
  double server_rate_hz = 0.0;       ///< the in-process server's loop rate and step (0: --connect)
  double server_dt = 0.0;
  std::string refused;  ///< non-empty: the server refused the mode (why)
};

using CpuSet = cpu_set_t;

// The calling thread's CPU set.
CpuSet this_thread_cpus() {
  CpuSet cpus;
  CPU_ZERO(&cpus);
  if (::sched_getaffinity(0, sizeof cpus, &cpus) != 0) {
    throw std::runtime_error("sched_getaffinity failed");
  }
  return cpus;
}

// Pins the calling thread (and the threads it starts from then on) to cpu; std::runtime_error
// naming the option when the CPU is not in this process's set.
void pin_this_thread(int cpu, const char* option) {
  const RtSetupResult r = set_cpu_affinity(cpu);
  if (!r.ok())
    throw std::runtime_error(std::string(option) + " " + std::to_string(cpu) + ": " +
                             std::string(r.message()));
}

// Throws std::exception for a failure of the run itself (connection, hello, channel); a mode
// the server refuses at construction comes back as ModeRun::refused.
ModeRun run_mode(const LatencyOptions& o,
                 std::optional<ClockMode> clock,
                 const std::string& host,
                 std::uint16_t tcp_port,
                 const Impairment& imp) {
  ModeRun run;
  run.clock = clock ? std::string(to_string(*clock)) : std::string("server's");
  run.model = o.model;
  std::unique_ptr<Server> server;
  if (clock) {
    ServerConfig config;
    config.model = o.model;
    config.model_file = model_at_rate(o.model, o.rate_hz);
    config.rate_hz = o.rate_hz;
    config.clock = *clock;
    if (o.input_margin_us >= 0) config.input_margin_us = o.input_margin_us;
    config.spin_ns = static_cast<std::int64_t>(o.spin_us * 1e3);
    // the same best-effort real-time setup as `rtmb serve` (SCHED_FIFO 80, timer slack)
    config.realtime_setup = true;
    config.rt_options.priority = 80;
    config.rt_options.cpu = o.server_cpu;
    try {
      // the server's threads inherit this thread's CPU set: its network thread joins the
      // simulation thread on --server-cpu, then this thread goes back to the device's CPU
      const CpuSet device_cpus = this_thread_cpus();
      if (o.server_cpu >= 0) pin_this_thread(o.server_cpu, "--server-cpu");
      struct Restore {  // back to the device's CPUs on every way out
        const CpuSet& cpus;
        ~Restore() { (void)::sched_setaffinity(0, sizeof cpus, &cpus); }
      } restore{device_cpus};
      server = std::make_unique<Server>(config);
      server->start();
    } catch (const std::invalid_argument& e) {
      run.refused = e.what();
      return run;
    }
    tcp_port = server->tcp_port();
  }
  struct StopServer {  // stops the in-process server on every way out
    std::unique_ptr<Server>& s;
    ~StopServer() {
      if (s) {
        s->request_stop();
        s->join();
      }
    }
  } stop{server};
  Client client;
  connect_client(client, host, tcp_port, o.tls);
  const ClientSchema schema = client.hello();
  run.model = schema.model;
  const std::uint16_t channel = resolve_channel(o.channel, schema);
  client.subscribe(1);
  run.engine = run_engine(client, host, channel, o.rate_hz, o.duration_s, imp, o.device_poll);
  if (server) {
    run.stats = server->stats();
    run.server_rate_hz = server->schema().rate_hz;
    run.server_dt = server->schema().dt;
  }
  return run;
}

double wait_p50_us(const ModeRun& r) {
  return r.stats && r.stats->input_wait.count > 0
             ? static_cast<double>(r.stats->input_wait.p50) * 1e-3
             : -1.0;
}
double turnaround_p50_us(const ModeRun& r) {
  return r.stats && r.stats->input_wait.count > 0
             ? static_cast<double>(r.stats->turnaround.p50) * 1e-3
             : -1.0;
}

/// Inputs that never reached the engine (issue 15: the report counted the inputs a newer one
/// replaced within the same tick as lost too, 10 % and more at loss=0.05). With the in-process
/// server: sent - accepted; with --connect its counters are not known: sent - echoed.
std::uint64_t lost_inputs(const ModeRun& r) {
  const std::uint64_t reached = r.stats ? r.stats->udp_in.accepted() : r.engine.echoed;
  return r.engine.sent > reached ? r.engine.sent - reached : 0;
}
/// Inputs that reached the engine but were never echoed: a newer one was applied in the same tick.
std::uint64_t replaced_inputs(const ModeRun& r) {
  return r.engine.sent - r.engine.echoed - lost_inputs(r);
}

// The report of one mode (the whole report without --compare)
void print_mode(const ModeRun& r, const RttSummary& floor) {
  const std::uint64_t lost = lost_inputs(r);
  const double sent = static_cast<double>(r.engine.sent);
  std::printf("  clock %s\n", r.clock.c_str());
  if (r.server_rate_hz > 0.0) {
    std::printf("  server loop %.1f Hz, engine step dt %g s (%.0f per tick)\n", r.server_rate_hz,
                r.server_dt, std::round(1.0 / (r.server_rate_hz * r.server_dt)));
  }
  std::printf(
      "  inputs sent %llu  echoed %llu  lost %llu (%.2f %%; --impair dropped %llu, %.2f %%)"
      "  replaced %llu (reached the server, a newer input applied in the same tick)\n",
      static_cast<unsigned long long>(r.engine.sent),
      static_cast<unsigned long long>(r.engine.echoed), static_cast<unsigned long long>(lost),
      100.0 * static_cast<double>(lost) / sent,
      static_cast<unsigned long long>(r.engine.impair_dropped),
      100.0 * static_cast<double>(r.engine.impair_dropped) / sent,
      static_cast<unsigned long long>(replaced_inputs(r)));
  std::printf("  states received %llu  sequence gaps %llu  reordered %llu\n",
              static_cast<unsigned long long>(r.engine.states),
              static_cast<unsigned long long>(r.engine.state_gaps),
              static_cast<unsigned long long>(r.engine.reordered));
  print_rtt("input->state RTT", r.engine.rtt, true);
  if (r.engine.engine_rtt.p50 != r.engine.rtt.p50) {
    print_rtt("RTT less the delay", r.engine.engine_rtt, true);
  }
  print_rtt("UDP loopback floor", floor, false);
  // the engine's share: without the emulated network delay, which is not the engine's
  std::printf("  engine p50 / floor p50 = %.2f\n", r.engine.engine_rtt.p50 / floor.p50);
  // the server's side of the round trip: the input waits for the next tick (the loop's sampling
  // delay: 0..1 period on the wall clock, about the margin when phase-locked), then the tick's
  // turnaround (wake-up, step, send) - the engine's own share
  if (r.stats && r.stats->input_wait.count > 0) {
    const double wait = wait_p50_us(r);
    std::printf(
        "  server side: input waits for its tick p50 %.1f us (p99 %.1f); tick release -> "
        "state sent p50 %.1f us (p99 %.1f)\n",
        wait, static_cast<double>(r.stats->input_wait.p99) * 1e-3, turnaround_p50_us(r),
        static_cast<double>(r.stats->turnaround.p99) * 1e-3);
    std::printf("  RTT p50 without the tick wait ~ %.1f us = %.2f x floor p50\n",
                r.engine.engine_rtt.p50 - wait, (r.engine.engine_rtt.p50 - wait) / floor.p50);
  }
}

// JSON keys of one mode: "rtt_p50_us", ... or with --compare "wall_rtt_p50_us", ...
void json_mode(JsonObjectWriter& j,
               const std::string& prefix,
               const ModeRun& r,
               const RttSummary& floor) {
  j.field(prefix + "sent", static_cast<long>(r.engine.sent))
      .field(prefix + "echoed", static_cast<long>(r.engine.echoed))
      .field(prefix + "lost", static_cast<long>(lost_inputs(r)))
      .field(prefix + "replaced", static_cast<long>(replaced_inputs(r)))
      .field(prefix + "impair_dropped", static_cast<long>(r.engine.impair_dropped))
      .field(prefix + "reordered", static_cast<long>(r.engine.reordered))
      .field(prefix + "state_gaps", static_cast<long>(r.engine.state_gaps))
      .field(prefix + "rtt_p50_us", r.engine.rtt.p50)
      .field(prefix + "rtt_p90_us", r.engine.rtt.p90)
      .field(prefix + "rtt_p99_us", r.engine.rtt.p99)
      .field(prefix + "rtt_max_us", r.engine.rtt.max)
      .field(prefix + "engine_rtt_p50_us", r.engine.engine_rtt.p50)
      .field(prefix + "ratio_p50", r.engine.engine_rtt.p50 / floor.p50)
      .field(prefix + "server_input_wait_p50_us", wait_p50_us(r))
      .field(prefix + "server_turnaround_p50_us", turnaround_p50_us(r))
      .field(prefix + "server_rate_hz", r.server_rate_hz)
      .field(prefix + "server_dt_s", r.server_dt);
}

}  // namespace

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
    if (!o.connect.empty() && (o.compare || o.clock != "wall" || o.input_margin_us >= 0 ||
                               o.spin_us > 0.0 || o.server_cpu >= 0)) {
      throw std::invalid_argument(
          "--clock, --input-margin-us, --spin-us, --server-cpu and --compare set the in-process "
          "server; with --connect the running server's own settings apply (rtmb serve --clock, "
          "--cpu)");
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
  if (o.device_cpu >= 0) {
    try {
      pin_this_thread(o.device_cpu, "--device-cpu");
    } catch (const std::runtime_error& e) {
      std::fprintf(stderr, "rtmb latency: %s\n", e.what());
      return 2;
    }
  }

  // engine runs: one per clock mode with --compare, else one (in-process unless --connect)
  std::vector<std::optional<ClockMode>> modes;
  if (!o.connect.empty()) {
    modes.push_back(std::nullopt);
  } else if (o.compare) {
    modes = {ClockMode::kWall, ClockMode::kPhaseLock, ClockMode::kDevice};
  } else {
    modes.push_back(parse_clock_mode(o.clock));
  }
  std::vector<ModeRun> runs;
  std::uint64_t most_sent = 0;
  for (const std::optional<ClockMode>& mode : modes) {
    try {
      runs.push_back(run_mode(o, mode, host, tcp_port, imp));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "rtmb latency: %s\n", e.what());
      return 2;
    }
    const ModeRun& r = runs.back();
    if (!r.refused.empty() && !o.compare) {
      std::fprintf(stderr, "rtmb latency: %s\n", r.refused.c_str());
      return 2;
    }
    most_sent = std::max(most_sent, r.engine.sent);
  }

  // floor: same rate, count and datagram size, every server stopped
  RttSummary floor;
  try {
    // the device's inputs are version 2 (signed, docs/protocol.md "Wire version 2"): rtmb::Client
    // asks for it and every rtmb server speaks it
    floor = run_floor(o.rate_hz, most_sent, input_v2_datagram_bytes(1), o.server_cpu, o.device_poll,
                      o.device_poll && o.spin_us > 0.0);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rtmb latency: floor: %s\n", e.what());
    return 2;
  }

  // report
  const std::string model = runs.front().model;
  std::printf("rtmb latency: %s, %.1f Hz for %.2f s%s%s\n", model.c_str(), o.rate_hz, o.duration_s,
              imp.active() ? ", impaired " : "", imp.active() ? o.impair.c_str() : "");
  if (o.device_cpu >= 0 || o.server_cpu >= 0) {
    const auto where = [](int cpu) { return cpu >= 0 ? "CPU " + std::to_string(cpu) : "any CPU"; };
    std::printf("  placement: device and floor pinger on %s, server and floor echo on %s\n",
                where(o.device_cpu).c_str(), where(o.server_cpu).c_str());
  }
  if (o.device_poll) {
    std::printf("  waiting: device and floor pinger poll%s\n",
                o.spin_us > 0.0 ? "; the server spins and the floor echo polls"
                                : "; the server and the floor echo sleep");
  }
  for (const ModeRun& r : runs) {
    if (r.refused.empty()) {
      print_mode(r, floor);
    } else {
      std::printf("  clock %s: refused by the server: %s\n", r.clock.c_str(), r.refused.c_str());
    }
  }
  if (o.compare) {
    std::printf("\n  %-11s %9s %9s %9s %8s %10s %12s\n", "clock", "RTT p50", "p99", "max",
                "x floor", "wait p50", "tick->sent");
    for (const ModeRun& r : runs) {
      if (!r.refused.empty()) {
        std::printf("  %-11s %s\n", r.clock.c_str(), "refused (see above)");
        continue;
      }
      std::printf("  %-11s %9.1f %9.1f %9.1f %8.2f %10.1f %12.1f\n", r.clock.c_str(),
                  r.engine.rtt.p50, r.engine.rtt.p99, r.engine.rtt.max,
                  r.engine.rtt.p50 / floor.p50, wait_p50_us(r), turnaround_p50_us(r));
    }
    std::printf("  %-11s %9.1f %9.1f %9.1f %8.2f   (us)\n", "floor", floor.p50, floor.p99,
                floor.max, 1.0);
  }
  if (o.json) {
    JsonObjectWriter j(JsonNumbers::kDigits17);
    j.field("rate_hz", o.rate_hz).field("duration_s", o.duration_s);
    j.field("device_cpu", std::int64_t{o.device_cpu})
        .field("server_cpu", std::int64_t{o.server_cpu})
        .field("device_poll", o.device_poll);
    if (o.compare) {
      for (const ModeRun& r : runs) {
        std::string prefix = r.clock + "_";
        for (char& c : prefix) c = c == '-' ? '_' : c;
        if (r.refused.empty()) {
          json_mode(j, prefix, r, floor);
        } else {
          j.field(prefix + "refused", r.refused);
        }
      }
    } else {
      j.field("clock", runs.front().clock);
      json_mode(j, "", runs.front(), floor);
    }
    j.field("floor_p50_us", floor.p50)
        .field("floor_p99_us", floor.p99)
        .field("floor_max_us", floor.max);
    std::printf("%s\n", j.str().c_str());
  }
  std::fflush(stdout);
  return 0;
}

}  // namespace rtmb::app
