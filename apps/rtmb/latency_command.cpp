// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// `rtmb latency` (apps/rtmb/latency_command.hpp).
//
// Engine round trip. The rtmb::Client says hello and subscribes its UDP socket to the state
// stream (decimation 1); a receiver thread then owns that client and only calls receive_state.
// The main thread is the emulated device: it sends one input datagram per period from a second
// UDP socket of its own (the server takes inputs from any port of an address whose control
// client said hello, docs/protocol.md "Server behaviour"), each with its sequence number and
// steady-clock sender time. For every state whose
// echo names one of these inputs, RTT = receive time - echoed sender time, both on this process's
// steady clock; each input is counted once (its first echo). An input never echoed is lost: it
// was dropped on the way, or a newer input reached the server within the same step (the echo
// names only the last input applied).
//
// Impairment (--impair) emulates the network on the device side: datagrams wait in a local
// queue for delay + uniform(-jitter, +jitter) ms (never less than zero, so jitter can reorder
// them) and are dropped with probability loss, from a fixed RNG seed. The sender time is taken
// when the device creates the datagram, so the emulated delay is part of the RTT.
//
// Floor. After the engine run (server stopped), a plain UDP ping-pong on loopback: an echo
// thread on one socket, a pinger on another, datagrams of the input's size, same rate and count.
#include "apps/rtmb/latency_command.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "apps/rtmb/app_common.hpp"
#include "net/json_writer.hpp"
#include "rtmb/models/mechanisms.hpp"
#include "rtmb/net/client.hpp"
#include "rtmb/net/server.hpp"
#include "rtmb/net/wire.hpp"

namespace rtmb::app {

namespace {

using Clock = std::chrono::steady_clock;

constexpr double kMaxRateHz = 100000.0;
constexpr double kMaxCount = 1e7;                        // inputs per run (memory for the records)
constexpr auto kGrace = std::chrono::milliseconds(300);  // wait for the last echoes
constexpr std::uint32_t kImpairSeed = 12345u;

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

/// Parsed --impair.
struct Impairment {
  double delay_ms = 0.0;   ///< mean extra delay [ms], >= 0
  double jitter_ms = 0.0;  ///< half-width of the uniform jitter [ms], >= 0
  double loss = 0.0;       ///< drop probability [-], in [0, 1]
  [[nodiscard]] bool active() const { return delay_ms > 0.0 || jitter_ms > 0.0 || loss > 0.0; }
};

/// Parses "delay=MS,jitter=MS,loss=P" (any subset, each key once). Throws std::invalid_argument.
Impairment parse_impairment(const std::string& text) {
  Impairment out;
  bool seen[3] = {false, false, false};
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t end = std::min(text.find(',', begin), text.size());
    const std::string item = text.substr(begin, end - begin);
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos) {
      throw std::invalid_argument("expected KEY=VALUE, got '" + item + "'");
    }
    const std::string key = item.substr(0, eq);
    const std::string value = item.substr(eq + 1);
    double v = 0.0;
    std::size_t used = 0;
    try {
      v = std::stod(value, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (value.empty() || used != value.size() || !std::isfinite(v)) {
      throw std::invalid_argument("'" + value + "' is not a number (key " + key + ")");
    }
    int index = -1;
    if (key == "delay") index = 0;
    if (key == "jitter") index = 1;
    if (key == "loss") index = 2;
    if (index < 0) {
      throw std::invalid_argument("unknown key '" + key + "' (valid: delay, jitter, loss)");
    }
    if (seen[index]) throw std::invalid_argument("key '" + key + "' given twice");
    seen[index] = true;
    if (index == 2 && (v < 0.0 || v > 1.0)) {
      throw std::invalid_argument("loss must be a probability in [0, 1]");
    }
    if (index < 2 && (v < 0.0 || v > 10000.0)) {
      throw std::invalid_argument(key + " must be from 0 to 10000 ms");
    }
    (index == 0 ? out.delay_ms : index == 1 ? out.jitter_ms : out.loss) = v;
    begin = end + 1;
  }
  return out;
}

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

/// A UDP socket on 127.0.0.1 or connected to an address. Closed by the destructor.
class UdpSocket {
 public:
  UdpSocket() : fd_(::socket(AF_INET, SOCK_DGRAM, 0)) {
    if (fd_ < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  }
  ~UdpSocket() { ::close(fd_); }
  UdpSocket(const UdpSocket&) = delete;
  UdpSocket& operator=(const UdpSocket&) = delete;

  /// Binds to 127.0.0.1 on a port chosen by the OS; returns it.
  std::uint16_t bind_loopback() {
    sockaddr_in a = address("127.0.0.1", 0);
    if (::bind(fd_, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) fail("bind");
    socklen_t len = sizeof a;
    (void)::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    return ntohs(a.sin_port);
  }
  void connect_to(const std::string& host, std::uint16_t port) {
    const sockaddr_in a = address(host, port);
    if (::connect(fd_, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) fail("connect");
  }
  /// Waits up to timeout_ms for a datagram; returns its size, or -1 on timeout.
  long receive(std::byte* data, std::size_t size, int timeout_ms, sockaddr_in* out_from) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, timeout_ms) <= 0) return -1;
    socklen_t len = sizeof(sockaddr_in);
    return ::recvfrom(fd_, data, size, MSG_DONTWAIT, reinterpret_cast<sockaddr*>(out_from),
                      out_from != nullptr ? &len : nullptr);
  }
  void send(const std::byte* data, std::size_t size) { (void)::send(fd_, data, size, 0); }
  void send_to(const std::byte* data, std::size_t size, const sockaddr_in& to) {
    (void)::sendto(fd_, data, size, 0, reinterpret_cast<const sockaddr*>(&to), sizeof to);
  }

