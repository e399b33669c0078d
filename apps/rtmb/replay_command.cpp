// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// `rtmb replay` (apps/rtmb/replay_command.hpp).
#include "apps/rtmb/replay_command.hpp"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>

#include "apps/rtmb/subcommand.hpp"
#include "rtmb/models/record_model.hpp"
#include "rtmb/runtime/record.hpp"

namespace rtmb::app {

void add_replay_command(CLI::App& app, ReplayOptions& o, int* exit_code) {
  CLI::App* cmd = add_subcommand(
      app, "replay",
      "Re-run a record of 'rtmb serve --record FILE' offline and check that every state is "
      "reproduced bit for bit (the state hashes are compared and printed; a file cut by a crash "
      "is checked up to its last checkpoint). Exit status 0: identical, 1: different, 2: "
      "unusable file, 3: cut, every checkpoint before the cut identical.",
      exit_code, [&o] { return replay_record(o); });
  cmd->add_option("file", o.file, "Record file")->required();
  cmd->add_flag("--quiet", o.quiet, "No progress line");
}

int replay_record(const ReplayOptions& o) {
  RecordFile rec;
  try {
    rec = read_record(o.file);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rtmb replay: %s\n", e.what());
    return 2;
  }
  const RecordHeader& h = rec.header;
  std::printf("record %s: model %s (%s), method %s, stabilizer %s, dt %g s\n", o.file.c_str(),
              h.model_text.empty() ? h.mechanism.c_str() : h.model_path.c_str(),
              h.model_text.empty() ? "built-in" : "model text in the record", h.method.c_str(),
              h.stabilizer.c_str(), h.dt);
  std::printf("  %lld steps%s (%.3f s simulated), %zu entries, recorded by %s\n",
              static_cast<long long>(rec.steps), rec.complete ? "" : " to the last checkpoint",
              static_cast<double>(rec.steps) * h.dt, rec.entries.size(), h.build.c_str());
  if (!rec.complete) std::printf("  CUT: %s\n", rec.cut_reason.c_str());
  if (h.build != build_id()) {
    std::printf("  note: this is %s; bit-for-bit reproduction is only promised on the same build\n",
                build_id().c_str());
  }
  const bool tty = !o.quiet && ::isatty(STDERR_FILENO) != 0;
  const auto t0 = std::chrono::steady_clock::now();
  ReplayResult r;
  try {
    r = replay_record(rec, [&](std::int64_t k) {
      if (o.quiet) return;
      std::fprintf(stderr, "%sreplay: step %lld of %lld (%.0f %%)%s", tty ? "\r" : "",
                   static_cast<long long>(k), static_cast<long long>(rec.steps),
                   100.0 * static_cast<double>(k) / static_cast<double>(rec.steps),
                   tty ? "" : "\n");
    });
  } catch (const std::exception& e) {
    if (tty) std::fputc('\n', stderr);
    std::fprintf(stderr, "rtmb replay: %s\n", e.what());
    return 2;
  }
  if (tty) std::fputc('\n', stderr);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("  state hash: recorded %016llx, replayed %016llx (%lld steps in %.2f s wall)\n",
              static_cast<unsigned long long>(rec.state_hash),
              static_cast<unsigned long long>(r.state_hash), static_cast<long long>(r.steps), wall);
  if (r.first_mismatch_step >= 0) {
    std::printf("  DIFFERENT: the first differing checkpoint is after step %lld (t = %.6g s)\n",
                static_cast<long long>(r.first_mismatch_step),
                static_cast<double>(r.first_mismatch_step) * h.dt);
    return 1;
  }
  if (!rec.complete) {
    // what a crash left: every complete entry up to the last checkpoint replayed and verified
    std::printf(
        "  cut at byte %zu: %lld checkpoints verified, identical through step %lld (t = %.6g s; "
        "recorded at monotonic %.6f s); the entries after it cannot be verified\n",
        rec.cut_at, static_cast<long long>(r.checkpoints), static_cast<long long>(r.steps),
        static_cast<double>(r.steps) * h.dt,
        rec.last_checkpoint_ns < 0 ? NAN : 1e-9 * static_cast<double>(rec.last_checkpoint_ns));
    return r.identical ? 3 : 1;
  }
  if (rec.dropped > 0) {
    std::printf("  NOT REPRODUCIBLE: %llu input entries could not be written while recording\n",
                static_cast<unsigned long long>(rec.dropped));
    return 1;
  }
  std::printf("  %s\n", r.identical ? "identical: the state history is reproduced bit for bit"
                                    : "DIFFERENT: the replayed states differ from the recording");
  return r.identical ? 0 : 1;
}

}  // namespace rtmb::app
