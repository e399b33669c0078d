// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// rtmb::Server's state (include/rtmb/net/server.hpp), shared by the files of the network side:
// server.cpp (setup, the poll loop, the threads), state_stream.cpp (UDP: inputs in, states out),
// control_session.cpp (one TCP connection) and server_commands.cpp (the replies to its commands).
// The simulation thread's side is sim_driver.hpp. The network side runs on Boost.Asio: its
// sockets, timers and the eventfd wake-up are async operations of one io_context.

// clang-format off
// <utility> first: Boost 1.74's asio/awaitable.hpp uses std::exchange without including it
#include <utility>
#include <boost/asio.hpp>
// clang-format on

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "net/control_command.hpp"
#include "net/json_writer.hpp"
#include "net/sim_driver.hpp"
#include "net/token_bucket.hpp"
#include "net/view_state_buffer.hpp"
#include "rtmb/net/server.hpp"
#include "rtmb/runtime/record.hpp"

namespace boost::asio::ssl {
class context;  // net/tls_server_context.hpp
}  // namespace boost::asio::ssl

namespace rtmb {

namespace asio = boost::asio;
using asio::ip::tcp;
using asio::ip::udp;

class ControlSession;

// A subscription as the network thread keeps it; the simulation thread gets a copy of every
// subscription in a SubscriberTable (net/subscriber_table.hpp) and does the sending.
struct Subscriber {
  std::uint64_t session_id = 0;
  std::uint64_t id = 0;  // SubscriberEntry::id: the simulation thread's key of its stream
  udp::endpoint endpoint;
  std::uint32_t decimation = 1;
};

struct Server::Impl {
  explicit Impl(const ServerConfig& c);
  ~Impl();
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  // network thread
  void do_accept();
  void arm_poll();
  void poll();
  void arm_wake();
  void take_snapshot();
  [[nodiscard]] std::string set_reply(const Command& c, const SetCommand& set);
  [[nodiscard]] std::string drag_reply(const Command& c, const DragCommand& drag);
  [[nodiscard]] std::string load_reply(const Command& c,
                                       const LoadCommand& load,
                                       std::uint16_t version);
  [[nodiscard]] std::string hello_reply(ControlSession& session,
                                        const Command& c,
                                        const HelloCommand& hello);
  // the model schema, and `version`: the wire version of the session's inputs
  void schema_fields(JsonObjectWriter& out, std::uint16_t version) const;
  [[nodiscard]] std::unique_ptr<SimBundle> make_bundle(const ModelFile& file,
                                                       double rate_hz,
                                                       std::int64_t period_ns) const;
  void setup_clock_mode(const ModelFile& file, LoopConfig& lc);
  [[nodiscard]] std::int64_t period_ns() const noexcept {
    return loop ? loop->config().period_ns : device_loop->config().period_ns;
  }
  void collect_retired();
  void start_recording(SimBundle& bundle);
  void arm_status();
  void warn_insecure();
  void warn_plaintext_token();
  void publish_subscribers();
  void publish_admission();
  void read_io_counters();
  void shutdown_network();
  void publish_stats();
  [[nodiscard]] std::string handle_line(ControlSession& session, std::string_view line);
  [[nodiscard]] std::string handle(ControlSession& session, const Command& c);
  [[nodiscard]] std::string push_control(const Command& c, SimControl request);
  [[nodiscard]] std::string stats_reply(const Command& c);
  void session_closed(ControlSession& session);

  ServerConfig config;
  ServerSchema schema;  // of the current model (network thread)
  ServerSchema initial_schema;
  std::unique_ptr<InputRing> inputs = std::make_unique<InputRing>();
  // every bundle alive (the running one, one queued by load, retired ones not yet collected);
  // owned and freed by the network thread only
  std::vector<std::unique_ptr<SimBundle>> bundles;
  std::unique_ptr<RetireRing> retired = std::make_unique<RetireRing>();
  std::filesystem::path load_root;  // load accepts model files under this directory; empty: none
  std::unique_ptr<ServerSlot> published = std::make_unique<ServerSlot>();
  std::unique_ptr<ControlRing> control = std::make_unique<ControlRing>();
  std::unique_ptr<LatestValue<LoopTelemetry>> telemetry =
      std::make_unique<LatestValue<LoopTelemetry>>();
  std::unique_ptr<SubscriberSlot> subscriber_table = std::make_unique<SubscriberSlot>();
  std::unique_ptr<IoCounterSlot> io_counters = std::make_unique<IoCounterSlot>();
  std::unique_ptr<AdmissionSlot> admission = std::make_unique<AdmissionSlot>();
  std::unique_ptr<SetInputRing> set_inputs = std::make_unique<SetInputRing>();
  // every coordinate of the running model, simulation thread -> live view (Server::read_view_state)
  std::unique_ptr<ViewStateBuffer> view_state;
  // the UDP socket's two streams, used by the simulation thread only (on udp_fd)
  std::unique_ptr<StateSender> sender;
  std::unique_ptr<InputReceiver> receiver;

  std::unique_ptr<SimDriver> driver;
  // --record: the recorder's RT side is hooked into the first bundle's runner; the writer thread
  // drains it into the file (rtmb/runtime/record.hpp)
  std::unique_ptr<Recorder> recorder;
  std::unique_ptr<RecordWriter> record_writer;
  bool record_ok = true;
  MonotonicClock clock;
  ClockMode clock_mode = ClockMode::kWall;  // resolved at construction
  std::unique_ptr<PhaseLock> phase_lock;    // clock mode phase-lock; null: wall
  std::unique_ptr<SimLoop> loop;            // clock modes wall and phase-lock
  // clock mode device (then loop is null): ticks on the master's inputs, waiting on udp_fd
  SocketInputWaiter device_waiter;
  std::unique_ptr<DeviceSimLoop> device_loop;
  Server::SimThreadHook sim_hook = nullptr;
  void* sim_hook_context = nullptr;

  // --tls-cert/--tls-key: the control channel's TLS context (null: plain TCP; declared before io,
  // so that it outlives the sessions that io's pending handlers keep), and the SHA-256 of its
  // certificate for Server::tls_fingerprint()
  std::unique_ptr<asio::ssl::context> tls_context;
  std::string tls_fingerprint;
  asio::io_context io;
  // the UDP socket: bound with Asio at construction, then released from it (the network thread
  // never waits on it), used by the simulation thread and closed in join() / the destructor
  int udp_fd = -1;
  tcp::acceptor acceptor{io};
  asio::steady_timer poll_timer{io};
  asio::steady_timer status_timer{io};
  asio::steady_timer insecure_timer{io};  // config.insecure on a non-loopback address: the warning
  bool insecure_bind = false;             // serving a non-loopback address without a token
  // version 1 inputs (and hellos) refused: bound beyond loopback, or the config asks for it
  bool require_authenticated = false;
  bool plaintext_token = false;  // a token on a non-loopback address, without TLS: warned once
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
  std::vector<std::shared_ptr<ControlSession>> sessions;
  std::vector<Subscriber> subscribers;
  std::uint64_t next_session_id = 1;
  std::uint64_t next_subscriber_id = 1;  // 0 is no subscriber
  std::uint64_t hellos = 0;              // hellos said so far (ControlSession::hello_number)
  std::uint64_t set_dropped = 0;         // `set` samples refused by a full SetInputRing
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
  LogHistogram turnaround;     // tick release -> its state handed to the socket (sim thread)

  mutable std::mutex stats_mutex;
  ServerStats shared_stats;  // guarded by stats_mutex
};

}  // namespace rtmb