 private:
  static sockaddr_in address(const std::string& host, std::uint16_t port) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    if (::inet_pton(AF_INET, host.c_str(), &a.sin_addr) != 1) {
      throw std::invalid_argument("not an IPv4 address: '" + host + "'");
    }
    return a;
  }
  [[noreturn]] static void fail(const char* what) {
    throw std::runtime_error(std::string(what) + ": " + std::strerror(errno));
  }
  int fd_;
};

using RttSummary = Percentiles;  // round trips [us]

/// One state whose echo was valid, as the receiver thread saw it.
struct EchoRecord {
  std::uint64_t sequence = 0;
  std::int64_t sender_time_ns = 0;
  std::int64_t received_ns = 0;
};

/// What the engine run measured.
struct EngineResult {
  std::uint64_t sent = 0;        ///< inputs the device created (dropped by --impair included)
  std::uint64_t echoed = 0;      ///< inputs named by at least one echo
  std::uint64_t reordered = 0;   ///< state datagrams rejected as out of order or duplicate
  std::uint64_t state_gaps = 0;  ///< state sequence numbers skipped (lost state datagrams)
  std::uint64_t states = 0;      ///< state datagrams accepted
  RttSummary rtt;
};

/// A datagram waiting in the impairment queue.
struct Held {
  std::array<std::byte, kMaxDatagramBytes> bytes{};
  std::size_t size = 0;
};

/// The device: sends inputs at the rate, through the impairment, while a thread reads states.
EngineResult run_engine(Client& client,
                        const std::string& host,
                        std::uint16_t channel,
                        const LatencyOptions& o,
                        const Impairment& imp) {
  const auto count = static_cast<std::uint64_t>(std::llround(o.rate_hz * o.duration_s));
  const auto period =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / o.rate_hz));

  // the device's own input socket, opened before the receiver starts (nothing throws after)
  UdpSocket out;
  out.connect_to(host, client.schema().udp_port);

  // receiver: owns the client from here on; records every valid echo
  std::atomic<bool> stop{false};
  std::vector<EchoRecord> echoes;
  echoes.reserve(static_cast<std::size_t>(count) + 1024);
  std::uint64_t states = 0, gaps = 0;
  std::atomic<bool> receive_failed{false};
  std::vector<std::int64_t> sent_at(static_cast<std::size_t>(count) + 1, 0);
  std::thread receiver([&] {
    StateMessage m;
    std::optional<std::uint64_t> last_sequence;
    try {
      while (!stop.load(std::memory_order_relaxed)) {
        if (!client.receive_state(m, Client::Timeout{20})) continue;
        const std::int64_t t = now_ns();
        ++states;
        if (last_sequence && m.header.sequence > *last_sequence + 1) {
          gaps += m.header.sequence - *last_sequence - 1;
        }
        last_sequence = m.header.sequence;
        if (has_flag(m.header.flags, WireFlag::kEchoValid)) {
          echoes.push_back({m.echo.sequence, m.echo.sender_time_ns, t});
        }
      }
    } catch (const std::exception&) {
      receive_failed.store(true);
    }
  });

  // device: one input per period; impaired datagrams wait in `held` until their release time
  std::multimap<Clock::time_point, Held> held;
  std::mt19937_64 rng(kImpairSeed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  const auto t0 = Clock::now() + std::chrono::milliseconds(10);
  std::uint64_t next = 0;
  while (next < count || !held.empty()) {
    auto wake = next < count ? t0 + period * static_cast<long>(next) : Clock::time_point::max();
    if (!held.empty()) wake = std::min(wake, held.begin()->first);
    std::this_thread::sleep_until(wake);
    const auto now = Clock::now();
    if (next < count && now >= t0 + period * static_cast<long>(next)) {
      InputMessage m;
      m.header.sequence = ++next;
      m.header.sender_time_ns = now_ns();
      m.sample_count = 1;
      m.samples[0] = InputSample{channel, 0.0};
      sent_at[static_cast<std::size_t>(next)] = m.header.sender_time_ns;
      Held h;
      h.size = encode_input(m, h.bytes);
      if (!imp.active()) {
        out.send(h.bytes.data(), h.size);
      } else if (uniform(rng) >= imp.loss) {
        const double delay_ms =
            std::max(0.0, imp.delay_ms + imp.jitter_ms * (2.0 * uniform(rng) - 1.0));
        const auto release = now + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double, std::milli>(delay_ms));
        held.emplace(release, h);
      }
    }
    while (!held.empty() && held.begin()->first <= Clock::now()) {
      out.send(held.begin()->second.bytes.data(), held.begin()->second.size);
      held.erase(held.begin());
    }
  }
  std::this_thread::sleep_for(kGrace);
  stop.store(true);
  receiver.join();
  if (receive_failed.load()) throw std::runtime_error("the state stream failed (receive error)");

  // first echo of each input sent by this run
  EngineResult r;
  r.sent = count;
  r.states = states;
  r.state_gaps = gaps;
  r.reordered = client.state_counters().count(PacketStatus::kOutOfOrder) +
                client.state_counters().count(PacketStatus::kDuplicate);
  std::vector<bool> seen(sent_at.size(), false);
  std::vector<double> rtt_us;
  rtt_us.reserve(echoes.size());
  for (const EchoRecord& e : echoes) {
    if (e.sequence == 0 || e.sequence > count) continue;
    const auto i = static_cast<std::size_t>(e.sequence);
    if (seen[i] || sent_at[i] != e.sender_time_ns) continue;
    seen[i] = true;
    rtt_us.push_back(static_cast<double>(e.received_ns - e.sender_time_ns) * 1e-3);
  }
  r.echoed = rtt_us.size();
  r.rtt = percentiles(std::move(rtt_us));
  return r;
}

