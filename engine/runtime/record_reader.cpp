// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Reading a record file back (read_record, read_record_bytes in include/rtmb/runtime/record.hpp;
// the byte layout is in docs/record-format.md). Every length field is checked against the bytes
// that are left before anything is read or allocated, so a cut file or a corrupt length is a
// clean RecordError (or a cut RecordFile), never a huge allocation; fuzz/fuzz_record.cpp runs
// this code on arbitrary bytes.
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <span>
#include <string>
#include <vector>

#include "engine/runtime/record_format.hpp"
#include "rtmb/runtime/record.hpp"

namespace rtmb {

namespace {

using detail::fnv32;
using detail::kEndKind;
using detail::kMagic;
using detail::kOldestVersion;
using detail::kVersion;

// The file ends before what is being read: a cut, which read_record reports rather than throws
// once the header is complete.
class Truncated : public RecordError {
 public:
  using RecordError::RecordError;
};

class ByteReader {
 public:
  ByteReader(std::span<const unsigned char> d, std::string file) : d_(d), file_(std::move(file)) {}

  template <class T>
  T get(const char* what) {
    T x;
    need(sizeof(T), what);
    std::memcpy(&x, d_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return x;
  }
  std::string get_string(const char* what) {
    const auto n = get<std::uint32_t>(what);
    need(n, what);
    std::string s(reinterpret_cast<const char*>(d_.data() + pos_), n);
    pos_ += n;
    return s;
  }
  void need(std::size_t n, const char* what) const {
    if (d_.size() - pos_ < n) {
      throw Truncated(file_ + ": byte " + std::to_string(pos_) +
                      ": truncated: the file ends inside " + what +
                      " (the recording did not finish, or the file was cut)");
    }
  }
  [[noreturn]] void fail(const std::string& why) const { fail_at(pos_, why); }
  [[noreturn]] void fail_at(std::size_t at, const std::string& why) const {
    throw RecordError(file_ + ": byte " + std::to_string(at) + ": " + why);
  }
  [[nodiscard]] std::size_t pos() const noexcept { return pos_; }
  [[nodiscard]] bool done() const noexcept { return pos_ == d_.size(); }
  [[nodiscard]] const unsigned char* at(std::size_t i) const noexcept { return d_.data() + i; }

 private:
  std::span<const unsigned char> d_;
  std::string file_;
  std::size_t pos_ = 0;
};

// Reads one entry at `start` into rec.entries, or the end record into rec; true at the end
// record.
bool read_entry(ByteReader& r,
                const RecordHeader& h,
                std::size_t start,
                std::int64_t& last_step,
                RecordFile& rec) {
  const auto kind = r.get<std::uint8_t>("an entry");
  (void)r.get<std::array<std::uint8_t, 3>>("an entry");
  const auto count = r.get<std::uint32_t>("an entry");
  if (kind == kEndKind) {
    rec.steps = r.get<std::int64_t>("the end record");
    rec.state_hash = r.get<std::uint64_t>("the end record");
    rec.dropped = r.get<std::uint64_t>("the end record");
    const auto entries = r.get<std::uint64_t>("the end record");
    const std::uint32_t want = fnv32(r.at(start), r.pos() - start);
    if (r.get<std::uint32_t>("the end record") != want) {
      r.fail_at(start, "end record checksum mismatch: the end record is corrupt");
    }
    if (entries != rec.entries.size()) {
      r.fail_at(start, "the end record counts " + std::to_string(entries) +
                           " entries, the file has " + std::to_string(rec.entries.size()));
    }
    if (rec.steps < last_step)
      r.fail_at(start, "the end record's step count is before the last entry");
    if (!r.done()) r.fail("data after the end record");
    return true;
  }
  RecordEntry e;
  e.kind = kind;
  e.count = count;
  e.step = r.get<std::int64_t>("an entry");
  if (kind != RecordEntry::kInputs && kind != RecordEntry::kReset &&
      kind != RecordEntry::kCheckpoint) {
    r.fail_at(start, "entry " + std::to_string(rec.entries.size()) + ": unknown kind " +
                         std::to_string(kind));
  }
  if (kind == RecordEntry::kInputs && count != static_cast<std::uint32_t>(h.n_inputs)) {
    r.fail_at(start, "entry " + std::to_string(rec.entries.size()) + ": " + std::to_string(count) +
                         " values, the header says " + std::to_string(h.n_inputs));
  }
  if (kind == RecordEntry::kReset && count != 0) r.fail_at(start, "reset entry with values");
  if (kind == RecordEntry::kCheckpoint && count != 2) {
    r.fail_at(start, "checkpoint entry with " + std::to_string(count) + " values, not 2");
  }
  for (std::uint32_t i = 0; i < count; ++i) e.values[i] = r.get<double>("an entry");
  const std::uint32_t want = fnv32(r.at(start), r.pos() - start);
  if (r.get<std::uint32_t>("an entry's checksum") != want) {
    r.fail_at(start, "entry " + std::to_string(rec.entries.size()) +
                         ": checksum mismatch (the entry is corrupt)");
  }
  if (e.step < last_step) {
    r.fail_at(start, "entry " + std::to_string(rec.entries.size()) + ": step " +
                         std::to_string(e.step) + " is before the previous entry's " +
                         std::to_string(last_step));
  }
  last_step = e.step;
  rec.entries.push_back(e);
  return false;
}

}  // namespace

RecordFile read_record_bytes(std::span<const unsigned char> d, const std::string& path) {
  ByteReader r(d, path);
  RecordFile rec;
  if (d.size() < sizeof kMagic || std::memcmp(d.data(), kMagic, sizeof kMagic) != 0) {
    r.fail("not an rtmb record (bad magic; expected \"RTMBREC1\")");
  }
  (void)r.get<std::array<char, 8>>("the magic");
  const auto version = r.get<std::uint32_t>("the header");
  if (version < kOldestVersion || version > kVersion) {
    r.fail("record version " + std::to_string(version) + ", this build reads versions " +
           std::to_string(kOldestVersion) + " to " + std::to_string(kVersion));
  }
  const auto body_bytes = r.get<std::uint32_t>("the header");
  const std::size_t body_start = r.pos();
  // widened before adding: a length near 2^32 must not wrap to a small one and pass the check
  r.need(std::size_t{body_bytes} + 4, "the header");
  {
    const std::uint32_t want = fnv32(r.at(body_start), body_bytes);
    std::uint32_t got;
    std::memcpy(&got, r.at(body_start + body_bytes), 4);
    if (got != want) r.fail_at(body_start, "header checksum mismatch: the header is corrupt");
  }
  RecordHeader& h = rec.header;
  h.model_path = r.get_string("the header");
  h.model_text = r.get_string("the header");
  h.mechanism = r.get_string("the header");
  h.method = r.get_string("the header");
  h.stabilizer = r.get_string("the header");
  h.solver = r.get_string("the header");
  h.dt = r.get<double>("the header");
  h.n_inputs = static_cast<int>(r.get<std::uint32_t>("the header"));
  const auto target = r.get<std::uint32_t>("the header");
  if (target > 1) r.fail("bad input target in the header");
  h.model_channels = target == 1;
  h.build = r.get_string("the header");
  if (r.pos() != body_start + body_bytes) r.fail("header length does not match its fields");
  (void)r.get<std::uint32_t>("the header checksum");
  if (h.n_inputs < 0 || h.n_inputs > kRecordMaxInputs) r.fail("bad input count in the header");

  std::int64_t last_step = 0;
  std::int64_t checkpoint_steps = 0;
  std::uint64_t checkpoint_hash_value = StateHash{}.value();
  std::size_t start = r.pos();
  // a cut: keep every complete entry, replay up to the last checkpoint
  const auto cut = [&](const std::string& why) {
    rec.complete = false;
    rec.cut_at = start;
    rec.cut_reason = why;
    rec.steps = checkpoint_steps;
    rec.state_hash = checkpoint_hash_value;
    rec.dropped = 0;
    return rec;
  };
  try {
    for (;;) {
      start = r.pos();
      if (r.done()) {
        return cut(path + ": byte " + std::to_string(start) + ": truncated after " +
                   std::to_string(rec.entries.size()) +
                   " entries: no end record (the recording did not finish, or the file was cut)");
      }
      if (read_entry(r, h, start, last_step, rec)) return rec;
      const RecordEntry& e = rec.entries.back();
      if (e.kind == RecordEntry::kCheckpoint) {
        checkpoint_steps = e.step;
        checkpoint_hash_value = checkpoint_hash(e);
        rec.last_checkpoint_ns = checkpoint_time_ns(e);
      }
    }
  } catch (const Truncated& e) {
    return cut(e.what());
  }
}

RecordFile read_record(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw RecordError(path + ": cannot open: " + std::strerror(errno));
  const std::vector<unsigned char> d((std::istreambuf_iterator<char>(in)),
                                     std::istreambuf_iterator<char>());
  if (in.bad()) throw RecordError(path + ": cannot read: " + std::strerror(errno));
  return read_record_bytes(d, path);
}

}  // namespace rtmb
