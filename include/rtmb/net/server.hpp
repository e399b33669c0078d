// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// The real-time server behind `rtmb serve` (issue 3): a model stepped by a DeadlineLoop on its
// own thread, and one network thread running a Boost.Asio io_context with
//   * a UDP socket: state datagrams out to subscribers, input datagrams in (docs/protocol.md),
//   * a TCP acceptor: the control channel, one JSON object per line (inside TLS with
//     ServerConfig::tls_cert_file/tls_key_file).
//
// Threads. The simulation thread runs DeadlineLoop + SimulationRunner and never takes a lock,
// allocates or logs. It does the UDP socket's I/O itself: at the start of each tick it reads the
// input datagrams with non-blocking recvmmsg (bounded per tick) and validates them, and after
// the tick it encodes the state once and sends it to the subscribers with one non-blocking
// sendmmsg (a full socket buffer drops the datagram and counts it; it never waits). It also
// publishes a fixed-size ServerSnapshot into a LatestValue for the network thread, and drains
// control requests (start, pause, step, reset, load) from an SpscRing. The network thread owns
// everything else (sessions, the subscriptions, which it hands to the simulation thread as a whole
// table in a LatestValue, counters, logging). Stats for other threads are copied under a mutex by
// the network thread, never by the simulation thread. docs/architecture.md ("The server") says who
// touches which socket.
//
// Inputs. The model file (rtmb/models/model_file.hpp) names one input channel per velocity
// coordinate (channel i is the generalized force on coordinate i), or a body model's named channels
// (forces, torques, motors, coupling targets; the stream then carries its named outputs). Datagrams
// are taken only from the address of a control client that said hello (the network thread hands
// the simulation thread these addresses as a table), then validated, rate-limited, sequenced,
// counted and queued for the runner, whose InputChannelBank applies each channel's
// late/lost policy and the staleness watchdog every tick and writes the values into the step's
// applied force (or the System's named inputs). The echo
// is the last input applied from any client: with one client per server (the usual case) it is
// that client's own.
//
// Wake-up. After a tick (and after sending its state) the simulation thread writes to an
// eventfd (a non-blocking write of 8 bytes: no lock, no allocation, never waits), so the network
// thread takes the new snapshot for stats and the live view at once instead of on its next
// poll; a slow poll timer remains for housekeeping. The state's way out does not depend on it.
// It does so at most once a millisecond, unless the state carries a change the network thread
// acts on (control, subscribers, pause): above 1 kHz the stats sample the ticks.

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rtmb/models/model_file.hpp"
#include "rtmb/net/drag_state.hpp"
#include "rtmb/net/wire.hpp"
#include "rtmb/runtime/clock_mode.hpp"
#include "rtmb/runtime/deadline_loop.hpp"
#include "rtmb/runtime/phase_lock.hpp"
#include "rtmb/runtime/rt_setup.hpp"

