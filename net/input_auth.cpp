// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Version 2 input authentication (net/input_auth.hpp) on libsodium.
#include "net/input_auth.hpp"

#include <sodium.h>

#include <algorithm>
#include <array>
#include <stdexcept>

namespace rtmb {

static_assert(kSessionKeyBytes == crypto_auth_hmacsha512256_KEYBYTES);
static_assert(kInputTagBytes <= crypto_auth_hmacsha512256_BYTES);

namespace {

// The full 32-byte HMAC-SHA-512-256 of the datagram's bytes before its tag.
void full_tag(std::span<const std::byte> datagram,
              const SessionKey& key,
              std::array<unsigned char, crypto_auth_hmacsha512256_BYTES>& out) noexcept {
  crypto_auth_hmacsha512256_state state;
  (void)crypto_auth_hmacsha512256_init(&state, key.data(), key.size());
  (void)crypto_auth_hmacsha512256_update(&state,
                                         reinterpret_cast<const unsigned char*>(datagram.data()),
                                         datagram.size() - kInputTagBytes);
  (void)crypto_auth_hmacsha512256_final(&state, out.data());
  sodium_memzero(&state, sizeof state);
}

[[nodiscard]] int hex_digit(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

constexpr char kHexDigits[] = "0123456789abcdef";

}  // namespace

void init_crypto() {
  // 0: initialised now, 1: already; -1: failure (e.g. no entropy source)
  if (sodium_init() < 0) throw std::runtime_error("libsodium could not be initialised");
}

SessionKey random_session_key() {
  SessionKey key{};
  crypto_auth_hmacsha512256_keygen(key.data());
  return key;
}

std::uint64_t random_session_id() {
  std::uint64_t id = 0;
  while (id == 0) randombytes_buf(&id, sizeof id);
  return id;
}

void sign_input(std::span<std::byte> datagram, const SessionKey& key) noexcept {
  if (datagram.size() < kInputTrailerBytes) return;
  std::array<unsigned char, crypto_auth_hmacsha512256_BYTES> tag{};
  full_tag(datagram, key, tag);
  std::transform(tag.begin(), tag.begin() + kInputTagBytes,
                 datagram.end() - static_cast<std::ptrdiff_t>(kInputTagBytes),
                 [](unsigned char b) { return static_cast<std::byte>(b); });
}

bool input_mac_valid(std::span<const std::byte> datagram, const SessionKey& key) noexcept {
  if (datagram.size() < kInputTrailerBytes) return false;
  std::array<unsigned char, crypto_auth_hmacsha512256_BYTES> tag{};
  full_tag(datagram, key, tag);
  // constant time, so that the time of a rejection tells a forger nothing about the tag
  return sodium_memcmp(tag.data(), datagram.data() + (datagram.size() - kInputTagBytes),
                       kInputTagBytes) == 0;
}

std::string to_hex(const SessionKey& key) {
  std::string s;
  s.reserve(2 * key.size());
  for (const std::uint8_t b : key) {
    s += kHexDigits[b >> 4];
    s += kHexDigits[b & 0xF];
  }
  return s;
}

std::string session_to_hex(std::uint64_t session) {
  std::string s(16, '0');
  for (std::size_t i = 0; i < 16; ++i) s[15 - i] = kHexDigits[(session >> (4 * i)) & 0xF];
  return s;
}

bool key_from_hex(std::string_view hex, SessionKey& out) noexcept {
  if (hex.size() != 2 * out.size()) return false;
  SessionKey k{};
  for (std::size_t i = 0; i < k.size(); ++i) {
    const int hi = hex_digit(hex[2 * i]);
    const int lo = hex_digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    k[i] = static_cast<std::uint8_t>(hi * 16 + lo);
  }
  out = k;
  return true;
}

bool session_from_hex(std::string_view hex, std::uint64_t& out) noexcept {
  if (hex.empty() || hex.size() > 16) return false;
  std::uint64_t v = 0;
  for (const char c : hex) {
    const int d = hex_digit(c);
    if (d < 0) return false;
    v = (v << 4) | static_cast<std::uint64_t>(d);
  }
  out = v;
  return true;
}

}  // namespace rtmb
