// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// InputReceiver (net/input_receiver.hpp): the input stream read on the simulation thread.
#include "net/input_receiver.hpp"

#include <netinet/in.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <span>

#include "net/input_auth.hpp"

namespace rtmb {
namespace {

[[nodiscard]] std::int64_t clock_ns(clockid_t clock) noexcept {
  timespec ts{};
  (void)::clock_gettime(clock, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// CLOCK_MONOTONIC - CLOCK_REALTIME now, and in `now` the monotonic time after it. The realtime
// read is bracketed by two monotonic reads and set at their midpoint, the narrowest bracket of at
// most three tries: a preemption between two reads (milliseconds on this VM under load) would
// otherwise shift every stamp of the batch by its length. clock_gettime is a vDSO call here.
[[nodiscard]] std::int64_t realtime_to_monotonic(std::int64_t& now) noexcept {
  constexpr std::int64_t kTightNs = 2'000;  // a bracket this narrow is good enough
  std::int64_t offset = 0;
  std::int64_t narrowest = std::numeric_limits<std::int64_t>::max();
  for (int attempt = 0; attempt < 3 && narrowest > kTightNs; ++attempt) {
    const std::int64_t before = clock_ns(CLOCK_MONOTONIC);
    const std::int64_t realtime = clock_ns(CLOCK_REALTIME);
    now = clock_ns(CLOCK_MONOTONIC);
    if (now - before < narrowest) {
      narrowest = now - before;
      offset = before + (now - before) / 2 - realtime;
    }
  }
  return offset;
}

// The SO_TIMESTAMPNS control message of a received datagram [ns, CLOCK_REALTIME]; 0: none.
[[nodiscard]] std::int64_t kernel_timestamp_ns(const msghdr& h) noexcept {
  for (cmsghdr* c = CMSG_FIRSTHDR(&h); c != nullptr; c = CMSG_NXTHDR(const_cast<msghdr*>(&h), c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS &&
        c->cmsg_len >= CMSG_LEN(sizeof(timespec))) {
      timespec ts{};
      std::memcpy(&ts, CMSG_DATA(c), sizeof ts);
      return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
    }
  }
  return 0;
}

}  // namespace

IpAddress ip_address(const sockaddr& address) noexcept {
  IpAddress a;
  if (address.sa_family == AF_INET) {
    sockaddr_in v4{};
    std::memcpy(&v4, &address, sizeof v4);
    a.family = AF_INET;
    std::memcpy(a.bytes.data(), &v4.sin_addr, 4);
  } else if (address.sa_family == AF_INET6) {
    sockaddr_in6 v6{};
    std::memcpy(&v6, &address, sizeof v6);
    a.family = AF_INET6;
    std::memcpy(a.bytes.data(), &v6.sin6_addr, 16);
  }
  return a;
}

std::uint64_t address_key(const IpAddress& a) noexcept {
  // an IPv4 address in host order, or a hash of the IPv6 bytes (the key the network thread
  // used before)
  std::uint64_t key = 0;
  if (a.family == AF_INET) {
    for (std::size_t i = 0; i < 4; ++i) key = (key << 8) | a.bytes[i];
  } else if (a.family == AF_INET6) {
    for (const std::uint8_t b : a.bytes) key = key * 131u + b;
  }
  return key;
}

std::uint64_t sender_key(const sockaddr& address) noexcept {
  // the address's key, then the port, so InputSequencer::forget_matching(address_key << 16,
  // ~0xFFFF) finds every port of an address
  std::uint16_t port = 0;
  if (address.sa_family == AF_INET) {
    sockaddr_in v4{};
    std::memcpy(&v4, &address, sizeof v4);
    port = ntohs(v4.sin_port);
  } else if (address.sa_family == AF_INET6) {
    sockaddr_in6 v6{};
    std::memcpy(&v6, &address, sizeof v6);
    port = ntohs(v6.sin6_port);
  }
  return (address_key(ip_address(address)) << 16) | port;
}

InputReceiver::InputReceiver(int fd, AdmissionSlot& table, InputRing& ring) noexcept
    : fd_(fd), slot_(&table), ring_(&ring), batch_receive_(&::recvmmsg) {
  // kernel receive timestamps; where refused, arrival falls back to the batch's read time
  const int on = 1;
  if (fd >= 0) (void)::setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
}

void InputReceiver::update_admission() noexcept {
  AdmissionTable incoming;
  if (!slot_->try_read(incoming)) return;
  incoming.count = std::min<std::uint32_t>(incoming.count, kMaxClientSlots);
  for (std::uint32_t i = 0; i < incoming.count; ++i) {
    const AdmissionEntry& e = incoming.entries[i];
    scratch_[i] = TokenBucket{};
    bool kept = false;
    for (std::uint32_t j = 0; j < table_.count; ++j) {
      if (table_.entries[j].address == e.address) {
        scratch_[i] = buckets_[j];
        kept = table_.entries[j].hello == e.hello;
        break;
      }
    }
    if (!kept) {
      // a new hello from this address: its clients may restart their numbering
      sequencer_.forget_matching(address_key(e.address) << 16, ~std::uint64_t{0xFFFF});
    }
  }
  // version 2 sessions keep their bucket and replay window by id; a new id starts afresh
  incoming.session_count = std::min<std::uint32_t>(incoming.session_count, kMaxClientSlots);
  for (std::uint32_t i = 0; i < incoming.session_count; ++i) {
    session_scratch_[i] = SessionState{};
    bool kept = false;
    for (std::uint32_t j = 0; j < table_.session_count; ++j) {
      if (table_.sessions[j].id == incoming.sessions[i].id) {
        session_scratch_[i] = sessions_[j];
        kept = true;
        break;
      }
    }
    // a new session's key is absorbed once here, not at every datagram it sends
    if (!kept) session_scratch_[i].mac = input_mac_key(incoming.sessions[i].key);
  }
  table_ = incoming;
  buckets_ = scratch_;
  sessions_ = session_scratch_;
}

void InputReceiver::queue(const QueuedInput& q) noexcept {
  if (ring_->try_push(q)) {
    ++counters_.inputs_queued;
  } else {
    ++counters_.inputs_dropped;
  }
}

int InputReceiver::receive(std::uint16_t channel_count) noexcept {
  int total = 0;
  for (int call = 0; call < kReceiveBatchesPerTick; ++call) {
    for (unsigned int i = 0; i < kReceiveBatch; ++i) {
      iov_[i] = iovec{buffers_[i].data(), buffers_[i].size()};
      msghdr& h = messages_[i].msg_hdr;
      h = msghdr{};
      h.msg_name = &from_[i];
      h.msg_namelen = sizeof(SocketAddress);
      h.msg_iov = &iov_[i];
      h.msg_iovlen = 1;
      h.msg_control = control_[i].bytes.data();
      h.msg_controllen = control_[i].bytes.size();
      messages_[i].msg_len = 0;
    }
    const int n = batch_receive_(fd_, messages_.data(), kReceiveBatch, MSG_DONTWAIT, nullptr);
    if (n <= 0) {
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        // e.g. ECONNREFUSED, a stale ICMP error of an earlier send: it concerns no datagram
        ++counters_.receive_errors;
        continue;
      }
      break;
    }
    // one offset per batch maps the kernel's CLOCK_REALTIME stamps to CLOCK_MONOTONIC
    std::int64_t mono = 0;
    const std::int64_t offset = realtime_to_monotonic(mono);
    for (int i = 0; i < n; ++i) {
      const std::int64_t stamp =
          kernel_timestamp_ns(messages_[static_cast<std::size_t>(i)].msg_hdr);
      // a stamp later than now (a clock step between the two reads) is not believed
      const std::int64_t arrival = stamp > 0 ? std::min(mono, stamp + offset) : mono;
      admit(static_cast<std::size_t>(i), arrival, channel_count);
    }
    total += n;
    if (static_cast<unsigned int>(n) < kReceiveBatch) break;  // the socket is empty
  }
  return total;
}

PacketStatus InputReceiver::admit_authenticated(std::span<const std::byte> d,
                                                std::int64_t arrival_ns,
                                                std::uint16_t channel_count) noexcept {
  // nothing past the frame is trusted before the MAC: the session names the key to check with
  std::uint64_t session = 0;
  PacketStatus s = peek_session(d, session);
  if (s != PacketStatus::kOk) return s;
  std::uint32_t k = 0;
  while (k < table_.session_count && table_.sessions[k].id != session) ++k;
  if (k == table_.session_count) return PacketStatus::kUnknownSession;
  if (!input_mac_valid(d, sessions_[k].mac)) return PacketStatus::kBadMac;
  s = decode_input_v2(d, channel_count, message_, session);
  if (s != PacketStatus::kOk) return s;
  SessionState& state = sessions_[k];
  if (!state.bucket.take(table_.rate_hz, table_.burst, arrival_ns)) {
    return PacketStatus::kRateLimited;
  }
  return state.window.admit(message_.header.sequence);
}

void InputReceiver::admit(std::size_t index,
                          std::int64_t arrival_ns,
                          std::uint16_t channel_count) noexcept {
  const std::size_t bytes = std::min<std::size_t>(messages_[index].msg_len, buffers_[index].size());
  const std::span<const std::byte> d(buffers_[index].data(), bytes);
  // the version field picks the path (a datagram too short to hold one goes the version 1 way,
  // which counts it as too_short)
  const bool v2 =
      bytes >= header_offset::kVersion + 2 &&
      std::to_integer<unsigned>(d[header_offset::kVersion]) ==
          (kWireVersionAuthenticated & 0xFFu) &&
      std::to_integer<unsigned>(d[header_offset::kVersion + 1]) == (kWireVersionAuthenticated >> 8);
  if (v2) {
    const PacketStatus s = admit_authenticated(d, arrival_ns, channel_count);
    counters_.udp_in.record(s);
    if (s == PacketStatus::kOk) queue_message(arrival_ns);
    return;
  }
  if (table_.require_authenticated) {
    // a well-formed version 1 input is refused for what it is; garbage keeps its own reason
    PacketStatus s = decode_input(d, channel_count, message_);
    if (s == PacketStatus::kOk) s = PacketStatus::kUnauthenticated;
    counters_.udp_in.record(s);
    return;
  }
  const auto& from = reinterpret_cast<const sockaddr&>(from_[index]);
  const IpAddress address = ip_address(from);
  bool known = false;
  bool within_rate = true;
  for (std::uint32_t j = 0; j < table_.count; ++j) {
    if (table_.entries[j].address == address) {
      known = true;
      within_rate = buckets_[j].take(table_.rate_hz, table_.burst, arrival_ns);
      break;
    }
  }
  const PacketStatus status = admit_input(d, sender_key(from), channel_count, sequencer_,
                                          counters_.udp_in, message_, known, within_rate);
  if (status == PacketStatus::kOk) queue_message(arrival_ns);
}

void InputReceiver::queue_message(std::int64_t arrival_ns) noexcept {
  for (std::uint16_t i = 0; i < message_.sample_count; ++i) {
    QueuedInput q;
    q.arrival_ns = arrival_ns;
    q.channel = message_.samples[i].channel;
    q.value = message_.samples[i].value;
    q.seq = message_.header.sequence;
    q.sender_time_ns = message_.header.sender_time_ns;
    // the device loop runs one tick per datagram (Tick::input_messages): mark where it ends
    if (i + 1 == message_.sample_count) {
      q.flags = static_cast<std::uint32_t>(QueuedInputFlag::kEndOfMessage);
    }
    queue(q);
  }
}

}  // namespace rtmb
