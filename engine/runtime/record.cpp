// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Record and replay (include/rtmb/runtime/record.hpp; the byte layout is in docs/record-format.md).
#include "rtmb/runtime/record.hpp"

// GCC 12 at -O3 reports bogus -Wstringop-overflow and -Wrestrict bounds for byte appends to a
// std::vector that it has inlined into a constructor (the sizes are those of the values written).
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ == 12
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#pragma GCC diagnostic ignored "-Wrestrict"
#endif

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>

#include "engine/runtime/record_format.hpp"
#include "rtmb/runtime/monotonic_clock.hpp"
#include "rtmb/step.hpp"

namespace rtmb {

namespace {

using detail::fnv32;
using detail::kEndKind;
using detail::kMagic;
using detail::kVersion;

// Little-endian byte buffer (the host's order: record_format.hpp checks it is little-endian).

class Bytes {
 public:
  // resize + memcpy rather than vector::insert of a byte range: GCC 12 at -O3 reports a bogus
  // -Wstringop-overflow for the latter
  void put_raw(const void* p, std::size_t n) {
    const std::size_t at = data.size();
    data.resize(at + n);
    if (n > 0) std::memcpy(data.data() + at, p, n);
  }
  template <class T>
  void put(const T& x) {
    static_assert(std::is_trivially_copyable_v<T>);
    put_raw(&x, sizeof(T));
  }
  void put_string(const std::string& s) {
    put(static_cast<std::uint32_t>(s.size()));
    put_raw(s.data(), s.size());
  }
  std::vector<unsigned char> data;
};

// entry: u8 kind, u8[3] 0, u32 count, i64 step, f64[count], u32 checksum of the bytes before it
void encode_entry(Bytes& b, const RecordEntry& e) {
  const std::size_t start = b.data.size();
  b.put(static_cast<std::uint8_t>(e.kind));
  b.put(std::array<std::uint8_t, 3>{});
  b.put(e.count);
  b.put(e.step);
  for (std::uint32_t i = 0; i < e.count; ++i) b.put(e.values[i]);
  b.put(fnv32(b.data.data() + start, b.data.size() - start));
}

}  // namespace

std::string build_id() {
  std::string id = "rtmb 0.1.0";
#if defined(__clang__)
  id += " (clang " __clang_version__ ")";
#elif defined(__GNUC__)
  id += " (gcc " __VERSION__ ")";
#endif
  return id;
}

// ---- Recorder (simulation thread) -------------------------------------------------------------

Recorder::Recorder(int n_inputs, double dt) : n_inputs_(n_inputs), ring_(std::make_unique<Ring>()) {
  if (n_inputs < 0 || n_inputs > kRecordMaxInputs) {
    throw std::invalid_argument("record: " + std::to_string(n_inputs) + " inputs (at most " +
                                std::to_string(kRecordMaxInputs) + ")");
  }
  if (dt > 0.0) {
    checkpoint_every_ = std::max<std::int64_t>(1, std::llround(kCheckpointSeconds / dt));
  }
  last_.count = static_cast<std::uint32_t>(n_inputs);  // u = 0 before any input
}

void Recorder::inputs(std::span<const double> u) noexcept {
  const int n = std::min<int>(n_inputs_, static_cast<int>(u.size()));
  // bitwise comparison: a replay must see exactly the doubles the step saw
  if (!first_ && std::memcmp(last_.values.data(), u.data(),
                             sizeof(double) * static_cast<std::size_t>(n)) == 0) {
    return;
  }
  first_ = false;
  std::memcpy(last_.values.data(), u.data(), sizeof(double) * static_cast<std::size_t>(n));
  last_.kind = RecordEntry::kInputs;
  last_.step = steps_.load(std::memory_order_relaxed);
  (void)ring_->try_push(last_);  // a refused push is counted by the ring (dropped())
}

void Recorder::reset() noexcept {
  RecordEntry e;
  e.kind = RecordEntry::kReset;
  e.step = steps_.load(std::memory_order_relaxed);
  (void)ring_->try_push(e);
  last_.values.fill(0.0);  // replay zeroes the inputs on reset
  first_ = true;
}

void Recorder::stepped(const State& s) noexcept {
  state_hash_.add(s);
  hash_.store(state_hash_.value(), std::memory_order_release);
  const std::int64_t steps = steps_.load(std::memory_order_relaxed) + 1;
  steps_.store(steps, std::memory_order_release);
  if (checkpoint_every_ > 0 && steps % checkpoint_every_ == 0) {
    RecordEntry e;
    e.kind = RecordEntry::kCheckpoint;
    e.step = steps;
    e.count = 2;
    // the bit patterns of the u64 hash and the i64 time (read back by checkpoint_hash() and
    // checkpoint_time_ns())
    e.values[0] = std::bit_cast<double>(state_hash_.value());
    e.values[1] = std::bit_cast<double>(monotonic_now_ns());
    (void)ring_->try_push(e);  // a refused push is counted by the ring (dropped())
  }
}

// ---- RecordWriter -------------------------------------------------------------------------------

RecordWriter::RecordWriter(const std::string& path, const RecordHeader& h, Recorder& recorder)
    : path_(path), recorder_(recorder) {
  file_ = std::fopen(path.c_str(), "wb");
  if (file_ == nullptr) {
    throw std::runtime_error("record: cannot create " + path + ": " + std::strerror(errno));
  }
  Bytes body;
  body.put_string(h.model_path);
  body.put_string(h.model_text);
  body.put_string(h.mechanism);
  body.put_string(h.method);
  body.put_string(h.stabilizer);
  body.put_string(h.solver);
  body.put(h.dt);
  body.put(static_cast<std::uint32_t>(h.n_inputs));
  body.put(static_cast<std::uint32_t>(h.model_channels ? 1 : 0));
  body.put_string(h.build);
  Bytes head;
  head.put_raw(kMagic, sizeof kMagic);
  head.put(kVersion);
  head.put(static_cast<std::uint32_t>(body.data.size()));
  head.put_raw(body.data.data(), body.data.size());
  head.put(fnv32(body.data.data(), body.data.size()));
  if (std::fwrite(head.data.data(), 1, head.data.size(), file_) != head.data.size() ||
      std::fflush(file_) != 0) {
    std::fclose(file_);
    file_ = nullptr;
    throw std::runtime_error("record: cannot write " + path + ": " + std::strerror(errno));
  }
}

RecordWriter::~RecordWriter() {
  (void)finish();
}

void RecordWriter::start() {
  if (thread_.joinable() || finished_) return;
  thread_ = std::thread([this] {
    while (!stop_.load(std::memory_order_acquire)) {
      drain();
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });
}

void RecordWriter::drain() {
  RecordEntry e;
  Bytes b;
  b.data.reserve(64 * 1024);
  while (recorder_.ring().try_pop(e)) {
    encode_entry(b, e);
    ++written_;
  }
  if (b.data.empty() || file_ == nullptr) return;
  // flushed at once: what reached the kernel survives a SIGKILL of the server (issue 15)
  if (std::fwrite(b.data.data(), 1, b.data.size(), file_) != b.data.size() ||
      std::fflush(file_) != 0) {
    ++errors_;
  }
}

bool RecordWriter::finish() {
  if (finished_) return errors_.load() == 0;
  finished_ = true;
  stop_.store(true, std::memory_order_release);
  if (thread_.joinable()) thread_.join();
  drain();
  if (file_ == nullptr) return false;
  // end: u8 9, u8[3] 0, u32 0, i64 steps, u64 hash, u64 dropped, u64 entries, u32 checksum
  Bytes b;
  b.put(kEndKind);
  b.put(std::array<std::uint8_t, 3>{});
  b.put(std::uint32_t{0});
  b.put(recorder_.steps());
  b.put(recorder_.hash());
  b.put(recorder_.dropped());
  b.put(written_.load());
  b.put(fnv32(b.data.data(), b.data.size()));
  if (std::fwrite(b.data.data(), 1, b.data.size(), file_) != b.data.size()) ++errors_;
  if (std::fclose(file_) != 0) ++errors_;
  file_ = nullptr;
  return errors_.load() == 0;
}

// ---- replay -------------------------------------------------------------------------------------

ReplayResult replay(const RecordFile& rec,
                    const Model& model,
                    const std::function<void(std::int64_t)>& progress) {
  const RecordHeader& h = rec.header;
  const Settings& s = model.settings();
  if (std::string(to_string(s.method)) != h.method ||
      std::string(to_string(s.stabilizer)) != h.stabilizer || s.dt != h.dt) {
    throw std::invalid_argument(
        "replay: the recorded model builds with method " + std::string(to_string(s.method)) +
        ", stabilizer " + std::string(to_string(s.stabilizer)) + ", dt " + std::to_string(s.dt) +
        " but the record says " + h.method + ", " + h.stabilizer + ", " + std::to_string(h.dt));
  }
  const System& sys = model.system();
  const int width = h.model_channels ? sys.n_inputs() : sys.n_v();
  if (width != h.n_inputs) {
    throw std::invalid_argument("replay: the model takes " + std::to_string(width) + " " +
                                (h.model_channels ? "named input channels" : "generalized forces") +
                                ", the record holds " + std::to_string(h.n_inputs));
  }
  Workspace ws(model);
  const State initial = initial_state(model);
  State state = initial;
  StateHash hash;
  VecRef u = applied_force(ws);
  u.setZero();
  std::vector<double> zeros(static_cast<std::size_t>(h.n_inputs), 0.0);
  std::size_t next = 0;
  const std::int64_t every = std::max<std::int64_t>(1, rec.steps / 100);
  ReplayResult out;
  for (std::int64_t k = 0;; ++k) {
    // everything recorded "before step k": the checkpoint after k steps, resets, then the inputs
    // that act from step k on
    while (next < rec.entries.size() && rec.entries[next].step == k) {
      const RecordEntry& e = rec.entries[next++];
      if (e.kind == RecordEntry::kCheckpoint) {
        ++out.checkpoints;
        if (checkpoint_hash(e) != hash.value() && out.first_mismatch_step < 0) {
          out.first_mismatch_step = k;
        }
      } else if (e.kind == RecordEntry::kReset) {
        state = initial;
        u.setZero();
        if (h.model_channels) set_inputs(ws, zeros);
      } else if (h.model_channels) {
        set_inputs(ws, std::span<const double>(e.values.data(), e.count));
      } else {
        for (int i = 0; i < h.n_inputs; ++i) u[i] = e.values[static_cast<std::size_t>(i)];
      }
    }
    if (k >= rec.steps) break;
    (void)step(model, state, ws);
    hash.add(state);
    if (progress && (k + 1) % every == 0) progress(k + 1);
  }
  out.steps = rec.steps;
  out.state_hash = hash.value();
  out.identical =
      rec.dropped == 0 && out.state_hash == rec.state_hash && out.first_mismatch_step < 0;
  out.final_state = state;
  return out;
}

}  // namespace rtmb
