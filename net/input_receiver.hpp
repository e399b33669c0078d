// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// The input stream's way in, on the simulation thread (issue 14, "Design change"): at the start
// of each tick the UDP socket is drained with non-blocking recvmmsg(2), each datagram goes
// through the wire rules (admit_input: decode, known sender, rate limit, sequence, counted by
// reason) and its samples into the InputRing that the runner drains in the same tick. Before,
// inputs were received on the network thread and crossed to the simulation thread through the
// ring, a hop of tens of microseconds and a wake-up of another thread per datagram.
//
// Bounded work: at most kReceiveBatch datagrams per call and kReceiveBatchesPerTick calls per
// tick, so a flood of datagrams costs a tick a bounded time (what is left waits in the socket
// buffer for the next tick, or the kernel drops it when the buffer is full). Never waits
// (MSG_DONTWAIT), never allocates, locks, logs or throws.
//
// Who may send. The network thread keeps the control sessions; after every hello and every
// closed session it publishes the addresses of the clients that said hello (AdmissionTable,
// whole, through a LatestValue). Each address has a token bucket (the per-address input rate
// limit) kept here across table updates; each hello carries a number, and a new one at an
// address forgets the sequence history of every sender at that address (a client that says
// hello again may restart its numbering), as the network thread did before.
//
// Version 2 (authenticated) inputs (docs/protocol.md, "Wire version 2"). The table also holds
// the id and key of every session that said hello with "version":2. Such a datagram is admitted
// by its session, not its address: frame and session id (peek_session), a known session
// (kUnknownSession), its MAC under that session's key (kBadMac, constant-time), only then the
// payload's rules, the session's rate limit and its replay window (a SequenceWindow per session,
// kDuplicate / kOutOfOrder). The windows are kept here, keyed by session id, never evicted and
// not cleared by a model load, so a recorded datagram cannot be replayed while its session
// lives; a new hello makes a new session with a new key. When the table says
// require_authenticated (a server bound beyond loopback), version 1 inputs are counted as
// kUnauthenticated and dropped.
//
// Arrival times. Each datagram's arrival is the kernel's receive timestamp (SO_TIMESTAMPNS,
// CLOCK_REALTIME) mapped to CLOCK_MONOTONIC with the offset between the two clocks read once per
// batch, so QueuedInput::arrival_ns keeps meaning "when it reached the host", not "when the tick
// read it" (the runner's input-wait histogram and the phase lock depend on it). Without a
// timestamp the time after the batch's recvmmsg is used.

#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

#include "net/input_auth.hpp"        // InputMacKey
#include "net/subscriber_table.hpp"  // SocketAddress
#include "net/token_bucket.hpp"
#include "rtmb/net/wire.hpp"
#include "rtmb/runtime/latest_value.hpp"
#include "rtmb/runtime/simulation_runner.hpp"  // InputRing, QueuedInput

namespace rtmb {

/// Most client addresses the admission table holds: the bound of ServerConfig::max_clients (the
/// server refuses more at construction).
inline constexpr std::size_t kMaxClientSlots = 64;
/// Datagrams one recvmmsg call reads at most.
inline constexpr unsigned int kReceiveBatch = 32;
/// recvmmsg calls per tick at most (so at most 128 datagrams a tick).
inline constexpr int kReceiveBatchesPerTick = 4;

/// An IP address without port: 4 bytes (IPv4) or 16 (IPv6), network order.
struct IpAddress {
  std::uint32_t family = 0;  ///< AF_INET or AF_INET6; 0: none
  std::array<std::uint8_t, 16> bytes{};
  friend bool operator==(const IpAddress&, const IpAddress&) = default;
};

/// One version 2 session (a control client that said hello with "version":2): its id and key.
struct SessionEntry {
  std::uint64_t id = 0;  ///< nonzero, random, new at every hello
  SessionKey key{};
};

/// One address that may send inputs.
struct AdmissionEntry {
  IpAddress address;
  std::uint64_t hello = 0;  ///< number of the newest hello said from it (grows with each)
};

/// The addresses of the control clients that said hello, and the per-address input rate limit.
struct AdmissionTable {
  std::uint32_t count = 0;  ///< valid entries, <= kMaxClientSlots, distinct addresses
  double rate_hz = 0.0;     ///< input datagrams per second per address (and per session)
  double burst = 0.0;       ///< token bucket depth
  std::array<AdmissionEntry, kMaxClientSlots> entries{};
  /// Version 1 inputs are refused (kUnauthenticated): the server is bound beyond loopback.
  bool require_authenticated = false;
  std::uint32_t session_count = 0;  ///< valid sessions, <= kMaxClientSlots, distinct ids
  std::array<SessionEntry, kMaxClientSlots> sessions{};
};
static_assert(std::is_trivially_copyable_v<AdmissionTable>);
using AdmissionSlot = LatestValue<AdmissionTable>;

/// What the input stream's way in counted since start. Plain data.
struct InputReceiveCounters {
  PacketCounters udp_in;             ///< input datagrams by outcome
  std::uint64_t inputs_queued = 0;   ///< samples pushed to the runner's ring
  std::uint64_t inputs_dropped = 0;  ///< samples refused by a full ring
  std::uint64_t receive_errors = 0;  ///< recvmmsg failures other than "nothing to read"
  friend bool operator==(const InputReceiveCounters&, const InputReceiveCounters&) = default;
};

/// The address of a socket address (port dropped).
[[nodiscard]] IpAddress ip_address(const sockaddr& address) noexcept;
/// An address's part of the sender key: the IPv4 address in host order, or a hash of the IPv6
/// bytes.
[[nodiscard]] std::uint64_t address_key(const IpAddress& address) noexcept;
/// The InputSequencer's key of a sender: IPv4 address << 16 | port (IPv6: a hash of the
/// address << 16 | port).
[[nodiscard]] std::uint64_t sender_key(const sockaddr& address) noexcept;

/// The simulation thread's receiver of the input stream. Constructed at setup (about 30 KiB
/// inline: make it with std::make_unique); every other member is RT-safe and must be called on
/// the simulation thread.
class InputReceiver {
 public:
  /// The batch receive call: recvmmsg(2), or a stand-in for tests.
  using BatchReceiveFn =
      int (*)(int fd, mmsghdr* messages, unsigned int count, int flags, timespec* timeout);

