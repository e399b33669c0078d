// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The record reader on bytes in memory (read_record_bytes, engine/runtime/record_reader.cpp),
// with records built here byte by byte from docs/record-format.md rather than by the writer:
// a valid file reads, and cut files, bad checksums and absurd length or count fields are refused
// with a message naming the byte, without reading past the end or allocating what a length field
// claims (the cases fuzz/fuzz_record.cpp explores at random).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "rtmb/runtime/record.hpp"

namespace rtmb {
namespace {

using Bytes = std::vector<unsigned char>;

std::uint32_t fnv32(const unsigned char* p, std::size_t n) {
  std::uint32_t h = 0x811c9dc5u;  // FNV-1a 32 (docs/record-format.md)
  for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x01000193u;
  return h;
}

template <class T>
void put(Bytes& b, T x) {
  unsigned char raw[sizeof(T)];
  std::memcpy(raw, &x, sizeof(T));
  b.insert(b.end(), raw, raw + sizeof(T));
}

void put_string(Bytes& b, const std::string& s) {
  put(b, static_cast<std::uint32_t>(s.size()));
  b.insert(b.end(), s.begin(), s.end());
}

// magic, version 2, header body (built-in pendulum, 1 input), checksum
Bytes header(std::uint32_t n_inputs = 1) {
  Bytes body;
  put_string(body, "pendulum");
  put_string(body, "");
  put_string(body, "pendulum");
  put_string(body, "rk4");
  put_string(body, "none");
  put_string(body, "dense");
  put(body, 1e-3);
  put(body, n_inputs);
  put(body, std::uint32_t{0});
  put_string(body, "test");
  Bytes b = {'R', 'T', 'M', 'B', 'R', 'E', 'C', '1'};
  put(b, std::uint32_t{2});
  put(b, static_cast<std::uint32_t>(body.size()));
  b.insert(b.end(), body.begin(), body.end());
  put(b, fnv32(body.data(), body.size()));
  return b;
}

void entry(Bytes& b, std::uint8_t kind, std::int64_t step, const std::vector<double>& values) {
  const std::size_t start = b.size();
  put(b, kind);
  b.insert(b.end(), 3, 0);
  put(b, static_cast<std::uint32_t>(values.size()));
  put(b, step);
  for (const double v : values) put(b, v);
  put(b, fnv32(b.data() + start, b.size() - start));
}

void end_record(Bytes& b, std::int64_t steps, std::uint64_t entries) {
  const std::size_t start = b.size();
  put(b, std::uint8_t{9});
  b.insert(b.end(), 3, 0);
  put(b, std::uint32_t{0});
  put(b, steps);
  put(b, std::uint64_t{0x1234});  // hash
  put(b, std::uint64_t{0});       // dropped
  put(b, entries);
  put(b, fnv32(b.data() + start, b.size() - start));
}

Bytes valid_record() {
  Bytes b = header();
  entry(b, 1, 0, {0.5});
  entry(b, 2, 10, {});
  entry(b, 1, 12, {-0.25});
  end_record(b, 20, 3);
  return b;
}

std::string error_of(const Bytes& b) {
  try {
    (void)read_record_bytes(b, "x.rec");
  } catch (const RecordError& e) {
    return e.what();
  }
  return "";
}

TEST(RecordReader, AValidRecordReadsFromBytes) {
  const RecordFile f = read_record_bytes(valid_record(), "x.rec");
  EXPECT_TRUE(f.complete);
  EXPECT_EQ(f.header.mechanism, "pendulum");
  EXPECT_EQ(f.header.n_inputs, 1);
  ASSERT_EQ(f.entries.size(), 3u);
  EXPECT_EQ(f.entries[2].values[0], -0.25);
  EXPECT_EQ(f.steps, 20);
  EXPECT_EQ(f.state_hash, 0x1234u);
}

// A header length near 2^32 once wrapped round in the bounds check (length + 4) and the checksum
// then read 4 GiB past the buffer.
TEST(RecordReader, AHeaderLengthNear4GiBIsACutNotAnOverread) {
  for (const std::uint32_t huge : {0xFFFFFFFFu, 0xFFFFFFFDu, 0xFFFFFFFCu, 0x80000000u}) {
    Bytes b = header();
    std::memcpy(b.data() + 12, &huge, 4);
    const std::string e = error_of(b);
    EXPECT_NE(e.find("x.rec: byte 16: truncated: the file ends inside the header"),
              std::string::npos)
        << huge << ": " << e;
  }
}

TEST(RecordReader, AStringLengthBeyondTheHeaderIsRefusedBeforeAnyAllocation) {
  // the model_path length says 4 GiB - 1, inside a header whose checksum is right
  Bytes b = header();
  const std::uint32_t huge = 0xFFFFFFFFu;
  std::memcpy(b.data() + 16, &huge, 4);
  const std::uint32_t body_bytes = static_cast<std::uint32_t>(b.size() - 20);
  const std::uint32_t sum = fnv32(b.data() + 16, body_bytes);
  std::memcpy(b.data() + 16 + body_bytes, &sum, 4);
  EXPECT_NE(error_of(b).find("truncated"), std::string::npos) << error_of(b);
}

TEST(RecordReader, BadChecksumsAndCountsAreRefusedWithTheByte) {
  const Bytes good = valid_record();
  const std::size_t first_entry = header().size();
  {
    Bytes b = good;
    b[20] ^= 1;  // inside the header body
    EXPECT_NE(error_of(b).find("byte 16: header checksum mismatch"), std::string::npos)
        << error_of(b);
  }
  {
    Bytes b = good;
    b[first_entry + 16] ^= 1;  // the first entry's value
    EXPECT_NE(
        error_of(b).find("byte " + std::to_string(first_entry) + ": entry 0: checksum mismatch"),
        std::string::npos)
        << error_of(b);
  }
  {
    // an input entry claiming 2^32 - 1 values (the header says 1): refused by the count check
    Bytes b = header();
    entry(b, 1, 0, {0.5});
    const std::uint32_t huge = 0xFFFFFFFFu;
    std::memcpy(b.data() + first_entry + 4, &huge, 4);
    EXPECT_NE(error_of(b).find("entry 0: 4294967295 values, the header says 1"), std::string::npos)
        << error_of(b);
  }
  {
    // a header claiming more inputs than a record holds
    Bytes b = header(1000);
    EXPECT_NE(error_of(b).find("bad input count"), std::string::npos) << error_of(b);
  }
  {
    Bytes b = header();
    entry(b, 1, 0, {0.5});
    end_record(b, 20, 7);  // counts 7 entries
    EXPECT_NE(error_of(b).find("the end record counts 7 entries, the file has 1"),
              std::string::npos)
        << error_of(b);
  }
}

TEST(RecordReader, ACutAtEveryByteIsEitherAHeaderErrorOrACutFile) {
  const Bytes good = valid_record();
  const std::size_t header_bytes = header().size();
  for (std::size_t n = 0; n < good.size(); ++n) {
    const Bytes cut(good.begin(), good.begin() + static_cast<long>(n));
    if (n < header_bytes) {
      EXPECT_FALSE(error_of(cut).empty()) << n;
      continue;
    }
    const RecordFile f = read_record_bytes(cut, "x.rec");
    EXPECT_FALSE(f.complete) << n;
    EXPECT_LE(f.entries.size(), 3u) << n;
    EXPECT_NE(f.cut_reason.find("truncated"), std::string::npos) << n;
  }
}

}  // namespace
}  // namespace rtmb
