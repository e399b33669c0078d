// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Whether a text is one valid JSON document, as an independent parser sees it: Python's json
// module (strict=True rejects raw control characters in strings), run without a shell.

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

extern char** environ;

namespace rtmb::testing {

/// True when python3's json.loads accepts `text` (read as strict UTF-8) as one JSON document.
inline bool python_accepts_json(const std::string& text) {
  char path[] = "/tmp/rtmb_json_check_XXXXXX";
  const int fd = ::mkstemp(path);
  if (fd < 0) return false;
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  std::string script = "import json,sys\njson.loads(open(sys.argv[1],'rb').read().decode('utf-8'))";
  std::string python = "python3", flag = "-c", file = path;
  char* argv[] = {python.data(), flag.data(), script.data(), file.data(), nullptr};
  pid_t pid = -1;
  int status = -1;
  if (written && ::posix_spawnp(&pid, "python3", nullptr, nullptr, argv, environ) == 0) {
    while (::waitpid(pid, &status, 0) < 0) {
    }
  }
  ::unlink(path);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace rtmb::testing
