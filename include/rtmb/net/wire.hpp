// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// The binary UDP wire format of the real-time server: the state stream (server -> subscriber)
// and the input samples (client -> server). docs/protocol.md is the byte-by-byte reference and
// tests/net/wire_layout_test.cpp checks it against the constants below.
//
// Design notes.
// - Every field is little-endian regardless of the host and is written and read byte by byte
//   (doubles through std::bit_cast), so the layout never depends on struct packing, alignment or
//   the host's byte order. The in-memory structs below are plain data, not wire images.
// - Decoding trusts nothing: the header's magic, then its version, then its payload length
//   (against the datagram size and kMaxPayloadBytes) are checked before any other byte is read,
//   and every later read is inside a length that has been checked. Decoders never throw and never
//   allocate; they fill caller-provided fixed-capacity structs, so they are safe on the network
//   thread and could run on the simulation thread.
// - The encoding is canonical: reserved fields must be zero and undefined flag bits clear, so a
//   datagram that decodes re-encodes to the same bytes (the fuzz targets check this). Any layout
//   change, including giving a reserved field a meaning, bumps kWireVersion.
// - Sequence numbers are 64-bit and never wrap in practice (2^64 datagrams at 1 MHz is 584 000
//   years), so ordering is plain integer comparison; no serial-number arithmetic is needed.
// - Simulation time is the engine's own State::t as an IEEE double [s], copied bit for bit, so a
//   client sees exactly the time the step used; integer nanoseconds would round it.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>

