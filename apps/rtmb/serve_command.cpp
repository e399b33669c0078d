// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// `rtmb serve` (apps/rtmb/serve_command.hpp). The main thread only watches: it prints the status
// line, waits for a signal or the duration, stops the server and prints the closing report.
#include "apps/rtmb/serve_command.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <optional>
#include <thread>

#include "apps/rtmb/app_common.hpp"
#include "apps/rtmb/demo_client.hpp"
#include "apps/rtmb/serve_outcome.hpp"
#include "apps/rtmb/serve_rate.hpp"
#include "apps/rtmb/subcommand.hpp"
#include "rtmb/models/mechanisms.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/net/server.hpp"
#include "rtmb/net/view_server.hpp"

namespace rtmb::app {

namespace {

// The running server, for the signal handler (request_stop is atomic stores only).
std::atomic<Server*> g_server{nullptr};
volatile std::sig_atomic_t g_signalled = 0;

extern "C" void on_stop_signal(int /*signal*/) {
  g_signalled = 1;
  Server* s = g_server.load();
  if (s != nullptr) s->request_stop();
}

double us(std::int64_t ns) {
  return static_cast<double>(ns) * 1e-3;
}

void print_summary(const char* name, const HistogramSummary& h) {
  std::printf("  %-9s p50 %9.1f  p90 %9.1f  p99 %9.1f  p99.9 %9.1f  max %9.1f us  (%llu)\n", name,
              us(h.p50), us(h.p90), us(h.p99), us(h.p999), us(h.max),
              static_cast<unsigned long long>(h.count));
}

constexpr const char* kDefaultModel = "configs/default.yaml";

// MODEL is a model file if it names one (a path or a .yaml/.yml name), else a built-in mechanism.
// Without MODEL: configs/default.yaml here, else the one of the source tree this was built from.
ModelFile resolve_model(const std::string& model) {
  if (model.empty()) {
    if (std::filesystem::exists(kDefaultModel)) return load_model_file(kDefaultModel);
    return load_model_file(RTMB_DEFAULT_MODEL);
  }
  if (names_model_file(model)) return load_model_file(model);
  if (find_mechanism(model) == nullptr) {
    throw std::invalid_argument("unknown model '" + model + "': not a file, and not a built-in (" +
                                mechanism_names() + ")");
  }
  return builtin_model_file(model);
}

void print_demo(const DemoReport& d) {
  std::printf(
      "  demo client: %llu inputs sent, %llu states received, %llu lost, %llu rejected%s%s\n",
      static_cast<unsigned long long>(d.inputs_sent),
      static_cast<unsigned long long>(d.states_received),
      static_cast<unsigned long long>(d.states_lost),
      static_cast<unsigned long long>(d.states_rejected),
      d.error.empty() ? "" : "; error: ", d.error.c_str());
  const Percentiles rtt = percentiles(d.rtt_us);
  std::printf("  end-to-end input->state   p50 %9.1f  p90 %9.1f  p99 %9.1f  max %9.1f us  (%zu)\n",
              rtt.p50, rtt.p90, rtt.p99, rtt.max, rtt.count);
  std::printf("  drift in the stream (max): position %.3g, velocity %.3g\n", d.max_position_drift,
              d.max_velocity_drift);
}

}  // namespace

void add_serve_command(CLI::App& app, ServeOptions& o, int* exit_code) {
  CLI::App* cmd = add_subcommand(
      app, "serve",
      "Serve a model in real time: UDP state stream and inputs, TCP control (docs/protocol.md).",
      exit_code, [&o] { return serve(o); });
  cmd->add_option("model", o.model,
                  "Model file (docs/model-format.md) or built-in mechanism (" + mechanism_names() +
                      "); default: configs/default.yaml");
  cmd->add_option("--rate", o.rate_hz,
                  "Loop rate [Hz] (default: 1/dt of the model; lower: "
                  "several engine steps per tick)")
      ->check(kPositiveNumber);
  // a haptic rig often wants the model's loop faster than the file's dt allows (issue 14 point 6:
  // configs/five_bar_haptic.yaml, dt 5e-4, served at 10 kHz with --dt 1e-4)
  cmd->add_option("--dt", o.dt,
                  "Engine step [s] (default: the model's); --rate must then be 1/(k dt) for a "
                  "whole k")
      ->check(kPositiveNumber);
  cmd->add_option("--duration", o.duration_s, "Stop after this many seconds (default: Ctrl-C)")
      ->check(kPositiveNumber);
  cmd->add_option("--bind", o.bind,
                  "IP address to listen on (localhost: 127.0.0.1). Beyond loopback, --token or "
                  "--insecure is required")
      ->capture_default_str();
  cmd->add_option("--port", o.port,
                  "TCP control port, also the UDP port if non-zero (0: chosen by the OS)")
      ->capture_default_str()
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--token", o.token,
                  "Shared secret that hello must present (in plain text unless --tls-cert: "
                  "then encrypted with the rest of the control channel)");
  CLI::Option* tls_cert =
      cmd->add_option("--tls-cert", o.tls_cert,
                      "Serve the TCP control channel over TLS (1.2 or newer) with this "
                      "certificate chain (PEM, the server's certificate first); needs "
                      "--tls-key. Its SHA-256 is printed at start, for clients that pin it "
                      "(docs/protocol.md \"TLS\")");
  CLI::Option* tls_key =
      cmd->add_option("--tls-key", o.tls_key, "The private key (PEM) of --tls-cert's certificate");
  tls_cert->needs(tls_key);
  tls_key->needs(tls_cert);
  cmd->add_flag("--insecure", o.insecure,
                "Allow a non-loopback --bind without --token: anyone who reaches the port can "
                "control the server (a warning is logged at start and every minute)");
  cmd->add_option("--models", o.models,
                  "Folder of the model files that the control command load may read (default: "
                  "the served model file's folder; none when a built-in is served)")
      ->check(CLI::ExistingDirectory);
  cmd->add_flag("--paused", o.paused, "Start paused (step/start commands run it)");
  cmd->add_option("--priority", o.priority,
                  "SCHED_FIFO priority of the simulation thread, best effort (0: do not ask)")
      ->capture_default_str()
      ->check(CLI::Range(0, 99));
  cmd->add_option("--cpu", o.cpu, "Pin the simulation thread to this CPU (default: not pinned)")
      ->check(kCpuIndex);
  cmd->add_option("--spin-us", o.spin_us,
                  "Wake this many microseconds before each deadline and busy-wait the rest "
                  "(less wake-up jitter for more CPU; default 0); with --clock device, poll the "
                  "socket without blocking from this long before each expected input")
      ->check(CLI::Range(0.0, 1000.0));
  cmd->add_option("--overrun", o.overrun,
                  "After a step misses its deadline: skip (drop the missed ticks, keep the "
                  "phase), catchup (run up to 4 missed ticks back to back), degrade, or halt "
                  "(stop in a safe state after --halt-after overruns in a row)")
      ->capture_default_str()
      ->check(CLI::IsMember({"skip", "catchup", "degrade", "halt"}));
  cmd->add_option("--halt-after", o.halt_after, "halt: consecutive overruns that stop the server")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--solver", o.solver,
                  "KKT solver: auto, dense, sparse or tree (default: the model file's "
                  "integration.solver, auto)")
      ->check(CLI::IsMember({"auto", "dense", "sparse", "tree"}));
  cmd->add_flag(
      "--demo", o.demo,
      "Also run a local demo client: a 1 kHz device (signed inputs, wire v2) that drives input "
      "channel 0 with a slow sine and measures input->state latency (make run)");
  cmd->add_option("--view", o.view_port,
                  "Serve a live browser view (3-D mechanism, drift, step time and latency plots) "
                  "on this HTTP port of --bind; 0: any free port (printed at start)")
      ->expected(0, 1)
      ->default_str("0")
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--clock", o.clock,
                  "What clocks the loop: wall (ticks at the rate on the server's clock, whatever "
                  "the inputs do), phase-lock (the rate, with the ticks' phase slewed at most "
                  "5 us per tick so that the inputs arrive --input-margin-us before each tick: "
                  "the shortest input->tick wait; wall while no input comes) or device (one tick "
                  "at once per admitted input datagram, wall ticks after stale_after without "
                  "inputs). Default: the model file's serve.clock, "
                  "else phase-lock with --demo and wall without (docs/architecture.md)")
      ->check(CLI::IsMember({"wall", "phase-lock", "device"}));
  cmd->add_option("--input-margin-us", o.input_margin_us,
                  "phase-lock: how long before its tick an input should arrive [us], a margin "
                  "for the arrival jitter, at most half the period (default: the model file's "
                  "serve.input_margin_us, else 30)")
      ->check(CLI::Range(0, 500000));
  cmd->add_option("--record", o.record,
                  "Record every input the simulation applies, every reset and the state hash into "
                  "FILE (written off the simulation thread); 'rtmb replay FILE' reproduces the run "
                  "bit for bit (docs/record-format.md). 'load' is refused while recording");
  cmd->add_option("--web-dir", o.web_dir,
                  "Directory with the view's page (default: the build tree's web/, where the "
                  "build copies it)");
  // 60 by default: the page draws only frames with new content (docs/protocol.md "Live view"),
  // so the stream's rate bounds the frame rate it shows (issue 20 acceptance 4 asks 30)
  cmd->add_option("--view-rate", o.view_rate_hz,
                  "Frames per second the live view sends a page that keeps up (a slower page "
                  "gets fewer: about the rate it draws / 0.8)")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 1000.0));
}

