// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The UDP wire format: sequencing, the receive path with its counters, and a flood of garbage
// through it.
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
  // the mix reaches every input rejection reason of admit_input, and acceptance (the version 2
  // reasons come from the server's InputReceiver: tests/net/input_receiver_test.cpp)
  for (std::size_t k = 0; k < kPacketStatusCount; ++k) {
    const auto status = static_cast<PacketStatus>(k);
    if (status == PacketStatus::kUnknownSession || status == PacketStatus::kBadMac ||
        status == PacketStatus::kUnauthenticated) {
      continue;
    }
    EXPECT_GT(inputs.by_status[k], 0u) << to_string(static_cast<PacketStatus>(k));
  }
  EXPECT_GT(states.accepted(), 0u);
}

}  // namespace
}  // namespace rtmb
