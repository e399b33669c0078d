// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The network thread's half of rtmb::Server's UDP streams (net/server_impl.hpp). The simulation
// thread does the socket's I/O itself (issue 14): it receives the inputs (net/input_receiver.hpp)
// and sends the states (net/state_sender.hpp). The network thread hands it who may send inputs
// (the admission table: addresses of clients that said hello, and the rate limit) and who gets
// the states (the subscriber table), each as a whole table through a LatestValue, and reads the
// counters it publishes back.
#include <algorithm>

#include "net/control_session.hpp"
#include "net/server_impl.hpp"

namespace rtmb {

void Server::Impl::publish_admission() {
  // the distinct addresses of the clients that said hello, each with its newest hello number,
  // after every hello and closed session: the simulation thread takes the newest table at its
  // next tick (net/input_receiver.hpp)
  AdmissionTable& table = admission->back();
  table.count = 0;
  table.rate_hz = input_rate_hz;
  table.burst = std::max(10.0, 0.1 * input_rate_hz);
  table.require_authenticated = require_authenticated;
  table.session_count = 0;
  for (const std::shared_ptr<ControlSession>& s : sessions) {
    if (!s->said_hello) continue;
    if (s->wire_version == kWireVersionAuthenticated &&
        table.session_count < table.sessions.size()) {  // max_clients <= kMaxClientSlots
      table.sessions[table.session_count++] = s->wire_session;
    }
    IpAddress a;
    const asio::ip::address peer = s->peer().address();
    if (peer.is_v4()) {
      a.family = AF_INET;
      const auto bytes = peer.to_v4().to_bytes();
      std::copy(bytes.begin(), bytes.end(), a.bytes.begin());
    } else {
      a.family = AF_INET6;
      const auto bytes = peer.to_v6().to_bytes();
      std::copy(bytes.begin(), bytes.end(), a.bytes.begin());
    }
    AdmissionEntry* entry = nullptr;
    for (std::uint32_t i = 0; i < table.count; ++i) {
      if (table.entries[i].address == a) entry = &table.entries[i];
    }
    if (entry == nullptr) {
      if (table.count == table.entries.size()) continue;  // max_clients <= kMaxClientSlots
      entry = &table.entries[table.count++];
      entry->address = a;
      entry->hello = 0;
    }
    entry->hello = std::max(entry->hello, s->hello_number);
  }
  admission->commit();
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
  net_stats.udp_in = c.in.udp_in;
  net_stats.inputs_queued = c.in.inputs_queued;
  net_stats.inputs_dropped = c.in.inputs_dropped + set_dropped;
}

}  // namespace rtmb
