// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// `rtmb haptic-sim` (apps/rtmb/haptic_sim_command.hpp).
//
// One thread, paced by the wall clock at the device rate. Sample k (at t0 + k T):
//   1. take every state datagram that arrived since the last sample; the newest one's force
//      channels are F_k, held for the whole coming period (what a device's force loop does with
//      a 1 kHz force stream);
//   2. integrate the device over T in emulated time, at the inner rate (semi-implicit Euler):
//      m x'' = F_k + k_h (h(t) - x) - c_h x', h(t) the hand position;
//   3. work += F_k . (x_{k+1} - x_k): exact for a force held over the period, whatever the
//      device did inside it (the same zero-order-hold work the server's observer integrates);
//   4. send x_{k+1} to the coupling target channels.
// Smoothness: max |F_k - F_{k-1}| and RMS of (F_k - F_{k-1}) / T over the samples.
#include "apps/rtmb/haptic_sim_command.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <Eigen/Core>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <limits>
#include <memory>
#include <numbers>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>

#include "apps/rtmb/app_common.hpp"
#include "apps/rtmb/subcommand.hpp"
#include "net/json_writer.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/net/client.hpp"
#include "rtmb/net/server.hpp"
#include "rtmb/net/wire.hpp"

namespace rtmb::app {

namespace {

using Clock = std::chrono::steady_clock;
using Vec2 = Eigen::Vector2d;

constexpr double kMaxExcursion = 1.0;  // [m] from the start: the device ran away

int channel_index(const std::vector<std::string>& names, const std::string& name) {
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return static_cast<int>(i);
  }
  return -1;
}

struct SimResult {
  long samples = 0;
  long states = 0;
  long stale = 0;         ///< samples without a new state since the last one (force held longer)
  double max_df = 0.0;    ///< [N]
  double rms_dfdt = 0.0;  ///< [N/s]
  double work = 0.0;      ///< [J]
  double observer = std::numeric_limits<double>::quiet_NaN();  ///< server's energy channel [J]
  double max_travel = 0.0;  ///< furthest the device went along the press direction [m]
  double max_force = 0.0;   ///< [N]
  std::string broken;       ///< why the run is broken; empty: fine
};

SimResult run_device(Client& client, const HapticSimOptions& o) {
  const ClientSchema& schema = client.schema();
  const int fx = channel_index(schema.outputs, o.force + ".fx");
  const int fy = channel_index(schema.outputs, o.force + ".fy");
  const int energy = channel_index(schema.outputs, o.force + ".energy");
  if (fx < 0 || fy < 0) {
    throw std::invalid_argument("the model streams no haptic_force output '" + o.force +
                                "' (channels " + o.force + ".fx, " + o.force + ".fy)");
  }
  const int in_x = channel_index(schema.inputs, o.x_channel);
  const int in_y = o.y_channel.empty() ? -1 : channel_index(schema.inputs, o.y_channel);
  if (in_x < 0 || (!o.y_channel.empty() && in_y < 0)) {
    throw std::invalid_argument("the model has no input channel '" +
                                (in_x < 0 ? o.x_channel : o.y_channel) + "'");
  }

  const double period = 1.0 / o.rate_hz;
  const int inner = static_cast<int>(std::lround(o.inner_hz / o.rate_hz));
  const double h = period / inner;
  const Vec2 start(o.start[0], o.start[1]);
  const Vec2 press(o.press[0], o.press[1]);
  const Vec2 dir =
      (press - start).norm() > 0.0 ? Vec2((press - start).normalized()) : Vec2::UnitX();
  auto hand = [&](double t) {
    const double s = o.approach_s > 0.0 ? std::min(1.0, t / o.approach_s) : 1.0;
    return Vec2(start + s * (press - start) +
                o.amplitude * std::sin(2.0 * std::numbers::pi * o.frequency * t) * dir);
  };

  SimResult r;
  Vec2 x = start;
  Vec2 v = Vec2::Zero();
  Vec2 force = Vec2::Zero();
  double sum_sq = 0.0;
  Vec2 last = Vec2::Zero();
  const long count = std::lround(o.duration_s * o.rate_hz);
  const auto t0 = Clock::now();
  const auto tick =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(period));
  StateMessage m;
  auto send = [&] {
    InputSample s[2];
    std::size_t n = 0;
    s[n++] = InputSample{static_cast<std::uint16_t>(in_x), x.x()};
    if (in_y >= 0) s[n++] = InputSample{static_cast<std::uint16_t>(in_y), x.y()};
    (void)client.send_input(std::span<const InputSample>(s, n));
  };
  send();
  for (long k = 0; k < count; ++k) {
    // 1. the newest force that arrived before this sample
    const auto deadline = t0 + tick * (k + 1);
    const long before = r.states;
    while (client.receive_state_until(m, deadline)) {
      ++r.states;
      force =
          Vec2(m.channels[static_cast<std::size_t>(fx)], m.channels[static_cast<std::size_t>(fy)]);
      if (energy >= 0) r.observer = m.channels[static_cast<std::size_t>(energy)];
    }
    if (r.states == before) ++r.stale;
    const Vec2 df = force - last;
    last = force;
    r.max_df = std::max(r.max_df, df.norm());
    sum_sq += (df / period).squaredNorm();
    r.max_force = std::max(r.max_force, force.norm());
    if (!force.allFinite()) {
      r.broken = "a non-finite force was streamed";
      break;
    }
    // 2. the device over the period with the held force; 3. its exact work
    const Vec2 x0 = x;
    for (int i = 0; i < inner; ++i) {
      const double t = static_cast<double>(k) * period + i * h;
      const Vec2 f_hand = o.hand_stiffness * (hand(t) - x) - o.hand_damping * v;
      v += h * (force + f_hand) / o.device_mass;
      x += h * v;
    }
    r.work += force.dot(x - x0);
    r.max_travel = std::max(r.max_travel, dir.dot(x - start));
    ++r.samples;
    if (!x.allFinite() || (x - start).norm() > kMaxExcursion) {
      r.broken = "the device ran away (more than 1 m from its start)";
      break;
    }
    // 4. the new position to the coupling target
    send();
  }
  r.rms_dfdt = r.samples > 0 ? std::sqrt(sum_sq / static_cast<double>(r.samples)) : 0.0;
  if (r.broken.empty() && r.states == 0) r.broken = "no state was received";
  if (r.broken.empty() && r.work > o.max_work) {
    r.broken = "the rendered force did " + std::to_string(r.work) +
               " J of work on the device (active; limit --max-work " + std::to_string(o.max_work) +
               " J)";
  }
  return r;
}

}  // namespace

