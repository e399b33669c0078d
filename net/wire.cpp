// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Encoder and decoders of the UDP wire format (include/rtmb/net/wire.hpp, docs/protocol.md).
// Every read happens at a fixed offset inside a length that has already been checked, and the
// checks run in the documented order, so the first failing rule is what the caller counts.
#include "rtmb/net/wire.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace rtmb {

namespace {

// little-endian stores: least significant byte first, whatever the host order
template <typename U>
void store(std::span<std::byte> out, std::size_t at, U value) noexcept {
  static_assert(std::is_unsigned_v<U>);
  for (std::size_t i = 0; i < sizeof(U); ++i) {
    out[at + i] = static_cast<std::byte>((value >> (8 * i)) & 0xFFu);
  }
}

template <typename U>
[[nodiscard]] U load(std::span<const std::byte> in, std::size_t at) noexcept {
  static_assert(std::is_unsigned_v<U>);
  U value = 0;
  for (std::size_t i = 0; i < sizeof(U); ++i) {
    value = static_cast<U>(value | static_cast<U>(std::to_integer<U>(in[at + i]) << (8 * i)));
  }
  return value;
}

void store_f64(std::span<std::byte> out, std::size_t at, double v) noexcept {
  store(out, at, std::bit_cast<std::uint64_t>(v));
}
void store_i64(std::span<std::byte> out, std::size_t at, std::int64_t v) noexcept {
  store(out, at, static_cast<std::uint64_t>(v));
}
[[nodiscard]] double load_f64(std::span<const std::byte> in, std::size_t at) noexcept {
  return std::bit_cast<double>(load<std::uint64_t>(in, at));
}
[[nodiscard]] std::int64_t load_i64(std::span<const std::byte> in, std::size_t at) noexcept {
  return static_cast<std::int64_t>(load<std::uint64_t>(in, at));
}

[[nodiscard]] bool bits_equal(double a, double b) noexcept {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

void store_header(std::span<std::byte> out,
                  MessageKind kind,
                  const MessageHeader& h,
                  std::size_t payload_bytes,
                  std::uint16_t version = kWireVersion) noexcept {
  store(out, header_offset::kMagic, kWireMagic);
  store(out, header_offset::kVersion, version);
  store(out, header_offset::kKind, static_cast<std::uint16_t>(kind));
  store(out, header_offset::kFlags, h.flags);
  store(out, header_offset::kReserved, std::uint16_t{0});
  store(out, header_offset::kPayloadBytes, static_cast<std::uint32_t>(payload_bytes));
  store(out, header_offset::kSequence, h.sequence);
  store(out, header_offset::kStep, h.step);
  store_f64(out, header_offset::kSimTime, h.sim_time_s);
  store_i64(out, header_offset::kSenderTime, h.sender_time_ns);
}

// Rules 1-5 of docs/protocol.md: size, magic, version, length, known kind. Nothing past the
// payload length field is read until the length has been checked against the datagram.
[[nodiscard]] PacketStatus check_frame(std::span<const std::byte> d,
                                       MessageKind& out_kind) noexcept {
  if (d.size() < kHeaderBytes) return PacketStatus::kTooShort;
  if (load<std::uint32_t>(d, header_offset::kMagic) != kWireMagic) return PacketStatus::kBadMagic;
  const std::uint16_t version = load<std::uint16_t>(d, header_offset::kVersion);
  if (version != kWireVersion && version != kWireVersionAuthenticated) {
    return PacketStatus::kBadVersion;
  }
  const std::uint32_t payload = load<std::uint32_t>(d, header_offset::kPayloadBytes);
  if (payload > kMaxPayloadBytes || payload != d.size() - kHeaderBytes) {
    return PacketStatus::kBadLength;
  }
  const std::uint16_t kind = load<std::uint16_t>(d, header_offset::kKind);
  if (kind != static_cast<std::uint16_t>(MessageKind::kState) &&
      kind != static_cast<std::uint16_t>(MessageKind::kInput)) {
    return PacketStatus::kBadKind;
  }
  // version 2 defines an input layout only; states stay version 1
  if (version == kWireVersionAuthenticated &&
      kind != static_cast<std::uint16_t>(MessageKind::kInput)) {
    return PacketStatus::kBadVersion;
  }
  out_kind = static_cast<MessageKind>(kind);
  return PacketStatus::kOk;
}

// Rules 1-7: the frame, the expected kind and version, reserved bits, a finite simulation time.
[[nodiscard]] PacketStatus read_header(std::span<const std::byte> d,
                                       MessageKind expected,
                                       std::uint16_t version,
                                       std::uint16_t flag_mask,
                                       MessageHeader& out) noexcept {
  MessageKind kind{};
  if (const PacketStatus s = check_frame(d, kind); s != PacketStatus::kOk) return s;
  if (kind != expected) return PacketStatus::kBadKind;
  if (load<std::uint16_t>(d, header_offset::kVersion) != version) return PacketStatus::kBadVersion;
  out.flags = load<std::uint16_t>(d, header_offset::kFlags);
  if ((out.flags & ~flag_mask) != 0u || load<std::uint16_t>(d, header_offset::kReserved) != 0u) {
    return PacketStatus::kBadReserved;
  }
  out.sequence = load<std::uint64_t>(d, header_offset::kSequence);
  out.step = load<std::uint64_t>(d, header_offset::kStep);
  out.sim_time_s = load_f64(d, header_offset::kSimTime);
  out.sender_time_ns = load_i64(d, header_offset::kSenderTime);
  if (!std::isfinite(out.sim_time_s)) return PacketStatus::kNonFinite;
  return PacketStatus::kOk;
}

// The layout of a message kind: its header flags and the layout of its payload's fixed part.
struct MessageLayout {
  MessageKind kind;
  std::uint16_t flag_mask;      // flags this kind defines
  std::size_t fixed_bytes;      // payload bytes before the items
  std::size_t reserved_offset;  // u16 that must be zero, in the payload
  std::size_t count_offset;     // u16 item count, in the payload
  std::uint16_t min_count;      // item count range
  std::uint16_t max_count;
  std::size_t item_bytes;  // bytes per item
};

constexpr MessageLayout kStateLayout{MessageKind::kState,         kStateFlagMask,
                                     kStatePayloadFixedBytes,     state_offset::kReserved,
                                     state_offset::kChannelCount, 0,
                                     kMaxStateChannels,           8};
constexpr MessageLayout kInputLayout{MessageKind::kInput,        kInputFlagMask,
                                     kInputPayloadFixedBytes,    input_offset::kReserved,
                                     input_offset::kSampleCount, 1,
                                     kMaxInputSamples,           kInputSampleBytes};

// The header (read_header), then the payload structure: fixed part present, reserved zero, count
// in range, exact length. On kOk, `payload` is the datagram after the header and before the
// trailer (version 2 inputs: kInputTrailerBytes; else none) and `count` its item count.
[[nodiscard]] PacketStatus read_message(std::span<const std::byte> datagram,
                                        const MessageLayout& layout,
                                        std::uint16_t version,
                                        MessageHeader& header,
                                        std::span<const std::byte>& payload,
                                        std::uint16_t& count) noexcept {
  if (const PacketStatus s = read_header(datagram, layout.kind, version, layout.flag_mask, header);
      s != PacketStatus::kOk) {
    return s;
  }
  const std::size_t trailer = version == kWireVersionAuthenticated ? kInputTrailerBytes : 0;
  if (datagram.size() - kHeaderBytes < trailer) return PacketStatus::kBadLength;
  const std::span<const std::byte> p =
      datagram.subspan(kHeaderBytes, datagram.size() - kHeaderBytes - trailer);
  if (p.size() < layout.fixed_bytes) return PacketStatus::kBadLength;
  if (load<std::uint16_t>(p, layout.reserved_offset) != 0u) return PacketStatus::kBadReserved;
  count = load<std::uint16_t>(p, layout.count_offset);
  if (count < layout.min_count || count > layout.max_count) return PacketStatus::kBadCount;
  if (p.size() != layout.fixed_bytes + layout.item_bytes * std::size_t{count}) {
    return PacketStatus::kBadLength;
  }
  payload = p;
  return PacketStatus::kOk;
}

}  // namespace

std::string_view to_string(PacketStatus s) noexcept {
  // by value: PacketStatus counts from 0 without gaps
  constexpr std::string_view kNames[] = {
      "ok",           "too_short",       "bad_magic",        "bad_version",
      "bad_length",   "bad_kind",        "bad_reserved",     "bad_count",
      "non_finite",   "unknown_channel", "repeated_channel", "duplicate",
      "out_of_order", "unknown_sender",  "rate_limited",     "unknown_session",
      "bad_mac",      "unauthenticated"};
  static_assert(std::size(kNames) == kPacketStatusCount);
  const auto i = static_cast<std::size_t>(s);
  return i < std::size(kNames) ? kNames[i] : "invalid";
}

bool bitwise_equal(const StateMessage& a, const StateMessage& b) noexcept {
  if (a.header.flags != b.header.flags || a.header.sequence != b.header.sequence ||
      a.header.step != b.header.step || !bits_equal(a.header.sim_time_s, b.header.sim_time_s) ||
      a.header.sender_time_ns != b.header.sender_time_ns) {
    return false;
  }
  if (a.step_flags != b.step_flags || !bits_equal(a.position_drift, b.position_drift) ||
      !bits_equal(a.velocity_drift, b.velocity_drift) || !bits_equal(a.energy, b.energy) ||
      a.echo != b.echo || a.channel_count != b.channel_count) {
    return false;
  }
  const std::size_t n = std::min<std::size_t>(a.channel_count, kMaxStateChannels);
  for (std::size_t i = 0; i < n; ++i) {
    if (!bits_equal(a.channels[i], b.channels[i])) return false;
  }
  return true;
}

bool bitwise_equal(const InputMessage& a, const InputMessage& b) noexcept {
  if (a.header.flags != b.header.flags || a.header.sequence != b.header.sequence ||
      a.header.step != b.header.step || !bits_equal(a.header.sim_time_s, b.header.sim_time_s) ||
      a.header.sender_time_ns != b.header.sender_time_ns || a.sample_count != b.sample_count) {
    return false;
  }
  const std::size_t n = std::min<std::size_t>(a.sample_count, kMaxInputSamples);
  for (std::size_t i = 0; i < n; ++i) {
    if (a.samples[i].channel != b.samples[i].channel ||
        !bits_equal(a.samples[i].value, b.samples[i].value)) {
      return false;
    }
  }
  return true;
}

std::size_t encode_state(const StateMessage& m, std::span<std::byte> out) noexcept {
  if (m.channel_count > kMaxStateChannels) return 0;
  const std::size_t size = state_datagram_bytes(m.channel_count);
  if (out.size() < size) return 0;
  store_header(out, MessageKind::kState, m.header, size - kHeaderBytes);

  // payload: fixed part, then the channel values
  const std::span<std::byte> p = out.subspan(kHeaderBytes, size - kHeaderBytes);
  store(p, state_offset::kStepFlags, m.step_flags);
  store(p, state_offset::kChannelCount, m.channel_count);
  store(p, state_offset::kReserved, std::uint16_t{0});
  store_f64(p, state_offset::kPositionDrift, m.position_drift);
  store_f64(p, state_offset::kVelocityDrift, m.velocity_drift);
  store_f64(p, state_offset::kEnergy, m.energy);
  store(p, state_offset::kEchoSequence, m.echo.sequence);
  store_i64(p, state_offset::kEchoSenderTime, m.echo.sender_time_ns);
  store(p, state_offset::kEchoStep, m.echo.applied_step);
  for (std::size_t i = 0; i < m.channel_count; ++i) {
    store_f64(p, state_offset::kChannels + 8 * i, m.channels[i]);
  }
  return size;
}

namespace {

// The input datagram of m: header (of `version`, announcing `trailer` more payload bytes) and
// payload; the trailer itself is the caller's.
std::size_t encode_input_body(const InputMessage& m,
                              std::uint16_t version,
                              std::size_t trailer,
                              std::span<std::byte> out) noexcept {
  if (m.sample_count == 0 || m.sample_count > kMaxInputSamples) return 0;
  const std::size_t size = input_datagram_bytes(m.sample_count);
  if (out.size() < size + trailer) return 0;
  store_header(out, MessageKind::kInput, m.header, size + trailer - kHeaderBytes, version);

  // payload: count, then the samples packed back to back
  const std::span<std::byte> p = out.subspan(kHeaderBytes, size - kHeaderBytes);
  store(p, input_offset::kSampleCount, m.sample_count);
  store(p, input_offset::kReserved, std::uint16_t{0});
  for (std::size_t i = 0; i < m.sample_count; ++i) {
    const std::size_t at = input_offset::kSamples + kInputSampleBytes * i;
    store(p, at + input_offset::kSampleChannel, m.samples[i].channel);
    store_f64(p, at + input_offset::kSampleValue, m.samples[i].value);
  }
  return size;
}

}  // namespace

std::size_t encode_input(const InputMessage& m, std::span<std::byte> out) noexcept {
  return encode_input_body(m, kWireVersion, 0, out);
}

std::size_t encode_input_v2(const InputMessage& m,
                            std::uint64_t session,
                            std::span<std::byte> out) noexcept {
  const std::size_t body = encode_input_body(m, kWireVersionAuthenticated, kInputTrailerBytes, out);
  if (body == 0) return 0;
  const std::span<std::byte> t = out.subspan(body, kInputTrailerBytes);
  store(t, trailer_offset::kSession, session);
  std::fill(t.begin() + trailer_offset::kTag, t.end(), std::byte{0});  // sign_input writes it
  return body + kInputTrailerBytes;
}

PacketStatus peek_session(std::span<const std::byte> datagram,
                          std::uint64_t& out_session) noexcept {
  MessageKind kind{};
  if (const PacketStatus s = check_frame(datagram, kind); s != PacketStatus::kOk) return s;
  if (load<std::uint16_t>(datagram, header_offset::kVersion) != kWireVersionAuthenticated) {
    return PacketStatus::kBadVersion;
  }
  if (kind != MessageKind::kInput) return PacketStatus::kBadKind;
  if (datagram.size() < kHeaderBytes + kInputTrailerBytes) return PacketStatus::kBadLength;
  out_session = load<std::uint64_t>(
      datagram, datagram.size() - kInputTrailerBytes + trailer_offset::kSession);
  return PacketStatus::kOk;
}

PacketStatus peek_kind(std::span<const std::byte> datagram, MessageKind& out_kind) noexcept {
  return check_frame(datagram, out_kind);
}

PacketStatus decode_state(std::span<const std::byte> datagram, StateMessage& out) noexcept {
  std::span<const std::byte> p;
  std::uint16_t count = 0;
  if (const PacketStatus s =
          read_message(datagram, kStateLayout, kWireVersion, out.header, p, count);
      s != PacketStatus::kOk) {
    return s;
  }

  // scalars; drift and energy are diagnostics and may legitimately be NaN ("not measured")
  out.step_flags = load<std::uint32_t>(p, state_offset::kStepFlags);
  out.position_drift = load_f64(p, state_offset::kPositionDrift);
  out.velocity_drift = load_f64(p, state_offset::kVelocityDrift);
  out.energy = load_f64(p, state_offset::kEnergy);
  out.echo.sequence = load<std::uint64_t>(p, state_offset::kEchoSequence);
  out.echo.sender_time_ns = load_i64(p, state_offset::kEchoSenderTime);
  out.echo.applied_step = load<std::uint64_t>(p, state_offset::kEchoStep);

  // channel values must be finite: a client may feed them straight into its own state
  out.channel_count = count;
  for (std::size_t i = 0; i < count; ++i) {
    out.channels[i] = load_f64(p, state_offset::kChannels + 8 * i);
    if (!std::isfinite(out.channels[i])) return PacketStatus::kNonFinite;
  }
  return PacketStatus::kOk;
}

namespace {

// decode_input and decode_input_v2: the same rules, on the bytes before the trailer
PacketStatus decode_input_of(std::span<const std::byte> datagram,
                             std::uint16_t version,
                             std::uint16_t channel_count,
                             InputMessage& out) noexcept {
  std::span<const std::byte> p;
  std::uint16_t count = 0;
  if (const PacketStatus s = read_message(datagram, kInputLayout, version, out.header, p, count);
      s != PacketStatus::kOk) {
    return s;
  }

  // samples in order: known channel, finite value, channel not named before in this datagram
  // (quadratic, but at most 64 * 63 / 2 comparisons and no table sized by the channel count)
  out.sample_count = count;
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t at = input_offset::kSamples + kInputSampleBytes * i;
    InputSample& s = out.samples[i];
    s.channel = load<std::uint16_t>(p, at + input_offset::kSampleChannel);
    s.value = load_f64(p, at + input_offset::kSampleValue);
    if (s.channel >= channel_count) return PacketStatus::kUnknownChannel;
    if (!std::isfinite(s.value)) return PacketStatus::kNonFinite;
    for (std::size_t j = 0; j < i; ++j) {
      if (out.samples[j].channel == s.channel) return PacketStatus::kRepeatedChannel;
    }
  }
  return PacketStatus::kOk;
}

}  // namespace

