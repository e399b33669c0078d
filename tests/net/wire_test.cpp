// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The UDP wire format: exact bytes of hand-written packets, bit-exact round trips, every
// rejection reason in its documented order, sequencing, and a flood of garbage through the
// receive path with its counters.
#include "rtmb/net/wire.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace rtmb {
namespace {

using Bytes = std::vector<std::byte>;

Bytes bytes_of(std::initializer_list<int> values) {
  Bytes b;
  for (const int v : values) b.push_back(static_cast<std::byte>(v));
  return b;
}

std::span<const std::byte> view(const Bytes& b) {
  return {b.data(), b.size()};
}

Bytes encoded(const StateMessage& m) {
  Bytes b(kMaxDatagramBytes);
  b.resize(encode_state(m, b));
  return b;
}

Bytes encoded(const InputMessage& m) {
  Bytes b(kMaxDatagramBytes);
  b.resize(encode_input(m, b));
  return b;
}

double from_bits(std::uint64_t bits) {
  return std::bit_cast<double>(bits);
}

// Stores a little-endian value at a byte offset of a datagram, to corrupt one field.
template <typename U>
void poke(Bytes& b, std::size_t at, U value) {
  for (std::size_t i = 0; i < sizeof(U); ++i) {
    b[at + i] = static_cast<std::byte>((static_cast<std::uint64_t>(value) >> (8 * i)) & 0xFFu);
  }
}

// --- known byte vectors ---------------------------------------------------------------------
// Written by hand from the tables in docs/protocol.md, not produced by the encoder.

StateMessage known_state() {
  StateMessage m;
  m.header.flags = WireFlag::kEchoValid | WireFlag::kRestarted;
  m.header.sequence = 0x0102030405060708u;
  m.header.step = 1000;
  m.header.sim_time_s = 1.0;
  m.header.sender_time_ns = -2;
  m.step_flags = 5;  // kSingularKkt | kNonFinite
  m.position_drift = 0.5;
  m.velocity_drift = -0.0;
  m.energy = std::numeric_limits<double>::quiet_NaN();
  m.echo = {7, 123456789, 999};
  m.channel_count = 2;
  m.channels[0] = 2.0;
  m.channels[1] = -1.5;
  return m;
}

const Bytes kKnownState = bytes_of({
    // header
    0x52, 0x54, 0x4D, 0x42,                          // magic "RTMB"
    0x01, 0x00,                                      // version 1
    0x01, 0x00,                                      // kind 1 = state
    0x05, 0x00,                                      // flags: echo valid | restarted
    0x00, 0x00,                                      // reserved
    0x48, 0x00, 0x00, 0x00,                          // payload bytes 72 = 56 + 2 * 8
    0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,  // sequence 0x0102030405060708
    0xE8, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // step 1000
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF0, 0x3F,  // sim time 1.0 s
    0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,  // sender time -2 ns
    // payload
    0x05, 0x00, 0x00, 0x00,                          // step flags 5
    0x02, 0x00,                                      // channel count 2
    0x00, 0x00,                                      // reserved
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xE0, 0x3F,  // position drift 0.5
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80,  // velocity drift -0.0
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF8, 0x7F,  // energy: quiet NaN
    0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // echo sequence 7
    0x15, 0xCD, 0x5B, 0x07, 0x00, 0x00, 0x00, 0x00,  // echo sender time 123456789 ns
    0xE7, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // echo step 999
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40,  // channel 0: 2.0
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF8, 0xBF,  // channel 1: -1.5
});

InputMessage known_input() {
  InputMessage m;
  m.header.sequence = 42;
  m.header.step = 1000;
  m.header.sim_time_s = 0.25;
  m.header.sender_time_ns = 1'000'000'000;
  m.sample_count = 2;
  m.samples[0] = {3, 0.1};
  m.samples[1] = {258, -2.0};
  return m;
}

const Bytes kKnownInput = bytes_of({
    // header
    0x52, 0x54, 0x4D, 0x42,                          // magic "RTMB"
    0x01, 0x00,                                      // version 1
    0x02, 0x00,                                      // kind 2 = input
    0x00, 0x00,                                      // flags
    0x00, 0x00,                                      // reserved
    0x18, 0x00, 0x00, 0x00,                          // payload bytes 24 = 4 + 2 * 10
    0x2A, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // sequence 42
    0xE8, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // step 1000
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xD0, 0x3F,  // sim time 0.25 s
    0x00, 0xCA, 0x9A, 0x3B, 0x00, 0x00, 0x00, 0x00,  // sender time 1e9 ns
    // payload
    0x02, 0x00,                                      // sample count 2
    0x00, 0x00,                                      // reserved
    0x03, 0x00,                                      // sample 0: channel 3
    0x9A, 0x99, 0x99, 0x99, 0x99, 0x99, 0xB9, 0x3F,  //           value 0.1
    0x02, 0x01,                                      // sample 1: channel 258
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xC0,  //           value -2.0
});

TEST(WireKnownBytes, StateEncodesToHandWrittenBytes) {
  EXPECT_EQ(encoded(known_state()), kKnownState);
  EXPECT_EQ(kKnownState.size(), state_datagram_bytes(2));
}

TEST(WireKnownBytes, HandWrittenStateDecodes) {
  StateMessage m;
  ASSERT_EQ(decode_state(view(kKnownState), m), PacketStatus::kOk);
  EXPECT_TRUE(bitwise_equal(m, known_state()));
  EXPECT_TRUE(has_flag(m.header.flags, WireFlag::kEchoValid));
  EXPECT_FALSE(has_flag(m.header.flags, WireFlag::kPaused));
  EXPECT_TRUE(std::signbit(m.velocity_drift));
  EXPECT_TRUE(std::isnan(m.energy));
  EXPECT_EQ(m.echo.sender_time_ns, 123456789);
}

TEST(WireKnownBytes, InputEncodesToHandWrittenBytes) {
  EXPECT_EQ(encoded(known_input()), kKnownInput);
  EXPECT_EQ(kKnownInput.size(), input_datagram_bytes(2));
}

TEST(WireKnownBytes, HandWrittenInputDecodes) {
  InputMessage m;
  ASSERT_EQ(decode_input(view(kKnownInput), 259, m), PacketStatus::kOk);
  EXPECT_TRUE(bitwise_equal(m, known_input()));
  MessageKind kind{};
  EXPECT_EQ(peek_kind(view(kKnownInput), kind), PacketStatus::kOk);
  EXPECT_EQ(kind, MessageKind::kInput);
  EXPECT_EQ(peek_kind(view(kKnownState), kind), PacketStatus::kOk);
  EXPECT_EQ(kind, MessageKind::kState);
}

// --- round trips ------------------------------------------------------------------------------

// Doubles that stress a bit-exact path: signed zeros, denormals, extremes, and random patterns.
class ValueSource {
 public:
  explicit ValueSource(std::uint64_t seed) : rng_(seed) {}

