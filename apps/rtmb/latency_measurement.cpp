// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// run_engine and run_floor (apps/rtmb/latency_measurement.hpp).
//
// Engine round trip. The rtmb::Client says hello and subscribes its UDP socket to the state
// stream (decimation 1). The emulated device sends one input datagram per period from a second
// UDP socket of its own (the server takes inputs from any port of an address whose control
// client said hello, docs/protocol.md "Server behaviour"), each with its sequence number and
// steady-clock sender time, signed with the client's wire version 2 session key. For every state
// whose echo names one of these inputs, RTT = receive time - echoed sender time, both on this
// process's steady clock; each input is counted once (its first echo). An input never echoed is
// lost: it was dropped on the way, or a newer input reached the server within the same step (the
// echo names only the last input applied).
//
// Without --impair the device is one thread, like a device's control loop (libfranka's: send the
// command, then block for the state) and like the floor's pinger below: after each input it reads
// the state stream until a state echoes it or the next input is due, and between inputs it reads
// whatever states come. So the engine's round trip and the floor are measured with the same
// thread pattern: one thread that sends and then waits for the answer. (A device that reads the
// stream in a second thread pays one more wake-up of an idle thread per round trip; on this VM
// that is tens of microseconds, issue 14.)
//
// Once a second the device also sends the server a `report` of that second's round trips
// (apps/rtmb/round_trip_report.hpp), which the live view charts.
//
// Impairment (--impair) emulates the network on the device side, with the state stream read by a
// receiver thread that owns the client while the main thread sends: datagrams wait in a local
// queue for delay + uniform(-jitter, +jitter) ms (never less than zero, so jitter can reorder
// them) and are dropped with probability loss, from a fixed RNG seed. The sender time is taken
// when the device creates the datagram, so the emulated delay is part of the RTT; each input's
// own delay is kept and subtracted for the engine's share (engine_rtt), which the floor compares
// with. The loss is applied once, device -> server: an input is dropped with probability loss,
// so the expected fraction of inputs that never reach the server is loss itself.
//
// Busy polling (--device-poll). The device, and the floor's pinger, then wait for a state and for
// the next input's time by polling in a loop, never sleeping: a device's servo loop on a core of
// its own. On this VM a datagram to a thread asleep on the other vCPU costs its sender about
// 36 us inside the send system call (the wake-up of the halted vCPU), 4 us when the receiver
// polls; so with a sleeping device the server's "state sent" time counts the device's wake-up
// (issue 14). The floor's echo thread polls when the server spins (--spin-us), as the server's
// simulation thread then does, so that both round trips keep the same waits.
//
// Floor. After the engine run (server stopped), a plain UDP ping-pong on loopback: an echo
// thread on one socket, a pinger on another, datagrams of the input's size, same rate and count.
// With --server-cpu the echo thread runs on the server's CPU, and the pinger is the device's
// thread (--device-cpu), so that the floor crosses between the same two CPUs as the engine's
// round trip: on this 2-vCPU VM a wake-up across CPUs and one on the same CPU differ by
// several microseconds, which is the size of the floor itself (issue 14).
#include "apps/rtmb/latency_measurement.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <exception>
#include <map>
#include <optional>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "apps/rtmb/round_trip_report.hpp"
#include "rtmb/net/udp_socket.hpp"
#include "rtmb/net/wire.hpp"
#include "rtmb/runtime/rt_setup.hpp"