PacketStatus decode_input(std::span<const std::byte> datagram,
                          std::uint16_t channel_count,
                          InputMessage& out) noexcept {
  return decode_input_of(datagram, kWireVersion, channel_count, out);
}

PacketStatus decode_input_v2(std::span<const std::byte> datagram,
                             std::uint16_t channel_count,
                             InputMessage& out,
                             std::uint64_t& out_session) noexcept {
  const PacketStatus s = decode_input_of(datagram, kWireVersionAuthenticated, channel_count, out);
  if (s == PacketStatus::kOk) {
    out_session = load<std::uint64_t>(
        datagram, datagram.size() - kInputTrailerBytes + trailer_offset::kSession);
  }
  return s;
}

PacketStatus SequenceWindow::classify(std::uint64_t sequence) const noexcept {
  if (!started_ || sequence > newest_) return PacketStatus::kOk;
  const std::uint64_t behind = newest_ - sequence;
  if (behind < kSequenceWindow && ((seen_ >> behind) & 1u) != 0u) return PacketStatus::kDuplicate;
  return PacketStatus::kOutOfOrder;
}

PacketStatus SequenceWindow::admit(std::uint64_t sequence) noexcept {
  const PacketStatus s = classify(sequence);
  if (s != PacketStatus::kOk) return s;
  // slide the window so bit 0 is the new newest; older bits fall off after kSequenceWindow
  const std::uint64_t ahead = started_ ? sequence - newest_ : kSequenceWindow;
  seen_ = (ahead >= kSequenceWindow ? 0u : seen_ << ahead) | 1u;
  newest_ = sequence;
  started_ = true;
  return s;
}

