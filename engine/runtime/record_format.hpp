// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// What the record writer (engine/runtime/record.cpp) and reader (record_reader.cpp) share: the
// constants and the checksum of the file format (docs/record-format.md).

#include <bit>
#include <cstddef>
#include <cstdint>

namespace rtmb::detail {

// Fields are written and read in the host's byte order with memcpy: x86-64 and AArch64 are
// little-endian; a big-endian host would need swaps, which we do not support.
static_assert(std::endian::native == std::endian::little, "record files are little-endian");

inline constexpr char kMagic[8] = {'R', 'T', 'M', 'B', 'R', 'E', 'C', '1'};
// version 2 added checkpoint entries (kind 3); version 1 files have none and still read
inline constexpr std::uint32_t kVersion = 2;
inline constexpr std::uint32_t kOldestVersion = 1;
inline constexpr std::uint8_t kEndKind = 9;

// FNV-1a 32 over bytes: the checksum of the header and of every entry. Not cryptographic; it
// catches truncation, bit flips and stray edits, which is what a record needs.
inline std::uint32_t fnv32(const unsigned char* p,
                           std::size_t n,
                           std::uint32_t h = 0x811c9dc5u) noexcept {
  for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x01000193u;
  return h;
}

}  // namespace rtmb::detail