/// The raw floor: UDP ping-pong on loopback with datagrams of `size` bytes.
RttSummary run_floor(double rate_hz, std::uint64_t count, std::size_t size) {
  UdpSocket echo_socket;
  const std::uint16_t port = echo_socket.bind_loopback();
  UdpSocket ping;
  ping.connect_to("127.0.0.1", port);
  std::atomic<bool> stop{false};
  std::thread echo([&] {
    std::array<std::byte, kMaxDatagramBytes> buf{};
    while (!stop.load(std::memory_order_relaxed)) {
      sockaddr_in from{};
      const long n = echo_socket.receive(buf.data(), buf.size(), 20, &from);
      if (n > 0) echo_socket.send_to(buf.data(), static_cast<std::size_t>(n), from);
    }
  });

  const auto period =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / rate_hz));
  std::vector<double> rtt_us;
  rtt_us.reserve(static_cast<std::size_t>(count));
  std::array<std::byte, kMaxDatagramBytes> buf{};
  std::array<std::byte, kMaxDatagramBytes> reply{};
  const auto t0 = Clock::now();
  for (std::uint64_t i = 1; i <= count; ++i) {
    std::this_thread::sleep_until(t0 + period * static_cast<long>(i));
    const std::int64_t sent = now_ns();
    std::memcpy(buf.data(), &i, sizeof i);
    ping.send(buf.data(), size);
    // wait for this ping's reply (older replies are skipped), at most 100 ms
    for (;;) {
      const long n = ping.receive(reply.data(), reply.size(), 100, nullptr);
      if (n < 0) break;
      std::uint64_t got = 0;
      if (static_cast<std::size_t>(n) >= sizeof got) std::memcpy(&got, reply.data(), sizeof got);
      if (got == i) {
        rtt_us.push_back(static_cast<double>(now_ns() - sent) * 1e-3);
        break;
      }
    }
  }
  stop.store(true);
  echo.join();
  return percentiles(std::move(rtt_us));
}

void print_rtt(const char* name, const RttSummary& s, bool with_p90) {
  std::printf("  %-22s p50 %8.1f", name, s.p50);
  if (with_p90) std::printf("  p90 %8.1f", s.p90);
  std::printf("  p99 %8.1f  max %8.1f us  (%zu samples)\n", s.p99, s.max, s.count);
}

}  // namespace

void add_latency_command(CLI::App& app, LatencyOptions& o, int* exit_code) {
  CLI::App* cmd = app.add_subcommand(
      "latency",
      "Emulate a device: send inputs at a rate, read the state stream, report input->state "
      "round-trip percentiles, loss and reordering, next to the raw UDP loopback floor.");
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
  cmd->callback([&o, exit_code] { *exit_code = latency(o); });
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
    engine = run_engine(client, host, channel, o, imp);
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