  double finite() {
    static constexpr std::array<std::uint64_t, 10> kSpecial = {
        0x8000000000000000u,  // -0.0
        0x0000000000000000u,  // +0.0
        0x0000000000000001u,  // smallest denormal
        0x800FFFFFFFFFFFFFu,  // largest negative denormal
        0x0010000000000000u,  // smallest normal
        0x7FEFFFFFFFFFFFFFu,  // largest finite
        0xFFEFFFFFFFFFFFFFu,  // lowest finite
        0x3FF0000000000001u,  // 1 + ulp
        0x3FB999999999999Au,  // 0.1
        0xC00921FB54442D18u,  // -pi
    };
    const std::uint64_t pick = rng_() % 4;
    if (pick == 0) return from_bits(kSpecial[rng_() % kSpecial.size()]);
    if (pick == 1) return std::uniform_real_distribution<double>(-1e3, 1e3)(rng_);
    for (;;) {  // any finite bit pattern
      const double d = from_bits(rng_());
      if (std::isfinite(d)) return d;
    }
  }

  // diagnostics may be anything, including NaNs with payloads and infinities
  double any() {
    static constexpr std::array<std::uint64_t, 4> kNonFinite = {
        0x7FF8000000000000u, 0x7FF0000000000001u, 0xFFF4000000000123u, 0xFFF0000000000000u};
    return rng_() % 5 == 0 ? from_bits(kNonFinite[rng_() % kNonFinite.size()]) : finite();
  }

  std::uint64_t bits() { return rng_(); }

