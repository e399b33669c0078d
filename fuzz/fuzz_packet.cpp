// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// libFuzzer target for the UDP datagram decoders (include/rtmb/net/wire.hpp). Each input is one
// datagram, decoded as a state and as an input. Besides crashes and sanitizer reports it checks
// the properties the server relies on:
//   - an accepted datagram re-encodes to exactly the same bytes (the encoding is canonical);
//   - nothing accepted holds a non-finite value, an unknown or repeated channel, or a count over
//     capacity;
//   - peek_kind and the decoders agree on rules 1-5;
//   - the receive path counts every datagram exactly once;
//   - a version 2 input that decodes re-encodes to the same bytes but its tag, and its session
//     is what peek_session reads (the MAC itself is libsodium's, net/input_auth.cpp, and is not
//     compiled here: the fuzzer steers by the framing, which is ours).
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "rtmb/net/wire.hpp"

namespace {

// A model with this many input channels: samples naming 300 or more are unknown.
constexpr std::uint16_t kChannels = 300;

void require(bool condition) {
  if (!condition) std::abort();
}

void check_state(std::span<const std::byte> d, const rtmb::StateMessage& m) {
  require(m.channel_count <= rtmb::kMaxStateChannels);
  for (std::size_t i = 0; i < m.channel_count; ++i) require(std::isfinite(m.channels[i]));
  require(std::isfinite(m.header.sim_time_s));
  std::array<std::byte, rtmb::kMaxDatagramBytes> out{};
  const std::size_t n = rtmb::encode_state(m, out);
  require(n == d.size());
  for (std::size_t i = 0; i < n; ++i) require(out[i] == d[i]);
}

void check_input_samples(const rtmb::InputMessage& m) {
  require(m.sample_count >= 1 && m.sample_count <= rtmb::kMaxInputSamples);
  for (std::size_t i = 0; i < m.sample_count; ++i) {
    require(m.samples[i].channel < kChannels);
    require(std::isfinite(m.samples[i].value));
    for (std::size_t j = 0; j < i; ++j) require(m.samples[j].channel != m.samples[i].channel);
  }
}

void check_input(std::span<const std::byte> d, const rtmb::InputMessage& m) {
  check_input_samples(m);
  std::array<std::byte, rtmb::kMaxDatagramBytes> out{};
  const std::size_t n = rtmb::encode_input(m, out);
  require(n == d.size());
  for (std::size_t i = 0; i < n; ++i) require(out[i] == d[i]);
}

void check_input_v2(std::span<const std::byte> d,
                    const rtmb::InputMessage& m,
                    std::uint64_t session) {
  check_input_samples(m);
  std::array<std::byte, rtmb::kMaxDatagramBytes> out{};
  const std::size_t n = rtmb::encode_input_v2(m, session, out);
  require(n == d.size());
  for (std::size_t i = 0; i + rtmb::kInputTagBytes < n; ++i) require(out[i] == d[i]);
  std::uint64_t peeked = 0;
  require(rtmb::peek_session(d, peeked) == rtmb::PacketStatus::kOk && peeked == session);
}

// Rules 1-5 are shared: where peek_kind fails, both decoders fail the same way; where it
// succeeds, the decoder of the other kind reports bad_kind.
void check_agreement(rtmb::PacketStatus peek,
                     rtmb::MessageKind kind,
                     rtmb::PacketStatus state,
                     rtmb::PacketStatus input) {
  using rtmb::PacketStatus;
  if (peek != PacketStatus::kOk) {
    require(state == peek && input == peek);
  } else if (kind == rtmb::MessageKind::kState) {
    require(input == PacketStatus::kBadKind && state != PacketStatus::kBadKind);
  } else {
    require(state == PacketStatus::kBadKind && input != PacketStatus::kBadKind);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> d = std::as_bytes(std::span(data, size));

  rtmb::StateMessage state;
  const rtmb::PacketStatus s = rtmb::decode_state(d, state);
  if (s == rtmb::PacketStatus::kOk) check_state(d, state);

  rtmb::InputMessage input;
  const rtmb::PacketStatus in = rtmb::decode_input(d, kChannels, input);
  if (in == rtmb::PacketStatus::kOk) check_input(d, input);

  rtmb::MessageKind kind{};
  check_agreement(rtmb::peek_kind(d, kind), kind, s, in);

  std::uint64_t session = 0;
  const rtmb::PacketStatus in2 = rtmb::decode_input_v2(d, kChannels, input, session);
  if (in2 == rtmb::PacketStatus::kOk) check_input_v2(d, input, session);
  require(in2 != rtmb::PacketStatus::kOk || in != rtmb::PacketStatus::kOk);  // one version only

  // the server's receive path keeps its counters consistent across the whole run
  static rtmb::InputSequencer sequencer;
  static rtmb::PacketCounters counters;
  // the sender comes from a byte the fuzzer controls even in valid datagrams (the low byte of
  // sender_time); 20 of them are more than the table holds, so evictions happen too
  const std::uint64_t sender =
      size > rtmb::header_offset::kSenderTime
          ? std::to_integer<std::uint64_t>(d[rtmb::header_offset::kSenderTime]) % 20
          : 0;
  (void)rtmb::admit_input(d, sender, kChannels, sequencer, counters, input);
  std::uint64_t sum = 0;
  for (const std::uint64_t c : counters.by_status) sum += c;
  require(sum == counters.received);
  require(sequencer.sender_count() <= rtmb::kMaxInputSenders);
  return 0;
}