  /// fd: the server's bound UDP socket (SO_TIMESTAMPNS is turned on here); table: where the
  /// network thread publishes the admitted addresses; ring: the runner's input ring, whose only
  /// producer this becomes.
  InputReceiver(int fd, AdmissionSlot& table, InputRing& ring) noexcept;
  InputReceiver(const InputReceiver&) = delete;
  InputReceiver& operator=(const InputReceiver&) = delete;

  /// Takes the newest admission table, if any: carries each kept address's token bucket over,
  /// and forgets the sequence history of every sender at an address with a new hello. RT-safe.
  void update_admission() noexcept;
  /// Drains the socket (bounded, see the file comment) for a model with channel_count input
  /// channels; returns the datagrams read. RT-safe.
  int receive(std::uint16_t channel_count) noexcept;
  /// Queues a sample that did not come over UDP (the `set` command), counted like one. RT-safe.
  void queue(const QueuedInput& q) noexcept;
  /// Forgets every version 1 sender's sequence history (a new model was loaded). Version 2
  /// sessions keep their replay windows (a replay must stay refused). RT-safe.
  void clear_sequences() noexcept { sequencer_.clear(); }

  [[nodiscard]] const InputReceiveCounters& counters() const noexcept { return counters_; }

  /// Replaces recvmmsg(2) (tests). Setup only.
  void set_batch_receive(BatchReceiveFn fn) noexcept { batch_receive_ = fn; }

 private:
  void admit(std::size_t index, std::int64_t arrival_ns, std::uint16_t channel_count) noexcept;
  // a version 2 datagram: session, MAC, payload, rate, replay window; kOk fills message_
  [[nodiscard]] PacketStatus admit_authenticated(std::span<const std::byte> datagram,
                                                 std::int64_t arrival_ns,
                                                 std::uint16_t channel_count) noexcept;
  // the samples of message_ into the ring
  void queue_message(std::int64_t arrival_ns) noexcept;

  // what the receiver keeps of a version 2 session across table updates
  struct SessionState {
    TokenBucket bucket;
    SequenceWindow window;
    InputMacKey mac;  // the session key with its HMAC pads absorbed (net/input_auth.hpp)
  };

  int fd_;
  AdmissionSlot* slot_;
  InputRing* ring_;
  BatchReceiveFn batch_receive_;
  AdmissionTable table_{};
  std::array<TokenBucket, kMaxClientSlots> buckets_{};  // buckets_[i]: table_.entries[i]
  std::array<TokenBucket, kMaxClientSlots> scratch_{};
  std::array<SessionState, kMaxClientSlots> sessions_{};  // sessions_[i]: table_.sessions[i]
  std::array<SessionState, kMaxClientSlots> session_scratch_{};
  InputSequencer sequencer_;
  InputReceiveCounters counters_;
  InputMessage message_{};
  std::array<std::array<std::byte, kMaxDatagramBytes + 1>, kReceiveBatch> buffers_{};
  std::array<SocketAddress, kReceiveBatch> from_{};
  // room for one SO_TIMESTAMPNS control message (a timespec) per datagram, aligned for cmsghdr
  struct alignas(cmsghdr) Control {
    std::array<std::byte, 64> bytes;
  };
  std::array<Control, kReceiveBatch> control_{};
  std::array<iovec, kReceiveBatch> iov_{};
  std::array<mmsghdr, kReceiveBatch> messages_{};
};

}  // namespace rtmb