 private:
  std::mt19937_64 rng_;
};

MessageHeader random_header(ValueSource& v, std::uint16_t flag_mask) {
  MessageHeader h;
  h.flags = static_cast<std::uint16_t>(v.bits() & flag_mask);
  h.sequence = v.bits();
  h.step = v.bits();
  h.sim_time_s = v.finite();
  h.sender_time_ns = static_cast<std::int64_t>(v.bits());
  return h;
}

TEST(WireRoundTrip, StateIsBitExact) {
  ValueSource v(20240611);
  for (int trial = 0; trial < 2000; ++trial) {
    StateMessage m;
    m.header = random_header(v, kStateFlagMask);
    m.step_flags = static_cast<std::uint32_t>(v.bits());
    m.position_drift = v.any();
    m.velocity_drift = v.any();
    m.energy = v.any();
    m.echo = {v.bits(), static_cast<std::int64_t>(v.bits()), v.bits()};
    m.channel_count = static_cast<std::uint16_t>(v.bits() % (kMaxStateChannels + 1));
    for (std::size_t i = 0; i < m.channel_count; ++i) m.channels[i] = v.finite();

    const Bytes b = encoded(m);
    ASSERT_EQ(b.size(), state_datagram_bytes(m.channel_count));
    StateMessage back;
    ASSERT_EQ(decode_state(view(b), back), PacketStatus::kOk) << "trial " << trial;
    ASSERT_TRUE(bitwise_equal(back, m)) << "trial " << trial;
    // canonical: the decoded message encodes to the same bytes
    ASSERT_EQ(encoded(back), b) << "trial " << trial;
  }
}

TEST(WireRoundTrip, InputIsBitExact) {
  ValueSource v(77);
  for (int trial = 0; trial < 2000; ++trial) {
    InputMessage m;
    m.header = random_header(v, kInputFlagMask);
    m.sample_count = static_cast<std::uint16_t>(1 + v.bits() % kMaxInputSamples);
    // distinct channels: a shuffled prefix of 0..65534
    std::vector<std::uint16_t> channels(kMaxInputSamples);
    for (std::size_t i = 0; i < channels.size(); ++i) {
      channels[i] = static_cast<std::uint16_t>((v.bits() % 1024) * 64 + i);
    }
    for (std::size_t i = 0; i < m.sample_count; ++i) m.samples[i] = {channels[i], v.finite()};

    const Bytes b = encoded(m);
    ASSERT_EQ(b.size(), input_datagram_bytes(m.sample_count));
    InputMessage back;
    ASSERT_EQ(decode_input(view(b), 65535, back), PacketStatus::kOk) << "trial " << trial;
    ASSERT_TRUE(bitwise_equal(back, m)) << "trial " << trial;
    ASSERT_EQ(encoded(back), b) << "trial " << trial;
  }
}

TEST(WireRoundTrip, LargestMessagesFitTheDatagramLimit) {
  StateMessage s;
  s.channel_count = kMaxStateChannels;
  InputMessage in;
  in.sample_count = kMaxInputSamples;
  for (std::size_t i = 0; i < kMaxInputSamples; ++i)
    in.samples[i].channel = static_cast<std::uint16_t>(i);
  EXPECT_LE(encoded(s).size(), kMaxDatagramBytes);
  EXPECT_EQ(encoded(in).size(), kMaxDatagramBytes);  // inputs are the larger kind in version 1

  StateMessage s_back;
  InputMessage in_back;
  EXPECT_EQ(decode_state(view(encoded(s)), s_back), PacketStatus::kOk);
  EXPECT_EQ(decode_input(view(encoded(in)), kMaxInputSamples, in_back), PacketStatus::kOk);
}

TEST(WireRoundTrip, EncoderRefusesBadCountsAndShortBuffers) {
  std::array<std::byte, kMaxDatagramBytes> buf{};
  StateMessage s;
  s.channel_count = kMaxStateChannels + 1;
  EXPECT_EQ(encode_state(s, buf), 0u);
  s.channel_count = 3;
  EXPECT_EQ(encode_state(s, std::span(buf).first(state_datagram_bytes(3) - 1)), 0u);
  EXPECT_EQ(encode_state(s, std::span(buf).first(state_datagram_bytes(3))),
            state_datagram_bytes(3));

  InputMessage in;
  in.sample_count = 0;
  EXPECT_EQ(encode_input(in, buf), 0u);
  in.sample_count = kMaxInputSamples + 1;
  EXPECT_EQ(encode_input(in, buf), 0u);
  in.sample_count = 1;
  EXPECT_EQ(encode_input(in, std::span(buf).first(input_datagram_bytes(1) - 1)), 0u);
}

// --- rejection reasons ------------------------------------------------------------------------

PacketStatus decode_state_bytes(const Bytes& b) {
  StateMessage m;
  return decode_state(view(b), m);
}

PacketStatus decode_input_bytes(const Bytes& b, std::uint16_t channels = 300) {
  InputMessage m;
  return decode_input(view(b), channels, m);
}

TEST(WireReject, TruncatedHeaderIsTooShort) {
  for (std::size_t n = 0; n < kHeaderBytes; ++n) {
    const Bytes b(kKnownInput.begin(), kKnownInput.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_EQ(decode_input_bytes(b), PacketStatus::kTooShort) << n << " bytes";
    EXPECT_EQ(decode_state_bytes(b), PacketStatus::kTooShort) << n << " bytes";
  }
}

TEST(WireReject, WrongMagic) {
  Bytes b = kKnownInput;
  b[3] = std::byte{0x43};  // "RTMC"
  EXPECT_EQ(decode_input_bytes(b), PacketStatus::kBadMagic);
  Bytes swapped = kKnownState;
  poke<std::uint32_t>(swapped, header_offset::kMagic, 0x52544D42u);  // big-endian writer
  EXPECT_EQ(decode_state_bytes(swapped), PacketStatus::kBadMagic);
}

TEST(WireReject, WrongVersion) {
  for (const std::uint16_t version : {0, 2, 0x0100, 0xFFFF}) {
    Bytes b = kKnownInput;
    poke<std::uint16_t>(b, header_offset::kVersion, version);
    EXPECT_EQ(decode_input_bytes(b), PacketStatus::kBadVersion) << version;
  }
}

TEST(WireReject, VersionIsCheckedBeforeLength) {
  // a future version may be longer: its length must not be judged by this version's rules
  Bytes b = kKnownState;
  poke<std::uint16_t>(b, header_offset::kVersion, 2);
  b.resize(b.size() + 16);
  EXPECT_EQ(decode_state_bytes(b), PacketStatus::kBadVersion);
}

TEST(WireReject, LengthLargerOrSmallerThanDatagram) {
  Bytes larger = kKnownInput;
  poke<std::uint32_t>(larger, header_offset::kPayloadBytes, 25);
  EXPECT_EQ(decode_input_bytes(larger), PacketStatus::kBadLength);

  Bytes smaller = kKnownInput;
  poke<std::uint32_t>(smaller, header_offset::kPayloadBytes, 23);
  EXPECT_EQ(decode_input_bytes(smaller), PacketStatus::kBadLength);

  Bytes huge = kKnownState;
  poke<std::uint32_t>(huge, header_offset::kPayloadBytes, 0xFFFFFFFFu);
  EXPECT_EQ(decode_state_bytes(huge), PacketStatus::kBadLength);

  Bytes trailing = kKnownState;  // datagram longer than header + payload_bytes
  trailing.push_back(std::byte{0});
  EXPECT_EQ(decode_state_bytes(trailing), PacketStatus::kBadLength);

  Bytes cut = kKnownState;  // datagram truncated inside the payload
  cut.pop_back();
  EXPECT_EQ(decode_state_bytes(cut), PacketStatus::kBadLength);
}

TEST(WireReject, LengthOverMaximumEvenIfDatagramMatches) {
  Bytes b(kHeaderBytes + kMaxPayloadBytes + 1);
  std::copy_n(kKnownInput.begin(), kHeaderBytes, b.begin());
  poke<std::uint32_t>(b, header_offset::kPayloadBytes, kMaxPayloadBytes + 1);
  EXPECT_EQ(decode_input_bytes(b), PacketStatus::kBadLength);
}

TEST(WireReject, LengthDisagreesWithCount) {
  // header and datagram agree, but the payload's own count implies another size
  Bytes input = kKnownInput;
  poke<std::uint16_t>(input, kHeaderBytes + input_offset::kSampleCount, 3);
  EXPECT_EQ(decode_input_bytes(input), PacketStatus::kBadLength);

  Bytes state = kKnownState;
  poke<std::uint16_t>(state, kHeaderBytes + state_offset::kChannelCount, 1);
  EXPECT_EQ(decode_state_bytes(state), PacketStatus::kBadLength);

  Bytes stub = kKnownState;  // payload shorter than the state's fixed part
  stub.resize(kHeaderBytes + kStatePayloadFixedBytes - 1);
  poke<std::uint32_t>(stub, header_offset::kPayloadBytes, kStatePayloadFixedBytes - 1);
  EXPECT_EQ(decode_state_bytes(stub), PacketStatus::kBadLength);

  Bytes empty = kKnownInput;  // header only
  empty.resize(kHeaderBytes);
  poke<std::uint32_t>(empty, header_offset::kPayloadBytes, 0);
  EXPECT_EQ(decode_input_bytes(empty), PacketStatus::kBadLength);
}

TEST(WireReject, UnknownOrUnexpectedKind) {
  Bytes b = kKnownInput;
  poke<std::uint16_t>(b, header_offset::kKind, 3);
  EXPECT_EQ(decode_input_bytes(b), PacketStatus::kBadKind);
  MessageKind kind{};
  EXPECT_EQ(peek_kind(view(b), kind), PacketStatus::kBadKind);
  poke<std::uint16_t>(b, header_offset::kKind, 0);
  EXPECT_EQ(decode_input_bytes(b), PacketStatus::kBadKind);
  // a well-formed datagram of the other kind
  EXPECT_EQ(decode_input_bytes(kKnownState), PacketStatus::kBadKind);
  EXPECT_EQ(decode_state_bytes(kKnownInput), PacketStatus::kBadKind);
}

TEST(WireReject, ReservedFieldsAndUndefinedFlags) {
  Bytes header_reserved = kKnownInput;
  poke<std::uint16_t>(header_reserved, header_offset::kReserved, 1);
  EXPECT_EQ(decode_input_bytes(header_reserved), PacketStatus::kBadReserved);

  Bytes input_flag = kKnownInput;  // inputs define no flags in version 1
  poke<std::uint16_t>(input_flag, header_offset::kFlags,
                      static_cast<std::uint16_t>(WireFlag::kEchoValid));
  EXPECT_EQ(decode_input_bytes(input_flag), PacketStatus::kBadReserved);

  Bytes state_flag = kKnownState;
  poke<std::uint16_t>(state_flag, header_offset::kFlags, 0x0008);
  EXPECT_EQ(decode_state_bytes(state_flag), PacketStatus::kBadReserved);

  Bytes state_payload = kKnownState;
  poke<std::uint16_t>(state_payload, kHeaderBytes + state_offset::kReserved, 0x8000);
  EXPECT_EQ(decode_state_bytes(state_payload), PacketStatus::kBadReserved);

  Bytes input_payload = kKnownInput;
  poke<std::uint16_t>(input_payload, kHeaderBytes + input_offset::kReserved, 1);
  EXPECT_EQ(decode_input_bytes(input_payload), PacketStatus::kBadReserved);
}

TEST(WireReject, TooManyOrNoSamples) {
  InputMessage m = known_input();
  Bytes b = encoded(m);
  poke<std::uint16_t>(b, kHeaderBytes + input_offset::kSampleCount, kMaxInputSamples + 1);
  EXPECT_EQ(decode_input_bytes(b), PacketStatus::kBadCount);
  poke<std::uint16_t>(b, kHeaderBytes + input_offset::kSampleCount, 0);
  EXPECT_EQ(decode_input_bytes(b), PacketStatus::kBadCount);

  // a consistent datagram with 65 samples: length matches, count is over capacity
  Bytes big(input_datagram_bytes(kMaxInputSamples + 1));
  std::copy_n(kKnownInput.begin(), kHeaderBytes, big.begin());
  poke<std::uint32_t>(big, header_offset::kPayloadBytes, big.size() - kHeaderBytes);
  poke<std::uint16_t>(big, kHeaderBytes + input_offset::kSampleCount, kMaxInputSamples + 1);
  EXPECT_EQ(decode_input_bytes(big), PacketStatus::kBadLength);  // 654 > kMaxPayloadBytes

  Bytes state = kKnownState;
  poke<std::uint16_t>(state, kHeaderBytes + state_offset::kChannelCount, kMaxStateChannels + 1);
  EXPECT_EQ(decode_state_bytes(state), PacketStatus::kBadCount);
}

TEST(WireReject, NonFiniteValues) {
  const double kBad[] = {
      std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::signaling_NaN(),
      std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
  for (const double bad : kBad) {
    InputMessage in = known_input();
    in.samples[1].value = bad;
    EXPECT_EQ(decode_input_bytes(encoded(in)), PacketStatus::kNonFinite);

    in = known_input();
    in.header.sim_time_s = bad;
    EXPECT_EQ(decode_input_bytes(encoded(in)), PacketStatus::kNonFinite);

    StateMessage s = known_state();
    s.channels[0] = bad;
    EXPECT_EQ(decode_state_bytes(encoded(s)), PacketStatus::kNonFinite);

    s = known_state();
    s.header.sim_time_s = bad;
    EXPECT_EQ(decode_state_bytes(encoded(s)), PacketStatus::kNonFinite);

    // drift and energy are diagnostics: NaN means "not measured" and is passed on
    s = known_state();
    s.position_drift = bad;
    s.energy = bad;
    StateMessage back;
    EXPECT_EQ(decode_state(view(encoded(s)), back), PacketStatus::kOk);
    EXPECT_TRUE(bitwise_equal(back, s));
  }
}

TEST(WireReject, UnknownChannel) {
  // known_input names channels 3 and 258
  EXPECT_EQ(decode_input_bytes(kKnownInput, 259), PacketStatus::kOk);
  EXPECT_EQ(decode_input_bytes(kKnownInput, 258), PacketStatus::kUnknownChannel);
  EXPECT_EQ(decode_input_bytes(kKnownInput, 3), PacketStatus::kUnknownChannel);
  EXPECT_EQ(decode_input_bytes(kKnownInput, 0), PacketStatus::kUnknownChannel);
}

TEST(WireReject, RepeatedChannel) {
  InputMessage m = known_input();
  m.samples[1].channel = m.samples[0].channel;
  EXPECT_EQ(decode_input_bytes(encoded(m)), PacketStatus::kRepeatedChannel);
}

TEST(WireReject, FirstFailingRuleWins) {
  // several faults at once: the earliest rule of docs/protocol.md decides
  Bytes b = kKnownInput;
  poke<std::uint16_t>(b, header_offset::kVersion, 9);
  poke<std::uint32_t>(b, header_offset::kPayloadBytes, 1);
  poke<std::uint16_t>(b, header_offset::kKind, 77);
  EXPECT_EQ(decode_input_bytes(b), PacketStatus::kBadVersion);

  InputMessage m = known_input();
  m.header.flags = 1;
  m.header.sim_time_s = std::numeric_limits<double>::infinity();
  m.samples[0].channel = 999;
  EXPECT_EQ(decode_input_bytes(encoded(m)), PacketStatus::kBadReserved);

  m = known_input();
  m.samples[0].value = std::numeric_limits<double>::quiet_NaN();  // sample 0: bad value
  m.samples[1].channel = 999;                                     // sample 1: bad channel
  EXPECT_EQ(decode_input_bytes(encoded(m)), PacketStatus::kNonFinite);
  m.samples[0].channel = 999;  // within a sample, the channel is checked before the value
  EXPECT_EQ(decode_input_bytes(encoded(m)), PacketStatus::kUnknownChannel);
}

TEST(WireReject, StatusNamesAreDistinctSnakeCase) {
  std::vector<std::string_view> names;
  for (std::size_t i = 0; i < kPacketStatusCount; ++i) {
    const std::string_view n = to_string(static_cast<PacketStatus>(i));
    EXPECT_NE(n, "invalid");
    EXPECT_TRUE(std::all_of(n.begin(), n.end(), [](char c) {
      return c == '_' || (c >= 'a' && c <= 'z');
    })) << n;
    names.push_back(n);
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(std::adjacent_find(names.begin(), names.end()), names.end());
  EXPECT_EQ(to_string(PacketStatus::kOutOfOrder), "out_of_order");
}

// --- sequencing -------------------------------------------------------------------------------

TEST(PacketSequencer, InOrderWithGapsIsAccepted) {
  SequenceWindow w;
  EXPECT_FALSE(w.started());
  EXPECT_EQ(w.admit(1000), PacketStatus::kOk);  // any first number
  EXPECT_EQ(w.admit(1001), PacketStatus::kOk);
  EXPECT_EQ(w.admit(1005), PacketStatus::kOk);  // 1002..1004 lost
  EXPECT_EQ(w.newest(), 1005u);
}

TEST(PacketSequencer, DuplicatesAndLateOnesAreTold) {
  SequenceWindow w;
  for (const std::uint64_t s : {10u, 11u, 13u, 14u}) ASSERT_EQ(w.admit(s), PacketStatus::kOk);
  EXPECT_EQ(w.admit(14), PacketStatus::kDuplicate);   // the newest again
  EXPECT_EQ(w.admit(11), PacketStatus::kDuplicate);   // an older accepted one again
  EXPECT_EQ(w.admit(12), PacketStatus::kOutOfOrder);  // never seen, arrives after 13
  EXPECT_EQ(w.admit(12), PacketStatus::kOutOfOrder);  // late ones are never accepted
  EXPECT_EQ(w.admit(9), PacketStatus::kOutOfOrder);
  EXPECT_EQ(w.admit(15), PacketStatus::kOk);
  EXPECT_EQ(w.newest(), 15u);
}

TEST(PacketSequencer, WindowEdge) {
  SequenceWindow w;
  ASSERT_EQ(w.admit(100), PacketStatus::kOk);
  ASSERT_EQ(w.admit(100 + kSequenceWindow - 1), PacketStatus::kOk);
  EXPECT_EQ(w.classify(100), PacketStatus::kDuplicate);  // 63 behind: still remembered
  ASSERT_EQ(w.admit(100 + kSequenceWindow), PacketStatus::kOk);
  EXPECT_EQ(w.classify(100), PacketStatus::kOutOfOrder);              // 64 behind: too old to tell
  ASSERT_EQ(w.admit(100 + 10 * kSequenceWindow), PacketStatus::kOk);  // jump clears the window
  EXPECT_EQ(w.classify(100 + kSequenceWindow), PacketStatus::kOutOfOrder);
}

TEST(PacketSequencer, ExtremeSequenceNumbers) {
  SequenceWindow w;
  EXPECT_EQ(w.admit(0), PacketStatus::kOk);
  EXPECT_EQ(w.admit(0), PacketStatus::kDuplicate);
  const std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
  EXPECT_EQ(w.admit(top), PacketStatus::kOk);
  EXPECT_EQ(w.admit(top), PacketStatus::kDuplicate);
  EXPECT_EQ(w.admit(0), PacketStatus::kOutOfOrder);  // 64-bit numbers do not wrap
  w.reset();
  EXPECT_EQ(w.admit(0), PacketStatus::kOk);
}

TEST(PacketSequencer, SendersAreIndependent) {
  InputSequencer seq;
  EXPECT_EQ(seq.admit(1, 50), PacketStatus::kOk);
  EXPECT_EQ(seq.admit(2, 1), PacketStatus::kOk);  // a low number from another sender
  EXPECT_EQ(seq.admit(1, 49), PacketStatus::kOutOfOrder);
  EXPECT_EQ(seq.admit(2, 1), PacketStatus::kDuplicate);
  EXPECT_EQ(seq.sender_count(), 2u);

  seq.forget(1);  // e.g. the client said hello again: it may restart its numbering
  EXPECT_EQ(seq.sender_count(), 1u);
  EXPECT_EQ(seq.admit(1, 1), PacketStatus::kOk);
}

TEST(PacketSequencer, FullTableEvictsLeastRecentlyActive) {
  InputSequencer seq;
  for (std::uint64_t s = 0; s < kMaxInputSenders; ++s)
    ASSERT_EQ(seq.admit(s, 10), PacketStatus::kOk);
  ASSERT_EQ(seq.admit(0, 11), PacketStatus::kOk);    // sender 0 active again; 1 is now the oldest
  EXPECT_EQ(seq.admit(1000, 1), PacketStatus::kOk);  // evicts sender 1
  EXPECT_EQ(seq.evictions(), 1u);
  EXPECT_EQ(seq.sender_count(), kMaxInputSenders);
  EXPECT_EQ(seq.admit(0, 11), PacketStatus::kDuplicate);  // sender 0 kept its history
  EXPECT_EQ(seq.admit(1, 10), PacketStatus::kOk);         // sender 1 starts afresh (evicts 2)
  EXPECT_EQ(seq.admit(1000, 1), PacketStatus::kDuplicate);
  seq.clear();
  EXPECT_EQ(seq.sender_count(), 0u);
}

// --- receive path and counters ----------------------------------------------------------------

TEST(PacketCounters, AdmitInputCountsEachDatagramOnce) {
  InputSequencer seq;
  PacketCounters counters;
  InputMessage out;
  Bytes dup = kKnownInput;
  EXPECT_EQ(admit_input(view(dup), 7, 300, seq, counters, out), PacketStatus::kOk);
  EXPECT_EQ(admit_input(view(dup), 7, 300, seq, counters, out), PacketStatus::kDuplicate);
  EXPECT_EQ(admit_input(view(dup), 8, 300, seq, counters, out), PacketStatus::kOk);  // other sender
  EXPECT_EQ(admit_input(view(dup), 9, 10, seq, counters, out), PacketStatus::kUnknownChannel);
  Bytes older = kKnownInput;
  poke<std::uint64_t>(older, header_offset::kSequence, 41);
  EXPECT_EQ(admit_input(view(older), 7, 300, seq, counters, out), PacketStatus::kOutOfOrder);

  EXPECT_EQ(counters.received, 5u);
  EXPECT_EQ(counters.accepted(), 2u);
  EXPECT_EQ(counters.rejected(), 3u);
  EXPECT_EQ(counters.count(PacketStatus::kDuplicate), 1u);
  EXPECT_EQ(counters.count(PacketStatus::kOutOfOrder), 1u);
  EXPECT_EQ(counters.count(PacketStatus::kUnknownChannel), 1u);
  EXPECT_EQ(seq.sender_count(), 2u);  // a rejected datagram does not create a sender
}

TEST(PacketCounters, AdmitStateDropsStaleStates) {
  SequenceWindow window;
  PacketCounters counters;
  StateMessage out;
  StateMessage m = known_state();
  EXPECT_EQ(admit_state(view(encoded(m)), window, counters, out), PacketStatus::kOk);
  m.header.sequence -= 1;
  EXPECT_EQ(admit_state(view(encoded(m)), window, counters, out), PacketStatus::kOutOfOrder);
  EXPECT_EQ(admit_state(view(kKnownInput), window, counters, out), PacketStatus::kBadKind);
  EXPECT_EQ(counters.received, 3u);
  EXPECT_EQ(counters.accepted(), 1u);
}

// A mix of garbage, corrupted and valid traffic, as a hostile or broken network delivers it.
class Flood {
 public:
  explicit Flood(std::uint64_t seed) : rng_(seed) {}

  // One datagram and the sender it comes from. Corrupted traffic has its own sender: a flipped
  // bit in the sequence field can make a huge sequence number that is well-formed, and it would
  // otherwise make every later datagram of a clean sender out of order.
  struct Datagram {
    Bytes bytes;
    std::uint64_t sender = 0;
  };

  Datagram next() {
    switch (rng_() % 7) {
      case 0:
        return {garbage(), kNoisySender};
      case 1:
        return {with_header(garbage()), kNoisySender};
      case 2:
        return {flipped(valid_input()), kNoisySender};
      case 3:
        return {flipped(valid_state()), kNoisySender};
      case 4:
        return {valid_state(), rng_() % 4};
      case 5:
        return {poisoned_input(), rng_() % 4};
      default:
        return {valid_input(), rng_() % 4};
    }
  }

 private:
  Bytes garbage() {
    Bytes b(rng_() % (kMaxDatagramBytes + 64));
    for (std::byte& x : b) x = static_cast<std::byte>(rng_() & 0xFF);
    return b;
  }

  // garbage that gets past the magic, and sometimes past version and length
  Bytes with_header(Bytes b) {
    if (b.size() < kHeaderBytes) b.resize(kHeaderBytes + rng_() % 64);
    poke<std::uint32_t>(b, header_offset::kMagic, kWireMagic);
    if (rng_() % 2 == 0) poke<std::uint16_t>(b, header_offset::kVersion, kWireVersion);
    if (rng_() % 2 == 0) {
      poke<std::uint32_t>(b, header_offset::kPayloadBytes,
                          static_cast<std::uint32_t>(b.size() - kHeaderBytes));
    }
    return b;
  }

  Bytes flipped(Bytes b) {
    const std::size_t n = 1 + rng_() % 3;
    for (std::size_t i = 0; i < n; ++i)
      b[rng_() % b.size()] ^= static_cast<std::byte>(1u << (rng_() % 8));
    return b;
  }

  Bytes valid_input() {
    InputMessage m;
    m.header.sequence = rng_() % 200;  // small range: many duplicates and late arrivals
    m.sample_count = static_cast<std::uint16_t>(1 + rng_() % 4);
    for (std::size_t i = 0; i < m.sample_count; ++i) {
      m.samples[i] = {static_cast<std::uint16_t>(i * 3 + rng_() % 3),
                      static_cast<double>(rng_() % 100)};
    }
    return encoded(m);
  }

  // a well-formed input whose sample value or simulation time is NaN or Inf
  Bytes poisoned_input() {
    static constexpr std::array<double, 3> kPoison = {std::numeric_limits<double>::quiet_NaN(),
                                                      std::numeric_limits<double>::infinity(),
                                                      -std::numeric_limits<double>::infinity()};
    Bytes b = valid_input();
    const double poison = kPoison[rng_() % kPoison.size()];
    const std::size_t at = rng_() % 2 == 0
                               ? header_offset::kSimTime
                               : kHeaderBytes + input_offset::kSamples + input_offset::kSampleValue;
    poke<std::uint64_t>(b, at, std::bit_cast<std::uint64_t>(poison));
    return b;
  }

  Bytes valid_state() {
    StateMessage m;
    m.header.sequence = rng_() % 200;
    m.channel_count = static_cast<std::uint16_t>(rng_() % 5);
    return encoded(m);
  }

  static constexpr std::uint64_t kNoisySender = 99;
  std::mt19937_64 rng_;
};

TEST(WireFlood, EveryDatagramIsAcceptedOrCountedUnderOneReason) {
  constexpr int kDatagrams = 100'000;
  constexpr std::uint16_t kChannels = 10;
  Flood flood(12345);
  InputSequencer seq;
  SequenceWindow state_window;
  PacketCounters inputs;
  PacketCounters states;
  for (int i = 0; i < kDatagrams; ++i) {
    const auto [b, sender] = flood.next();

    // the server's input socket
    const PacketCounters before = inputs;
    InputMessage in;
    // clean senders are 0..3: sender 0 never said hello (its well-formed datagrams are
    // unknown_sender) and sender 3 is over its rate limit (rate_limited)
    const bool known = sender != 0;
    const bool within_rate = sender != 3;
    const PacketStatus s =
        admit_input(view(b), sender, kChannels, seq, inputs, in, known, within_rate);
    ASSERT_EQ(inputs.received, before.received + 1);
    for (std::size_t k = 0; k < kPacketStatusCount; ++k) {
      const std::uint64_t expected =
          before.by_status[k] + (k == static_cast<std::size_t>(s) ? 1 : 0);
      ASSERT_EQ(inputs.by_status[k], expected) << "datagram " << i << " status " << to_string(s);
    }
    if (s == PacketStatus::kOk) {
      // nothing non-finite or out of range gets through to the simulation
      ASSERT_GE(in.sample_count, 1);
      ASSERT_LE(in.sample_count, kMaxInputSamples);
      for (std::size_t k = 0; k < in.sample_count; ++k) {
        ASSERT_LT(in.samples[k].channel, kChannels);
        ASSERT_TRUE(std::isfinite(in.samples[k].value));
      }
    }

    // a client's state socket, fed the same traffic
    StateMessage st;
    const PacketStatus t = admit_state(view(b), state_window, states, st);
    if (t == PacketStatus::kOk) {
      ASSERT_LE(st.channel_count, kMaxStateChannels);
      for (std::size_t k = 0; k < st.channel_count; ++k) ASSERT_TRUE(std::isfinite(st.channels[k]));
    }
  }

  for (const PacketCounters& c : {inputs, states}) {
    std::uint64_t sum = 0;
    for (const std::uint64_t n : c.by_status) sum += n;
    EXPECT_EQ(c.received, static_cast<std::uint64_t>(kDatagrams));
    EXPECT_EQ(sum, c.received);
    EXPECT_EQ(c.accepted() + c.rejected(), c.received);
  }
  // the mix reaches every input rejection reason, and acceptance
  for (std::size_t k = 0; k < kPacketStatusCount; ++k) {
    EXPECT_GT(inputs.by_status[k], 0u) << to_string(static_cast<PacketStatus>(k));
  }
  EXPECT_GT(states.accepted(), 0u);
}

}  // namespace
}  // namespace rtmb
