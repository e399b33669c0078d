// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Authentication of version 2 input datagrams (docs/protocol.md, "Wire version 2"), on
// libsodium. The tag is HMAC-SHA-512-256 (crypto_auth_hmacsha512256, RFC 2104 over SHA-512,
// truncated to 256 bits by libsodium) over every byte of the datagram before the tag: header,
// payload and session id. Only its first kInputTagBytes (16) travel: a 128-bit tag, as
// RFC 2104 section 5 allows (truncation to no less than half the hash output and 80 bits), so
// that a forger's chance is 2^-128 per datagram.
//
// sign_input and input_mac_valid run on the client's send path and on the server's simulation
// thread: they keep the HMAC state on the stack and never allocate, lock, log or throw.
// init_crypto (sodium_init) must have run once before (server and client setup call it).
//
// HMAC(K, m) = H((K ^ opad) || H((K ^ ipad) || m)) (RFC 2104 section 2): the two pads depend on
// the key only, so a receiver that checks many datagrams under one key absorbs them once
// (InputMacKey, made when the session appears) and per datagram hashes only the message and the
// outer block: two SHA-512 compressions fewer than keying afresh, about 40 % of the check.

#include <sodium.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "rtmb/net/wire.hpp"

namespace rtmb {

/// sodium_init(): picks the fastest implementations and seeds the random generator. Idempotent
/// and thread-safe; call at setup, off the real-time path. Throws std::runtime_error if libsodium
/// cannot initialise.
void init_crypto();

/// A fresh random session key (randombytes_buf, the OS's CSPRNG). Needs init_crypto.
[[nodiscard]] SessionKey random_session_key();
/// A fresh random, nonzero session id. Needs init_crypto.
[[nodiscard]] std::uint64_t random_session_id();

/// Writes the tag of a version 2 input datagram (as encode_input_v2 left it) into its last
/// kInputTagBytes. Does nothing if the datagram is shorter than a trailer. RT-safe.
void sign_input(std::span<std::byte> datagram, const SessionKey& key) noexcept;

/// A session key with its HMAC pads absorbed (the state after crypto_auth_hmacsha512256_init):
/// what a receiver keeps per session. Plain data, copied per check.
struct InputMacKey {
  crypto_auth_hmacsha512256_state state;
};

/// The keyed HMAC state of key. RT-safe (no allocation; two SHA-512 compressions).
[[nodiscard]] InputMacKey input_mac_key(const SessionKey& key) noexcept;

/// Whether the datagram's last kInputTagBytes are the tag of the bytes before them under key,
/// compared in constant time (sodium_memcmp). False if it is shorter than a trailer. RT-safe.
[[nodiscard]] bool input_mac_valid(std::span<const std::byte> datagram,
                                   const InputMacKey& key) noexcept;
/// The same, keying afresh (clients and tests; a receiver keeps an InputMacKey instead).
[[nodiscard]] bool input_mac_valid(std::span<const std::byte> datagram,
                                   const SessionKey& key) noexcept;

/// Lowercase hex of the key (64 characters), for the hello reply.
[[nodiscard]] std::string to_hex(const SessionKey& key);
/// Lowercase hex of a session id (16 characters, big-endian digits), for the hello reply.
[[nodiscard]] std::string session_to_hex(std::uint64_t session);
/// Parses to_hex's output; false (out untouched) unless exactly 64 hex digits.
[[nodiscard]] bool key_from_hex(std::string_view hex, SessionKey& out) noexcept;
/// Parses session_to_hex's output; false (out untouched) unless 1 to 16 hex digits.
[[nodiscard]] bool session_from_hex(std::string_view hex, std::uint64_t& out) noexcept;

}  // namespace rtmb