namespace rtmb {

/// Identifies an rtmb datagram: the bytes "RTMB" read as a little-endian u32.
inline constexpr std::uint32_t kWireMagic = 0x424D5452u;
/// Version of the layout below; a receiver rejects any other. Bumped on every layout change.
/// Version 1: state datagrams, and unauthenticated input datagrams (accepted on loopback only).
inline constexpr std::uint16_t kWireVersion = 1;
/// Version 2: authenticated input datagrams (docs/protocol.md, "Wire version 2"): the version 1
/// input layout followed by a trailer of the session id and a MAC tag. State datagrams keep
/// version 1. A client asks for it with "version":2 in hello and gets the session's key back.
inline constexpr std::uint16_t kWireVersionAuthenticated = 2;

/// Size of the fixed header that starts every datagram [bytes].
inline constexpr std::size_t kHeaderBytes = 48;
/// Most output channels a state message can carry.
inline constexpr std::size_t kMaxStateChannels = 64;
/// Most samples an input message can carry.
inline constexpr std::size_t kMaxInputSamples = 64;
/// Most distinct senders an InputSequencer tracks at once (least recently used is evicted).
inline constexpr std::size_t kMaxInputSenders = 16;
/// How far behind the newest accepted sequence number a duplicate is still recognised as one.
inline constexpr std::uint64_t kSequenceWindow = 64;

/// Byte offsets of the header fields from the start of the datagram (docs/protocol.md, "Header").
namespace header_offset {
inline constexpr std::size_t kMagic = 0;          ///< u32, kWireMagic
inline constexpr std::size_t kVersion = 4;        ///< u16, kWireVersion
inline constexpr std::size_t kKind = 6;           ///< u16, MessageKind
inline constexpr std::size_t kFlags = 8;          ///< u16, WireFlag bits allowed for the kind
inline constexpr std::size_t kReserved = 10;      ///< u16, zero
inline constexpr std::size_t kPayloadBytes = 12;  ///< u32, datagram size - kHeaderBytes
inline constexpr std::size_t kSequence = 16;      ///< u64, per-sender datagram counter
inline constexpr std::size_t kStep = 24;          ///< u64, simulation step index
inline constexpr std::size_t kSimTime = 32;       ///< f64, simulation time [s]
inline constexpr std::size_t kSenderTime = 40;    ///< i64, sender's steady clock [ns]
}  // namespace header_offset

/// Byte offsets inside the state payload (docs/protocol.md, "State payload").
namespace state_offset {
inline constexpr std::size_t kStepFlags = 0;        ///< u32, OR of StepFlag
inline constexpr std::size_t kChannelCount = 4;     ///< u16, 0..kMaxStateChannels
inline constexpr std::size_t kReserved = 6;         ///< u16, zero
inline constexpr std::size_t kPositionDrift = 8;    ///< f64
inline constexpr std::size_t kVelocityDrift = 16;   ///< f64
inline constexpr std::size_t kEnergy = 24;          ///< f64
inline constexpr std::size_t kEchoSequence = 32;    ///< u64
inline constexpr std::size_t kEchoSenderTime = 40;  ///< i64
inline constexpr std::size_t kEchoStep = 48;        ///< u64
inline constexpr std::size_t kChannels = 56;        ///< f64 x channel count
}  // namespace state_offset

/// Byte offsets inside the input payload (docs/protocol.md, "Input payload").
namespace input_offset {
inline constexpr std::size_t kSampleCount = 0;    ///< u16, 1..kMaxInputSamples
inline constexpr std::size_t kReserved = 2;       ///< u16, zero
inline constexpr std::size_t kSamples = 4;        ///< kInputSampleBytes x sample count
inline constexpr std::size_t kSampleChannel = 0;  ///< u16, inside one sample
inline constexpr std::size_t kSampleValue = 2;    ///< f64, inside one sample
}  // namespace input_offset

/// The version 2 input trailer after the samples (docs/protocol.md, "Wire version 2"); offsets
/// from the trailer's start, which is datagram size - kInputTrailerBytes.
namespace trailer_offset {
inline constexpr std::size_t kSession = 0;  ///< u64, session id from the hello reply
inline constexpr std::size_t kTag = 8;      ///< kInputTagBytes, MAC over every byte before it
}  // namespace trailer_offset
/// Length of the MAC tag: HMAC-SHA-512-256 (crypto_auth) truncated to its first 16 bytes, a
/// 128-bit tag [bytes].
inline constexpr std::size_t kInputTagBytes = 16;
/// The version 2 trailer: u64 session id, then the tag [bytes].
inline constexpr std::size_t kInputTrailerBytes = 8 + kInputTagBytes;
/// Length of a session key (crypto_auth_hmacsha512256_KEYBYTES) [bytes].
inline constexpr std::size_t kSessionKeyBytes = 32;
/// The per-session key hello hands a version 2 client.
using SessionKey = std::array<std::uint8_t, kSessionKeyBytes>;

/// Fixed part of the state payload, before the channel values [bytes].
inline constexpr std::size_t kStatePayloadFixedBytes = state_offset::kChannels;
/// Fixed part of the input payload, before the samples [bytes].
inline constexpr std::size_t kInputPayloadFixedBytes = input_offset::kSamples;
/// One input sample on the wire: u16 channel, f64 value, unpadded [bytes].
inline constexpr std::size_t kInputSampleBytes = 10;

/// Size of a state datagram with `channels` output values [bytes].
[[nodiscard]] constexpr std::size_t state_datagram_bytes(std::size_t channels) noexcept {
  return kHeaderBytes + kStatePayloadFixedBytes + 8 * channels;
}
/// Size of an input datagram with `samples` samples [bytes].
[[nodiscard]] constexpr std::size_t input_datagram_bytes(std::size_t samples) noexcept {
  return kHeaderBytes + kInputPayloadFixedBytes + kInputSampleBytes * samples;
}

/// Size of a version 2 input datagram with `samples` samples [bytes].
[[nodiscard]] constexpr std::size_t input_v2_datagram_bytes(std::size_t samples) noexcept {
  return input_datagram_bytes(samples) + kInputTrailerBytes;
}

/// Largest payload_bytes a header may announce; anything larger is rejected unread. (A version
/// 2 input's payload_bytes counts its trailer.)
inline constexpr std::size_t kMaxPayloadBytes =
    state_datagram_bytes(kMaxStateChannels) > input_v2_datagram_bytes(kMaxInputSamples)
        ? state_datagram_bytes(kMaxStateChannels) - kHeaderBytes
        : input_v2_datagram_bytes(kMaxInputSamples) - kHeaderBytes;
/// Largest valid datagram [bytes]. A receive buffer one byte larger lets an oversized datagram
/// show up as kBadLength instead of being silently truncated to a valid size.
inline constexpr std::size_t kMaxDatagramBytes = kHeaderBytes + kMaxPayloadBytes;

/// Message kind, header field `kind`.
enum class MessageKind : std::uint16_t {
  kState = 1,  ///< server -> subscriber: output channels, diagnostics, latency echo
  kInput = 2,  ///< client -> server: input channel samples
};

/// Header flag bits. Each is defined for one kind only; any other set bit is kBadReserved.
enum class WireFlag : std::uint16_t {
  kNone = 0,
  /// State: the echo fields hold the last input applied from this subscriber's client. Clear
  /// until that client's first input has been applied (after start, reset or load).
  kEchoValid = 1u << 0,
  /// State: the simulation is paused; step and time do not advance between messages.
  kPaused = 1u << 1,
  /// State: first message after a reset or load; step and time restarted, drop client history.
  kRestarted = 1u << 2,
};

/// Flag bits a state message may carry.
inline constexpr std::uint16_t kStateFlagMask = 0x0007;
/// Flag bits an input message may carry (none in version 1).
inline constexpr std::uint16_t kInputFlagMask = 0x0000;

[[nodiscard]] constexpr std::uint16_t operator|(WireFlag a, WireFlag b) noexcept {
  return static_cast<std::uint16_t>(static_cast<std::uint16_t>(a) | static_cast<std::uint16_t>(b));
}
[[nodiscard]] constexpr bool has_flag(std::uint16_t flags, WireFlag f) noexcept {
  return (flags & static_cast<std::uint16_t>(f)) != 0u;
}

/// Outcome of receiving one datagram: what the decoders return, what InputSequencer adds, and
/// the index of its counter in PacketCounters. The order of the rejection reasons is the order
/// in which they are checked (docs/protocol.md, "Rejection rules").
enum class PacketStatus : std::uint8_t {
  kOk = 0,           ///< accepted
  kTooShort,         ///< datagram shorter than kHeaderBytes
  kBadMagic,         ///< magic is not kWireMagic
  kBadVersion,       ///< version is neither 1 nor 2, 2 on a state, or not the decoder's
  kBadLength,        ///< payload_bytes is not the datagram's remaining size, exceeds
                     ///< kMaxPayloadBytes, or disagrees with the count in the payload
  kBadKind,          ///< unknown kind, or not the kind the decoder reads
  kBadReserved,      ///< a reserved field is non-zero or an undefined flag bit is set
  kBadCount,         ///< channel count > kMaxStateChannels, or sample count 0 or
                     ///< > kMaxInputSamples
  kNonFinite,        ///< simulation time, a channel value or a sample value is NaN or Inf
  kUnknownChannel,   ///< an input sample names a channel >= the receiver's channel count
  kRepeatedChannel,  ///< an input message names the same channel twice
  kDuplicate,        ///< InputSequencer: this sender's sequence number was already accepted
  kOutOfOrder,       ///< InputSequencer: older than the sender's newest accepted datagram
  kUnknownSender,    ///< server: the source address has no control client that said hello
  kRateLimited,      ///< server: the source address sends faster than its input rate limit
  // version 2 (authenticated inputs); numbered after the version 1 reasons so that those keep
  // their indices
  kUnknownSession,   ///< server: a version 2 input names no session that said hello
  kBadMac,           ///< server: a version 2 input's tag is not the MAC under its session's key
  kUnauthenticated,  ///< server: a version 1 input to a server that requires version 2
};
/// Number of PacketStatus values (size of PacketCounters::by_status).
inline constexpr std::size_t kPacketStatusCount = 18;

/// Lowercase snake_case name of a status ("ok", "bad_magic", ...), used as the key in stats.
[[nodiscard]] std::string_view to_string(PacketStatus s) noexcept;

/// The header fields the sender chooses. Magic, version, kind and payload length are implied by
/// the message type and written by the encoder.
struct MessageHeader {
  std::uint16_t flags = 0;          ///< OR of WireFlag allowed for the kind
  std::uint64_t sequence = 0;       ///< per sender, +1 per datagram; see InputSequencer
  std::uint64_t step = 0;           ///< state: index of the step just taken; input: step of the
                                    ///< newest state the sender had received (0 if none)
  double sim_time_s = 0.0;          ///< state: State::t after the step [s]; input: sim time of
                                    ///< the newest state received (0 if none); finite
  std::int64_t sender_time_ns = 0;  ///< sender's steady clock (CLOCK_MONOTONIC) at send [ns]

