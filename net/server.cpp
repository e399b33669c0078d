// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// rtmb::Server (include/rtmb/net/server.hpp): the simulation thread (SimDriver around
// SimulationRunner in a DeadlineLoop) and the network thread (one Boost.Asio io_context: UDP
// state out / inputs in, TCP control sessions, a poll timer that forwards new snapshots).
#include "rtmb/net/server.hpp"

#include <spdlog/spdlog.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <boost/asio.hpp>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>

#include "net/control_command.hpp"
#include "net/flat_json.hpp"
#include "rtmb/models/mechanisms.hpp"
#include "rtmb/outputs.hpp"
#include "rtmb/runtime.hpp"
#include "rtmb/runtime/input_channels.hpp"
#include "rtmb/runtime/record.hpp"
#include "rtmb/step.hpp"

namespace rtmb {

namespace asio = boost::asio;
using asio::ip::tcp;
using asio::ip::udp;

namespace {

// ---- simulation thread ---------------------------------------------------------------------

// Everything one model needs on the simulation thread, built on the network thread (setup,
// allocates) and handed over whole by pointer, so `load` swaps models between two ticks without
// the simulation thread allocating or freeing anything: the old bundle goes back to the network
// thread through the retire ring and is destroyed there.
struct SimBundle {
  ModelFile file;
  ServerSchema schema;
  std::unique_ptr<Model> model;
  std::unique_ptr<Workspace> ws;
  State state;
  State initial;
  std::unique_ptr<SnapshotSlot> inner = std::make_unique<SnapshotSlot>();
  std::unique_ptr<InputChannelBank> bank;
  std::unique_ptr<OutputEvaluator> outputs;  // the model's named output channels; null: q, v
  std::unique_ptr<SimulationRunner> runner;
};

// Requests from the network thread to the simulation thread.
enum class SimControlKind : std::uint32_t { kStart = 1, kPause, kStep, kReset, kLoad };
struct SimControl {
  SimControlKind kind = SimControlKind::kStart;
  std::uint32_t count = 0;      // kStep: steps (ticks) to take
  SimBundle* bundle = nullptr;  // kLoad: the model to run from the next tick on
};
static_assert(std::is_trivially_copyable_v<SimControl>);
using ControlRing = SpscRing<SimControl, 64>;
using RetireRing = SpscRing<SimBundle*, 64>;  // bundles the simulation thread let go of

// What the simulation thread publishes for the network thread.
struct ServerSnapshot {
  StateSnapshot state;
  std::uint64_t step = 0;          // engine steps since the last reset or load
  std::int64_t echo_step = -1;     // step (since reset) that first saw the last input; -1: none
  std::uint64_t epoch = 0;         // resets and loads so far
  std::uint32_t paused = 0;        // 1: paused
  std::uint32_t inputs_stale = 0;  // 1: the InputChannelBank found the whole stream stale
  std::int32_t n_inputs = 0;       // valid entries of inputs
  std::uint32_t reserved = 0;
  std::array<double, kMaxInputChannels> inputs{};  // each input channel's value this tick
};
static_assert(std::is_trivially_copyable_v<ServerSnapshot>);
using ServerSlot = LatestValue<ServerSnapshot>;

// The loop step of the server: control requests, then (unless paused) the runner's tick, then
// the snapshot with reset bookkeeping. RT-safe: no allocation, lock, log or exception.
class SimDriver {
 public:
  SimDriver(SimBundle& bundle,
            ServerSlot& out,
            ControlRing& control,
            RetireRing& retired,
            int wake_fd,
            bool paused)
      : b_(&bundle),
        out_(&out),
        control_(&control),
        retired_(&retired),
        wake_fd_(wake_fd),
        paused_(paused) {
    start_model();
  }

  bool on_tick(const Tick& tick) noexcept {
    drain_control();
    if (paused_ && steps_left_ == 0) {
      if (dirty_) publish();
      return true;
    }
    if (paused_) --steps_left_;
    (void)b_->runner->on_tick(tick);  // stop_on_non_finite is off: the state is restored instead
    (void)b_->inner->try_read(current_);
    publish();
    return true;
  }

  struct StepFn {
    SimDriver* driver;
    bool operator()(const Tick& tick) const noexcept { return driver->on_tick(tick); }
  };
  [[nodiscard]] StepFn step_fn() noexcept { return StepFn{this}; }

  // kHalt's safe state: no input force acts any more, and subscribers get a last, paused state
  static void safe_state(void* context, const LoopCounters& /*counters*/) noexcept {
    auto* self = static_cast<SimDriver*>(context);
    self->b_->runner->halt_inputs();  // applied force and named force/torque channels
    self->paused_ = true;
    self->publish();
  }

 private:
  void drain_control() noexcept {
    SimControl c;
    while (control_->try_pop(c)) {
      dirty_ = true;
      switch (c.kind) {
        case SimControlKind::kStart:
          paused_ = false;
          steps_left_ = 0;
          break;
        case SimControlKind::kPause:
          paused_ = true;
          steps_left_ = 0;
          break;
        case SimControlKind::kStep:
          paused_ = true;
          steps_left_ += c.count;
          break;
        case SimControlKind::kReset:
          reset();
          break;
        case SimControlKind::kLoad:
          // the old bundle goes back to be freed; were the retire ring full (64 loads the network
          // thread has not collected), keeping the old model running is the safe choice
          if (c.bundle == nullptr) break;
          if (retired_->try_push(b_)) {
            b_ = c.bundle;
            ++epoch_;
            start_model();
          } else {
            (void)retired_->try_push(c.bundle);
          }
          break;
      }
    }
  }

