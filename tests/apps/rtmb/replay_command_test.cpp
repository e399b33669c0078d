// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// `rtmb serve --record FILE` then `rtmb replay FILE` as a user runs them (issue 7): a served run
// with a device driving it over the network replays bit for bit (the state hashes printed by both
// agree); a cut or corrupted record is refused with a message that says so.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/run_binary.hpp"

namespace {

using rtmb::testing::CommandResult;
using rtmb::testing::run_rtmb;
using rtmb::testing::scan_after;

std::string temp_record(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("rtmb_replay_app_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

// "state hash XXXXXXXXXXXXXXXX" in serve's report, "recorded X, replayed Y" in replay's
std::string hash_after(const std::string& out, const std::string& marker) {
  const std::size_t at = out.find(marker);
  if (at == std::string::npos) return "";
  return out.substr(at + marker.size(), 16);
}

// replay's second line: "  N steps (T s simulated), M entries ..."
constexpr const char* kReplayedRun = " %llu steps (%lf s simulated), %llu entries";

/// Replays `rec` (quietly), prints its hash line under `label` and expects it to end well with the
/// recorded hash.
CommandResult replay_recorded(const std::string& rec,
                              const std::string& label,
                              const std::string& recorded) {
  const CommandResult replayed = run_rtmb("replay --quiet " + rec);
  std::printf("%s: recorded %s; %s", label.c_str(), recorded.c_str(),
              replayed.out.substr(replayed.out.find("state hash")).c_str());
  EXPECT_EQ(replayed.exit_code, 0) << replayed.out;
  EXPECT_EQ(hash_after(replayed.out, "replayed "), recorded) << replayed.out;
  return replayed;
}

void check_round_trip(const std::string& model, const std::string& name) {
  const std::string rec = temp_record(name);
  const CommandResult served =
      run_rtmb("serve " + std::string(RTMB_SOURCE_DIR) + "/" + model +
               " --duration 3 --demo --port 0 --priority 0 --record " + rec);
  ASSERT_EQ(served.exit_code, 0) << served.out;
  const std::string recorded = hash_after(served.out, "state hash ");
  ASSERT_EQ(recorded.size(), 16u) << served.out;
  EXPECT_NE(served.out.find(", 0 lost"), std::string::npos) << served.out;

  const CommandResult replayed = replay_recorded(rec, model + ": serve", recorded);
  EXPECT_EQ(hash_after(replayed.out, "hash: recorded "), recorded) << replayed.out;
  EXPECT_NE(replayed.out.find("identical"), std::string::npos) << replayed.out;
  // the demo client really drove it: thousands of input entries, not an empty log
  unsigned long long steps = 0, entries = 0;
  double simulated = 0.0;
  ASSERT_TRUE(scan_after(replayed.out, "\n  ", kReplayedRun, &steps, &simulated, &entries))
      << replayed.out;
  EXPECT_GT(steps, 1000u) << replayed.out;
  EXPECT_GT(entries, 1000u) << replayed.out;
  std::filesystem::remove(rec);
}

// generalized-force channels (the default model: a built-in mechanism through a model file)
TEST(ReplayCommand, ServedDefaultModelReplaysBitForBit) {
  check_round_trip("configs/default.yaml", "default.rec");
}

// named channels driving a motor of a body model (set_inputs(ws, u))
TEST(ReplayCommand, ServedFiveBarWithNamedChannelsReplaysBitForBit) {
  check_round_trip("configs/five_bar.yaml", "five_bar.rec");
}

// issue 15: a cut record is replayed to its last checkpoint (exit 3); a corrupt one is refused
TEST(ReplayCommand, CutRecordIsVerifiedToItsLastCheckpointAndACorruptOneRefused) {
  const std::string rec = temp_record("broken.rec");
  const CommandResult served = run_rtmb(
      "serve " + std::string(RTMB_SOURCE_DIR) +
      "/configs/pendulum_body.yaml --duration 1 --demo --port 0 --priority 0 --record " + rec);
  ASSERT_EQ(served.exit_code, 0) << served.out;
  std::vector<char> bytes;
  {
    std::ifstream in(rec, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  ASSERT_GT(bytes.size(), 200u);
  {
    std::ofstream out(rec, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size() / 2));
  }
  CommandResult r = run_rtmb("replay " + rec);
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_TRUE(rtmb::testing::contains_all(
      r.out, {"CUT: " + rec + ": byte ", "truncated", "checkpoints verified, identical through"}));

  bytes[bytes.size() - 40] = static_cast<char>(bytes[bytes.size() - 40] ^ 0x40);
  {
    std::ofstream out(rec, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  r = run_rtmb("replay " + rec);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("corrupt"), std::string::npos) << r.out;
  std::filesystem::remove(rec);

  r = run_rtmb("replay " + temp_record("missing.rec"));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("cannot open"), std::string::npos) << r.out;
}

double monotonic_seconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Issue 15, acceptance 6: a recording server killed with SIGKILL mid-run leaves a record that
// replays and verifies every complete entry up to at most 100 ms of ticks before the kill. The
// last verified checkpoint carries the CLOCK_MONOTONIC time the server took it at, the same clock
// this test reads at the kill; the rate is read from the server's own start line.
TEST(ReplayCommand, RecordOfAServerKilledWithSigkillVerifiesUpTo100MsBeforeTheKill) {
  const std::string rec = temp_record("killed.rec");
  const std::string log = temp_record("killed.log");
  const std::string model = std::string(RTMB_SOURCE_DIR) + "/configs/five_bar.yaml";
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    ::execl(RTMB_BINARY, RTMB_BINARY, "serve", model.c_str(), "--demo", "--port", "0", "--priority",
            "0", "--record", rec.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  const double killed_at = monotonic_seconds();
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

  std::string served;
  {
    std::ifstream in(log);
    served.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  double rate_hz = 0.0;
  ASSERT_TRUE(scan_after(served, "at ", "at %lf Hz", &rate_hz)) << served;

  const CommandResult r = run_rtmb("replay --quiet " + rec);
  std::printf("%s", r.out.c_str());
  EXPECT_EQ(r.exit_code, 3) << r.out;
  long long checkpoints = 0, verified_steps = 0;
  double verified_t = 0.0, checkpoint_at = 0.0;
  ASSERT_TRUE(scan_after(r.out, "checkpoints verified",
                         "checkpoints verified, identical through step %lld (t = %lf s; recorded "
                         "at monotonic %lf s)",
                         &verified_steps, &verified_t, &checkpoint_at))
      << r.out;
  ASSERT_TRUE(scan_after(r.out, "cut at byte", "cut at byte %*u: %lld checkpoints", &checkpoints))
      << r.out;
  const double at_risk_s = killed_at - checkpoint_at;
  std::printf(
      "killed at monotonic %.6f s; last verified checkpoint %.6f s (%lld steps, %lld "
      "checkpoints); %.1f ms = %.0f ticks at %.0f Hz before the kill\n",
      killed_at, checkpoint_at, verified_steps, checkpoints, 1e3 * at_risk_s, at_risk_s * rate_hz,
      rate_hz);
  EXPECT_GT(checkpoints, 10);  // it ran: 1.5 s less start-up, a checkpoint every 20 ms
  EXPECT_GE(at_risk_s, 0.0);
  EXPECT_LE(at_risk_s, 0.100);  // at most 100 ms of ticks (0.1 * rate_hz) lost
  std::filesystem::remove(rec);
  std::filesystem::remove(log);
}

}  // namespace

namespace {

// Issue 7, acceptance 3: a 60 s session at 1 kHz with inputs from `rtmb haptic-sim` (the device
// emulator pushing into configs/virtual_wall.yaml) recorded on its in-process server, replayed
// offline: the state hash is identical. --max-work is lifted: this test is about the record, and
// how much work a loaded machine's late samples let through is HapticSimCommand's business.
TEST(ReplayCommand, SixtySecondHapticSimSessionReplaysBitForBit) {
  const std::string rec = temp_record("haptic60.rec");
  const CommandResult sim =
      run_rtmb("haptic-sim " + std::string(RTMB_SOURCE_DIR) +
               "/configs/virtual_wall.yaml --duration 60 --max-work 1e9 --record " + rec);
  ASSERT_EQ(sim.exit_code, 0) << sim.out;
  const std::string recorded = hash_after(sim.out, "state hash ");
  ASSERT_EQ(recorded.size(), 16u) << sim.out;
  EXPECT_EQ(sim.out.find("INCOMPLETE"), std::string::npos) << sim.out;
  const CommandResult replayed = replay_recorded(rec, "60 s haptic-sim session", recorded);
  unsigned long long steps = 0, entries = 0;
  double simulated = 0.0;
  ASSERT_TRUE(scan_after(replayed.out, "\n  ", kReplayedRun, &steps, &simulated, &entries))
      << replayed.out;
  EXPECT_GT(simulated, 55.0) << replayed.out;  // the served session's 60 s, minus start-up
  EXPECT_GT(entries, 30000u) << replayed.out;  // the device moved nearly every tick
  std::filesystem::remove(rec);
}

}  // namespace
