// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The simulation thread's share of wire version 2 (docs/protocol.md): the MAC check of one input
// datagram (net/input_auth.hpp), keyed afresh (both HMAC pads hashed per datagram) and from the
// receiver's per-session keyed state (InputMacKey, made once per session). Same datagram, same
// key, run side by side in one process: compare the two as a ratio, not across machines.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <vector>

#include "net/input_auth.hpp"
#include "rtmb/net/wire.hpp"

namespace rtmb {
namespace {

// a datagram of state.range(0) bytes: 96 stands for a typical haptic input (a few samples),
// 716 is the largest datagram (kMaxDatagramBytes)
std::vector<std::byte> signed_datagram(const SessionKey& key, std::size_t bytes) {
  std::vector<std::byte> d(bytes);
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = static_cast<std::byte>(i * 7);
  sign_input(d, key);
  return d;
}

SessionKey bench_key() {
  SessionKey k{};
  for (std::size_t i = 0; i < k.size(); ++i) k[i] = static_cast<std::uint8_t>(3 * i + 1);
  return k;
}

void BM_InputMacCheckKeyedAfresh(benchmark::State& state) {
  init_crypto();
  const SessionKey key = bench_key();
  const std::vector<std::byte> d = signed_datagram(key, static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(input_mac_valid(d, key));
}
BENCHMARK(BM_InputMacCheckKeyedAfresh)->Arg(96)->Arg(kMaxDatagramBytes);

void BM_InputMacCheckSessionState(benchmark::State& state) {
  init_crypto();
  const SessionKey key = bench_key();
  const std::vector<std::byte> d = signed_datagram(key, static_cast<std::size_t>(state.range(0)));
  const InputMacKey keyed = input_mac_key(key);
  for (auto _ : state) benchmark::DoNotOptimize(input_mac_valid(d, keyed));
}
BENCHMARK(BM_InputMacCheckSessionState)->Arg(96)->Arg(kMaxDatagramBytes);

}  // namespace
}  // namespace rtmb
