// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// StateSender (net/state_sender.hpp): the state stream sent from the simulation thread.
#include "net/state_sender.hpp"

#include <cerrno>
#include <cmath>
#include <cstring>

namespace rtmb {
namespace {

// Writes the low `bytes` bytes of value little-endian at p (docs/protocol.md: every field is
// little-endian, whatever the host).
void put_le(std::byte* p, std::uint64_t value, std::size_t bytes) noexcept {
  for (std::size_t i = 0; i < bytes; ++i) {
    p[i] = static_cast<std::byte>((value >> (8 * i)) & 0xFFu);
  }
}

[[nodiscard]] bool finite_state(const StateMessage& m) noexcept {
  bool finite = std::isfinite(m.header.sim_time_s);
  for (std::uint16_t i = 0; i < m.channel_count && i < kMaxStateChannels; ++i) {
    finite = finite && std::isfinite(m.channels[i]);
  }
  return finite;
}

}  // namespace

StateSender::StateSender(int fd, SubscriberSlot& table) noexcept
    : fd_(fd), slot_(&table), batch_send_(&::sendmmsg) {}

bool StateSender::update_subscribers() noexcept {
  if (!slot_->try_read(table_)) return false;
  if (table_.count > kMaxSubscriberSlots) table_.count = kMaxSubscriberSlots;
  // carry each kept subscriber's stream over by id (at most 64 x 64 comparisons, only when the
  // subscriptions changed); a new id starts a new stream
  const std::uint32_t old_count = stream_count_;
  for (std::uint32_t i = 0; i < table_.count; ++i) {
    const std::uint64_t id = table_.entries[i].id;
    Stream fresh;
    fresh.id = id;
    scratch_[i] = fresh;
    for (std::uint32_t j = 0; j < old_count; ++j) {
      if (streams_[j].id == id) {
        scratch_[i] = streams_[j];
        break;
      }
    }
  }
  for (std::uint32_t i = table_.count; i < kMaxSubscriberSlots; ++i) scratch_[i] = Stream{};
  streams_ = scratch_;
  stream_count_ = table_.count;
  return true;
}

std::uint64_t StateSender::last_sequence(std::uint64_t id) const noexcept {
  for (std::uint32_t i = 0; i < table_.count; ++i) {
    if (streams_[i].id == id) return streams_[i].sequence;
  }
  return 0;
}

int StateSender::send(StateMessage& m, std::uint64_t epoch, std::int64_t now_ns) noexcept {
  if (table_.count == 0) return 0;
  if (!finite_state(m)) {  // never happens with the engine's guard; a receiver would reject it
    ++counters_.non_finite;
    return 0;
  }
  const bool paused = has_flag(m.header.flags, WireFlag::kPaused);
  const auto restarted_bit = static_cast<std::uint16_t>(WireFlag::kRestarted);
  const auto base_flags = static_cast<std::uint16_t>(m.header.flags & ~restarted_bit);
  m.header.flags = base_flags;
  m.header.sequence = 0;  // written per subscriber below
  m.header.sender_time_ns = now_ns;
  const std::size_t bytes = encode_state(m, datagram_);
  if (bytes < kHeaderBytes) {  // channel_count beyond the format: cannot happen from a snapshot
    ++counters_.send_errors;
    return 0;
  }

  const std::uint64_t step = m.header.step;
  const std::uint64_t before = counters_.states_sent;
  unsigned int due = 0;
  for (std::uint32_t i = 0; i < table_.count; ++i) {
    Stream& s = streams_[i];
    const SubscriberEntry& e = table_.entries[i];
    const bool restarted = s.sent_any && epoch != s.epoch;
    if (s.sent_any && !restarted && paused == s.paused && step < s.last_sent_step + e.decimation) {
      continue;
    }
    std::array<std::byte, kHeaderBytes>& header = headers_[due];
    std::memcpy(header.data(), datagram_.data(), kHeaderBytes);
    put_le(header.data() + header_offset::kFlags,
           restarted ? static_cast<std::uint16_t>(base_flags | restarted_bit) : base_flags, 2);
    put_le(header.data() + header_offset::kSequence, ++s.sequence, 8);
    s.sent_any = true;
    s.epoch = epoch;
    s.paused = paused;
    s.last_sent_step = step;

    std::array<iovec, 2>& iov = iov_[due];
    iov[0] = iovec{header.data(), kHeaderBytes};
    iov[1] = iovec{datagram_.data() + kHeaderBytes, bytes - kHeaderBytes};
    msghdr& h = messages_[due].msg_hdr;
    h = msghdr{};
    // sendmmsg only reads the address; the cast drops the const the C interface lacks
    h.msg_name = const_cast<SocketAddress*>(&e.address);
    h.msg_namelen = e.address_len;
    h.msg_iov = iov.data();
    h.msg_iovlen = iov.size();
    messages_[due].msg_len = 0;
    ++due;
  }
  transmit(due);
  return static_cast<int>(counters_.states_sent - before);
}

void StateSender::transmit(unsigned int count) noexcept {
  unsigned int done = 0;
  while (done < count) {
    const int sent = batch_send_(fd_, messages_.data() + done, count - done, MSG_DONTWAIT);
    if (sent > 0) {
      counters_.states_sent += static_cast<std::uint64_t>(sent);
      done += static_cast<unsigned int>(sent);
      continue;
    }
    // the kernel refused messages_[done]: drop that datagram and go on with the next one, so
    // each datagram costs at most one attempt (no retry, no wait)
    const int error = sent < 0 ? errno : 0;
    if (error == EAGAIN || error == EWOULDBLOCK || error == ENOBUFS) {
      ++counters_.send_dropped_full;
    } else {
      ++counters_.send_errors;
    }
    ++done;
  }
}

}  // namespace rtmb
