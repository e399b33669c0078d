// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Datagrams as bytes for the wire tests (tests/net/wire_*_test.cpp): building, viewing and
// corrupting them, and one hand-written state and input datagram with their messages.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <vector>

#include "rtmb/net/wire.hpp"

namespace rtmb::testing {

using Bytes = std::vector<std::byte>;

inline Bytes bytes_of(std::initializer_list<int> values) {
  Bytes b;
  for (const int v : values) b.push_back(static_cast<std::byte>(v));
  return b;
}

inline std::span<const std::byte> view(const Bytes& b) {
  return {b.data(), b.size()};
}

inline Bytes encoded(const StateMessage& m) {
  Bytes b(kMaxDatagramBytes);
  b.resize(encode_state(m, b));
  return b;
}

inline Bytes encoded(const InputMessage& m) {
  Bytes b(kMaxDatagramBytes);
  b.resize(encode_input(m, b));
  return b;
}

/// An input datagram with sequence seq and one sample (channel, value), sent at 1000 ns.
inline Bytes input_datagram(std::uint64_t seq, std::uint16_t channel, double value) {
  InputMessage m;
  m.header.sequence = seq;
  m.header.sender_time_ns = 1000;
  m.sample_count = 1;
  m.samples[0] = {channel, value};
  return encoded(m);
}

inline double from_bits(std::uint64_t bits) {
  return std::bit_cast<double>(bits);
}

// Stores a little-endian value at a byte offset of a datagram, to corrupt one field.
template <typename U>
inline void poke(Bytes& b, std::size_t at, U value) {
  for (std::size_t i = 0; i < sizeof(U); ++i) {
    b[at + i] = static_cast<std::byte>((static_cast<std::uint64_t>(value) >> (8 * i)) & 0xFFu);
  }
}

// --- known byte vectors ---------------------------------------------------------------------
// Written by hand from the tables in docs/protocol.md, not produced by the encoder.

inline StateMessage known_state() {
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

inline const Bytes kKnownState = bytes_of({
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

inline InputMessage known_input() {
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

inline const Bytes kKnownInput = bytes_of({
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

}  // namespace rtmb::testing
