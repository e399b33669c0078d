// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// SpscRing: FIFO order, full/empty behaviour and drop counting on one thread; then a producer
// and a consumer thread passing 10^6 items, checking order, integrity and that every item is
// either received or counted as dropped.
#include "rtmb/runtime/spsc_ring.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <utility>

namespace rtmb {
namespace {

constexpr std::uint64_t kStressItems = 1'000'000;

// An item whose fields must agree, so a torn copy would show.
struct Item {
  std::uint64_t seq = 0;
  std::uint64_t check = 0;  // ~seq
  double payload = 0.0;     // seq as a double
};

Item make_item(std::uint64_t seq) {
  return Item{seq, ~seq, static_cast<double>(seq)};
}

bool intact(const Item& item) {
  return item.check == ~item.seq && item.payload == static_cast<double>(item.seq);
}

TEST(SpscRing, SingleThreadIsFifoAndRefusesWhenFull) {
  SpscRing<int, 8> ring;
  EXPECT_EQ(ring.capacity(), 8u);
  int out = -1;
  EXPECT_FALSE(ring.try_pop(out));
  EXPECT_EQ(out, -1);  // untouched

  for (int i = 0; i < 8; ++i) EXPECT_TRUE(ring.try_push(i));
  EXPECT_FALSE(ring.try_push(99));
  EXPECT_FALSE(ring.try_push(100));
  EXPECT_EQ(ring.dropped(), 2u);
  EXPECT_EQ(ring.size_approx(), 8u);

  for (int i = 0; i < 8; ++i) {
    ASSERT_TRUE(ring.try_pop(out));
    EXPECT_EQ(out, i);
  }
  EXPECT_FALSE(ring.try_pop(out));
  EXPECT_EQ(ring.pushed(), 8u);
  EXPECT_EQ(ring.popped(), 8u);
}

TEST(SpscRing, IndicesWrapAroundManyTimes) {
  SpscRing<std::uint64_t, 4> ring;
  std::uint64_t next_out = 0;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    ASSERT_TRUE(ring.try_push(i));
    if (i % 3 == 2) {  // keep the ring partly filled while the indices wrap
      std::uint64_t v = 0;
      while (ring.try_pop(v)) ASSERT_EQ(v, next_out++);
    }
  }
  std::uint64_t v = 0;
  while (ring.try_pop(v)) ASSERT_EQ(v, next_out++);
  EXPECT_EQ(next_out, 1000u);
  EXPECT_EQ(ring.dropped(), 0u);
}

// Producer pushes each item once, moving on when the ring is full (the item is lost and counted).
TEST(SpscRing, TwoThreadsDropOnlyWhatIsCounted) {
  auto ring = std::make_unique<SpscRing<Item, 1024>>();
  std::atomic<bool> done{false};
  std::uint64_t refused = 0;
  std::thread producer([&] {
    for (std::uint64_t i = 0; i < kStressItems; ++i) {
      if (!ring->try_push(make_item(i))) ++refused;
    }
    done.store(true, std::memory_order_release);
  });

  std::uint64_t received = 0;
  std::uint64_t last = 0;
  bool ordered = true;
  bool all_intact = true;
  Item item;
  for (;;) {
    if (ring->try_pop(item)) {
      all_intact = all_intact && intact(item);
      ordered = ordered && (received == 0 || item.seq > last);
      last = item.seq;
      ++received;
    } else if (done.load(std::memory_order_acquire)) {
      if (!ring->try_pop(item)) break;  // drained after the producer finished
      all_intact = all_intact && intact(item);
      ordered = ordered && (received == 0 || item.seq > last);
      last = item.seq;
      ++received;
    } else {
      std::this_thread::yield();
    }
  }
  producer.join();

  EXPECT_TRUE(ordered);
  EXPECT_TRUE(all_intact);
  EXPECT_EQ(ring->dropped(), refused);
  EXPECT_EQ(received + ring->dropped(), kStressItems);
  EXPECT_EQ(ring->pushed(), received);
}

// Producer retries until each push succeeds: nothing may be lost, everything arrives in order.
TEST(SpscRing, TwoThreadsDeliverEverythingInOrderWhenProducerRetries) {
  auto ring = std::make_unique<SpscRing<Item, 256>>();
  std::thread producer([&] {
    for (std::uint64_t i = 0; i < kStressItems; ++i) {
      while (!ring->try_push(make_item(i))) std::this_thread::yield();
    }
  });

  std::uint64_t expected = 0;
  bool ok = true;
  Item item;
  while (expected < kStressItems) {
    while (!ring->try_pop(item)) std::this_thread::yield();
    ok = ok && item.seq == expected && intact(item);
    ++expected;
  }
  producer.join();

  EXPECT_TRUE(ok);
  EXPECT_FALSE(ring->try_pop(item));
  EXPECT_EQ(ring->pushed(), kStressItems);
  EXPECT_EQ(ring->popped(), kStressItems);
}

// Compile-time contract, checked by building this file (not a run-time test): push and pop are
// noexcept.
static_assert(noexcept(std::declval<SpscRing<Item, 2>&>().try_push(std::declval<const Item&>())));
static_assert(noexcept(std::declval<SpscRing<Item, 2>&>().try_pop(std::declval<Item&>())));

}  // namespace
}  // namespace rtmb
