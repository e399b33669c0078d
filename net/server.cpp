// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// rtmb::Server (include/rtmb/net/server.hpp): setup (the model bundle, sockets, the loop), the
// two threads and the network thread's poll loop. The simulation thread's step is
// net/sim_driver.hpp, the UDP stream net/state_stream.cpp, a TCP control connection
// net/control_session.cpp and the replies to its commands net/server_commands.cpp; the state they
// share is net/server_impl.hpp.
#include "rtmb/net/server.hpp"

// clang-format off
// <utility> first: Boost 1.74's asio/awaitable.hpp uses std::exchange without including it
#include <utility>
#include <boost/asio/ssl/context.hpp>
// clang-format on
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "engine/constraints/redundant_constraints.hpp"
#include "net/control_session.hpp"
#include "net/input_auth.hpp"
#include "net/load_permission.hpp"
#include "net/server_impl.hpp"
#include "net/tls_server_context.hpp"
#include "rtmb/models/mechanisms.hpp"
#include "rtmb/models/planar_multibody.hpp"

namespace rtmb {

// Builds and validates everything one model needs (setup, allocates; throws with the reason).
// period_ns > 0: the loop is running at that period and the model must fit it exactly.
std::unique_ptr<SimBundle> Server::Impl::make_bundle(const ModelFile& file,
                                                     double rate_hz,
                                                     std::int64_t period_ns) const {
  auto b = std::make_unique<SimBundle>();
  b->file = file;
  const Settings& settings = file.settings;
  b->model = std::make_unique<Model>(std::shared_ptr<const System>(make_system(file)), settings);
  const System& sys = b->model->system();
  // the mouse spring's planar bodies (also under `redundant_constraints: remove`)
  b->planar = dynamic_cast<const PlanarMultibody*>(&underlying_system(sys));
  const std::string name = model_name(file);
  const auto named_outputs = model_output_channels(file);  // planar or spatial
  // A model too large for the UDP stream's channels (the 1000-body chain of issue 20 point 6:
  // 6000 state channels, 3000 generalized forces) is still served: its state datagrams carry no
  // channels (drift, energy and the echo only) and it takes no inputs, unless the file names
  // output or input channels that fit. The live view draws all of it from the full positions
  // (net/view_state_buffer.hpp), which do not go through channels.
  b->stream_state =
      !named_outputs.empty() || sys.n_q() + sys.n_v() <= static_cast<int>(kMaxStateChannels);
  if (!b->stream_state) {
    spdlog::warn(
        "model '{}' has {} state channels, more than the {} the state stream carries: "
        "its states go out without channels (name a few under 'outputs:' to stream "
        "them); the live view shows every coordinate",
        name, sys.n_q() + sys.n_v(), kMaxStateChannels);
  }
  // named channels (System::n_inputs() > 0), else one generalized force per velocity
  int n_channels = sys.n_inputs() > 0 ? sys.n_inputs() : sys.n_v();
  std::vector<InputChannelSpec> input_specs = file.inputs;
  if (sys.n_inputs() == 0 && n_channels > kMaxInputChannels &&
      file.inputs.size() == static_cast<std::size_t>(n_channels)) {
    spdlog::warn(
        "model '{}' has {} generalized forces, more than the {} input channels a "
        "model may take: it is served without inputs (drive a few elements with named "
        "channels, docs/model-format.md \"Named channels\")",
        name, n_channels, kMaxInputChannels);
    n_channels = 0;
    input_specs.clear();
  }
  if (input_specs.size() != static_cast<std::size_t>(n_channels) ||
      n_channels > kMaxInputChannels) {
    throw std::invalid_argument("model '" + name + "' needs " + std::to_string(n_channels) +
                                " input channels (at most " + std::to_string(kMaxInputChannels) +
                                "), the file gives " + std::to_string(file.inputs.size()));
  }
  int substeps = 1;
  if (period_ns > 0) {
    substeps = static_cast<int>(
        std::max<long long>(1, std::llround(static_cast<double>(period_ns) * 1e-9 / settings.dt)));
  } else if (rate_hz > 0.0) {
    substeps =
        static_cast<int>(std::max<long long>(1, std::llround(1.0 / (rate_hz * settings.dt))));
  }
  // a tick longer than an hour is no real-time loop, and its period in ns would overflow
  // (`rtmb serve --dt 1e300` used to end in "InputBankConfig::period_ns must be > 0")
  if (const double tick = substeps * settings.dt; !(tick <= 3600.0)) {
    throw std::invalid_argument(fmt::format(
        "model '{}' would tick every {:g} s: a served model ticks at least once an hour (dt, rate)",
        name, tick));
  }
  ServerSchema& schema_out = b->schema;
  schema_out.model = name;
  schema_out.source = file.path;
  schema_out.dt = settings.dt;
  schema_out.substeps = substeps;
  schema_out.rate_hz = 1.0 / (substeps * settings.dt);
  const bool units_given = !file.output_units.empty();
  // named output channels replace q and v in the stream (docs/protocol.md, "State payload")
  for (const auto& [channel, unit] : named_outputs) {
    schema_out.outputs.push_back({channel, unit});
  }
  for (int i = 0; named_outputs.empty() && b->stream_state && i < sys.n_q(); ++i) {
    schema_out.outputs.push_back(
        {"q" + std::to_string(i),
         units_given ? file.output_units[static_cast<std::size_t>(i)] : "m|rad"});
  }
  for (int i = 0; named_outputs.empty() && b->stream_state && i < sys.n_v(); ++i) {
    schema_out.outputs.push_back(
        {"v" + std::to_string(i),
         units_given ? file.output_units[static_cast<std::size_t>(sys.n_q() + i)] : "m/s|rad/s"});
  }
  for (const InputChannelSpec& in : input_specs) schema_out.inputs.push_back({in.name, in.unit});

  b->ws = std::make_unique<Workspace>(*b->model);
  b->initial = initial_state(*b->model);
  b->state = b->initial;
  RunnerConfig rc;
  rc.substeps = substeps;
  rc.stop_on_non_finite = false;
  b->runner =
      std::make_unique<SimulationRunner>(*b->model, b->state, *b->ws, *inputs, *b->inner, rc);
  b->outputs = make_output_evaluator(file, sys);
  b->runner->set_output_evaluator(b->outputs.get());
  if (period_ns > 0 && b->runner->period_ns() != period_ns) {
    throw std::invalid_argument("model '" + name + "' steps dt = " + std::to_string(settings.dt) +
                                " s, which does not divide the running loop's period of " +
                                std::to_string(period_ns) + " ns; restart rtmb serve with it");
  }
  std::vector<InputChannelConfig> channel_configs;
  for (const InputChannelSpec& in : input_specs) channel_configs.push_back(in.config);
  InputBankConfig bank_config = file.input_bank;
  bank_config.period_ns = b->runner->period_ns();
  b->bank = std::make_unique<InputChannelBank>(channel_configs, bank_config);
  b->runner->set_input_bank(b->bank.get());
  b->runner->set_phase_lock(phase_lock.get());  // a loaded model keeps the running lock
  return b;
}

// --record: the header says what to rebuild (the model file's text, or the built-in's name) and
// how it was stepped; the recorder takes what the runner applies (generalized forces, or the
// model's named channels) and every step's state.
void Server::Impl::start_recording(SimBundle& bundle) {
  const ModelFile& file = bundle.file;
  RecordHeader h;
  h.model_path = file.path;
  // the model file's text carries the model and its settings; only a built-in served by name
  // (no file) is rebuilt from its name alone
  if (std::filesystem::is_regular_file(file.path)) {
    std::ifstream in(file.path, std::ios::binary);
    h.model_text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  if (h.model_text.empty() && file.mechanism.empty()) {
    throw std::runtime_error("record: cannot re-read the model file " + file.path);
  }
  h.mechanism = file.mechanism;
  const Model& model = *bundle.model;
  h.method = std::string(to_string(model.settings().method));
  h.stabilizer = std::string(to_string(model.settings().stabilizer));
  h.solver = std::string(to_string(model.solver()));
  h.dt = model.settings().dt;
  h.model_channels = model.system().n_inputs() > 0;
  h.n_inputs = h.model_channels ? model.system().n_inputs() : model.system().n_v();
  h.build = build_id();
  recorder = std::make_unique<Recorder>(h.n_inputs, h.dt);
  record_writer = std::make_unique<RecordWriter>(config.record_path, h, *recorder);
  bundle.runner->set_recorder(recorder.get());
}

// The clock mode (ServerConfig, else the model file's serve keys, else wall): phase-lock makes
// the PhaseLock that the loop applies and the runner feeds; device runs a DeviceLoop instead of
// the DeadlineLoop, made once the UDP socket is bound (docs/architecture.md "Clock modes").
void Server::Impl::setup_clock_mode(const ModelFile& file, LoopConfig& lc) {
  const ClockMode mode = config.clock.value_or(file.clock.value_or(ClockMode::kWall));
  clock_mode = mode;
  if (mode != ClockMode::kPhaseLock) return;
  const std::int64_t margin_us = config.input_margin_us.value_or(file.input_margin_us.value_or(30));
  PhaseLockConfig pc;
  pc.period_ns = lc.period_ns;
  if (margin_us < 0 || margin_us > lc.period_ns / 2 / 1000) {
    throw std::invalid_argument("input margin " + std::to_string(margin_us) +
                                " us must be in [0, half the tick period = " +
                                std::to_string(lc.period_ns / 2000) + " us]");
  }
  pc.input_margin_ns = margin_us * 1000;
  pc.max_slew_ns = std::min(pc.max_slew_ns, lc.period_ns / 4);
  phase_lock = std::make_unique<PhaseLock>(pc);
  bundles.front()->runner->set_phase_lock(phase_lock.get());
  lc.phase_lock = phase_lock.get();
}

Server::Impl::Impl(const ServerConfig& c) : config(c) {
  if (c.rate_hz < 0.0 || !std::isfinite(c.rate_hz)) {
    throw std::invalid_argument("rate must be a finite number >= 0 [Hz]");
  }
  if (c.max_clients < 1 || c.max_subscribers < 1 || c.max_queued_replies < 1) {
    throw std::invalid_argument("max_clients, max_subscribers and max_queued_replies must be >= 1");
  }
  if (c.max_subscribers > kMaxSubscriberSlots || c.max_clients > kMaxClientSlots) {
    throw std::invalid_argument("max_subscribers and max_clients must be at most " +
                                std::to_string(kMaxSubscriberSlots) + " and " +
                                std::to_string(kMaxClientSlots));
  }
  const ModelFile file = c.model_file ? *c.model_file : builtin_model_file(c.model);
  load_root = load_root_for(
      c.models_dir, c.model_file ? std::optional<std::string_view>(file.path) : std::nullopt);
  bundles.push_back(make_bundle(file, c.rate_hz > 0.0 ? c.rate_hz : file.rate_hz, 0));
  SimBundle& first = *bundles.front();
  if (!c.record_path.empty()) start_recording(first);
  schema = first.schema;
  initial_schema = first.schema;  // for Server::schema(): never changes, safe from any thread
  net_stats.model_file = std::make_shared<const ModelFile>(file);

  if (c.wake_network) {
    wake_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (wake_fd < 0) {
      throw std::runtime_error("eventfd failed: " + std::string(std::strerror(errno)));
    }
    wake.assign(wake_fd);
  }
  clock = MonotonicClock(c.spin_ns);
  driver =
      std::make_unique<SimDriver>(first, *published, *control, *retired, wake_fd, !c.start_running);
  // the live view's full positions (issue 20 point 6), sized now for the served model: a loaded
  // model with more coordinates shows its first view_capacity() (Server::read_view_state)
  view_state =
      std::make_unique<ViewStateBuffer>(static_cast<std::size_t>(first.model->system().n_q()));
  driver->attach_view(view_state.get());
  LoopConfig lc;
  lc.period_ns = first.runner->period_ns();
  lc.policy = c.overrun;
  lc.max_catch_up = c.max_catch_up;
  lc.halt_after_overruns = c.halt_after_overruns;
  lc.safe_state = &SimDriver::safe_state;
  lc.safe_state_context = driver.get();
  lc.telemetry = telemetry.get();
  lc.telemetry_every_ticks = std::max<std::int64_t>(1, 100'000'000 / lc.period_ns);
  setup_clock_mode(file, lc);
  if (clock_mode != ClockMode::kDevice) {
    loop = std::make_unique<SimLoop>(lc, driver->step_fn(), clock);
  }

  std::int64_t poll_ns = c.poll_period_ns;
  if (poll_ns <= 0) {
    poll_ns =
        c.wake_network ? 1'000'000 : std::clamp<std::int64_t>(lc.period_ns / 2, 100'000, 5'000'000);
  }
  poll_period = std::chrono::nanoseconds(poll_ns);
  if (c.max_input_rate_hz < 0.0 || !std::isfinite(c.max_input_rate_hz) ||
      !(c.max_command_rate_hz > 0.0) || !std::isfinite(c.max_command_rate_hz)) {
    throw std::invalid_argument("max_input_rate_hz must be >= 0 and max_command_rate_hz > 0");
  }
  input_rate_hz = c.max_input_rate_hz > 0.0
                      ? c.max_input_rate_hz
                      : std::max(1000.0, 4e9 / static_cast<double>(lc.period_ns));

  // sockets: bound here so the ports are known before start()
  boost::system::error_code ec;
  const asio::ip::address address = asio::ip::make_address(c.bind_address, ec);
  if (ec) throw std::invalid_argument("invalid bind address '" + c.bind_address + "'");
  // beyond loopback, anyone who reaches the port could say hello and push inputs into the rig
  insecure_bind = !address.is_loopback() && c.token.empty();
  if (insecure_bind && !c.insecure) {
    throw std::invalid_argument("binding to " + c.bind_address +
                                " (not loopback) needs --token SECRET, or --insecure to let anyone "
                                "on the network control the server");
  }
  // beyond loopback, an input must prove its session (wire version 2): a source address is
  // spoofable by anyone on the segment
  require_authenticated = !address.is_loopback() || c.require_authenticated_inputs;
  init_crypto();  // sodium_init, before any hello makes a session key
  if (insecure_bind && c.insecure_warning_period_ns <= 0) {
    throw std::invalid_argument("insecure_warning_period_ns must be > 0");
  }
  if (c.tls_cert_file.empty() != c.tls_key_file.empty()) {
    throw std::invalid_argument(
        "TLS needs both a certificate and its key (--tls-cert FILE --tls-key FILE)");
  }
  if (!c.tls_cert_file.empty()) {
    tls_context = make_tls_server_context(c.tls_cert_file, c.tls_key_file);
    tls_fingerprint = tls_certificate_fingerprint(*tls_context);
  }
  // hello's token is the only thing between the network and the rig: without TLS anyone who
  // can watch the traffic reads it
  plaintext_token = !address.is_loopback() && !c.token.empty() && !tls_context;
  try {
    const tcp::endpoint tcp_ep(address, c.tcp_port);
    acceptor.open(tcp_ep.protocol());
    acceptor.set_option(tcp::acceptor::reuse_address(true));
    acceptor.bind(tcp_ep);
    acceptor.listen();
    udp::socket udp_socket(io);
    udp_socket.open(address.is_v4() ? udp::v4() : udp::v6());
    udp_socket.bind(udp::endpoint(address, c.udp_port));
    udp_socket.non_blocking(true);
    bound_tcp_port = acceptor.local_endpoint().port();
    bound_udp_port = udp_socket.local_endpoint().port();
    // the simulation thread does the UDP socket's I/O itself (issue 14): Asio lets go of it, so
    // that its datagrams do not wake the network thread
    udp_fd = udp_socket.release();
  } catch (const boost::system::system_error& e) {
    throw std::runtime_error("cannot bind " + c.bind_address + " (tcp port " +
                             std::to_string(c.tcp_port) + ", udp port " +
                             std::to_string(c.udp_port) + "): " + e.code().message());
  }
  sender = std::make_unique<StateSender>(udp_fd, *subscriber_table);
  driver->attach_sender(sender.get(), io_counters.get());
  receiver = std::make_unique<InputReceiver>(udp_fd, *admission, *inputs);
  driver->attach_receiver(receiver.get(), set_inputs.get());
  if (clock_mode == ClockMode::kDevice) {
    // the fallback to wall ticks when the master is silent comes when the input channels'
    // watchdog starts its ramp (their stale_after; the lockstep needs at least two periods)
    const std::int64_t stale = file.input_bank.stale_after_ns;
    driver->set_device_clocked(true);
    device_waiter =
        SocketInputWaiter{PeriodicInputWait(udp_fd, lc.period_ns, c.spin_ns), &clock, driver.get()};
    device_loop = std::make_unique<DeviceSimLoop>(
        lc, stale == 0 ? 0 : std::max(stale, 2 * lc.period_ns), driver->step_fn(), device_waiter);
  }
  publish_admission();  // nobody yet, and the rate limit
  net_stats.paused = !c.start_running;
  shared_stats = net_stats;
}

Server::Impl::~Impl() {  // wake closes wake_fd
  if (udp_fd >= 0) ::close(udp_fd);
}

void Server::Impl::do_accept() {
  acceptor.async_accept([this](const boost::system::error_code& ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted || network_down) return;
    if (!ec) {
      if (sessions.size() >= config.max_clients) {
        ++net_stats.tcp_refused;
        boost::system::error_code ignored;
        socket.close(ignored);
      } else {
        ++net_stats.tcp_accepted;
        auto session = std::make_shared<ControlSession>(*this, std::move(socket), next_session_id++,
                                                        tls_context.get());
        sessions.push_back(session);
        session->start();
      }
    }
    do_accept();
  });
}

void Server::Impl::arm_wake() {
  if (wake_fd < 0) return;
  wake.async_read_some(asio::buffer(&wake_count, sizeof wake_count),
                       [this](const boost::system::error_code& ec, std::size_t /*n*/) {
                         if (ec == asio::error::operation_aborted || network_down) return;
                         take_snapshot();
                         arm_wake();
                       });
}

void Server::Impl::take_snapshot() {
  ServerSnapshot snap;
  if (!published->try_read(snap)) return;
  const bool stepped = !have_latest || snap.state.step != latest.state.step;
  const bool new_input =
      snap.state.last_input_step >= 0 &&
      (!have_latest || snap.state.last_input_seq != latest.state.last_input_seq ||
       snap.state.last_input_sender_time_ns != latest.state.last_input_sender_time_ns);
  latest = snap;
  have_latest = true;
  ++net_stats.snapshots;
  // the simulation thread sent the state already (net/state_sender.hpp, which never sends a
  // non-finite one); the flag is for stats
  const StateSnapshot& st = snap.state;
  bool finite = std::isfinite(st.t);
  for (int i = 0; i < st.n_q; ++i) finite = finite && std::isfinite(st.q[i]);
  for (int i = 0; i < st.n_v; ++i) finite = finite && std::isfinite(st.v[i]);
  for (int i = 0; i < st.n_outputs; ++i) finite = finite && std::isfinite(st.outputs[i]);
  net_stats.state_finite = finite;
  // where the time of an input -> state round trip goes, on the server's side (CLOCK_MONOTONIC)
  if (new_input && snap.state.last_input_wait_ns >= 0) {
    input_wait.record(snap.state.last_input_wait_ns);
  }
  if (stepped && snap.paused == 0 && snap.state.tick_deadline_ns > 0 && snap.sent_ns > 0) {
    turnaround.record(std::max<std::int64_t>(0, snap.sent_ns - snap.state.tick_deadline_ns));
  }
}

void Server::Impl::arm_poll() {
  poll_timer.expires_after(poll_period);
  poll_timer.async_wait([this](const boost::system::error_code& ec) {
    if (ec == asio::error::operation_aborted || network_down) return;
    poll();
  });
}

void Server::Impl::poll() {
  if (stop.load(std::memory_order_relaxed) || !sim_running.load(std::memory_order_acquire)) {
    take_snapshot();  // the last one (e.g. the halt's safe state) reaches stats
    // the simulation thread ends within a tick of the stop request; waiting for it makes the
    // final stats hold its last counters (it sends states itself)
    if (sim_running.load(std::memory_order_acquire)) {
      arm_poll();
      return;
    }
    shutdown_network();
    return;
  }
  if (!rt_logged && rt_ready.load(std::memory_order_acquire)) {
    rt_logged = true;
    // each refusal once, at start, with the fix in the message
    for (const RtSetupResult* r : {&rt_report.memory, &rt_report.stack, &rt_report.affinity,
                                   &rt_report.priority, &rt_report.timer_slack}) {
      if (!r->ok()) {
        spdlog::warn("real-time setup: {}", r->message());
      } else if (r->message() != "skipped") {
        spdlog::info("real-time setup: {}", r->message());
      }
    }
  }
  take_snapshot();  // without a wake-up (wake_network off, or a missed one)
  collect_retired();
  (void)telemetry->try_read(net_stats.loop);
  publish_stats();
  arm_poll();
}

void Server::Impl::publish_stats() {
  read_io_counters();
  if (have_latest) {
    net_stats.step = latest.step;
    net_stats.sim_time = latest.state.t;
    net_stats.position_drift = latest.state.position_drift;
    net_stats.velocity_drift = latest.state.velocity_drift;
    net_stats.energy = latest.state.energy;
    net_stats.q.assign(latest.state.q.begin(), latest.state.q.begin() + latest.state.n_q);
    net_stats.paused = latest.paused != 0;
    net_stats.inputs_stale = latest.inputs_stale != 0;
    net_stats.input_values.assign(latest.inputs.begin(), latest.inputs.begin() + latest.n_inputs);
    net_stats.drag = latest.drag;
  }
  if (record_writer) {
    net_stats.record_entries = record_writer->entries_written();
    net_stats.record_dropped = recorder->dropped();
  }
  net_stats.input_wait = input_wait.summarize();
  net_stats.turnaround = turnaround.summarize();
  net_stats.clients = sessions.size();
  net_stats.subscribers = subscribers.size();
  const std::lock_guard lock(stats_mutex);
  shared_stats = net_stats;
}

void Server::Impl::arm_status() {
  status_timer.expires_after(std::chrono::seconds(1));
  status_timer.async_wait([this](const boost::system::error_code& ec) {
    if (ec == asio::error::operation_aborted || network_down) return;
    const LoopTelemetry& t = net_stats.loop;
    spdlog::debug(
        "step {} (+{}) t={:.3f}s clients {} subscribers {} inputs {} rejected {} overruns {} "
        "compute p99 {} ns",
        net_stats.step, net_stats.step - last_logged_step, net_stats.sim_time, sessions.size(),
        subscribers.size(), net_stats.inputs_queued, net_stats.udp_in.rejected(),
        t.counters.overruns, t.compute.p99);
    last_logged_step = net_stats.step;
    arm_status();
  });
}

void Server::Impl::warn_insecure() {
  spdlog::warn(
      "INSECURE: serving {} (not loopback) without a token (--insecure): anyone on the network "
      "can control the server and push inputs",
      config.bind_address);
  ++net_stats.insecure_warnings;
  insecure_timer.expires_after(std::chrono::nanoseconds(config.insecure_warning_period_ns));
  insecure_timer.async_wait([this](const boost::system::error_code& ec) {
    if (ec == asio::error::operation_aborted || network_down) return;
    warn_insecure();
  });
}

void Server::Impl::warn_plaintext_token() {
  spdlog::warn(
      "serving {} (not loopback) with --token but without TLS: the token travels in plain text, "
      "readable by anyone who can watch the network (--tls-cert FILE --tls-key FILE encrypts "
      "the control channel)",
      config.bind_address);
  ++net_stats.plaintext_token_warnings;
}

void Server::Impl::shutdown_network() {
  if (network_down) return;
  network_down = true;
  boost::system::error_code ec;
  acceptor.close(ec);
  // the UDP socket is the simulation thread's: join() closes it once that thread has ended
  poll_timer.cancel();
  status_timer.cancel();
  insecure_timer.cancel();
  if (wake_fd >= 0) wake.cancel(ec);
  const auto open = sessions;  // close() edits sessions
  for (const auto& s : open) s->close();
  publish_stats();
  io.stop();
}

void Server::Impl::session_closed(ControlSession& session) {
  if (std::erase_if(subscribers,
                    [&](const Subscriber& sub) { return sub.session_id == session.id(); }) > 0) {
    publish_subscribers();
  }
  std::erase_if(sessions,
                [&](const std::shared_ptr<ControlSession>& s) { return s.get() == &session; });
  if (session.said_hello) publish_admission();
}

void Server::Impl::collect_retired() {
  SimBundle* old = nullptr;
  while (retired->try_pop(old)) {
    std::erase_if(bundles, [&](const std::unique_ptr<SimBundle>& b) { return b.get() == old; });
  }
}

// ---- Server --------------------------------------------------------------------------------

Server::Server(const ServerConfig& config) : impl_(std::make_unique<Impl>(config)) {}

Server::~Server() {
  request_stop();
  join();
}

void Server::start() {
  Impl& m = *impl_;
  if (m.started) throw std::logic_error("Server::start called twice");
  m.started = true;
  m.sim_running.store(true, std::memory_order_release);
  m.sim_thread = std::thread([&m] {
    // on this thread, so that the stack prefault covers it; the network thread logs the result
    if (m.config.realtime_setup) {
      m.rt_report = setup_realtime(m.config.rt_options);
      m.rt_ready.store(true, std::memory_order_release);
    }
    if (m.sim_hook != nullptr) m.sim_hook(m.sim_hook_context, true);
    if (m.device_loop) {
      (void)m.device_loop->run();
    } else {
      (void)m.loop->run();
    }
    if (m.sim_hook != nullptr) m.sim_hook(m.sim_hook_context, false);
    m.sim_running.store(false, std::memory_order_release);
  });
  m.do_accept();
  m.arm_wake();
  m.arm_poll();
  m.arm_status();
  // the first warning now, the next ones from the network thread
  if (m.insecure_bind) m.warn_insecure();
  if (m.plaintext_token) m.warn_plaintext_token();
  if (m.record_writer) m.record_writer->start();
  m.net_thread = std::thread([&m] { m.io.run(); });
  spdlog::info("serving '{}' at {:.1f} Hz: control tcp {}:{}{}, state/input udp {}:{}",
               m.schema.model, m.schema.rate_hz, m.config.bind_address, tcp_port(),
               m.tls_context ? " (TLS)" : "", m.config.bind_address, udp_port());
  if (m.tls_context) {
    spdlog::info("control channel TLS certificate SHA-256 {}", m.tls_fingerprint);
  }
}

void Server::request_stop() noexcept {
  impl_->stop.store(true, std::memory_order_relaxed);
  if (impl_->loop) impl_->loop->request_stop();
  if (impl_->device_loop) impl_->device_loop->request_stop();
}

void Server::join() {
  Impl& m = *impl_;
  if (m.sim_thread.joinable()) m.sim_thread.join();
  if (m.net_thread.joinable()) m.net_thread.join();
  // both threads have ended: nobody uses the UDP socket any more
  if (m.started && m.udp_fd >= 0) {
    ::close(m.udp_fd);
    m.udp_fd = -1;
  }
  // the simulation thread has stopped: the recorder's counters are final
  if (m.record_writer) m.record_ok = m.record_writer->finish();
}

bool Server::record_complete() const noexcept {
  return !impl_->record_writer || (impl_->record_ok && impl_->recorder->dropped() == 0);
}
std::int64_t Server::record_steps() const noexcept {
  return impl_->recorder ? impl_->recorder->steps() : 0;
}
std::uint64_t Server::record_entries() const noexcept {
  return impl_->record_writer ? impl_->record_writer->entries_written() : 0;
}
std::uint64_t Server::record_hash() const noexcept {
  return impl_->recorder ? impl_->recorder->hash() : 0;
}

bool Server::running() const noexcept {
  return impl_->sim_running.load(std::memory_order_acquire);
}

std::uint16_t Server::tcp_port() const noexcept {
  return impl_->bound_tcp_port;
}
std::uint16_t Server::udp_port() const noexcept {
  return impl_->bound_udp_port;
}
const std::string& Server::tls_fingerprint() const noexcept {
  return impl_->tls_fingerprint;
}

const ServerSchema& Server::schema() const noexcept {
  return impl_->initial_schema;
}

ServerStats Server::stats() const {
  const std::lock_guard lock(impl_->stats_mutex);
  return impl_->shared_stats;
}

bool Server::read_view_state(ViewState& out) const {
  ViewStateRecord r;
  if (!impl_->view_state->take(r)) return false;
  out.t = r.t;
  out.step = r.step;
  out.epoch = r.epoch;
  out.n_q = r.n_q;
  out.drag = r.drag;
  out.q.assign(r.q, r.q + std::min(r.n_q, impl_->view_state->capacity()));
  return true;
}

std::size_t Server::view_capacity() const noexcept {
  return impl_->view_state->capacity();
}

const LoopHistograms& Server::loop_histograms() const noexcept {
  return impl_->loop ? impl_->loop->histograms() : impl_->device_loop->histograms();
}
const LoopCounters& Server::loop_counters() const noexcept {
  return impl_->loop ? impl_->loop->counters() : impl_->device_loop->counters();
}
ClockMode Server::clock_mode() const noexcept {
  return impl_->clock_mode;
}
const PhaseLock* Server::phase_lock() const noexcept {
  return impl_->phase_lock.get();
}
StopReason Server::stop_reason() const noexcept {
  return impl_->loop ? impl_->loop->stop_reason() : impl_->device_loop->stop_reason();
}

void Server::set_sim_thread_hook(SimThreadHook hook, void* context) noexcept {
  impl_->sim_hook = hook;
  impl_->sim_hook_context = context;
}

}  // namespace rtmb