InputSequencer::Slot& InputSequencer::slot_for(std::uint64_t sender) noexcept {
  // the sender's slot if it has one, else a free slot, else the least recently active one
  Slot* free_slot = nullptr;
  Slot* oldest = &slots_[0];
  for (Slot& s : slots_) {
    if (s.used && s.sender == sender) return s;
    if (!s.used && free_slot == nullptr) free_slot = &s;
    if (s.used && (!oldest->used || s.last_active < oldest->last_active)) oldest = &s;
  }
  Slot* slot = free_slot;
  if (slot == nullptr) {
    slot = oldest;
    ++evictions_;
  }
  *slot = Slot{};
  slot->sender = sender;
  slot->used = true;
  return *slot;
}

PacketStatus InputSequencer::admit(std::uint64_t sender, std::uint64_t sequence) noexcept {
  // recency counts accepted datagrams only, so replaying old ones cannot keep a sender's slot
  Slot& slot = slot_for(sender);
  const PacketStatus s = slot.window.admit(sequence);
  if (s == PacketStatus::kOk) slot.last_active = ++clock_;
  return s;
}

void InputSequencer::forget(std::uint64_t sender) noexcept {
  for (Slot& s : slots_) {
    if (s.used && s.sender == sender) s = Slot{};
  }
}

