// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// net/input_auth: the tag of a version 2 input is the first 16 bytes of HMAC-SHA-512 (RFC 2104,
// libsodium's HMAC-SHA-512-256 truncated further) over everything before it, checked against a
// value computed independently (Python's hmac module); any changed byte or another key fails;
// the hex forms of the hello reply round-trip and refuse malformed text.
#include "net/input_auth.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "rtmb/net/wire.hpp"

namespace rtmb {
namespace {

SessionKey counting_key() {
  SessionKey k{};
  for (std::size_t i = 0; i < k.size(); ++i) k[i] = static_cast<std::uint8_t>(i);
  return k;
}

// 62 bytes 0, 1, ..., 61, the session id 0x0102030405060708 little-endian, a zero tag
std::vector<std::byte> counting_datagram() {
  std::vector<std::byte> d;
  for (int i = 0; i < 62; ++i) d.push_back(static_cast<std::byte>(i));
  for (int i = 0; i < 8; ++i) d.push_back(static_cast<std::byte>(8 - i));
  d.resize(d.size() + kInputTagBytes);
  return d;
}

TEST(InputAuth, TagIsTruncatedHmacSha512OfEverythingBeforeIt) {
  init_crypto();
  std::vector<std::byte> d = counting_datagram();
  sign_input(d, counting_key());
  // python3 -c "import hmac,hashlib; key=bytes(range(32)); data=bytes(range(62))+
  //   (0x0102030405060708).to_bytes(8,'little'); print(hmac.new(key,data,hashlib.sha512)
  //   .hexdigest()[:32])"
  const std::string expected = "bf72be21af90bc0390b40261a3fae78b";
  std::string tag;
  for (std::size_t i = d.size() - kInputTagBytes; i < d.size(); ++i) {
    constexpr char kDigits[] = "0123456789abcdef";
    const auto b = std::to_integer<unsigned>(d[i]);
    tag += kDigits[b >> 4];
    tag += kDigits[b & 0xF];
  }
  EXPECT_EQ(tag, expected);
  EXPECT_TRUE(input_mac_valid(d, counting_key()));
  // the receiver's form: the key absorbed once, then checked many times (the state is copied,
  // never consumed)
  const InputMacKey keyed = input_mac_key(counting_key());
  EXPECT_TRUE(input_mac_valid(d, keyed));
  EXPECT_TRUE(input_mac_valid(d, keyed));
}

// docs/protocol.md, "Wire version 2", Example: encode_input_v2 + sign_input give the dump there.
TEST(InputAuth, ProtocolExampleDatagram) {
  init_crypto();
  InputMessage m;
  m.header.sequence = 7;
  m.header.sender_time_ns = 1000;
  m.sample_count = 1;
  m.samples[0] = InputSample{0, 0.5};
  std::vector<std::byte> d(kMaxDatagramBytes);
  d.resize(encode_input_v2(m, 0x0102030405060708u, d));
  ASSERT_EQ(d.size(), input_v2_datagram_bytes(1));
  sign_input(d, counting_key());
  const std::vector<int> expected{
      0x52, 0x54, 0x4d, 0x42, 0x02, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x26, 0x00, 0x00,
      0x00, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xe8, 0x03, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0xe0, 0x3f, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, 0x3b, 0x46, 0x5a, 0x9f, 0x03,
      0xff, 0x1a, 0x3b, 0xbd, 0xac, 0x6a, 0xf3, 0x66, 0x09, 0x84, 0xd9};
  ASSERT_EQ(d.size(), expected.size());
  for (std::size_t i = 0; i < d.size(); ++i) {
    EXPECT_EQ(std::to_integer<int>(d[i]), expected[i]) << "byte " << i;
  }
  // and it decodes: the version 1 payload, its session
  InputMessage back;
  std::uint64_t session = 0;
  ASSERT_EQ(decode_input_v2(d, 2, back, session), PacketStatus::kOk);
  EXPECT_TRUE(bitwise_equal(back, m));
  EXPECT_EQ(session, 0x0102030405060708u);
  std::uint64_t peeked = 0;
  EXPECT_EQ(peek_session(d, peeked), PacketStatus::kOk);
  EXPECT_EQ(peeked, session);
  // the version 1 decoder refuses it, as the version 2 one refuses a version 1 input
  EXPECT_EQ(decode_input(d, 2, back), PacketStatus::kBadVersion);
  std::vector<std::byte> v1(kMaxDatagramBytes);
  v1.resize(encode_input(m, v1));
  EXPECT_EQ(decode_input_v2(v1, 2, back, session), PacketStatus::kBadVersion);
  EXPECT_EQ(peek_session(v1, peeked), PacketStatus::kBadVersion);
  // a version 2 state does not exist
  d[6] = std::byte{1};
  EXPECT_EQ(peek_session(d, peeked), PacketStatus::kBadVersion);
}

TEST(InputAuth, AnyChangedByteOrAnotherKeyFailsTheCheck) {
  init_crypto();
  std::vector<std::byte> d = counting_datagram();
  const SessionKey key = counting_key();
  sign_input(d, key);
  for (std::size_t i = 0; i < d.size(); ++i) {
    std::vector<std::byte> changed = d;
    changed[i] ^= std::byte{0x01};
    EXPECT_FALSE(input_mac_valid(changed, key)) << "byte " << i;
    EXPECT_FALSE(input_mac_valid(changed, input_mac_key(key))) << "byte " << i;
  }
  SessionKey other = key;
  other[31] ^= 0x01;
  EXPECT_FALSE(input_mac_valid(d, other));
  EXPECT_FALSE(input_mac_valid(d, input_mac_key(other)));
  // too short to hold a trailer: never valid, and signing it changes nothing
  std::vector<std::byte> tiny(kInputTrailerBytes - 1);
  sign_input(tiny, key);
  EXPECT_EQ(tiny, std::vector<std::byte>(kInputTrailerBytes - 1));
  EXPECT_FALSE(input_mac_valid(tiny, key));
}

TEST(InputAuth, RandomKeysAndSessionsDiffer) {
  init_crypto();
  EXPECT_NE(random_session_key(), random_session_key());
  const std::uint64_t a = random_session_id();
  EXPECT_NE(a, 0u);
  EXPECT_NE(a, random_session_id());
}

TEST(InputAuth, HexFormsRoundTripAndRefuseMalformedText) {
  const SessionKey key = counting_key();
  const std::string hex = to_hex(key);
  EXPECT_EQ(hex.substr(0, 8), "00010203");
  EXPECT_EQ(hex.size(), 64u);
  SessionKey back{};
  ASSERT_TRUE(key_from_hex(hex, back));
  EXPECT_EQ(back, key);
  SessionKey untouched{};
  EXPECT_FALSE(key_from_hex(hex.substr(1), untouched));             // 63 digits
  EXPECT_FALSE(key_from_hex("zz" + hex.substr(2), untouched));      // not hex
  EXPECT_FALSE(key_from_hex(hex.substr(0, 62) + "0g", untouched));  // last digit not hex
  EXPECT_FALSE(key_from_hex(hex.substr(0, 62) + " 0", untouched));  // a space
  SessionKey upper{};
  std::string upper_hex = hex;
  for (char& c : upper_hex) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  ASSERT_TRUE(key_from_hex(upper_hex, upper));
  EXPECT_EQ(upper, key);
  EXPECT_EQ(untouched, SessionKey{});

  EXPECT_EQ(session_to_hex(0x0102030405060708u), "0102030405060708");
  std::uint64_t s = 0;
  ASSERT_TRUE(session_from_hex("0102030405060708", s));
  EXPECT_EQ(s, 0x0102030405060708u);
  ASSERT_TRUE(session_from_hex("1ab", s));  // fewer than 16 digits: leading zeros implied
  EXPECT_EQ(s, 0x1abu);
  ASSERT_TRUE(session_from_hex("FFFFFFFFFFFFFFFF", s));
  EXPECT_EQ(s, ~std::uint64_t{0});
  s = 7;
  EXPECT_FALSE(session_from_hex("", s));
  EXPECT_FALSE(session_from_hex("1ffffffffffffffff", s));  // 17 digits
  EXPECT_FALSE(session_from_hex("12g4", s));
  EXPECT_FALSE(session_from_hex("12 4", s));
  EXPECT_EQ(s, 7u);
}

}  // namespace
}  // namespace rtmb
