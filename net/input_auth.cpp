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

// The full 32-byte HMAC-SHA-512-256 of the datagram's bytes before its tag, from a keyed state.
void full_tag(std::span<const std::byte> datagram,
              const InputMacKey& key,
              std::array<unsigned char, crypto_auth_hmacsha512256_BYTES>& out) noexcept {
  crypto_auth_hmacsha512256_state state = key.state;
  (void)crypto_auth_hmacsha512256_update(&state,
                                         reinterpret_cast<const unsigned char*>(datagram.data()),
                                         datagram.size() - kInputTagBytes);
  (void)crypto_auth_hmacsha512256_final(&state, out.data());
  sodium_memzero(&state, sizeof state);
}

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

InputMacKey input_mac_key(const SessionKey& key) noexcept {
  InputMacKey k;
  (void)crypto_auth_hmacsha512256_init(&k.state, key.data(), key.size());
  return k;
}

void sign_input(std::span<std::byte> datagram, const SessionKey& key) noexcept {
  if (datagram.size() < kInputTrailerBytes) return;
  std::array<unsigned char, crypto_auth_hmacsha512256_BYTES> tag{};
  InputMacKey keyed = input_mac_key(key);
  full_tag(datagram, keyed, tag);
  sodium_memzero(&keyed, sizeof keyed);
  std::transform(tag.begin(), tag.begin() + kInputTagBytes,
                 datagram.end() - static_cast<std::ptrdiff_t>(kInputTagBytes),
                 [](unsigned char b) { return static_cast<std::byte>(b); });
}

bool input_mac_valid(std::span<const std::byte> datagram, const SessionKey& key) noexcept {
  InputMacKey keyed = input_mac_key(key);
  const bool valid = input_mac_valid(datagram, keyed);
  sodium_memzero(&keyed, sizeof keyed);
  return valid;
}

bool input_mac_valid(std::span<const std::byte> datagram, const InputMacKey& key) noexcept {
  if (datagram.size() < kInputTrailerBytes) return false;
  std::array<unsigned char, crypto_auth_hmacsha512256_BYTES> tag{};
  full_tag(datagram, key, tag);
  // constant time, so that the time of a rejection tells a forger nothing about the tag
  return sodium_memcmp(tag.data(), datagram.data() + (datagram.size() - kInputTagBytes),
                       kInputTagBytes) == 0;
}

// The hex codecs are libsodium's: sodium_hex2bin runs in constant time for the key's digits.
std::string to_hex(const SessionKey& key) {
  std::array<char, 2 * kSessionKeyBytes + 1> text{};
  sodium_bin2hex(text.data(), text.size(), key.data(), key.size());
  return std::string(text.data(), 2 * kSessionKeyBytes);
}

std::string session_to_hex(std::uint64_t session) {
  std::array<unsigned char, 8> bytes{};  // big-endian: the digits read as the number
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    bytes[i] = static_cast<unsigned char>(session >> (8 * (bytes.size() - 1 - i)));
  }
  std::array<char, 17> text{};
  sodium_bin2hex(text.data(), text.size(), bytes.data(), bytes.size());
  return std::string(text.data(), 16);
}

bool key_from_hex(std::string_view hex, SessionKey& out) noexcept {
  if (hex.size() != 2 * out.size()) return false;
  SessionKey k{};
  std::size_t n = 0;
  const char* end = nullptr;
  // no ignored characters: every one of the 64 must be a digit
  if (sodium_hex2bin(k.data(), k.size(), hex.data(), hex.size(), nullptr, &n, &end) != 0 ||
      n != k.size() || end != hex.data() + hex.size()) {
    return false;
  }
  out = k;
  return true;
}

bool session_from_hex(std::string_view hex, std::uint64_t& out) noexcept {
  if (hex.empty() || hex.size() > 16) return false;
  std::array<char, 16> padded{};  // left-padded with '0' to 16 digits, 8 bytes
  std::fill(padded.begin(), padded.end(), '0');
  std::copy(hex.begin(), hex.end(), padded.end() - static_cast<std::ptrdiff_t>(hex.size()));
  std::array<unsigned char, 8> bytes{};
  std::size_t n = 0;
  const char* end = nullptr;
  if (sodium_hex2bin(bytes.data(), bytes.size(), padded.data(), padded.size(), nullptr, &n, &end) !=
          0 ||
      n != bytes.size() || end != padded.data() + padded.size()) {
    return false;
  }
  std::uint64_t v = 0;
  for (const unsigned char b : bytes) v = (v << 8) | b;
  out = v;
  return true;
}

}  // namespace rtmb