  friend bool operator==(const MessageHeader&, const MessageHeader&) = default;
};

/// Latency echo in a state message: which input the step used, so the client can time
/// input -> state. Meaningful only when the header carries WireFlag::kEchoValid.
struct LatencyEcho {
  std::uint64_t sequence = 0;       ///< header.sequence of the last input applied
  std::int64_t sender_time_ns = 0;  ///< header.sender_time_ns of that input [ns, client clock]
  std::uint64_t applied_step = 0;   ///< index of the step in which it was first applied

  friend bool operator==(const LatencyEcho&, const LatencyEcho&) = default;
};

/// One sample of the UDP state stream. Plain, fixed-size, trivially copyable.
struct StateMessage {
  MessageHeader header;
  std::uint32_t step_flags = 0;  ///< StepStatus::flags of the step (OR of StepFlag)
  double position_drift = 0.0;   ///< ||g||inf after the step [m | rad]; NaN if not measured
  double velocity_drift = 0.0;   ///< ||G v + g_t||inf after the step [m/s | rad/s]; NaN if not
  double energy = 0.0;           ///< T + V after the step [J]; NaN where undefined
  LatencyEcho echo;
  std::uint16_t channel_count = 0;                   ///< valid entries of channels
  std::array<double, kMaxStateChannels> channels{};  ///< output channel values, finite; units
                                                     ///< from the model schema (hello)
};

/// One input channel value.
struct InputSample {
  std::uint16_t channel = 0;  ///< input channel index, < the model's input channel count
  double value = 0.0;         ///< finite; unit from the model schema (hello)