namespace rtmb {

/// Settings of a Server. Validated by the constructor.
struct ServerConfig {
  std::string model = "pendulum";       ///< built-in mechanism name (used when model_file is empty)
  std::optional<ModelFile> model_file;  ///< a loaded model file; overrides `model`
  double rate_hz = 0.0;  ///< loop rate; 0: the model file's serve.rate_hz, else 1/dt. Below 1/dt:
                         ///< sub-stepping
  std::string bind_address = "127.0.0.1";  ///< IPv4 address of both sockets
  std::uint16_t tcp_port = 0;              ///< control port; 0: chosen by the OS
  std::uint16_t udp_port = 0;              ///< state/input port; 0: chosen by the OS
  std::string token;                       ///< required by hello when non-empty
  /// TLS on the control channel (both or neither): the server's certificate chain and its private
  /// key, PEM files. Empty: plain TCP. The constructor throws std::invalid_argument naming the
  /// file when one cannot be read or used. On a non-loopback address, a token without TLS is
  /// logged once as travelling in plain text.
  std::string tls_cert_file;
  std::string tls_key_file;
  /// `load` reads model files only under this existing directory; empty: under the served model
  /// file's folder, and none at all when a built-in mechanism is served (built-in names are
  /// always accepted). Paths outside get the same "not permitted" reply, existing or not.
  std::string models_dir;
  /// A bind_address that is not loopback (127.0.0.0/8, ::1) needs a token, else the constructor
  /// refuses it: anyone on the network could push forces into the rig. insecure allows it
  /// anyway, with a warning logged at start and every insecure_warning_period_ns after.
  bool insecure = false;
  std::int64_t insecure_warning_period_ns = 60'000'000'000;  ///< insecure: the warning's period
  /// Refuse wire version 1 (unauthenticated) inputs and hellos even on loopback. A bind_address
  /// beyond loopback always refuses them (docs/protocol.md, "Wire version 2").
  bool require_authenticated_inputs = false;
  bool start_running = true;    ///< false: start paused (step/start commands)
  bool realtime_setup = false;  ///< best-effort setup_realtime(rt_options) at start
  RtSetupOptions rt_options;    ///< what realtime_setup tries (priority 0: none)
  std::int64_t spin_ns = 0;     ///< wake this early and spin to the deadline [ns]
  OverrunPolicy overrun = OverrunPolicy::kSkip;  ///< what the loop does after an overrun
  int max_catch_up = 4;                          ///< kCatchUp: extra ticks per episode
  int halt_after_overruns = 3;       ///< kHalt: consecutive overruns that stop the server in a safe
                                     ///< state (inputs zeroed, a last paused snapshot published)
  std::size_t max_clients = 8;       ///< TCP connections at once
  std::size_t max_subscribers = 16;  ///< UDP subscriptions over all clients
  std::size_t max_queued_replies = 64;  ///< reply lines waiting per client; beyond: dropped
  double max_input_rate_hz = 0.0;       ///< input datagrams per second per client address (token
                                        ///< bucket, burst 0.1 s); 0: max(4 x loop rate, 1000)
  double max_command_rate_hz = 200.0;   ///< command lines per second per connection (burst 0.25 s,
                                        ///< at least 10); beyond: error reply
  std::int64_t poll_period_ns = 0;      ///< how often the network thread looks for a new
                                        ///< snapshot without a wake-up; 0: 1 ms
  /// Record every input the steps see, every reset and the state hash into this file
  /// (docs/record-format.md; `rtmb replay` re-runs it); empty: no recording. While recording,
  /// `load` is refused (a record holds one model).
  std::string record_path;
  bool wake_network = true;  ///< eventfd wake-up after a tick that carries a change the network
                             ///< thread acts on (a reply, a subscriber, a pause); false: poll
                             ///< only, then poll_period_ns 0 means half the period
  /// What clocks the loop (docs/architecture.md "Clock modes"); empty: the model file's
  /// serve.clock, else wall. kDevice: each admitted input datagram runs a tick (DeviceLoop);
  /// the overrun policy does not apply there.
  std::optional<ClockMode> clock;
  /// phase-lock: the input -> tick wait the loop settles to [µs], in [0, period / 2]; empty: the
  /// model file's serve.input_margin_us, else 30.
  std::optional<std::int64_t> input_margin_us;
};

/// One channel of the model schema.
struct ChannelInfo {
  std::string name;  ///< e.g. "q0"
  std::string unit;  ///< e.g. "m|rad" (the built-in systems do not say which)
};

/// What hello announces.
struct ServerSchema {
  std::string model;                 ///< mechanism name
  std::string source;                ///< model file path, or the mechanism name
  double dt = 0.0;                   ///< engine step [s]
  int substeps = 1;                  ///< engine steps per loop tick
  double rate_hz = 0.0;              ///< loop rate [Hz] = 1 / (substeps * dt)
  std::vector<ChannelInfo> outputs;  ///< q0.., then v0..
  std::vector<ChannelInfo> inputs;   ///< one per velocity coordinate (model file names)
};

/// Counters and telemetry, copied out by the network thread (Server::stats()).
struct ServerStats {
  PacketCounters udp_in;                ///< input datagrams by outcome
  std::uint64_t inputs_queued = 0;      ///< samples pushed to the simulation thread
  std::uint64_t inputs_dropped = 0;     ///< samples refused by a full input ring
  std::uint64_t states_sent = 0;        ///< state datagrams sent (all subscribers)
  std::uint64_t send_errors = 0;        ///< state datagrams the socket refused (other than full)
  std::uint64_t send_dropped_full = 0;  ///< state datagrams dropped, the socket buffer being full
                                        ///< (the simulation thread never waits for it)
  std::uint64_t tcp_accepted = 0;       ///< connections accepted
  std::uint64_t tcp_refused = 0;        ///< connections closed at once (max_clients)
  std::uint64_t tcp_dropped = 0;        ///< clients dropped (slow, line too long)
  std::uint64_t commands = 0;           ///< command lines handled
  std::uint64_t command_errors = 0;     ///< of which answered with an error
  std::size_t clients = 0;              ///< open TCP connections
  std::size_t subscribers = 0;          ///< active subscriptions
  std::uint64_t step = 0;               ///< step of the newest snapshot (since reset)
  double sim_time = 0.0;                ///< its simulation time [s]
  double position_drift = 0.0;          ///< its ||g||inf [m | rad]
  double velocity_drift = 0.0;          ///< its ||G v + g_t||inf [m/s | rad/s]
  double energy = 0.0;                  ///< its T + V [J]; NaN where the model defines none
  std::vector<double> q;                ///< its positions (n_q), for the live view
  bool paused = false;                  ///< the simulation is paused
  bool state_finite = true;             ///< every channel of the newest snapshot is finite
  std::uint64_t loads = 0;              ///< models loaded by `load` since start
  /// The newest `report` of a device client (issue 20 point 5): the input -> state round trip it
  /// measured from the latency echo, p50 and p99 [us] (NaN: none yet), over how many round trips,
  /// and when it came [ns, CLOCK_MONOTONIC]; reports so far.
  double device_rtt_p50_us = std::numeric_limits<double>::quiet_NaN();
  double device_rtt_p99_us = std::numeric_limits<double>::quiet_NaN();
  std::uint64_t device_rtt_samples = 0;
  std::int64_t device_rtt_reported_ns = 0;
  std::uint64_t device_rtt_reports = 0;
  /// The model that runs (the one given at construction, then each `load`'s), for the live
  /// view's geometry; shared, never modified.
  std::shared_ptr<const ModelFile> model_file;
  std::uint64_t insecure_warnings = 0;         ///< ServerConfig::insecure warnings logged so far
  std::uint64_t plaintext_token_warnings = 0;  ///< "token in plain text" warnings (0 or 1)
  std::uint64_t tls_failed = 0;      ///< control connections closed by a failed or timed-out TLS
                                     ///< handshake (e.g. a plain-text client on a TLS port)
  std::uint64_t record_entries = 0;  ///< --record: entries written to the file so far
  std::uint64_t record_dropped = 0;  ///< --record: entries lost (ring full; the record is then
                                     ///< incomplete and replay says so)
  std::vector<double> input_values;  ///< each input channel's value in the newest snapshot
  bool inputs_stale = false;         ///< the whole input stream is stale (watchdog active)
  /// The live view's mouse spring in the newest snapshot (ViewState::drag is the one that goes
  /// with the view's positions).
  DragState drag;
  /// Input arrival -> release D(k) of the tick that applied it, per applied input datagram: the
  /// fixed-rate loop's sampling delay, part of every input -> state round trip [ns].
  HistogramSummary input_wait;
  /// Tick release D(k) -> its state handed to the socket [ns]: wake-up lateness, the step, the
  /// encoding and the send, all on the simulation thread. The engine's own share of a round trip.
  HistogramSummary turnaround;
  std::uint64_t snapshots = 0;  ///< snapshots read by the network thread
  LoopTelemetry loop;           ///< newest loop telemetry (every ~0.1 s)
};

/// The newest positions of the running model for the live view (issue 20 point 6): every
/// coordinate, not the snapshot's first kSnapshotMaxCoordinates (Server::read_view_state).
struct ViewState {
  double t = 0.0;           ///< simulation time [s]
  std::uint64_t step = 0;   ///< engine steps since the last reset or load
  std::uint64_t epoch = 0;  ///< resets and loads so far
  std::size_t n_q = 0;      ///< the model's coordinates
  std::vector<double> q;    ///< min(n_q, Server::view_capacity()) of them
  DragState drag;           ///< the mouse spring as the same tick left it
};

/// The server. Construction builds the model and binds the sockets (throws std::runtime_error
/// or std::invalid_argument with the reason); start() launches the threads; request_stop() and
/// the destructor end them.
class Server {
 public:
  explicit Server(const ServerConfig& config);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// Starts the simulation and network threads. Once.
  void start();
  /// Asks both threads to end. Any thread; async-signal-safe (atomic stores only).
  void request_stop() noexcept;
  /// Waits for both threads to end (after request_stop(), or a halt). Idempotent.
  void join();
  /// True while the simulation thread runs.
  [[nodiscard]] bool running() const noexcept;