void add_haptic_sim_command(CLI::App& app, HapticSimOptions& o, int* exit_code) {
  CLI::App* cmd = add_subcommand(
      app, "haptic-sim",
      "Emulate a haptic device against the server (in-process for MODEL, or --connect): a hand "
      "presses a device mass into the model's coupling; reports force smoothness and passivity",
      exit_code, [&o] { return haptic_sim(o); });
  cmd->add_option("model", o.model,
                  "Model file of the in-process server (with a haptic_force output)");
  CLI::Option* connect =
      cmd->add_option("--connect", o.connect, "HOST:PORT of a running `rtmb serve` (control port)");
  add_tls_client_options(cmd, o.tls, connect);
  cmd->add_option("--rate", o.rate_hz, "Device samples per second [Hz]")
      ->capture_default_str()
      ->check(CLI::Range(100.0, 20000.0));
  cmd->add_option("--inner-rate", o.inner_hz, "Device integration rate [Hz] (a multiple of --rate)")
      ->capture_default_str()
      ->check(CLI::Range(1000.0, 1e6));
  cmd->add_option("--duration", o.duration_s, "Emulated time [s]")
      ->capture_default_str()
      ->check(CLI::Range(1e-3, 3600.0));
  cmd->add_option("--device-mass", o.device_mass, "Device mass [kg]")
      ->capture_default_str()
      ->check(kPositiveNumber);
  cmd->add_option("--hand-stiffness", o.hand_stiffness, "Hand spring [N/m]")
      ->capture_default_str()
      ->check(kNonNegativeNumber);
  cmd->add_option("--hand-damping", o.hand_damping, "Hand damper [N s/m]")
      ->capture_default_str()
      ->check(kNonNegativeNumber);
  cmd->add_option("--start", o.start, "Device and hand start X,Y [m]")
      ->delimiter(',')
      ->expected(2)
      ->capture_default_str();
  cmd->add_option("--press", o.press, "Mean hand position X,Y after the approach [m]")
      ->delimiter(',')
      ->expected(2)
      ->capture_default_str();
  cmd->add_option("--approach", o.approach_s, "Time of the hand's approach [s]")
      ->capture_default_str()
      ->check(kNonNegativeNumber);
  cmd->add_option("--amplitude", o.amplitude, "Hand oscillation along the press direction [m]")
      ->capture_default_str();
  cmd->add_option("--frequency", o.frequency, "Hand oscillation frequency [Hz]")
      ->capture_default_str()
      ->check(kNonNegativeNumber);
  cmd->add_option("--force", o.force, "Name of the haptic_force output")->capture_default_str();
  cmd->add_option("--x-channel", o.x_channel, "Input channel of the device x")
      ->capture_default_str();
  cmd->add_option("--y-channel", o.y_channel, "Input channel of the device y (\"\": none)")
      ->capture_default_str();
  cmd->add_option("--max-work", o.max_work,
                  "A run whose rendered force did more work on the device than this is broken [J]")
      ->capture_default_str();
  cmd->add_flag("--json", o.json, "Print one JSON object as the last line");
  cmd->add_option("--record", o.record,
                  "Record the session on the in-process server (as rtmb serve --record FILE): "
                  "'rtmb replay FILE' reproduces it bit for bit");
}

