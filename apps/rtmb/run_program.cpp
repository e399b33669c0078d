// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// External programs without a shell (apps/rtmb/run_program.hpp).
#include "apps/rtmb/run_program.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

extern char** environ;

namespace rtmb::app {

namespace {

// The file actions of the child, released on every path out.
class SpawnActions {
 public:
  SpawnActions() { ok_ = ::posix_spawn_file_actions_init(&actions_) == 0; }
  ~SpawnActions() {
    if (ok_) ::posix_spawn_file_actions_destroy(&actions_);
  }
  SpawnActions(const SpawnActions&) = delete;
  SpawnActions& operator=(const SpawnActions&) = delete;

  // stdin from /dev/null, stdout onto our stderr, then into cwd (glibc >= 2.29)
  [[nodiscard]] bool set_up(const std::filesystem::path& cwd) {
    return ok_ &&
           ::posix_spawn_file_actions_addopen(&actions_, STDIN_FILENO, "/dev/null", O_RDONLY, 0) ==
               0 &&
           ::posix_spawn_file_actions_adddup2(&actions_, STDERR_FILENO, STDOUT_FILENO) == 0 &&
           ::posix_spawn_file_actions_addchdir_np(&actions_, cwd.c_str()) == 0;
  }
  [[nodiscard]] const posix_spawn_file_actions_t* get() const { return &actions_; }

 private:
  posix_spawn_file_actions_t actions_{};
  bool ok_ = false;
};

}  // namespace

std::vector<char*> c_argv(std::vector<std::string>& argv) {
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (std::string& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  return args;
}

int run_program(std::vector<std::string> argv, const std::filesystem::path& cwd) {
  if (argv.empty()) return -1;
  const std::vector<char*> args = c_argv(argv);
  SpawnActions actions;
  if (!actions.set_up(cwd)) return -1;
  pid_t pid = -1;
  if (::posix_spawnp(&pid, args[0], actions.get(), nullptr, args.data(), environ) != 0) return -1;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace rtmb::app