  [[nodiscard]] std::uint16_t tcp_port() const noexcept;
  [[nodiscard]] std::uint16_t udp_port() const noexcept;
  /// With TLS: the SHA-256 of the control channel's certificate, upper-case hex pairs joined by
  /// ':' (what a client pins with TlsOptions::fingerprint); empty without TLS.
  [[nodiscard]] const std::string& tls_fingerprint() const noexcept;
  /// The schema of the model served at construction. After a `load` the network thread's
  /// schema changes; clients learn it from the load reply or a new hello.
  [[nodiscard]] const ServerSchema& schema() const noexcept;
  /// A consistent copy of the counters (updated by the network thread). Any thread.
  [[nodiscard]] ServerStats stats() const;
  /// The newest full positions the simulation thread handed over (wait-free, in buffers sized
  /// for the served model at construction; net/view_state_buffer.hpp): true and out filled when
  /// a state newer than the last read came, else false. One reading thread only (the live
  /// view's); allocates only when out.q grows.
  bool read_view_state(ViewState& out) const;
  /// How many coordinates read_view_state carries: the served model's n_q.
  [[nodiscard]] std::size_t view_capacity() const noexcept;
  /// Loop counters and histograms of the finished run: only after join().
  [[nodiscard]] const LoopHistograms& loop_histograms() const noexcept;
  [[nodiscard]] const LoopCounters& loop_counters() const noexcept;
  [[nodiscard]] StopReason stop_reason() const noexcept;
  /// The clock mode the loop runs in (ServerConfig::clock, else the model file's, else wall).
  [[nodiscard]] ClockMode clock_mode() const noexcept;
  /// phase-lock: the loop's PhaseLock (its config, and its counters after join()); null in the
  /// other modes.
  [[nodiscard]] const PhaseLock* phase_lock() const noexcept;

  /// --record, after join(): the end record was written (steps, state hash, losses) and the
  /// file closed without a write error. True when not recording.
  [[nodiscard]] bool record_complete() const noexcept;
  /// --record, after join(): steps recorded and their state hash (rtmb replay compares it).
  [[nodiscard]] std::int64_t record_steps() const noexcept;
  [[nodiscard]] std::uint64_t record_hash() const noexcept;
  /// --record, after join(): entries written to the file.
  [[nodiscard]] std::uint64_t record_entries() const noexcept;

  /// For tests: called on the simulation thread right before the loop starts (begin = true) and
  /// right after it returns (begin = false). Set before start().
  using SimThreadHook = void (*)(void* context, bool begin);
  void set_sim_thread_hook(SimThreadHook hook, void* context) noexcept;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace rtmb
