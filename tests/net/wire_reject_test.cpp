// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The UDP wire format: every rejection reason of the decoders, in its documented order.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "rtmb/net/wire.hpp"
#include "tests/support/wire_bytes.hpp"

namespace rtmb {
namespace {

using namespace rtmb::testing;  // NOLINT(google-build-using-namespace): test helpers

// --- rejection reasons ------------------------------------------------------------------------

PacketStatus decode_state_bytes(const Bytes& b) {
  StateMessage m;
  return decode_state(view(b), m);
}

PacketStatus decode_input_bytes(const Bytes& b, std::uint16_t channels = 300) {
  InputMessage m;
  return decode_input(view(b), channels, m);
}

// `base` with the u16 at byte `at` set to `value`.
Bytes with_u16(Bytes base, std::size_t at, std::uint16_t value) {
  poke<std::uint16_t>(base, at, value);
  return base;
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
  poke<std::uint16_t>(b, header_offset::kVersion, 3);
  b.resize(b.size() + 16);
  EXPECT_EQ(decode_state_bytes(b), PacketStatus::kBadVersion);
  // version 2 is known, but defines no state layout
  Bytes v2 = kKnownState;
  poke<std::uint16_t>(v2, header_offset::kVersion, 2);
  EXPECT_EQ(decode_state_bytes(v2), PacketStatus::kBadVersion);
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
  EXPECT_EQ(decode_input_bytes(with_u16(kKnownInput, kHeaderBytes + input_offset::kSampleCount, 3)),
            PacketStatus::kBadLength);
  EXPECT_EQ(
      decode_state_bytes(with_u16(kKnownState, kHeaderBytes + state_offset::kChannelCount, 1)),
      PacketStatus::kBadLength);

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
  constexpr auto kEchoValid = static_cast<std::uint16_t>(WireFlag::kEchoValid);
  constexpr PacketStatus kBad = PacketStatus::kBadReserved;
  EXPECT_EQ(decode_input_bytes(with_u16(kKnownInput, header_offset::kReserved, 1)), kBad);
  // inputs define no flags in version 1; states none above bit 2
  EXPECT_EQ(decode_input_bytes(with_u16(kKnownInput, header_offset::kFlags, kEchoValid)), kBad);
  EXPECT_EQ(decode_state_bytes(with_u16(kKnownState, header_offset::kFlags, 0x0008)), kBad);
  // the payloads' reserved fields
  EXPECT_EQ(
      decode_state_bytes(with_u16(kKnownState, kHeaderBytes + state_offset::kReserved, 0x8000)),
      kBad);
  EXPECT_EQ(decode_input_bytes(with_u16(kKnownInput, kHeaderBytes + input_offset::kReserved, 1)),
            kBad);
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
  // 654 <= kMaxPayloadBytes (668, the largest version 2 input): the count decides
  EXPECT_EQ(decode_input_bytes(big), PacketStatus::kBadCount);

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

}  // namespace
}  // namespace rtmb