  friend bool operator==(const InputSample&, const InputSample&) = default;
};

/// One input datagram: samples applied together at the next step. Plain, fixed-size, trivially
/// copyable.
struct InputMessage {
  MessageHeader header;
  std::uint16_t sample_count = 0;                       ///< valid entries of samples, >= 1
  std::array<InputSample, kMaxInputSamples> samples{};  ///< distinct channels
};

static_assert(std::is_trivially_copyable_v<StateMessage>);
static_assert(std::is_trivially_copyable_v<InputMessage>);

/// Bitwise equality of the valid part (header, scalars, the first count entries), so that -0.0
/// differs from 0.0 and a NaN equals the same NaN. For tests and round-trip checks.
[[nodiscard]] bool bitwise_equal(const StateMessage& a, const StateMessage& b) noexcept;
[[nodiscard]] bool bitwise_equal(const InputMessage& a, const InputMessage& b) noexcept;

/// Writes m as a state datagram into out. Returns the number of bytes written
/// (state_datagram_bytes(m.channel_count)), or 0 if channel_count > kMaxStateChannels or out is
/// too small. Values and flags are written as given, not checked. RT-safe: no allocation.
[[nodiscard]] std::size_t encode_state(const StateMessage& m, std::span<std::byte> out) noexcept;

/// Writes m as an input datagram into out. Returns the number of bytes written
/// (input_datagram_bytes(m.sample_count)), or 0 if sample_count is 0 or > kMaxInputSamples or
/// out is too small. Values and flags are written as given, not checked. RT-safe.
[[nodiscard]] std::size_t encode_input(const InputMessage& m, std::span<std::byte> out) noexcept;

/// Writes m as a version 2 input datagram of `session` into out, with the tag left zero:
/// sign_input (net/input_auth.hpp) fills it in. Returns the number of bytes written
/// (input_v2_datagram_bytes(m.sample_count)), or 0 as encode_input does. RT-safe.
[[nodiscard]] std::size_t encode_input_v2(const InputMessage& m,
                                          std::uint64_t session,
                                          std::span<std::byte> out) noexcept;

/// Checks the frame of a version 2 input datagram (size, magic, version 2, length, kind input,
/// room for the trailer) and reads its session id, so a receiver can find the key before it
/// trusts anything else. Returns the first failing check (kBadVersion for any other version),
/// or kOk. RT-safe.
[[nodiscard]] PacketStatus peek_session(std::span<const std::byte> datagram,
                                        std::uint64_t& out_session) noexcept;

/// Decodes a version 2 input datagram like decode_input (the same rules, on the bytes before the
/// trailer) and its session id. Does NOT check the tag: that is input_mac_valid's job
/// (net/input_auth.hpp), done first by the server. Never throws, never allocates. RT-safe.
[[nodiscard]] PacketStatus decode_input_v2(std::span<const std::byte> datagram,
                                           std::uint16_t channel_count,
                                           InputMessage& out,
                                           std::uint64_t& out_session) noexcept;

/// Checks the header of any datagram (size, magic, version, length, kind) and reports its kind,
/// so a receiver can pick the decoder. Returns the first failing check, or kOk. RT-safe.
[[nodiscard]] PacketStatus peek_kind(std::span<const std::byte> datagram,
                                     MessageKind& out_kind) noexcept;

/// Decodes a state datagram. Returns kOk and fills out, or the first failing check in the order
/// of docs/protocol.md; on failure out is partly written and must not be used. Never throws,
/// never allocates. RT-safe.
[[nodiscard]] PacketStatus decode_state(std::span<const std::byte> datagram,
                                        StateMessage& out) noexcept;

/// Decodes an input datagram for a model with `channel_count` input channels (a sample naming
/// channel >= channel_count is kUnknownChannel). Returns kOk and fills out, or the first failing
/// check; on failure out is partly written and must not be used. Never throws, never allocates.
/// RT-safe.
[[nodiscard]] PacketStatus decode_input(std::span<const std::byte> datagram,
                                        std::uint16_t channel_count,
                                        InputMessage& out) noexcept;

/// Per-reason packet counters. Every datagram is recorded exactly once, so
/// received == sum of by_status. Plain data: the network thread owns it, copies go to stats.
struct PacketCounters {
  std::uint64_t received = 0;                                 ///< datagrams recorded
  std::array<std::uint64_t, kPacketStatusCount> by_status{};  ///< index: PacketStatus