  static constexpr double kNotMeasured = std::numeric_limits<double>::quiet_NaN();

  // the current bundle's starting point: at construction, reset and load
  void start_model() noexcept {
    steps_at_reset_ = b_->runner->counters().steps;
    current_.t = b_->state.t;
    current_.step = steps_at_reset_;
    current_.position_drift = kNotMeasured;  // no step yet
    current_.velocity_drift = kNotMeasured;
    current_.energy = kNotMeasured;
    current_.step_flags = 0;
    current_.last_input_step = -1;
    copy_state();
  }

  void reset() noexcept {
    b_->state = b_->initial;     // same sizes: Eigen copies into the existing storage
    b_->runner->reset_inputs();  // no force from before the reset acts after it
    ++epoch_;
    start_model();
  }

  void copy_state() noexcept {
    const State& st = b_->state;
    const auto nq = std::min<Eigen::Index>(st.q.size(), kSnapshotMaxCoordinates);
    const auto nv = std::min<Eigen::Index>(st.v.size(), kSnapshotMaxCoordinates);
    current_.n_q = static_cast<std::int32_t>(nq);
    current_.n_v = static_cast<std::int32_t>(nv);
    std::fill(current_.q.begin(), current_.q.end(), 0.0);
    std::fill(current_.v.begin(), current_.v.end(), 0.0);
    std::copy_n(st.q.data(), nq, current_.q.begin());
    std::copy_n(st.v.data(), nv, current_.v.begin());
    b_->runner->evaluate_outputs(current_);
  }

  void publish() noexcept {
    ServerSnapshot& s = out_->back();
    s.state = current_;
    s.step = static_cast<std::uint64_t>(current_.step - steps_at_reset_);
    s.echo_step = current_.last_input_step > steps_at_reset_
                      ? current_.last_input_step - steps_at_reset_
                      : -1;
    s.epoch = epoch_;
    s.paused = paused_ ? 1u : 0u;
    const InputChannelBank& bank = *b_->bank;
    s.inputs_stale = bank.stale() ? 1u : 0u;
    s.n_inputs = bank.channel_count();
    for (int i = 0; i < s.n_inputs; ++i) s.inputs[static_cast<std::size_t>(i)] = bank.value(i);
    s.reserved = 0;
    out_->commit();
    dirty_ = false;
    // wake the network thread: a non-blocking eventfd write, never waits (the counter would
    // have to reach 2^64 - 2 first); a failure only means the next poll sends the state
    if (wake_fd_ >= 0) {
      const std::uint64_t one = 1;
      (void)!::write(wake_fd_, &one, sizeof one);
    }
  }

  SimBundle* b_;
  ServerSlot* out_;
  ControlRing* control_;
  RetireRing* retired_;
  int wake_fd_;
  StateSnapshot current_{};
  std::int64_t steps_at_reset_ = 0;
  std::uint64_t epoch_ = 0;
  std::uint64_t steps_left_ = 0;
  bool paused_ = false;
  bool dirty_ = true;
};

using SimLoop = DeadlineLoop<SimDriver::StepFn, MonotonicClock>;

[[nodiscard]] std::int64_t steady_now_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

[[nodiscard]] std::uint64_t sender_key(const udp::endpoint& ep) noexcept {
  const asio::ip::address a = ep.address();
  std::uint64_t key = 0;
  if (a.is_v4()) {
    key = a.to_v4().to_uint();
  } else {
    for (const unsigned char b : a.to_v6().to_bytes()) key = key * 131u + b;
  }
  return (key << 16) | ep.port();
}

void append_key(std::string& out, std::string_view key) {
  out += ',';
  append_json_string(out, key);
  out += ':';
}
void append_uint(std::string& out, std::string_view key, std::uint64_t v) {
  append_key(out, key);
  out += std::to_string(v);
}
void append_int(std::string& out, std::string_view key, std::int64_t v) {
  append_key(out, key);
  out += std::to_string(v);
}
void append_num(std::string& out, std::string_view key, double v) {
  append_key(out, key);
  append_json_number(out, v);
}
void append_str(std::string& out, std::string_view key, std::string_view v) {
  append_key(out, key);
  append_json_string(out, v);
}
void append_bool(std::string& out, std::string_view key, bool v) {
  append_key(out, key);
  out += v ? "true" : "false";
}

// The error reply to command c.
[[nodiscard]] std::string error_for(const Command& c, std::string message) {
  return error_reply({std::move(message), std::string(command_name(c.body)), c.id});
}

[[nodiscard]] std::string ok_head(const Command& c) {
  std::string out = "{\"ok\":true,\"command\":";
  append_json_string(out, command_name(c.body));
  if (c.id) append_uint(out, "id", *c.id);
  return out;
}

[[nodiscard]] std::string join_names(const std::vector<ChannelInfo>& channels, bool units) {
  std::string s;
  for (const ChannelInfo& c : channels) {
    if (!s.empty()) s += ',';
    s += units ? c.unit : c.name;
  }
  return s;
}

// A token bucket: up to `burst` events at once, `rate` per second on average.
struct TokenBucket {
  double tokens = 0.0;
  std::int64_t last_ns = 0;
  bool started = false;

