// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The UDP side of rtmb::Server (net/server_impl.hpp): input datagrams in (admitted by the wire
// rules, rate-limited per known client, queued for the simulation thread), and the network
// thread's half of the state stream: the subscriber table it hands to the simulation thread,
// which sends the states itself (net/state_sender.hpp), and the counters it gets back. The
// socket is Boost.Asio's, served by the same io_context as the TCP sessions and timers, so the
// network thread never blocks on any of them.
#include <algorithm>
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

void Server::Impl::publish_subscribers() {
  // the whole table, after every change: the simulation thread takes the newest at its next tick
  SubscriberTable& table = subscriber_table->back();
  table.count = 0;
  for (const Subscriber& sub : subscribers) {
    if (table.count == table.entries.size()) break;  // max_subscribers <= kMaxSubscriberSlots
    SubscriberEntry& e = table.entries[table.count];
    e.id = sub.id;
    e.decimation = std::max<std::uint32_t>(1, sub.decimation);
    if (set_address(e, sub.endpoint.data(), sub.endpoint.size())) ++table.count;
  }
  subscriber_table->commit();
}

void Server::Impl::read_io_counters() {
  SimIoCounters c;
  if (!io_counters->try_read(c)) return;
  net_stats.states_sent = c.out.states_sent;
  net_stats.send_errors = c.out.send_errors;
  net_stats.send_dropped_full = c.out.send_dropped_full;
}

}  // namespace rtmb
