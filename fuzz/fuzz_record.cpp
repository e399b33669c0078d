// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// libFuzzer target for the record reader (read_record_bytes, engine/runtime/record_reader.cpp;
// read_record reads the file and calls it). Each input is one whole record file. Besides crashes,
// sanitizer reports (an over-read, a huge allocation from a length field: -rss_limit_mb and
// -malloc_limit_mb) and escaping exceptions other than RecordError, it checks:
//   - a RecordError's message names the file and a byte: "fuzz.rec: byte N: ...";
//   - a record read back is consistent: entry steps never decrease, every entry has the count its
//     kind allows, a complete record has no cut, a cut one says where (inside the input) and why,
//     and steps to replay are never past the last entry's claim.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>

#include "rtmb/runtime/record.hpp"

namespace {

void require(bool condition) {
  if (!condition) std::abort();
}

void check_record(const rtmb::RecordFile& f, std::size_t size) {
  require(f.header.n_inputs >= 0 && f.header.n_inputs <= rtmb::kRecordMaxInputs);
  std::int64_t last = 0;
  for (const rtmb::RecordEntry& e : f.entries) {
    require(e.step >= last);
    last = e.step;
    switch (e.kind) {
      case rtmb::RecordEntry::kInputs:
        require(e.count == static_cast<std::uint32_t>(f.header.n_inputs));
        break;
      case rtmb::RecordEntry::kReset:
        require(e.count == 0);
        break;
      case rtmb::RecordEntry::kCheckpoint:
        require(e.count == 2);
        break;
      default:
        require(false);
    }
  }
  if (f.complete) {
    require(f.cut_reason.empty());
    require(f.steps >= last);
  } else {
    require(f.cut_at <= size);
    require(f.cut_reason.rfind("fuzz.rec: byte ", 0) == 0);
    require(f.cut_reason.find("truncated") != std::string::npos);
    require(f.dropped == 0);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const rtmb::RecordFile f =
        rtmb::read_record_bytes(std::span<const unsigned char>(data, size), "fuzz.rec");
    check_record(f, size);
  } catch (const rtmb::RecordError& e) {
    require(std::string(e.what()).rfind("fuzz.rec: byte ", 0) == 0);
  }
  return 0;
}