  bool take(double rate, double burst, std::int64_t now_ns) noexcept {
    if (!started) {
      started = true;
      tokens = burst;
    } else {
      tokens = std::min(burst, tokens + static_cast<double>(now_ns - last_ns) * 1e-9 * rate);
    }
    last_ns = now_ns;
    if (tokens < 1.0) return false;
    tokens -= 1.0;
    return true;
  }
};

}  // namespace

// ---- network side --------------------------------------------------------------------------

class Session;

struct Subscriber {
  std::uint64_t session_id = 0;
  udp::endpoint endpoint;
  std::uint32_t decimation = 1;
  std::uint64_t sequence = 0;        // of the last datagram sent
  std::uint64_t last_sent_step = 0;  // step of the last datagram sent
  std::uint64_t epoch = 0;           // reset epoch of the last datagram sent
  std::uint32_t last_paused = 0;
  bool sent_any = false;
};

struct Server::Impl {
  explicit Impl(const ServerConfig& c);
  ~Impl();
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  // network thread
  void do_accept();
  void do_receive();
  void on_datagram(std::size_t bytes);
  void arm_poll();
  void poll();
  void arm_wake();
  void take_snapshot();
  [[nodiscard]] bool known_sender(const asio::ip::address& address) const noexcept;
  [[nodiscard]] std::string set_reply(const Command& c, const SetCommand& set);
  [[nodiscard]] std::string load_reply(const Command& c, const LoadCommand& load);
  [[nodiscard]] std::string schema_fields() const;
  [[nodiscard]] std::unique_ptr<SimBundle> make_bundle(const ModelFile& file,
                                                       double rate_hz,
                                                       std::int64_t period_ns) const;
  void collect_retired();
  void start_recording(SimBundle& bundle);
  void arm_status();
  void forward(const ServerSnapshot& snap);
  void send_state(Subscriber& sub, const ServerSnapshot& snap);
  void shutdown_network();
  void publish_stats();
  [[nodiscard]] std::string handle_line(Session& session, std::string_view line);
  [[nodiscard]] std::string handle(Session& session, const Command& c);
  [[nodiscard]] std::string push_control(const Command& c, SimControl request);
  [[nodiscard]] std::string stats_reply(const Command& c);
  void session_closed(Session& session);

  ServerConfig config;
  ServerSchema schema;  // of the current model (network thread)
  ServerSchema initial_schema;
  std::unique_ptr<InputRing> inputs = std::make_unique<InputRing>();
  // every bundle alive (the running one, one queued by load, retired ones not yet collected);
  // owned and freed by the network thread only
  std::vector<std::unique_ptr<SimBundle>> bundles;
  std::unique_ptr<RetireRing> retired = std::make_unique<RetireRing>();
  std::filesystem::path load_root;  // load accepts model files under this directory
  std::unique_ptr<ServerSlot> published = std::make_unique<ServerSlot>();
  std::unique_ptr<ControlRing> control = std::make_unique<ControlRing>();
  std::unique_ptr<LatestValue<LoopTelemetry>> telemetry =
      std::make_unique<LatestValue<LoopTelemetry>>();

  std::unique_ptr<SimDriver> driver;
  // --record: the recorder's RT side is hooked into the first bundle's runner; the writer thread
  // drains it into the file (rtmb/runtime/record.hpp)
  std::unique_ptr<Recorder> recorder;
  std::unique_ptr<RecordWriter> record_writer;
  bool record_ok = true;
  MonotonicClock clock;
  std::unique_ptr<SimLoop> loop;
  Server::SimThreadHook sim_hook = nullptr;
  void* sim_hook_context = nullptr;

  asio::io_context io;
  udp::socket udp_socket{io};
  tcp::acceptor acceptor{io};
  asio::steady_timer poll_timer{io};
  asio::steady_timer status_timer{io};
  std::chrono::nanoseconds poll_period{500'000};
  int wake_fd = -1;                         // eventfd written by the simulation thread
  asio::posix::stream_descriptor wake{io};  // wake_fd on the network thread
  std::uint64_t wake_count = 0;             // read buffer of wake

  std::thread sim_thread;
  std::thread net_thread;
  bool started = false;
  std::atomic<bool> stop{false};
  std::atomic<bool> sim_running{false};

  // network-thread state
  std::array<std::byte, kMaxDatagramBytes + 1> rx_buffer{};
  std::array<std::byte, kMaxDatagramBytes> tx_buffer{};
  udp::endpoint rx_from;
  InputSequencer sequencer;
  std::vector<std::shared_ptr<Session>> sessions;
  std::vector<Subscriber> subscribers;
  std::uint64_t next_session_id = 1;
  ServerStats net_stats;
  ServerSnapshot latest{};
  bool have_latest = false;
  bool network_down = false;
  RtSetupReport rt_report;  // written by the simulation thread before rt_ready
  std::atomic<bool> rt_ready{false};
  bool rt_logged = false;
  std::uint16_t bound_tcp_port = 0;
  std::uint16_t bound_udp_port = 0;
  std::uint64_t last_logged_step = 0;
  double input_rate_hz = 0.0;  // resolved max_input_rate_hz
  LogHistogram input_wait;     // input arrival -> release of the tick that applied it
  LogHistogram turnaround;     // tick release -> its state sent to the subscribers
  // input rate limit per client address (only addresses of connected, hello'd clients)
  std::vector<std::pair<asio::ip::address, TokenBucket>> input_buckets;

  mutable std::mutex stats_mutex;
  ServerStats shared_stats;  // guarded by stats_mutex
};

// One TCP control connection: reads lines, answers each with one line. At most one async_write
// is outstanding; replies wait in a bounded queue, and a client that lets it fill is dropped.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(Server::Impl& server, tcp::socket socket, std::uint64_t id)
      : server_(&server), socket_(std::move(socket)), id_(id) {
    boost::system::error_code ec;
    peer_ = socket_.remote_endpoint(ec);
  }