namespace rtmb::app {

namespace {

using Clock = std::chrono::steady_clock;

constexpr auto kGrace = std::chrono::milliseconds(300);  // wait for the last echoes
constexpr std::uint32_t kImpairSeed = 12345u;

// Sleeps until t, or with poll spins until t (the CPU stays awake; see "Busy polling").
void wait_until(Clock::time_point t, bool poll) {
  if (!poll) {
    std::this_thread::sleep_until(t);
    return;
  }
  while (Clock::now() < t) {
  }
}

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

/// One state whose echo was valid, as the receiver thread saw it.
struct EchoRecord {
  std::uint64_t sequence = 0;
  std::int64_t sender_time_ns = 0;
  std::int64_t received_ns = 0;
};

/// A datagram waiting in the impairment queue.
struct Held {
  std::array<std::byte, kMaxDatagramBytes> bytes{};
  std::size_t size = 0;
};

/// What the device saw of the state stream: every valid echo, the state count and gaps, and the
/// round trips of the current second for the server's `report` (the live view's round-trip
/// chart, issue 20; a lost report costs one point of the chart).
class StateLog {
 public:
  StateLog(std::uint64_t count, double rate_hz) {
    echoes.reserve(static_cast<std::size_t>(count) + 1024);
    window_.reserve(static_cast<std::size_t>(rate_hz) + 16);
  }

  /// One accepted state, received at t [ns].
  void take(const StateMessage& m, std::int64_t t) {
    ++states;
    if (last_sequence_ && m.header.sequence > *last_sequence_ + 1) {
      gaps += m.header.sequence - *last_sequence_ - 1;
    }
    last_sequence_ = m.header.sequence;
    if (!has_flag(m.header.flags, WireFlag::kEchoValid)) return;
    echoes.push_back({m.echo.sequence, m.echo.sender_time_ns, t});
    // each input's first echo, as in the result
    if (m.echo.sequence > last_windowed_ && window_.size() < window_.capacity()) {
      last_windowed_ = m.echo.sequence;
      window_.push_back(static_cast<double>(t - m.echo.sender_time_ns) * 1e-3);
    }
  }

  /// Once a second: the second's round trips to the server as a `report`.
  void report_if_due(Client& client) {
    if (Clock::now() < next_report_) return;
    next_report_ += std::chrono::seconds(1);
    if (window_.empty()) return;
    try {
      (void)client.request(round_trip_report_line(window_));
    } catch (const ClientError&) {
    }
    window_.clear();
  }

  std::vector<EchoRecord> echoes;
  std::uint64_t states = 0;
  std::uint64_t gaps = 0;

