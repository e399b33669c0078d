// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The UDP side of rtmb::Server (net/server_impl.hpp): input datagrams in (admitted by the wire
// rules, rate-limited per known client, queued for the simulation thread) and state datagrams
// out to the subscribers. The socket is Boost.Asio's, served by the same io_context as the TCP
// sessions and timers, so the network thread never blocks on any of them.
#include <algorithm>
#include <cmath>
#include <span>

#include "net/control_session.hpp"
#include "net/server_impl.hpp"

namespace rtmb {

std::uint64_t sender_key(const udp::endpoint& ep) noexcept {
  const asio::ip::address a = ep.address();
  std::uint64_t key = 0;
  if (a.is_v4()) {
    key = a.to_v4().to_uint();
  } else {
    for (const unsigned char b : a.to_v6().to_bytes()) key = key * 131u + b;
  }
  return (key << 16) | ep.port();
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
  return std::any_of(sessions.begin(), sessions.end(),
                     [&](const std::shared_ptr<ControlSession>& s) {
                       return s->said_hello && s->peer().address() == address;
                     });
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

}  // namespace rtmb