  void start() { do_read(); }

  void send_line(std::string line) {
    if (closed_) return;
    if (queue_.size() >= server_->config.max_queued_replies) {
      ++server_->net_stats.tcp_dropped;
      spdlog::warn("control client {} dropped: {} replies unread (raise max_queued_replies)",
                   peer_.address().to_string(), queue_.size());
      close();
      return;
    }
    line += '\n';
    queue_.push_back(std::move(line));
    if (!writing_) do_write();
  }

  void close() {
    if (closed_) return;
    closed_ = true;
    boost::system::error_code ec;
    socket_.shutdown(tcp::socket::shutdown_both, ec);
    socket_.close(ec);
    server_->session_closed(*this);
  }

  [[nodiscard]] std::uint64_t id() const noexcept { return id_; }
  [[nodiscard]] const tcp::endpoint& peer() const noexcept { return peer_; }
  bool said_hello = false;
  TokenBucket commands;  // rate limit of this connection's command lines

 private:
  void do_read() {
    if (closed_) return;
    socket_.async_read_some(asio::buffer(read_buffer_),
                            [self = shared_from_this()](const boost::system::error_code& ec,
                                                        std::size_t n) { self->on_read(ec, n); });
  }

  void on_read(const boost::system::error_code& ec, std::size_t n) {
    if (closed_) return;
    if (ec) {
      close();
      return;
    }
    std::size_t begin = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (read_buffer_[i] != '\n') continue;
      line_.append(read_buffer_.data() + begin, i - begin);
      begin = i + 1;
      if (line_.size() > kMaxCommandLineBytes) {
        too_long();
        return;
      }
      send_line(server_->handle_line(*this, line_));
      line_.clear();
      if (closed_) return;
    }
    line_.append(read_buffer_.data() + begin, n - begin);
    if (line_.size() > kMaxCommandLineBytes) {
      too_long();
      return;
    }
    do_read();
  }

  // the line is not read any further: answer, then close once the reply is out
  void too_long() {
    ++server_->net_stats.commands;
    ++server_->net_stats.command_errors;
    ++server_->net_stats.tcp_dropped;
    close_after_write_ = true;
    send_line(error_reply(too_long_error(line_.size())));
    line_.clear();
  }

  void do_write() {
    writing_ = true;
    asio::async_write(socket_, asio::buffer(queue_.front()),
                      [self = shared_from_this()](const boost::system::error_code& ec,
                                                  std::size_t /*n*/) { self->on_write(ec); });
  }

  void on_write(const boost::system::error_code& ec) {
    writing_ = false;
    if (closed_) return;
    if (ec) {
      close();
      return;
    }
    queue_.pop_front();
    if (!queue_.empty()) {
      do_write();
    } else if (close_after_write_) {
      close();
    }
  }

  Server::Impl* server_;
  tcp::socket socket_;
  tcp::endpoint peer_;
  std::uint64_t id_;
  std::array<char, 2048> read_buffer_{};
  std::string line_;
  std::deque<std::string> queue_;
  bool writing_ = false;
  bool closed_ = false;
  bool close_after_write_ = false;
};

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
  const std::string name = model_name(file);
  const auto named_outputs = model_output_channels(file);  // planar or spatial
  if (named_outputs.empty() && sys.n_q() + sys.n_v() > static_cast<int>(kMaxStateChannels)) {
    throw std::invalid_argument(
        "model '" + name + "' has " + std::to_string(sys.n_q() + sys.n_v()) +
        " state channels; the state stream carries at most " + std::to_string(kMaxStateChannels));
  }
  // named channels (System::n_inputs() > 0), else one generalized force per velocity
  const int n_channels = sys.n_inputs() > 0 ? sys.n_inputs() : sys.n_v();
  if (file.inputs.size() != static_cast<std::size_t>(n_channels) ||
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
  for (int i = 0; named_outputs.empty() && i < sys.n_q(); ++i) {
    schema_out.outputs.push_back(
        {"q" + std::to_string(i),
         units_given ? file.output_units[static_cast<std::size_t>(i)] : "m|rad"});
  }
  for (int i = 0; named_outputs.empty() && i < sys.n_v(); ++i) {
    schema_out.outputs.push_back(
        {"v" + std::to_string(i),
         units_given ? file.output_units[static_cast<std::size_t>(sys.n_q() + i)] : "m/s|rad/s"});
  }
  for (const InputChannelSpec& in : file.inputs) schema_out.inputs.push_back({in.name, in.unit});

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
  for (const InputChannelSpec& in : file.inputs) channel_configs.push_back(in.config);
  InputBankConfig bank_config = file.input_bank;
  bank_config.period_ns = b->runner->period_ns();
  b->bank = std::make_unique<InputChannelBank>(channel_configs, bank_config);
  b->runner->set_input_bank(b->bank.get());
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
  recorder = std::make_unique<Recorder>(h.n_inputs);
  record_writer = std::make_unique<RecordWriter>(config.record_path, h, *recorder);
  bundle.runner->set_recorder(recorder.get());
}