 private:
  std::optional<std::uint64_t> last_sequence_;
  std::vector<double> window_;
  std::uint64_t last_windowed_ = 0;
  Clock::time_point next_report_ = Clock::now() + std::chrono::seconds(1);
};

// The impaired device (--impair): a receiver thread owns the client and logs the state stream,
// while this thread sends one input per period through the emulated network; impaired datagrams
// wait in `held` until their release time.
template <class MakeInput>
void run_impaired(Client& client,
                  UdpSocket& out,
                  const Impairment& imp,
                  Clock::time_point t0,
                  Clock::duration period,
                  std::uint64_t count,
                  StateLog& log,
                  std::vector<std::int64_t>& delay_ns,
                  std::uint64_t& impair_dropped,
                  MakeInput&& make_input) {
  std::atomic<bool> stop{false};
  std::atomic<bool> receive_failed{false};
  std::thread receiver([&] {
    StateMessage m;
    try {
      while (!stop.load(std::memory_order_relaxed)) {
        log.report_if_due(client);
        if (client.receive_state(m, Client::Timeout{20})) log.take(m, now_ns());
      }
    } catch (const std::exception&) {
      receive_failed.store(true);
    }
  });
  std::multimap<Clock::time_point, Held> held;
  std::mt19937_64 rng(kImpairSeed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::uint64_t next = 0;
  while (next < count || !held.empty()) {
    auto wake = next < count ? t0 + period * static_cast<long>(next) : Clock::time_point::max();
    if (!held.empty()) wake = std::min(wake, held.begin()->first);
    std::this_thread::sleep_until(wake);
    const auto now = Clock::now();
    if (next < count && now >= t0 + period * static_cast<long>(next)) {
      Held h;
      make_input(++next, h);
      if (uniform(rng) >= imp.loss) {
        const double delay_ms =
            std::max(0.0, imp.delay_ms + imp.jitter_ms * (2.0 * uniform(rng) - 1.0));
        const auto delay = std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double, std::milli>(delay_ms));
        delay_ns[static_cast<std::size_t>(next)] =
            std::chrono::duration_cast<std::chrono::nanoseconds>(delay).count();
        held.emplace(now + delay, h);
      } else {
        ++impair_dropped;
      }
    }
    while (!held.empty() && held.begin()->first <= Clock::now()) {
      const Held& h = held.begin()->second;
      (void)out.send(std::span<const std::byte>(h.bytes.data(), h.size));
      held.erase(held.begin());
    }
  }
  std::this_thread::sleep_for(kGrace);
  stop.store(true);
  receiver.join();
  if (receive_failed.load()) throw std::runtime_error("the state stream failed (receive error)");
}

// The result from the first echo of each input sent by this run.
EngineResult summarize(const Client& client,
                       std::uint64_t count,
                       const StateLog& log,
                       const std::vector<std::int64_t>& sent_at,
                       const std::vector<std::int64_t>& delay_ns,
                       std::uint64_t impair_dropped) {
  EngineResult r;
  r.sent = count;
  r.states = log.states;
  r.state_gaps = log.gaps;
  r.reordered = client.state_counters().count(PacketStatus::kOutOfOrder) +
                client.state_counters().count(PacketStatus::kDuplicate);
  r.impair_dropped = impair_dropped;
  std::vector<bool> seen(sent_at.size(), false);
  std::vector<double> rtt_us;
  std::vector<double> engine_us;
  rtt_us.reserve(log.echoes.size());
  engine_us.reserve(log.echoes.size());
  for (const EchoRecord& e : log.echoes) {
    if (e.sequence == 0 || e.sequence > count) continue;
    const auto i = static_cast<std::size_t>(e.sequence);
    if (seen[i] || sent_at[i] != e.sender_time_ns) continue;
    seen[i] = true;
    rtt_us.push_back(static_cast<double>(e.received_ns - e.sender_time_ns) * 1e-3);
    engine_us.push_back(static_cast<double>(e.received_ns - e.sender_time_ns - delay_ns[i]) * 1e-3);
  }
  r.echoed = rtt_us.size();
  r.rtt = percentiles(std::move(rtt_us));
  r.engine_rtt = percentiles(std::move(engine_us));
  return r;
}

}  // namespace

EngineResult run_engine(Client& client,
                        const std::string& host,
                        std::uint16_t channel,
                        double rate_hz,
                        double duration_s,
                        const Impairment& imp,
                        bool device_poll) {
  const auto count = static_cast<std::uint64_t>(std::llround(rate_hz * duration_s));
  const auto period =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / rate_hz));

  // the device's own input socket, opened before the receiver starts (nothing throws after)
  UdpSocket out;
  out.connect(host, client.schema().udp_port);
  client.set_busy_poll(device_poll);

  StateLog log(count, rate_hz);
  std::vector<std::int64_t> sent_at(static_cast<std::size_t>(count) + 1, 0);
  std::vector<std::int64_t> delay_ns(static_cast<std::size_t>(count) + 1, 0);  // emulated
  std::uint64_t impair_dropped = 0;
  const auto t0 = Clock::now() + std::chrono::milliseconds(10);
  // input `sequence`, stamped with its sender time, encoded for the wire
  const auto make_input = [&](std::uint64_t sequence, Held& h) {
    InputMessage m;
    m.header.sequence = sequence;
    m.header.sender_time_ns = now_ns();
    m.sample_count = 1;
    m.samples[0] = InputSample{channel, 0.0};
    sent_at[static_cast<std::size_t>(sequence)] = m.header.sender_time_ns;
    h.size = client.encode_input_datagram(m, h.bytes);
  };

  if (!imp.active()) {
    // One thread, as the floor's pinger and a device's control loop (send, then block for the
    // state): each period it sends its input, then reads states until one echoes it or the next
    // input is due (a later echo is still read and counted). The floor is measured with the same
    // thread pattern, so the ratio compares like with like.
    try {
      StateMessage m;
      Held h;
      for (std::uint64_t next = 1; next <= count; ++next) {
        const auto due = t0 + period * static_cast<long>(next - 1);
        while (Clock::now() < due && client.receive_state_until(m, due)) log.take(m, now_ns());
        wait_until(due, device_poll);
        make_input(next, h);
        (void)out.send(std::span<const std::byte>(h.bytes.data(), h.size));
        const auto give_up = due + period;
        while (client.receive_state_until(m, give_up)) {
          log.take(m, now_ns());
          if (has_flag(m.header.flags, WireFlag::kEchoValid) && m.echo.sequence >= next) break;
        }
        log.report_if_due(client);
      }
      const auto end = Clock::now() + kGrace;  // the last echoes
      while (client.receive_state_until(m, end)) log.take(m, now_ns());
    } catch (const ClientError&) {
      throw std::runtime_error("the state stream failed (receive error)");
    }
  } else {
    run_impaired(client, out, imp, t0, period, count, log, delay_ns, impair_dropped, make_input);
  }
  return summarize(client, count, log, sent_at, delay_ns, impair_dropped);
}

