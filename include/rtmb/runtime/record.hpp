// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Deterministic record and replay (issue 7; file format in docs/record-format.md).
//
// What makes a run reproducible: the model (its YAML text, kept in the file so replay does not
// depend on the file still existing), and the external generalized force u applied at every step.
// `rtmb serve --record FILE` logs u each time it changes, with the index of the first step it acts
// in, plus resets; the engine step is deterministic, so `rtmb replay FILE` rebuilds the model,
// applies the same u at the same steps and must reach the same states bit for bit. Both sides
// hash every step's (t, q, v) with the same function (StateHash) and the file's end record holds
// the recording's hash, so the comparison is one number.
//
// Threads. The Recorder's RT side (inputs/reset/stepped) runs on the simulation thread: no
// allocation, no lock, no syscall; entries go into a preallocated SPSC ring. A RecordWriter thread
// drains the ring into the file every few milliseconds. If the ring is ever full the entry is
// counted as dropped (never blocks the step); the end record carries that count and replay refuses
// to claim an exact reproduction of an incomplete record.
//
// Crashes (issue 15, point 5). A record matters most when the server died, so a file without
// its end record must still be checkable: every kCheckpointSeconds of simulated time the
// simulation thread also pushes a checkpoint (steps so far, the state hash so far, the monotonic
// clock), and the writer flushes to the kernel after each drain (every ~2 ms), so a SIGKILL loses
// at most the last checkpoint interval plus one drain. read_record() returns a cut file as
// incomplete (where and why it was cut) instead of refusing it, and replay() checks every
// checkpoint it passes.

#include <array>
#include <atomic>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "rtmb/runtime/spsc_ring.hpp"
#include "rtmb/state.hpp"
#include "rtmb/types.hpp"

namespace rtmb {

class Model;  // rtmb/model.hpp: replay() only takes it by reference

/// Largest u the record holds (the server's input channel limit).
inline constexpr int kRecordMaxInputs = 64;

/// 64-bit hash of a state history: FNV-1a over the 64-bit words of t, q and v after each step.
/// Order and bit patterns matter (so -0.0 and 0.0 differ): it answers "bit for bit the same?".
class StateHash {
 public:
  void add(const State& s) noexcept {
    word(s.t);
    for (Eigen::Index i = 0; i < s.q.size(); ++i) word(s.q[i]);
    for (Eigen::Index i = 0; i < s.v.size(); ++i) word(s.v[i]);
  }
  [[nodiscard]] std::uint64_t value() const noexcept { return h_; }

 private:
  void word(double x) noexcept {
    std::uint64_t w;
    static_assert(sizeof w == sizeof x);
    __builtin_memcpy(&w, &x, sizeof w);
    h_ = (h_ ^ w) * 0x100000001b3ULL;
  }
  std::uint64_t h_ = 0xcbf29ce484222325ULL;
};

/// One entry between the simulation thread and the writer.
struct RecordEntry {
  enum Kind : std::uint32_t { kInputs = 1, kReset = 2, kCheckpoint = 3 };
  std::int64_t step = 0;  ///< kInputs: first step u acts in; kReset, kCheckpoint: steps done
  std::uint32_t kind = kInputs;
  /// Values used: kInputs n_inputs; kCheckpoint 2, the bit patterns of the u64 state hash after
  /// `step` steps and of the i64 CLOCK_MONOTONIC time [ns] it was taken at (checkpoint_hash(),
  /// checkpoint_time_ns())
  std::uint32_t count = 0;
  std::array<double, kRecordMaxInputs> values{};
};
static_assert(std::is_trivially_copyable_v<RecordEntry>);

/// A checkpoint's state hash (RecordEntry::kCheckpoint).
[[nodiscard]] inline std::uint64_t checkpoint_hash(const RecordEntry& e) noexcept {
  return std::bit_cast<std::uint64_t>(e.values[0]);
}
/// A checkpoint's CLOCK_MONOTONIC time [ns] (RecordEntry::kCheckpoint).
[[nodiscard]] inline std::int64_t checkpoint_time_ns(const RecordEntry& e) noexcept {
  return std::bit_cast<std::int64_t>(e.values[1]);
}

/// Simulated time between checkpoints [s]: with the writer's ~2 ms drains this bounds what a
/// crash loses well under the 100 ms issue 15 asks for, at 50 small entries per second.
inline constexpr double kCheckpointSeconds = 0.02;

/// What the file says about the model and how it was stepped.
struct RecordHeader {
  std::string model_path;  ///< as served (for messages)
  std::string model_text;  ///< the model file's YAML; empty for a built-in mechanism
  std::string mechanism;   ///< built-in mechanism name when model_text is empty
  std::string method;      ///< Settings::method (checked on replay)
  std::string stabilizer;  ///< Settings::stabilizer (checked on replay)
  std::string solver;      ///< Settings::solver as served (applied on replay: it can override the
                           ///< file's, and dense and sparse differ in the last bits)
  double dt = 0.0;         ///< Settings::dt (checked on replay)
  int n_inputs = 0;        ///< size of the recorded input vector
  /// What the recorded vector is: false — the generalized force u of applied_force(ws) (n_v
  /// values; built-in mechanisms and body models without named drives); true — the model's
  /// named input channels, set_inputs(ws, u) (n_inputs values).
  bool model_channels = false;
  std::string build;  ///< rtmb version and compiler of the recording build
};

/// The recorder's simulation-thread side plus the counters the writer reads.
class Recorder {
 public:
  static constexpr std::size_t kRingCapacity = 4096;
  using Ring = SpscRing<RecordEntry, kRingCapacity>;

  /// n_inputs: width of the recorded vector; dt: the engine step [s], which spaces the
  /// checkpoints kCheckpointSeconds of simulated time apart (dt <= 0: no checkpoints).
  explicit Recorder(int n_inputs, double dt = 0.0);