Server::Impl::Impl(const ServerConfig& c) : config(c) {
  if (c.rate_hz < 0.0 || !std::isfinite(c.rate_hz)) {
    throw std::invalid_argument("rate must be a finite number >= 0 [Hz]");
  }
  if (c.max_clients < 1 || c.max_subscribers < 1 || c.max_queued_replies < 1) {
    throw std::invalid_argument("max_clients, max_subscribers and max_queued_replies must be >= 1");
  }
  const ModelFile file = c.model_file ? *c.model_file : builtin_model_file(c.model);
  {
    std::error_code fs_error;
    const std::filesystem::path served(file.path);
    load_root = c.model_file ? std::filesystem::weakly_canonical(served, fs_error).parent_path()
                             : std::filesystem::current_path(fs_error);
  }
  bundles.push_back(make_bundle(file, c.rate_hz > 0.0 ? c.rate_hz : file.rate_hz, 0));
  SimBundle& first = *bundles.front();
  if (!c.record_path.empty()) start_recording(first);
  schema = first.schema;
  initial_schema = first.schema;  // for Server::schema(): never changes, safe from any thread

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
  LoopConfig lc;
  lc.period_ns = first.runner->period_ns();
  lc.policy = c.overrun;
  lc.max_catch_up = c.max_catch_up;
  lc.halt_after_overruns = c.halt_after_overruns;
  lc.safe_state = &SimDriver::safe_state;
  lc.safe_state_context = driver.get();
  lc.telemetry = telemetry.get();
  lc.telemetry_every_ticks = std::max<std::int64_t>(1, 100'000'000 / lc.period_ns);
  loop = std::make_unique<SimLoop>(lc, driver->step_fn(), clock);

  std::int64_t poll_ns = c.poll_period_ns;
  if (poll_ns <= 0) {
    poll_ns = c.wake_network ? 10'000'000
                             : std::clamp<std::int64_t>(lc.period_ns / 2, 100'000, 5'000'000);
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
  try {
    const tcp::endpoint tcp_ep(address, c.tcp_port);
    acceptor.open(tcp_ep.protocol());
    acceptor.set_option(tcp::acceptor::reuse_address(true));
    acceptor.bind(tcp_ep);
    acceptor.listen();
    udp_socket.open(address.is_v4() ? udp::v4() : udp::v6());
    udp_socket.bind(udp::endpoint(address, c.udp_port));
    udp_socket.non_blocking(true);
    bound_tcp_port = acceptor.local_endpoint().port();
    bound_udp_port = udp_socket.local_endpoint().port();
  } catch (const boost::system::system_error& e) {
    throw std::runtime_error("cannot bind " + c.bind_address + " (tcp port " +
                             std::to_string(c.tcp_port) + ", udp port " +
                             std::to_string(c.udp_port) + "): " + e.code().message());
  }
  net_stats.paused = !c.start_running;
  shared_stats = net_stats;
}

Server::Impl::~Impl() = default;  // wake closes wake_fd

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
        auto session = std::make_shared<Session>(*this, std::move(socket), next_session_id++);
        sessions.push_back(session);
        session->start();
      }
    }
    do_accept();
  });
}

void Server::Impl::do_receive() {
  udp_socket.async_receive_from(asio::buffer(rx_buffer), rx_from,
                                [this](const boost::system::error_code& ec, std::size_t n) {
                                  if (ec == asio::error::operation_aborted || network_down) return;
                                  // other errors (e.g. an ICMP "port unreachable" from a gone
                                  // subscriber) concern no datagram: receive the next one
                                  if (!ec) on_datagram(n);
                                  do_receive();
                                });
}

void Server::Impl::on_datagram(std::size_t bytes) {
  InputMessage message;
  const auto n_inputs = static_cast<std::uint16_t>(schema.inputs.size());
  const asio::ip::address from = rx_from.address();
  const bool known = known_sender(from);
  bool within_rate = true;
  if (known) {
    auto it = std::find_if(input_buckets.begin(), input_buckets.end(),
                           [&](const auto& b) { return b.first == from; });
    if (it == input_buckets.end()) it = input_buckets.insert(input_buckets.end(), {from, {}});
    within_rate =
        it->second.take(input_rate_hz, std::max(10.0, 0.1 * input_rate_hz), steady_now_ns());
  }
  const PacketStatus status =
      admit_input(std::span<const std::byte>(rx_buffer.data(), bytes), sender_key(rx_from),
                  n_inputs, sequencer, net_stats.udp_in, message, known, within_rate);
  if (status != PacketStatus::kOk) return;
  const std::int64_t arrival = steady_now_ns();
  for (std::uint16_t i = 0; i < message.sample_count; ++i) {
    QueuedInput q;
    q.arrival_ns = arrival;
    q.channel = message.samples[i].channel;
    q.value = message.samples[i].value;
    q.seq = message.header.sequence;
    q.sender_time_ns = message.header.sender_time_ns;
    if (inputs->try_push(q)) {
      ++net_stats.inputs_queued;
    } else {
      ++net_stats.inputs_dropped;
    }
  }
}

