// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The wire codec runs on the network thread next to the real-time loop: encoding, decoding and
// the receive paths must not allocate. Counted with the malloc-family interposer.
#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <random>

#include "net/input_auth.hpp"
#include "rtmb/net/wire.hpp"
#include "tests/support/alloc_counter.hpp"

namespace rtmb {
namespace {

using testing::AllocationCounts;
using testing::AllocationScope;

TEST(WireAllocations, EncodeDecodeAndAdmitTenThousandDatagramsAllocateNothing) {
  std::array<std::byte, kMaxDatagramBytes + 1> buf{};
  StateMessage state;
  state.channel_count = 12;
  InputMessage input;
  input.sample_count = 3;
  StateMessage state_out;
  InputMessage input_out;
  InputSequencer sequencer;
  SequenceWindow window;
  PacketCounters counters;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> value(-10.0, 10.0);

  AllocationCounts counts;
  long accepted = 0;
  {
    AllocationScope scope;
    for (std::uint64_t i = 1; i <= 10'000; ++i) {
      // a valid state datagram through the client's receive path
      state.header.sequence = i;
      state.header.step = i;
      state.header.sim_time_s = 1e-3 * static_cast<double>(i);
      for (int c = 0; c < state.channel_count; ++c) state.channels[c] = value(rng);
      const std::size_t n_state = encode_state(state, buf);
      accepted += admit_state(std::span(buf.data(), n_state), window, counters, state_out) ==
                  PacketStatus::kOk;

      // a valid input datagram, then a corrupted copy, through the server's receive path
      input.header.sequence = i;
      for (int k = 0; k < input.sample_count; ++k) {
        input.samples[k] = InputSample{static_cast<std::uint16_t>(k), value(rng)};
      }
      const std::size_t n_input = encode_input(input, buf);
      accepted += admit_input(std::span(buf.data(), n_input), 1, 8, sequencer, counters,
                              input_out) == PacketStatus::kOk;
      buf[i % n_input] ^= std::byte{0x5a};
      (void)admit_input(std::span(buf.data(), n_input), 2, 8, sequencer, counters, input_out);
    }
    counts = scope.counts();
  }
  EXPECT_EQ(counts.allocations, 0u);
  EXPECT_EQ(counts.deallocations, 0u);
  EXPECT_EQ(accepted, 20'000);  // the valid datagrams really went through the full path
}

// Wire version 2: encode, sign, check the MAC (valid and forged) and decode, as the client and
// the server's simulation thread do per datagram (issue 15, acceptance 5).
TEST(WireAllocations, SignVerifyAndDecodeVersionTwoAllocateNothing) {
  init_crypto();  // setup, off the counted path
  std::array<std::byte, kMaxDatagramBytes + 1> buf{};
  InputMessage input;
  input.sample_count = 3;
  InputMessage input_out;
  SessionKey key{};
  key.fill(0x42);
  std::uint64_t valid = 0;
  std::uint64_t forged_refused = 0;

  AllocationCounts counts;
  {
    AllocationScope scope;
    for (std::uint64_t i = 1; i <= 10'000; ++i) {
      input.header.sequence = i;
      for (int k = 0; k < input.sample_count; ++k) {
        input.samples[k] =
            InputSample{static_cast<std::uint16_t>(k), 1e-3 * static_cast<double>(i)};
      }
      const std::size_t n = encode_input_v2(input, 99, buf);
      const std::span<std::byte> d(buf.data(), n);
      sign_input(d, key);
      std::uint64_t session = 0;
      if (input_mac_valid(d, key) &&
          decode_input_v2(d, 8, input_out, session) == PacketStatus::kOk && session == 99) {
        ++valid;
      }
      buf[i % n] ^= std::byte{0x5a};
      if (!input_mac_valid(d, key)) ++forged_refused;
    }
    counts = scope.counts();
  }
  EXPECT_EQ(counts.allocations, 0u);
  EXPECT_EQ(counts.deallocations, 0u);
  EXPECT_EQ(valid, 10'000u);
  EXPECT_EQ(forged_refused, 10'000u);
}

}  // namespace
}  // namespace rtmb