  /// Counts one datagram under its outcome. RT-safe.
  void record(PacketStatus s) noexcept {
    ++received;
    ++by_status[static_cast<std::size_t>(s)];
  }
  [[nodiscard]] std::uint64_t count(PacketStatus s) const noexcept {
    return by_status[static_cast<std::size_t>(s)];
  }
  [[nodiscard]] std::uint64_t accepted() const noexcept { return count(PacketStatus::kOk); }
  /// Datagrams dropped for any reason, sequencing included.
  [[nodiscard]] std::uint64_t rejected() const noexcept { return received - accepted(); }
  friend bool operator==(const PacketCounters&, const PacketCounters&) = default;
};

/// Ordering of one sender's datagrams: accepts only sequence numbers newer than every one
/// accepted before, and tells a re-delivered datagram (kDuplicate: accepted before, within
/// kSequenceWindow of the newest) from a late or skipped one (kOutOfOrder). Gaps are allowed
/// (lost datagrams). Fixed size, RT-safe.
class SequenceWindow {
 public:
  /// What admit(sequence) would return, without recording anything.
  [[nodiscard]] PacketStatus classify(std::uint64_t sequence) const noexcept;
  /// Classifies sequence and, if kOk, records it as the newest.
  [[nodiscard]] PacketStatus admit(std::uint64_t sequence) noexcept;
  /// Forgets the history: the next sequence number is accepted whatever it is.
  void reset() noexcept { *this = SequenceWindow{}; }
  /// Whether any sequence number has been accepted since construction or reset().
  [[nodiscard]] bool started() const noexcept { return started_; }
  /// The newest accepted sequence number (0 before the first).
  [[nodiscard]] std::uint64_t newest() const noexcept { return newest_; }