int haptic_sim(const HapticSimOptions& o) {
  if (o.connect.empty() == o.model.empty()) {
    std::fprintf(stderr, "rtmb haptic-sim: give a MODEL file or --connect HOST:PORT (one)\n");
    return 2;
  }
  const double ratio = o.inner_hz / o.rate_hz;
  if (std::abs(ratio - std::round(ratio)) > 1e-9 || ratio < 1.0) {
    std::fprintf(stderr, "rtmb haptic-sim: --inner-rate must be a multiple of --rate\n");
    return 2;
  }
  spdlog::set_default_logger(spdlog::stderr_color_mt("rtmb"));
  spdlog::set_level(spdlog::level::warn);

  std::string host = "127.0.0.1";
  std::uint16_t tcp_port = 0;
  std::unique_ptr<Server> server;
  SimResult r;
  std::string model;
  try {
    if (!o.connect.empty() && !o.record.empty()) {
      throw std::invalid_argument(
          "--record needs the in-process server; with --connect, record on the server "
          "(rtmb serve --record FILE)");
    }
    if (!o.connect.empty()) {
      const std::size_t colon = o.connect.rfind(':');
      if (colon == std::string::npos || colon == 0) {
        throw std::invalid_argument("--connect wants HOST:PORT, got '" + o.connect + "'");
      }
      host = o.connect.substr(0, colon);
      tcp_port = static_cast<std::uint16_t>(std::stoi(o.connect.substr(colon + 1)));
    } else {
      ServerConfig config;
      config.model_file = load_model_file(o.model);
      config.realtime_setup = true;
      config.rt_options.priority = 80;
      config.record_path = o.record;
      server = std::make_unique<Server>(config);
      server->start();
      tcp_port = server->tcp_port();
    }
    Client client;
    connect_client(client, host, tcp_port, o.tls);
    model = client.hello().model;
    client.subscribe(1);
    r = run_device(client, o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rtmb haptic-sim: %s\n", e.what());
    if (server) {
      server->request_stop();
      server->join();
    }
    return 2;
  }
  if (server) {
    server->request_stop();
    server->join();
  }
  std::printf(
      "rtmb haptic-sim: model %s, device %.3g kg at %.0f Hz (integrated at %.0f Hz), "
      "%.3g s\n",
      model.c_str(), o.device_mass, o.rate_hz, o.inner_hz, o.duration_s);
  std::printf(
      "  samples %ld, states received %ld, samples without a new state %ld, max |F| %.4f N\n",
      r.samples, r.states, r.stale, r.max_force);
  std::printf("  smoothness: max |dF| per sample %.4f N, RMS dF/dt %.2f N/s\n", r.max_df,
              r.rms_dfdt);
  std::printf(
      "  passivity: work of the rendered force on the device %+.6e J (<= 0: passive), "
      "server observer %+.6e J\n",
      r.work, r.observer);
  std::printf("  furthest travel along the press direction %.3f mm (hand's mean %.3f mm)\n",
              1e3 * r.max_travel,
              1e3 * (Vec2(o.press[0], o.press[1]) - Vec2(o.start[0], o.start[1])).norm());
  if (!r.broken.empty()) std::printf("  BROKEN: %s\n", r.broken.c_str());
  if (server && !o.record.empty()) {
    std::printf("  record %s: %lld steps, %llu entries, state hash %016llx%s\n", o.record.c_str(),
                static_cast<long long>(server->record_steps()),
                static_cast<unsigned long long>(server->record_entries()),
                static_cast<unsigned long long>(server->record_hash()),
                server->record_complete() ? "" : "  (INCOMPLETE: replay will not be exact)");
  }
  if (o.json) {
    JsonObjectWriter j(JsonNumbers::kDigits17);
    j.field("model", model)
        .field("samples", r.samples)
        .field("states", r.states)
        .field("stale_samples", r.stale)
        .field("max_force_n", r.max_force)
        .field("max_df_n", r.max_df)
        .field("rms_dfdt_n_per_s", r.rms_dfdt)
        .field("work_j", r.work)
        .field("observer_j", r.observer)
        .field("max_travel_m", r.max_travel)
        .field("passive", r.work <= 0.0)
        .field("ok", r.broken.empty());
    std::printf("%s\n", j.str().c_str());
  }
  return r.broken.empty() ? 0 : 1;
}

}  // namespace rtmb::app