bool Server::Impl::known_sender(const asio::ip::address& address) const noexcept {
  // a handful of sessions at most (max_clients): a scan is cheaper than keeping a set in sync
  return std::any_of(sessions.begin(), sessions.end(), [&](const std::shared_ptr<Session>& s) {
    return s->said_hello && s->peer().address() == address;
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
  forward(latest);
  // where the time of an input -> state round trip goes, on the server's side (CLOCK_MONOTONIC)
  if (new_input && snap.state.last_input_wait_ns >= 0) {
    input_wait.record(snap.state.last_input_wait_ns);
  }
  if (stepped && snap.paused == 0 && snap.state.tick_deadline_ns > 0) {
    turnaround.record(std::max<std::int64_t>(0, steady_now_ns() - snap.state.tick_deadline_ns));
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
    take_snapshot();  // the last one (e.g. the halt's safe state) reaches stats and subscribers
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

void Server::Impl::forward(const ServerSnapshot& snap) {
  const StateSnapshot& s = snap.state;
  bool finite = std::isfinite(s.t);
  for (int i = 0; i < s.n_q; ++i) finite = finite && std::isfinite(s.q[i]);
  for (int i = 0; i < s.n_v; ++i) finite = finite && std::isfinite(s.v[i]);
  for (int i = 0; i < s.n_outputs; ++i) finite = finite && std::isfinite(s.outputs[i]);
  net_stats.state_finite = finite;
  if (!finite) return;  // never happens with the engine's guard; a receiver would reject it
  for (Subscriber& sub : subscribers) {
    const bool restarted = sub.sent_any && snap.epoch != sub.epoch;
    if (!sub.sent_any || restarted || snap.paused != sub.last_paused ||
        snap.step >= sub.last_sent_step + sub.decimation) {
      send_state(sub, snap);
    }
  }
}

void Server::Impl::send_state(Subscriber& sub, const ServerSnapshot& snap) {
  const StateSnapshot& s = snap.state;
  StateMessage m;
  std::uint16_t flags = 0;
  if (snap.echo_step >= 0) flags |= static_cast<std::uint16_t>(WireFlag::kEchoValid);
  if (snap.paused != 0) flags |= static_cast<std::uint16_t>(WireFlag::kPaused);
  if (sub.sent_any && snap.epoch != sub.epoch) {
    flags |= static_cast<std::uint16_t>(WireFlag::kRestarted);
  }
  m.header.flags = flags;
  m.header.sequence = ++sub.sequence;
  m.header.step = snap.step;
  m.header.sim_time_s = s.t;
  m.header.sender_time_ns = steady_now_ns();
  m.step_flags = s.step_flags;
  m.position_drift = s.position_drift;
  m.velocity_drift = s.velocity_drift;
  m.energy = s.energy;
  if (snap.echo_step >= 0) {
    m.echo.sequence = s.last_input_seq;
    m.echo.sender_time_ns = s.last_input_sender_time_ns;
    m.echo.applied_step = static_cast<std::uint64_t>(snap.echo_step);
  }
  std::uint16_t n = 0;
  if (s.n_outputs > 0) {
    for (int i = 0; i < s.n_outputs; ++i) m.channels[n++] = s.outputs[i];
  } else {
    for (int i = 0; i < s.n_q; ++i) m.channels[n++] = s.q[i];
    for (int i = 0; i < s.n_v; ++i) m.channels[n++] = s.v[i];
  }
  m.channel_count = n;
  const std::size_t bytes = encode_state(m, tx_buffer);
  sub.sent_any = true;
  sub.epoch = snap.epoch;
  sub.last_paused = snap.paused;
  sub.last_sent_step = snap.step;
  if (bytes == 0) return;
  boost::system::error_code ec;
  udp_socket.send_to(asio::buffer(tx_buffer.data(), bytes), sub.endpoint, 0, ec);
  if (ec) {
    ++net_stats.send_errors;
  } else {
    ++net_stats.states_sent;
  }
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

void Server::Impl::shutdown_network() {
  if (network_down) return;
  network_down = true;
  boost::system::error_code ec;
  acceptor.close(ec);
  udp_socket.close(ec);
  poll_timer.cancel();
  status_timer.cancel();
  if (wake_fd >= 0) wake.cancel(ec);
  const auto open = sessions;  // close() edits sessions
  for (const auto& s : open) s->close();
  publish_stats();
  io.stop();
}

void Server::Impl::session_closed(Session& session) {
  std::erase_if(subscribers, [&](const Subscriber& sub) { return sub.session_id == session.id(); });
  std::erase_if(sessions, [&](const std::shared_ptr<Session>& s) { return s.get() == &session; });
  std::erase_if(input_buckets, [&](const auto& b) { return !known_sender(b.first); });
}

std::string Server::Impl::handle_line(Session& session, std::string_view line) {
  ++net_stats.commands;
  const double command_rate = config.max_command_rate_hz;
  if (!session.commands.take(command_rate, std::max(10.0, 0.25 * command_rate), steady_now_ns())) {
    ++net_stats.command_errors;
    return error_reply({"rate limit: at most " + std::to_string(std::llround(command_rate)) +
                            " commands per second per connection",
                        std::nullopt, std::nullopt});
  }
  CommandParseResult parsed = parse_command(line);
  if (auto* error = std::get_if<CommandError>(&parsed)) {
    ++net_stats.command_errors;
    return error_reply(*error);
  }
  const Command& command = std::get<Command>(parsed);
  std::string reply = handle(session, command);
  if (reply.starts_with("{\"ok\":false")) ++net_stats.command_errors;
  return reply;
}

std::string Server::Impl::push_control(const Command& c, SimControl request) {
  if (!control->try_push(request)) {
    return error_for(c, "busy: too many control requests in flight, retry");
  }
  return ok_head(c) + "}";
}

std::string Server::Impl::handle(Session& session, const Command& c) {
  const auto error = [&](std::string message) { return error_for(c, std::move(message)); };
  if (const auto* hello = std::get_if<HelloCommand>(&c.body)) {
    if (!config.token.empty() && hello->token.value_or("") != config.token) {
      return error(hello->token ? "wrong token" : "this server requires a \"token\"");
    }
    if (hello->version && *hello->version != kWireVersion) {
      return error("protocol version " + std::to_string(*hello->version) +
                   " is not supported; this server speaks version " + std::to_string(kWireVersion));
    }
    session.said_hello = true;
    // a client that says hello may have restarted its input numbering: forget every sender at
    // its address (keys are address << 16 | port; the UDP port is not known here)
    sequencer.forget_matching(sender_key(udp::endpoint(session.peer().address(), 0)),
                              ~std::uint64_t{0xFFFF});
    return ok_head(c) + schema_fields() + "}";
  }
  if (!session.said_hello) return error("say hello first");
  if (std::holds_alternative<StartCommand>(c.body)) {
    return push_control(c, {SimControlKind::kStart, 0});
  }
  if (std::holds_alternative<PauseCommand>(c.body)) {
    return push_control(c, {SimControlKind::kPause, 0});
  }
  if (const auto* step = std::get_if<StepCommand>(&c.body)) {
    return push_control(c, {SimControlKind::kStep, step->count});
  }
  if (std::holds_alternative<ResetCommand>(c.body)) {
    return push_control(c, {SimControlKind::kReset, 0});
  }
  if (const auto* set = std::get_if<SetCommand>(&c.body)) return set_reply(c, *set);
  if (const auto* load = std::get_if<LoadCommand>(&c.body)) {
    if (recorder) return error_for(c, "load is not available while recording (--record)");
    return load_reply(c, *load);
  }
  if (const auto* sub = std::get_if<SubscribeCommand>(&c.body)) {
    asio::ip::address address = session.peer().address();
    if (sub->address) {
      boost::system::error_code ec;
      const asio::ip::address wanted = asio::ip::make_address(*sub->address, ec);
      if (ec) return error("\"address\" is not an IP address: " + clip_utf8(*sub->address, 64));
      if (wanted != address) {
        return error("\"address\" must be this client's own address (" + address.to_string() + ")");
      }
    }
    const udp::endpoint ep(address, sub->port);
    for (Subscriber& s : subscribers) {
      if (s.endpoint == ep) {
        if (s.session_id != session.id()) return error("endpoint is subscribed by another client");
        s.decimation = sub->decimation;
        return ok_head(c) + "}";
      }
    }
    if (subscribers.size() >= config.max_subscribers) {
      return error("too many subscribers (at most " + std::to_string(config.max_subscribers) + ")");
    }
    Subscriber s;
    s.session_id = session.id();
    s.endpoint = ep;
    s.decimation = sub->decimation;
    subscribers.push_back(s);
    // the newest state at once, so a subscriber of a paused simulation sees where it is
    if (have_latest) send_state(subscribers.back(), latest);
    std::string out = ok_head(c);
    append_str(out, "address", address.to_string());
    append_uint(out, "port", sub->port);
    append_uint(out, "decimation", sub->decimation);
    return out + "}";
  }
  if (const auto* unsub = std::get_if<UnsubscribeCommand>(&c.body)) {
    const std::size_t before = subscribers.size();
    std::erase_if(subscribers, [&](const Subscriber& s) {
      if (s.session_id != session.id()) return false;
      if (unsub->port && s.endpoint.port() != *unsub->port) return false;
      if (unsub->address) {
        boost::system::error_code ec;
        const asio::ip::address a = asio::ip::make_address(*unsub->address, ec);
        if (ec || a != s.endpoint.address()) return false;
      }
      return true;
    });
    std::string out = ok_head(c);
    append_uint(out, "removed", before - subscribers.size());
    return out + "}";
  }
  return stats_reply(c);
}

std::string Server::Impl::schema_fields() const {
  std::string out;
  append_uint(out, "version", kWireVersion);
  append_str(out, "model", schema.model);
  append_num(out, "rate_hz", schema.rate_hz);
  append_num(out, "dt", schema.dt);
  append_int(out, "substeps", schema.substeps);
  append_uint(out, "udp_port", bound_udp_port);
  append_str(out, "outputs", join_names(schema.outputs, false));
  append_str(out, "output_units", join_names(schema.outputs, true));
  append_str(out, "inputs", join_names(schema.inputs, false));
  append_str(out, "input_units", join_names(schema.inputs, true));
  return out;
}

std::string Server::Impl::load_reply(const Command& c, const LoadCommand& load) {
  const auto error = [&](std::string message) { return error_for(c, std::move(message)); };
  // a built-in mechanism by name, or a model file under the directory of the served one (a
  // network client must not make the server read arbitrary files)
  ModelFile file;
  try {
    if (find_mechanism(load.model) != nullptr) {
      file = builtin_model_file(load.model);
    } else {
      std::error_code fs_error;
      const std::filesystem::path wanted =
          std::filesystem::weakly_canonical(load_root / load.model, fs_error);
      const auto [root_end, wanted_it] =
          std::mismatch(load_root.begin(), load_root.end(), wanted.begin(), wanted.end());
      if (fs_error || root_end != load_root.end()) {
        return error("\"" + clip_utf8(load.model, 128) + "\" is neither a built-in mechanism (" +
                     mechanism_names() + ") nor a model file under " + load_root.string());
      }
      file = load_model_file(wanted.string());
    }
    auto bundle = make_bundle(file, 0.0, loop->config().period_ns);
    SimBundle* raw = bundle.get();
    if (!control->try_push(SimControl{SimControlKind::kLoad, 0, raw})) {
      return error("busy: too many control requests in flight, retry");
    }
    bundles.push_back(std::move(bundle));
    schema = raw->schema;
  } catch (const std::exception& e) {
    return error(clip_utf8(e.what(), 1024));
  }
  ++net_stats.loads;
  // inputs numbered for the old model must not be compared with the new model's senders' numbers
  sequencer.clear();
  spdlog::info("loaded '{}' ({}) at {:.1f} Hz", schema.model, file.path, schema.rate_hz);
  return ok_head(c) + schema_fields() + "}";
}

void Server::Impl::collect_retired() {
  SimBundle* old = nullptr;
  while (retired->try_pop(old)) {
    std::erase_if(bundles, [&](const std::unique_ptr<SimBundle>& b) { return b.get() == old; });
  }
}

std::string Server::Impl::set_reply(const Command& c, const SetCommand& set) {
  const auto error = [&](std::string message) { return error_for(c, std::move(message)); };
  // PARAM is an input channel: VALUE becomes a sample of it, exactly as if it had come over UDP
  // (its policy and the watchdog apply, so a force set this way ramps to zero once stale)
  const auto it = std::find_if(schema.inputs.begin(), schema.inputs.end(),
                               [&](const ChannelInfo& ch) { return ch.name == set.param; });
  if (it == schema.inputs.end()) {
    return error("unknown parameter \"" + clip_utf8(set.param, 64) +
                 "\" (settable: the input channels " + join_names(schema.inputs, false) + ")");
  }
  const auto* value = std::get_if<double>(&set.value);
  if (value == nullptr) return error("\"value\" must be a number for input channel " + it->name);
  QueuedInput q;
  q.channel = static_cast<std::uint32_t>(it - schema.inputs.begin());
  q.value = *value;
  q.seq = 0;
  q.sender_time_ns = steady_now_ns();
  q.arrival_ns = q.sender_time_ns;
  if (!inputs->try_push(q)) {
    ++net_stats.inputs_dropped;
    return error("busy: the input queue is full, retry");
  }
  ++net_stats.inputs_queued;
  std::string out = ok_head(c);
  append_str(out, "param", it->name);
  append_num(out, "value", *value);
  return out + "}";
}

std::string Server::Impl::stats_reply(const Command& c) {
  publish_stats();
  const ServerStats& s = net_stats;
  std::string out = ok_head(c);
  append_uint(out, "step", s.step);
  append_num(out, "sim_time", s.sim_time);
  append_bool(out, "paused", s.paused);
  append_uint(out, "udp_received", s.udp_in.received);
  for (std::size_t i = 0; i < kPacketStatusCount; ++i) {
    append_uint(out, "udp_" + std::string(to_string(static_cast<PacketStatus>(i))),
                s.udp_in.by_status[i]);
  }
  append_uint(out, "inputs_queued", s.inputs_queued);
  append_uint(out, "inputs_dropped", s.inputs_dropped);
  append_uint(out, "states_sent", s.states_sent);
  append_uint(out, "send_errors", s.send_errors);
  append_uint(out, "clients", s.clients);
  append_uint(out, "subscribers", s.subscribers);
  append_uint(out, "loads", s.loads);
  append_int(out, "overruns", s.loop.counters.overruns);
  append_int(out, "missed_ticks", s.loop.counters.missed_ticks);
  append_int(out, "compute_p50_ns", s.loop.compute.p50);
  append_int(out, "compute_p99_ns", s.loop.compute.p99);
  append_int(out, "compute_max_ns", s.loop.compute.max);
  append_int(out, "lateness_p99_ns", s.loop.lateness.p99);
  append_int(out, "input_wait_p50_ns", s.input_wait.p50);
  append_int(out, "input_wait_p99_ns", s.input_wait.p99);
  append_int(out, "turnaround_p50_ns", s.turnaround.p50);
  append_int(out, "turnaround_p99_ns", s.turnaround.p99);
  append_bool(out, "inputs_stale", s.inputs_stale);
  for (std::size_t i = 0; i < s.input_values.size() && i < schema.inputs.size(); ++i) {
    append_num(out, "input_" + schema.inputs[i].name, s.input_values[i]);
  }
  return out + "}";
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
    (void)m.loop->run();
    if (m.sim_hook != nullptr) m.sim_hook(m.sim_hook_context, false);
    m.sim_running.store(false, std::memory_order_release);
  });
  m.do_accept();
  m.do_receive();
  m.arm_wake();
  m.arm_poll();
  m.arm_status();
  if (m.record_writer) m.record_writer->start();
  m.net_thread = std::thread([&m] { m.io.run(); });
  spdlog::info("serving '{}' at {:.1f} Hz: control tcp {}:{}, state/input udp {}:{}",
               m.schema.model, m.schema.rate_hz, m.config.bind_address, tcp_port(),
               m.config.bind_address, udp_port());
}

void Server::request_stop() noexcept {
  impl_->stop.store(true, std::memory_order_relaxed);
  impl_->loop->request_stop();
}

void Server::join() {
  Impl& m = *impl_;
  if (m.sim_thread.joinable()) m.sim_thread.join();
  if (m.net_thread.joinable()) m.net_thread.join();
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

const ServerSchema& Server::schema() const noexcept {
  return impl_->initial_schema;
}

ServerStats Server::stats() const {
  const std::lock_guard lock(impl_->stats_mutex);
  return impl_->shared_stats;
}

const LoopHistograms& Server::loop_histograms() const noexcept {
  return impl_->loop->histograms();
}
const LoopCounters& Server::loop_counters() const noexcept {
  return impl_->loop->counters();
}
StopReason Server::stop_reason() const noexcept {
  return impl_->loop->stop_reason();
}

void Server::set_sim_thread_hook(SimThreadHook hook, void* context) noexcept {
  impl_->sim_hook = hook;
  impl_->sim_hook_context = context;
}

}  // namespace rtmb
