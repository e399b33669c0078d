// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// The subscribers of the state stream as the simulation thread sees them (issue 14): who gets
// each state datagram, at which decimation. The network thread owns the subscriptions (the
// subscribe / unsubscribe commands, closed sessions); after every change it writes the whole
// table into a LatestValue (rtmb/runtime/latest_value.hpp) and the simulation thread takes the
// newest one at its next tick, so neither thread ever waits for the other. A whole table rather
// than a queue of edits: the simulation thread only needs the current set, and a table read
// twice or skipped is harmless.
//
// Each entry carries a stable id (assigned by the network thread, never reused): the simulation
// thread keys its per-subscriber stream state (sequence number, last step sent, epoch) on it,
// so sequence numbers stay monotonic across table updates (net/state_sender.hpp).

#include <netinet/in.h>
#include <sys/socket.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "rtmb/runtime/latest_value.hpp"

namespace rtmb {

/// Most subscribers the simulation thread's table holds: the bound of
/// ServerConfig::max_subscribers (the server refuses more at construction). A fixed capacity so
/// that the table is a plain value the LatestValue copies without allocating.
inline constexpr std::size_t kMaxSubscriberSlots = 64;

/// A UDP destination as the sendmmsg(2) call wants it: an IPv4 or IPv6 socket address.
union SocketAddress {
  sockaddr any;
  sockaddr_in v4;
  sockaddr_in6 v6;
};
static_assert(std::is_trivially_copyable_v<SocketAddress>);

/// One subscription: where its state datagrams go and how often.
struct SubscriberEntry {
  std::uint64_t id = 0;           ///< stable for the subscription's life, never reused
  std::uint32_t decimation = 1;   ///< every decimation-th step, >= 1
  std::uint32_t address_len = 0;  ///< valid bytes of address (socklen_t)
  SocketAddress address{};
};
static_assert(std::is_trivially_copyable_v<SubscriberEntry>);

/// The whole set of subscriptions, as the network thread last wrote it.
struct SubscriberTable {
  std::uint32_t count = 0;  ///< valid entries, <= kMaxSubscriberSlots
  std::array<SubscriberEntry, kMaxSubscriberSlots> entries{};
};
static_assert(std::is_trivially_copyable_v<SubscriberTable>);

/// Network thread -> simulation thread.
using SubscriberSlot = LatestValue<SubscriberTable>;

/// Copies a socket address of `length` bytes (from Asio's endpoint data(), or a sockaddr_in)
/// into entry. Returns false, leaving entry untouched, when it does not fit.
inline bool set_address(SubscriberEntry& entry, const void* address, std::size_t length) noexcept {
  if (length == 0 || length > sizeof(SocketAddress)) return false;
  entry.address = SocketAddress{};
  std::memcpy(&entry.address, address, length);
  entry.address_len = static_cast<std::uint32_t>(length);
  return true;
}

}  // namespace rtmb