 private:
  std::uint64_t newest_ = 0;
  std::uint64_t seen_ = 0;  // bit k set: newest_ - k was accepted
  bool started_ = false;
};

/// A SequenceWindow per sender, for up to kMaxInputSenders senders. `sender` is any key the
/// transport derives from the source endpoint (e.g. IPv4 address << 16 | port). When the table
/// is full, a new sender replaces the one whose last accepted datagram is oldest; that sender's
/// history is lost, so its next datagram is accepted like a first one. A client that restarts its
/// numbering must send from a new endpoint or be forgotten (forget) by the server, e.g. on a new
/// hello. Fixed size, no allocation, RT-safe.
class InputSequencer {
 public:
  /// Classifies sender's sequence number (kOk, kDuplicate or kOutOfOrder) and records it if kOk.
  [[nodiscard]] PacketStatus admit(std::uint64_t sender, std::uint64_t sequence) noexcept;
  /// Drops sender's history (no effect if unknown).
  void forget(std::uint64_t sender) noexcept;
  /// Drops the history of every sender whose key k has (k & mask) == (key & mask), e.g. all
  /// ports of one address when keys are address << 16 | port and mask is ~0xFFFF.
  void forget_matching(std::uint64_t key, std::uint64_t mask) noexcept;
  /// Drops every sender's history.
  void clear() noexcept { *this = InputSequencer{}; }
  /// Senders currently tracked.
  [[nodiscard]] std::size_t sender_count() const noexcept;
  /// Senders replaced because the table was full, since construction or clear().
  [[nodiscard]] std::uint64_t evictions() const noexcept { return evictions_; }

 private:
  struct Slot {
    std::uint64_t sender = 0;
    std::uint64_t last_active = 0;  // value of clock_ at the sender's last datagram
    SequenceWindow window;
    bool used = false;
  };
  Slot& slot_for(std::uint64_t sender) noexcept;

  std::array<Slot, kMaxInputSenders> slots_{};
  std::uint64_t clock_ = 0;  // datagrams seen; orders slots by recency without a system clock
  std::uint64_t evictions_ = 0;
};

/// The server's receive path for one input datagram from `sender`: decode_input, then (if the
/// datagram is well formed) kUnknownSender unless sender_known, kRateLimited unless within_rate,
/// then the sender's sequence check, then counters.record of the outcome. Returns the outcome; out
/// is valid only for kOk. RT-safe.
[[nodiscard]] PacketStatus admit_input(std::span<const std::byte> datagram,
                                       std::uint64_t sender,
                                       std::uint16_t channel_count,
                                       InputSequencer& sequencer,
                                       PacketCounters& counters,
                                       InputMessage& out,
                                       bool sender_known = true,
                                       bool within_rate = true) noexcept;

/// The client's receive path for one state datagram: decode_state, the stream's sequence check,
/// counters.record. Returns the outcome; out is valid only for kOk. RT-safe.
[[nodiscard]] PacketStatus admit_state(std::span<const std::byte> datagram,
                                       SequenceWindow& window,
                                       PacketCounters& counters,
                                       StateMessage& out) noexcept;

}  // namespace rtmb