void InputSequencer::forget_matching(std::uint64_t key, std::uint64_t mask) noexcept {
  for (Slot& s : slots_) {
    if (s.used && (s.sender & mask) == (key & mask)) s = Slot{};
  }
}

std::size_t InputSequencer::sender_count() const noexcept {
  std::size_t n = 0;
  for (const Slot& s : slots_) n += s.used ? 1u : 0u;
  return n;
}

PacketStatus admit_input(std::span<const std::byte> datagram,
                         std::uint64_t sender,
                         std::uint16_t channel_count,
                         InputSequencer& sequencer,
                         PacketCounters& counters,
                         InputMessage& out,
                         bool sender_known,
                         bool within_rate) noexcept {
  PacketStatus s = decode_input(datagram, channel_count, out);
  if (s == PacketStatus::kOk && !sender_known) s = PacketStatus::kUnknownSender;
  if (s == PacketStatus::kOk && !within_rate) s = PacketStatus::kRateLimited;
  // only well-formed datagrams from known senders take part in sequencing, so neither garbage
  // nor a stranger can move a client's window
  if (s == PacketStatus::kOk) s = sequencer.admit(sender, out.header.sequence);
  counters.record(s);
  return s;
}

PacketStatus admit_state(std::span<const std::byte> datagram,
                         SequenceWindow& window,
                         PacketCounters& counters,
                         StateMessage& out) noexcept {
  PacketStatus s = decode_state(datagram, out);
  if (s == PacketStatus::kOk) s = window.admit(out.header.sequence);
  counters.record(s);
  return s;
}

}  // namespace rtmb