int serve(const ServeOptions& o) {
  spdlog::set_default_logger(spdlog::stderr_color_mt("rtmb"));
  ServerConfig config;
  try {
    config.model_file = resolve_model(o.model);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rtmb serve: %s\n", e.what());
    return 2;
  }
  if (!o.solver.empty()) config.model_file->settings.solver = *parse_solver(o.solver);
  config.model = model_name(*config.model_file);
  for (const std::string& note : config.model_file->notes) {
    std::fprintf(stderr, "rtmb serve: %s: %s\n", config.model_file->path.c_str(), note.c_str());
  }
  if (o.dt > 0.0) config.model_file->settings.dt = o.dt;
  config.rate_hz = o.rate_hz;
  if (const std::string why = rate_mismatch(o.rate_hz, config.model_file->settings.dt);
      !why.empty()) {
    std::fprintf(stderr, "rtmb serve: %s\n", why.c_str());
    return 2;
  }
  config.bind_address = o.bind == "localhost" ? "127.0.0.1" : o.bind;
  config.insecure = o.insecure;
  config.models_dir = o.models;
  config.tcp_port = static_cast<std::uint16_t>(o.port);
  config.udp_port = static_cast<std::uint16_t>(o.port);
  config.token = o.token;
  config.tls_cert_file = o.tls_cert;
  config.tls_key_file = o.tls_key;
  config.start_running = !o.paused;
  config.realtime_setup = true;
  config.rt_options.priority = o.priority;
  config.rt_options.cpu = o.cpu;
  config.spin_ns = std::llround(o.spin_us * 1e3);
  config.overrun = o.overrun == "catchup"   ? OverrunPolicy::kCatchUp
                   : o.overrun == "degrade" ? OverrunPolicy::kDegrade
                   : o.overrun == "halt"    ? OverrunPolicy::kHalt
                                            : OverrunPolicy::kSkip;
  config.halt_after_overruns = o.halt_after;
  config.record_path = o.record;
  if (!o.clock.empty()) {
    config.clock = parse_clock_mode(o.clock);
  } else if (o.demo && !config.model_file->clock) {
    config.clock = ClockMode::kPhaseLock;  // make run: the demo device's inputs set the phase
  }
  if (o.input_margin_us >= 0) config.input_margin_us = o.input_margin_us;

  std::unique_ptr<Server> server;
  try {
    server = std::make_unique<Server>(config);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rtmb serve: %s\n", e.what());
    return 2;
  }
  g_server.store(server.get());
  struct sigaction sa {};
  sa.sa_handler = &on_stop_signal;
  sigemptyset(&sa.sa_mask);
  (void)sigaction(SIGINT, &sa, nullptr);
  (void)sigaction(SIGTERM, &sa, nullptr);

  // the live view reads the server's stats on its own thread (rtmb/net/view_server.hpp)
  std::unique_ptr<ViewServer> view;
  if (o.view_port >= 0) {
    try {
      ViewConfig vc;
      vc.bind_address = config.bind_address;
      vc.port = static_cast<std::uint16_t>(o.view_port);
      vc.web_dir = o.web_dir.empty() ? std::string(RTMB_WEB_DIR) : o.web_dir;
      vc.frame_rate_hz = o.view_rate_hz;
      vc.token = o.token;  // the view's port is guarded like the control port (issue 15)
      view = std::make_unique<ViewServer>(vc, *server, view_scene_json(*config.model_file),
                                          view_geometry(*config.model_file));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "rtmb serve: %s\n", e.what());
      return 2;
    }
  }

  server->start();
  if (view) {
    view->start();
    std::fprintf(stderr, "rtmb serve: live view at %s\n",
                 view_url(o.bind, view->port(), o.token).c_str());
  }
  std::optional<DemoClient> demo;
  if (o.demo) {
    // 0.5 N m at 0.5 Hz: a gentle push on the default model's crank, visible in the motion
    demo.emplace(0.5, 0.5);
    // the server's own address (loopback when it listens on every address), with its token; over
    // TLS pinned to the server's certificate (the name would not match a bare address)
    const std::string& a = config.bind_address;
    demo->start(server->tcp_port(), a == "0.0.0.0" || a.empty() ? "127.0.0.1" : a, config.token,
                server->tls_fingerprint());
  }
  std::fprintf(
      stderr, "rtmb serve: %s (%s) at %.1f Hz, clock %s, control tcp %s:%u%s, udp %s:%u%s\n",
      config.model.c_str(), config.model_file->path.c_str(), server->schema().rate_hz,
      std::string(to_string(server->clock_mode())).c_str(), config.bind_address.c_str(),
      server->tcp_port(), server->tls_fingerprint().empty() ? "" : " (TLS)",
      config.bind_address.c_str(), server->udp_port(), o.duration_s > 0.0 ? "" : " (Ctrl-C stops)");

  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  auto next_status = t0 + std::chrono::seconds(1);
  const bool tty = ::isatty(STDERR_FILENO) != 0;
  while (server->running() && g_signalled == 0) {
    const auto now = Clock::now();
    if (o.duration_s > 0.0 && now - t0 >= std::chrono::duration<double>(o.duration_s)) break;
    if (now >= next_status) {
      next_status += std::chrono::seconds(1);
      const ServerStats s = server->stats();
      std::fprintf(stderr,
                   "%sstep %llu  t %.2f s%s  drift %.1e  compute p99 %.1f us  overruns %lld  "
                   "clients %zu  inputs %llu  rejected %llu",
                   tty ? "\r" : "", static_cast<unsigned long long>(s.step), s.sim_time,
                   s.paused ? " (paused)" : "", s.position_drift,
                   static_cast<double>(s.loop.compute.p99) * 1e-3,
                   static_cast<long long>(s.loop.counters.overruns), s.clients,
                   static_cast<unsigned long long>(s.inputs_queued),
                   static_cast<unsigned long long>(s.udp_in.rejected()));
      if (demo) {
        std::fprintf(stderr, "  demo: %llu states, rtt %.0f us",
                     static_cast<unsigned long long>(demo->states_received()), demo->last_rtt_us());
      }
      std::fprintf(stderr, "%s", tty ? "  " : "\n");
      std::fflush(stderr);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const double wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  std::optional<DemoReport> demo_report;
  if (demo) demo_report = demo->stop();
  if (view) view->stop();
  server->request_stop();
  server->join();
  g_server.store(nullptr);
  if (tty) std::fputc('\n', stderr);

  const ServerStats s = server->stats();
  const LoopCounters& c = server->loop_counters();
  const LoopHistograms& h = server->loop_histograms();
  std::printf("rtmb serve: closing report (%s, clock %s, stopped: %s)\n", config.model.c_str(),
              std::string(to_string(server->clock_mode())).c_str(),
              to_string(server->stop_reason()));
  std::printf("  ran %.2f s wall, %llu steps, sim time %.3f s (behind wall clock by %.3f s)\n",
              wall_s, static_cast<unsigned long long>(s.step), s.sim_time, wall_s - s.sim_time);
  print_summary("compute", h.compute.summarize());
  print_summary("lateness", h.lateness.summarize());
  print_summary("slack", h.slack.summarize());
  // a round trip's server side: the wait for the next tick, then the tick's turnaround
  print_summary("in->tick", s.input_wait);
  print_summary("tick->out", s.turnaround);
  if (const PhaseLock* lock = server->phase_lock()) {
    // once locked, the in->tick wait above is the margin
    const PhaseLockCounters& pl = lock->counters();
    std::printf(
        "  phase-lock: margin %.0f us, locked %lld of %lld ticks, phase moved %+.1f us, "
        "last error %+.1f us, slew-limited ticks %lld, stale resets %lld\n",
        us(lock->config().input_margin_ns), static_cast<long long>(pl.locked_ticks),
        static_cast<long long>(pl.ticks), us(pl.phase_ns), us(pl.error_ns),
        static_cast<long long>(pl.slew_limited_ticks), static_cast<long long>(pl.stale_resets));
  }
  std::printf("  ticks %lld  overruns %lld  missed %lld  max consecutive overruns %lld\n",
              static_cast<long long>(c.ticks), static_cast<long long>(c.overruns),
              static_cast<long long>(c.missed_ticks),
              static_cast<long long>(c.max_consecutive_overruns));
  std::printf("  constraint drift at the end: position %.3g, velocity %.3g\n", s.position_drift,
              s.velocity_drift);
  std::printf("  udp in: received %llu accepted %llu rejected %llu",
              static_cast<unsigned long long>(s.udp_in.received),
              static_cast<unsigned long long>(s.udp_in.accepted()),
              static_cast<unsigned long long>(s.udp_in.rejected()));
  for (std::size_t i = 1; i < kPacketStatusCount; ++i) {
    if (s.udp_in.by_status[i] == 0) continue;
    std::printf(" %s=%llu", std::string(to_string(static_cast<PacketStatus>(i))).c_str(),
                static_cast<unsigned long long>(s.udp_in.by_status[i]));
  }
  std::printf("\n  inputs queued %llu dropped %llu; states sent %llu (send errors %llu)\n",
              static_cast<unsigned long long>(s.inputs_queued),
              static_cast<unsigned long long>(s.inputs_dropped),
              static_cast<unsigned long long>(s.states_sent),
              static_cast<unsigned long long>(s.send_errors));
  std::printf(
      "  control: %llu commands (%llu errors), %llu connections, %llu refused, %llu "
      "dropped",
      static_cast<unsigned long long>(s.commands),
      static_cast<unsigned long long>(s.command_errors),
      static_cast<unsigned long long>(s.tcp_accepted),
      static_cast<unsigned long long>(s.tcp_refused),
      static_cast<unsigned long long>(s.tcp_dropped));
  if (!server->tls_fingerprint().empty()) {
    std::printf(", %llu failed TLS handshakes", static_cast<unsigned long long>(s.tls_failed));
  }
  std::printf("\n");
  if (demo_report) print_demo(*demo_report);
  if (!o.record.empty()) {
    std::printf("  record %s: %lld steps, %llu entries, state hash %016llx, %llu lost%s\n",
                o.record.c_str(), static_cast<long long>(server->record_steps()),
                static_cast<unsigned long long>(server->record_entries()),
                static_cast<unsigned long long>(server->record_hash()),
                static_cast<unsigned long long>(s.record_dropped),
                server->record_complete() ? "" : "  (INCOMPLETE: replay will not be exact)");
    if (!server->record_complete()) return 1;
  }
  return report_serve_outcome(server->stop_reason(), c, h.compute.summarize(),
                              server->schema().rate_hz, config.halt_after_overruns);
}

}  // namespace rtmb::app