  /// RT side: the input vector that acts from the next step on (steps counted by stepped()).
  /// Pushed when it differs bitwise from the last one pushed, and always the first time and the
  /// first time after a reset. RT-safe.
  void inputs(std::span<const double> u) noexcept;
  /// RT side: the state goes back to the initial state and the inputs to zero before the next
  /// step (the following inputs() says what they are then).
  void reset() noexcept;
  /// RT side: one engine step was taken and `s` is its result; pushes a checkpoint every
  /// checkpoint_every() steps (reads the monotonic clock then, through the vDSO: no syscall).
  void stepped(const State& s) noexcept;
  /// Steps between checkpoints (0: none).
  [[nodiscard]] std::int64_t checkpoint_every() const noexcept { return checkpoint_every_; }

  [[nodiscard]] std::int64_t steps() const noexcept {
    return steps_.load(std::memory_order_acquire);
  }
  [[nodiscard]] std::uint64_t hash() const noexcept {
    return hash_.load(std::memory_order_acquire);
  }
  /// Entries the ring could not take (the file is then incomplete).
  [[nodiscard]] std::uint64_t dropped() const noexcept { return ring_->dropped(); }
  [[nodiscard]] int n_inputs() const noexcept { return n_inputs_; }
  /// Writer side.
  [[nodiscard]] Ring& ring() noexcept { return *ring_; }

 private:
  int n_inputs_;
  std::int64_t checkpoint_every_ = 0;
  std::unique_ptr<Ring> ring_;
  RecordEntry last_{};    // last u pushed (count = n_inputs)
  bool first_ = true;     // push the next inputs() whatever its value
  StateHash state_hash_;  // simulation thread only
  std::atomic<std::int64_t> steps_{0};
  std::atomic<std::uint64_t> hash_{StateHash{}.value()};
};

/// A record file being written: the header at construction, entries from the recorder's ring on
/// its own thread, the end record at finish(). Throws std::runtime_error naming the file when it
/// cannot be created.
class RecordWriter {
 public:
  RecordWriter(const std::string& path, const RecordHeader& header, Recorder& recorder);
  ~RecordWriter();
  RecordWriter(const RecordWriter&) = delete;
  RecordWriter& operator=(const RecordWriter&) = delete;

  void start();
  /// After the simulation thread stopped: drains what is left, writes the end record (steps,
  /// hash, dropped entries) and closes the file. Returns false when anything could not be
  /// written (then the report says so). Idempotent.
  bool finish();

  [[nodiscard]] std::uint64_t entries_written() const noexcept { return written_.load(); }
  [[nodiscard]] std::uint64_t write_errors() const noexcept { return errors_.load(); }
  [[nodiscard]] const std::string& path() const noexcept { return path_; }

 private:
  void drain();

  std::string path_;
  Recorder& recorder_;
  std::FILE* file_ = nullptr;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> written_{0};
  std::atomic<std::uint64_t> errors_{0};
  bool finished_ = false;
};

/// A record file that cannot be used: what() is "FILE: byte N: reason".
class RecordError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A record read back: complete, or cut (the recording died, or the file was cut) after its last
/// complete entry.
struct RecordFile {
  RecordHeader header;
  std::vector<RecordEntry> entries;  ///< every complete entry, checkpoints included
  /// Steps to replay: complete — the steps recorded; cut — those up to the last checkpoint (the
  /// last point a replay can be checked against), 0 without one.
  std::int64_t steps = 0;
  /// StateHash of the recording after `steps` steps (cut: the last checkpoint's).
  std::uint64_t state_hash = 0;
  std::uint64_t dropped = 0;             ///< entries that could not be written (cut: unknown, 0)
  bool complete = true;                  ///< false: no (complete) end record
  std::size_t cut_at = 0;                ///< cut: byte offset where the incomplete part starts
  std::string cut_reason;                ///< cut: "FILE: byte N: truncated: ..."
  std::int64_t last_checkpoint_ns = -1;  ///< CLOCK_MONOTONIC [ns] of the last checkpoint; -1 none
};

/// Reads and checks a record file (magic, version, checksums of the header and every entry,
/// entry order, the end record). A file cut after the header (it ends inside an entry or the end
/// record, or before the end record) is returned with complete = false and every entry before
/// the cut; any other problem, a cut inside the header included, throws RecordError.
[[nodiscard]] RecordFile read_record(const std::string& path);

/// The same for a record already in memory (what read_record does after reading the file);
/// `name` is the file name used in messages.
[[nodiscard]] RecordFile read_record_bytes(std::span<const unsigned char> bytes,
                                           const std::string& name);

/// Result of a replay.
struct ReplayResult {
  std::int64_t steps = 0;
  std::uint64_t state_hash = 0;
  bool identical = false;  ///< steps, hash and every checkpoint equal the recording's
  State final_state;
  std::int64_t checkpoints = 0;  ///< checkpoints compared
  /// Steps at the first checkpoint whose hash differs; -1 when none does.
  std::int64_t first_mismatch_step = -1;
};

/// Re-runs a record offline on model, built from the header's model and solver (the model file
/// layer does that: replay_record() in rtmb/models/record_model.hpp): std::invalid_argument if its
/// settings or input width differ from the recorded ones; applies each u at its step and resets
/// where the recording reset, hashing every step and comparing the hash at every checkpoint.
/// progress(step) is called about every 1 % of the steps.
[[nodiscard]] ReplayResult replay(const RecordFile& record,
                                  const Model& model,
                                  const std::function<void(std::int64_t)>& progress = {});

/// "rtmb VERSION (COMPILER)": the build identifier written into records.
[[nodiscard]] std::string build_id();

}  // namespace rtmb
