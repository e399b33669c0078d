// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Record and replay (include/rtmb/runtime/record.hpp): a run recorded through the
// Recorder/RecordWriter pair replays bit for bit; the hash notices a single changed input; broken
// files give errors that say what is wrong and where.
#include "rtmb/runtime/record.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "rtmb/models/model_file.hpp"
#include "rtmb/models/record_model.hpp"
#include "rtmb/step.hpp"
#include "tests/support/text_files.hpp"

namespace rtmb {
namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("rtmb_record_test_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

std::vector<char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::vector<char>& b) {
  std::ofstream out(path, std::ios::binary);
  out.write(b.data(), static_cast<std::streamsize>(b.size()));
}

struct Recording {
  std::string path;
  State final_state;
  std::int64_t steps = 0;
};

// Records `ticks` ticks of the body-coordinate slider-crank the way the server does (u written
// before a tick's steps, two steps per tick), with a changing force, a pause in the inputs and a
// reset half way.
Recording record_run(const std::string& name, int ticks) {
  const std::string model_path = std::string(RTMB_SOURCE_DIR) + "/configs/slider_crank_body.yaml";
  const ModelFile file = load_model_file(model_path);
  const Model model(std::shared_ptr<const System>(make_system(file)), file.settings);
  Workspace ws(model);
  const State initial = initial_state(model);
  State state = initial;
  const int n_v = model.system().n_v();

  Recorder recorder(n_v, model.settings().dt);  // with checkpoints
  RecordHeader h;
  h.model_path = model_path;
  h.model_text = testing::read_text(model_path);
  h.method = std::string(to_string(model.settings().method));
  h.stabilizer = std::string(to_string(model.settings().stabilizer));
  h.solver = std::string(to_string(model.solver()));
  h.dt = model.settings().dt;
  h.n_inputs = n_v;
  h.build = build_id();
  Recording out;
  out.path = temp_path(name);
  RecordWriter writer(out.path, h, recorder);
  writer.start();
  VecRef u = applied_force(ws);
  for (int tick = 0; tick < ticks; ++tick) {
    if (tick == ticks / 2) {
      state = initial;
      u.setZero();
      recorder.reset();
    }
    // a torque on the crank (q = x, y, theta per body) that changes every 3rd tick, and nothing
    // for ticks 100..199
    if (tick % 3 == 0 && (tick < 100 || tick >= 200)) u[2] = std::sin(0.01 * tick);
    if (tick == 100) u.setZero();
    recorder.inputs(std::span<const double>(u.data(), static_cast<std::size_t>(u.size())));
    for (int s = 0; s < 2; ++s) {
      (void)step(model, state, ws);
      recorder.stepped(state);
    }
  }
  EXPECT_TRUE(writer.finish());
  EXPECT_EQ(recorder.dropped(), 0u);
  out.final_state = state;
  out.steps = recorder.steps();
  return out;
}

TEST(RecordReplay, ReplayReproducesTheRecordedRunBitForBit) {
  const Recording rec = record_run("roundtrip.rec", 600);
  const RecordFile file = read_record(rec.path);
  EXPECT_EQ(file.steps, 1200);
  EXPECT_EQ(file.dropped, 0u);
  EXPECT_GT(file.entries.size(), 100u);  // inputs changed often: the log is not trivial
  const ReplayResult r = replay_record(file);
  std::printf("recorded %lld steps, %zu entries, hash %016llx; replay hash %016llx\n",
              static_cast<long long>(file.steps), file.entries.size(),
              static_cast<unsigned long long>(file.state_hash),
              static_cast<unsigned long long>(r.state_hash));
  EXPECT_TRUE(r.identical);
  EXPECT_EQ(r.state_hash, file.state_hash);
  // and the final state itself, bit for bit
  ASSERT_EQ(r.final_state.q.size(), rec.final_state.q.size());
  EXPECT_EQ(std::memcmp(r.final_state.q.data(), rec.final_state.q.data(),
                        sizeof(double) * static_cast<std::size_t>(rec.final_state.q.size())),
            0);
  EXPECT_EQ(std::memcmp(r.final_state.v.data(), rec.final_state.v.data(),
                        sizeof(double) * static_cast<std::size_t>(rec.final_state.v.size())),
            0);
  EXPECT_EQ(r.final_state.t, rec.final_state.t);
  std::filesystem::remove(rec.path);
}

TEST(RecordReplay, OneChangedInputChangesTheHash) {
  const Recording rec = record_run("changed.rec", 300);
  RecordFile file = read_record(rec.path);
  ASSERT_GT(file.entries.size(), 10u);
  // a micro-newton-metre more torque in one recorded sample (a change of one ulp can vanish
  // in the rounding of f + u, which is why the hash compares states, not inputs)
  std::size_t k = 5;
  while (k < file.entries.size() && file.entries[k].kind != RecordEntry::kInputs) ++k;
  ASSERT_LT(k, file.entries.size());
  RecordEntry& e = file.entries[k];
  e.values[2] += 1e-6;
  const ReplayResult r = replay_record(file);
  EXPECT_FALSE(r.identical);
  EXPECT_NE(r.state_hash, file.state_hash);
  // the first checkpoint after the change already differs
  std::int64_t next_checkpoint = -1;
  for (std::size_t j = k; j < file.entries.size(); ++j) {
    if (file.entries[j].kind == RecordEntry::kCheckpoint && file.entries[j].step > e.step) {
      next_checkpoint = file.entries[j].step;
      break;
    }
  }
  EXPECT_EQ(r.first_mismatch_step, next_checkpoint);
  std::filesystem::remove(rec.path);
}

TEST(RecordReplay, AFullRingDropsAndCountsEntriesInsteadOfBlocking) {
  Recorder recorder(2);
  Vec u(2);
  // nobody drains: the ring fills and the rest is dropped, never blocking
  for (std::size_t i = 0; i < Recorder::kRingCapacity + 10; ++i) {
    u << static_cast<double>(i), 1.0;
    recorder.inputs(std::span<const double>(u.data(), 2));
  }
  EXPECT_EQ(recorder.dropped(), 10u);
}

std::string error_of(const std::string& path) {
  try {
    (void)read_record(path);
  } catch (const RecordError& e) {
    return e.what();
  }
  return "";
}

TEST(RecordReplay, TruncatedAndCorruptRecordsGiveClearErrors) {
  const Recording rec = record_run("broken.rec", 120);
  const std::vector<char> good = read_bytes(rec.path);
  ASSERT_GT(good.size(), 400u);
  const std::string bad = temp_path("bad.rec");

  // cut inside the header: nothing to replay
  write_bytes(bad, std::vector<char>(good.begin(), good.begin() + 30));
  std::string msg = error_of(bad);
  std::printf("truncated header: %s\n", msg.c_str());
  EXPECT_NE(msg.find(bad + ": byte "), std::string::npos) << msg;
  EXPECT_NE(msg.find("truncated"), std::string::npos) << msg;

  // one flipped bit in the last value of the last entry (before its 4-byte checksum and the
  // 44-byte end record)
  std::vector<char> flipped = good;
  flipped[good.size() - 50] = static_cast<char>(flipped[good.size() - 50] ^ 0x10);
  write_bytes(bad, flipped);
  msg = error_of(bad);
  std::printf("corrupt entry: %s\n", msg.c_str());
  EXPECT_NE(msg.find("checksum mismatch"), std::string::npos) << msg;

  // a changed character in the model text of the header
  std::vector<char> header = good;
  header[60] = static_cast<char>(header[60] ^ 0x01);
  write_bytes(bad, header);
  msg = error_of(bad);
  std::printf("corrupt header: %s\n", msg.c_str());
  EXPECT_NE(msg.find("header checksum mismatch"), std::string::npos) << msg;

  // not a record at all
  write_bytes(bad, std::vector<char>{'h', 'e', 'l', 'l', 'o', '\n', 'x', 'y', 'z'});
  msg = error_of(bad);
  EXPECT_NE(msg.find("not an rtmb record"), std::string::npos) << msg;

  // trailing garbage after the end record
  std::vector<char> longer = good;
  longer.push_back('!');
  write_bytes(bad, longer);
  msg = error_of(bad);
  EXPECT_NE(msg.find("after the end record"), std::string::npos) << msg;

  EXPECT_NE(error_of(temp_path("does-not-exist.rec")).find("cannot open"), std::string::npos);
  std::filesystem::remove(bad);
  std::filesystem::remove(rec.path);
}

// The checkpoints a record's entries hold: (steps, hash) in file order.
std::vector<std::pair<std::int64_t, std::uint64_t>> checkpoints_of(const RecordFile& f) {
  std::vector<std::pair<std::int64_t, std::uint64_t>> out;
  for (const RecordEntry& e : f.entries) {
    if (e.kind == RecordEntry::kCheckpoint) out.emplace_back(e.step, checkpoint_hash(e));
  }
  return out;
}

TEST(RecordReplay, CheckpointsAreSpacedByTheirSimulatedInterval) {
  const Recording rec = record_run("checkpoints.rec", 300);
  const RecordFile file = read_record(rec.path);
  const auto cps = checkpoints_of(file);
  // kCheckpointSeconds / dt steps apart, from that many steps on
  const auto every = static_cast<std::int64_t>(std::llround(kCheckpointSeconds / file.header.dt));
  ASSERT_EQ(cps.size(), static_cast<std::size_t>(file.steps / every));
  for (std::size_t i = 0; i < cps.size(); ++i) {
    EXPECT_EQ(cps[i].first, every * static_cast<std::int64_t>(i + 1));
  }
  const ReplayResult r = replay_record(file);
  EXPECT_TRUE(r.identical);
  EXPECT_EQ(r.checkpoints, static_cast<std::int64_t>(cps.size()));
  EXPECT_EQ(r.first_mismatch_step, -1);
  std::filesystem::remove(rec.path);
}

// issue 15: a record cut anywhere after its header (a crash, a full disk, a copy cut short)
// reads as incomplete with every complete entry, and replays identical up to its last
// checkpoint. Cuts at every byte offset of the last few entries and of the end record.
TEST(RecordReplay, ACutRecordReplaysEveryCompleteEntryAtEveryCutOffset) {
  const Recording rec = record_run("cut.rec", 200);
  const std::vector<char> good = read_bytes(rec.path);
  const RecordFile whole = read_record(rec.path);
  ASSERT_TRUE(whole.complete);
  // entry sizes (docs/record-format.md): 16 bytes + 8 per value + 4; the end record 44 bytes
  std::vector<std::size_t> ends;  // byte offset just after each entry
  std::size_t end_of_entries = good.size() - 44;
  {
    std::size_t at = end_of_entries;
    for (auto it = whole.entries.rbegin(); it != whole.entries.rend(); ++it) {
      ends.push_back(at);
      at -= 16 + 8 * it->count + 4;
    }
    std::reverse(ends.begin(), ends.end());
  }
  ASSERT_EQ(ends.size(), whole.entries.size());
  const auto all_cps = checkpoints_of(whole);
  ASSERT_GE(all_cps.size(), 3u);
  const std::size_t first_cut = ends[ends.size() - 6];  // the last 5 entries and the end record
  const std::string bad = temp_path("cut_bad.rec");
  int cuts = 0;
  for (std::size_t n = first_cut; n < good.size(); ++n) {
    write_bytes(bad, std::vector<char>(good.begin(), good.begin() + static_cast<long>(n)));
    const RecordFile cut = read_record(bad);
    ASSERT_FALSE(cut.complete) << n;
    // every entry that ends at or before the cut is there, none other
    const auto complete_entries =
        static_cast<std::size_t>(std::upper_bound(ends.begin(), ends.end(), n) - ends.begin());
    ASSERT_EQ(cut.entries.size(), complete_entries) << "cut at byte " << n;
    EXPECT_EQ(cut.cut_at,
              complete_entries == ends.size() ? end_of_entries : ends[complete_entries - 1])
        << n;
    EXPECT_NE(cut.cut_reason.find("truncated"), std::string::npos) << cut.cut_reason;
    // replayed to the last complete checkpoint, identical
    std::int64_t last_cp = 0;
    for (const RecordEntry& e : cut.entries) {
      if (e.kind == RecordEntry::kCheckpoint) last_cp = e.step;
    }
    EXPECT_EQ(cut.steps, last_cp) << n;
    ASSERT_GT(cut.steps, 0) << n;
    const ReplayResult r = replay_record(cut);
    EXPECT_TRUE(r.identical) << "cut at byte " << n;
    EXPECT_EQ(r.first_mismatch_step, -1) << n;
    ++cuts;
  }
  std::printf("%d cuts from byte %zu to %zu replayed identical to their last checkpoint\n", cuts,
              first_cut, good.size() - 1);
  std::filesystem::remove(bad);
  std::filesystem::remove(rec.path);
}

}  // namespace
}  // namespace rtmb
