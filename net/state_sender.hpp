// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// The state stream's way out, on the simulation thread (issue 14, "Design change"): right after
// each tick the state is encoded once and sent to every due subscriber with one non-blocking
// sendmmsg(2) on the server's UDP socket. Before, the state went through a snapshot, an eventfd
// wake-up and the network thread's send_to, and each hop cost tens of microseconds; libfranka's
// control loop and ros2_control's read/write likewise do their I/O on the real-time thread.
//
// Rules of the real-time path: no allocation, lock, log or exception, and never wait. The socket
// is used with MSG_DONTWAIT: a datagram the kernel cannot take at once (socket buffer full:
// EAGAIN, or no buffer: ENOBUFS) is dropped and counted, never retried, so a slow or unplugged
// link can cost a subscriber datagrams but never the loop its deadline. Sending on a UDP socket
// that another thread also uses is safe: each send is one system call on its own datagram.
//
// Encode once. Subscribers differ only in two header fields: the sequence number (per
// subscriber, +1 per datagram) and the kRestarted flag (the first datagram to it after a reset
// or load). Each due subscriber gets a 48-byte copy of the header with those fields written in,
// and a two-part iovec: its header, then the payload shared by all (docs/protocol.md).

#include <sys/socket.h>
#include <sys/uio.h>

#include <array>
#include <cstddef>
#include <cstdint>

#include "net/subscriber_table.hpp"
#include "rtmb/net/wire.hpp"

namespace rtmb {

/// What the state stream's way out counted since start. Plain data (published to the network
/// thread for stats).
struct StateSendCounters {
  std::uint64_t states_sent = 0;        ///< datagrams the socket took (all subscribers)
  std::uint64_t send_errors = 0;        ///< datagrams refused for another reason
  std::uint64_t send_dropped_full = 0;  ///< datagrams dropped: socket buffer full (never waited)
  std::uint64_t non_finite = 0;         ///< states not sent: a value was NaN or infinite
  friend bool operator==(const StateSendCounters&, const StateSendCounters&) = default;
};

/// The simulation thread's sender of the state stream. Constructed at setup (it holds its
/// buffers inline, about 20 KiB: make it with std::make_unique); every other member is RT-safe
/// and must be called on one thread, the simulation thread.
class StateSender {
 public:
  /// The batch send call: sendmmsg(2), or a stand-in for tests of the counting.
  using BatchSendFn = int (*)(int fd, mmsghdr* messages, unsigned int count, int flags);

  /// fd: the server's bound UDP socket (non-blocking or not: every call passes MSG_DONTWAIT);
  /// table: where the network thread publishes the subscriptions.
  StateSender(int fd, SubscriberSlot& table) noexcept;
  StateSender(const StateSender&) = delete;
  StateSender& operator=(const StateSender&) = delete;

  /// Takes the newest subscriber table, if the network thread published one since the last
  /// call; returns whether it did. A subscriber kept from the old table keeps its sequence
  /// numbering; a new one starts at 1 and is due at once (it gets the next state sent, even a
  /// paused one). RT-safe.
  bool update_subscribers() noexcept;

  /// Sends state m to every due subscriber: one it never sent to, or after a new epoch (a reset
  /// or load: the datagram carries kRestarted), or when the paused flag changed, or when
  /// m.header.step is at least `decimation` past the step it last got. m.header.flags carries
  /// kEchoValid and kPaused as the tick produced them; its sequence and sender_time_ns are
  /// written here (sender_time_ns = now_ns). A state with a non-finite time or channel is not
  /// sent at all (counted in non_finite; a receiver would reject it). Returns the datagrams the
  /// socket took. One sendmmsg call, plus one more after each datagram it refused. RT-safe.
  int send(StateMessage& m, std::uint64_t epoch, std::int64_t now_ns) noexcept;

  [[nodiscard]] const StateSendCounters& counters() const noexcept { return counters_; }
  /// Subscribers in the table in use.
  [[nodiscard]] std::uint32_t subscriber_count() const noexcept { return table_.count; }
  /// The next sequence number the subscriber with this id gets minus one (0: unknown id, or
  /// nothing sent yet). For tests.
  [[nodiscard]] std::uint64_t last_sequence(std::uint64_t id) const noexcept;

  /// Replaces sendmmsg(2) (tests). Setup only.
  void set_batch_send(BatchSendFn fn) noexcept { batch_send_ = fn; }

 private:
  // the simulation thread's bookkeeping of one subscriber, keyed by SubscriberEntry::id
  struct Stream {
    std::uint64_t id = 0;
    std::uint64_t sequence = 0;        // of the last datagram prepared for it
    std::uint64_t last_sent_step = 0;  // step of that datagram
    std::uint64_t epoch = 0;           // reset epoch of that datagram
    bool paused = false;               // paused flag of that datagram
    bool sent_any = false;
  };

  void transmit(unsigned int count) noexcept;

  int fd_;
  SubscriberSlot* slot_;
  BatchSendFn batch_send_;
  SubscriberTable table_{};
  std::array<Stream, kMaxSubscriberSlots> streams_{};  // streams_[i] belongs to table_.entries[i]
  std::uint32_t stream_count_ = 0;                     // = table_.count once taken
  std::array<Stream, kMaxSubscriberSlots> scratch_{};  // update_subscribers' rebuild
  StateSendCounters counters_;
  std::array<std::byte, kMaxDatagramBytes> datagram_{};  // the state, encoded once per send
  std::array<std::array<std::byte, kHeaderBytes>, kMaxSubscriberSlots> headers_{};
  std::array<std::array<iovec, 2>, kMaxSubscriberSlots> iov_{};
  std::array<mmsghdr, kMaxSubscriberSlots> messages_{};
};

}  // namespace rtmb