RttSummary run_floor(double rate_hz,
                     std::uint64_t count,
                     std::size_t size,
                     int echo_cpu,
                     bool pinger_poll,
                     bool echo_poll) {
  UdpSocket echo_socket;
  const std::uint16_t port = echo_socket.bind_loopback();
  UdpSocket ping;
  ping.connect("127.0.0.1", port);
  std::atomic<bool> stop{false};
  std::atomic<int> pinned{0};  // 0: pending, 1: done (or not asked), -1: refused
  std::thread echo([&] {
    if (echo_cpu >= 0 && !set_cpu_affinity(echo_cpu).ok()) {
      pinned.store(-1);
      return;
    }
    pinned.store(1);
    std::array<std::byte, kMaxDatagramBytes> buf{};
    while (!stop.load(std::memory_order_relaxed)) {
      sockaddr_in from{};
      const auto until = Clock::now() + std::chrono::milliseconds(20);
      if (!(echo_poll ? echo_socket.poll_readable(until) : echo_socket.wait_readable(until))) {
        continue;
      }
      const long n = echo_socket.receive(buf, &from);
      if (n > 0) {
        (void)echo_socket.send_to(
            std::span<const std::byte>(buf.data(), static_cast<std::size_t>(n)), from);
      }
    }
  });

  while (pinned.load() == 0) std::this_thread::yield();
  if (pinned.load() < 0) {
    echo.join();
    throw std::runtime_error("cannot pin the echo thread to CPU " + std::to_string(echo_cpu));
  }
  const auto period =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / rate_hz));
  std::vector<double> rtt_us;
  rtt_us.reserve(static_cast<std::size_t>(count));
  std::array<std::byte, kMaxDatagramBytes> buf{};
  std::array<std::byte, kMaxDatagramBytes> reply{};
  const auto t0 = Clock::now();
  for (std::uint64_t i = 1; i <= count; ++i) {
    wait_until(t0 + period * static_cast<long>(i), pinger_poll);
    const std::int64_t sent = now_ns();
    std::memcpy(buf.data(), &i, sizeof i);
    (void)ping.send(std::span<const std::byte>(buf.data(), size));
    // wait for this ping's reply (older replies are skipped), at most 100 ms
    for (;;) {
      const auto until = Clock::now() + std::chrono::milliseconds(100);
      if (!(pinger_poll ? ping.poll_readable(until) : ping.wait_readable(until))) break;
      const long n = ping.receive(reply);
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

}  // namespace rtmb::app
