// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The UDP wire format: exact bytes of hand-written packets and bit-exact round trips. Rejections
// are wire_reject_test.cpp, sequencing and the receive path wire_sequencing_test.cpp.
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

#include "tests/support/wire_bytes.hpp"

namespace rtmb {
namespace {

using namespace rtmb::testing;  // NOLINT(google-build-using-namespace): test helpers

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
  EXPECT_EQ(encoded(in).size(), input_datagram_bytes(kMaxInputSamples));
  // version 2 inputs (a trailer more) are the largest datagrams
  std::array<std::byte, kMaxDatagramBytes> v2{};
  EXPECT_EQ(encode_input_v2(in, 7, v2), kMaxDatagramBytes);

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

}  // namespace
}  // namespace rtmb
