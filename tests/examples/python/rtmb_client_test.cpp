// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// examples/python/rtmb_client.py against a real `rtmb serve` on loopback: schema, state stream,
// one input and its echo, unsubscribe; and a clear failure when nothing listens. python3 is a
// required tool (scripts/install-deps.sh): its absence fails the test rather than skipping it.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/run_binary.hpp"
#include "tests/support/self_signed_cert.hpp"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using rtmb::testing::json_value;

/// The example script: next to this source file in the source tree, or (if __FILE__ is not a
/// usable path) in a parent directory of the rtmb binary's build tree.
fs::path client_script() {
  const fs::path rel = fs::path("examples") / "python" / "rtmb_client.py";
  const fs::path from_source = fs::path(__FILE__).parent_path() / ".." / ".." / rel;
  if (fs::exists(from_source)) return fs::weakly_canonical(from_source);
  std::error_code ec;
  for (fs::path dir = fs::absolute(fs::path(RTMB_BINARY), ec).parent_path();
       !dir.empty() && dir != dir.parent_path(); dir = dir.parent_path()) {
    if (fs::exists(dir / rel)) return dir / rel;
  }
  return {};
}

/// Full path of python3 on PATH, or empty.
std::string find_python3() {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return {};
  std::stringstream dirs(path);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) dir = ".";
    const std::string candidate = dir + "/python3";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

/// A child process with stdout and stderr going to a temporary file.
class Child {
 public:
  explicit Child(const std::vector<std::string>& argv) {
    char name[] = "/tmp/rtmb_python_client_test_XXXXXX";
    const int fd = ::mkstemp(name);
    if (fd < 0) return;
    log_path_ = name;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(fd, STDOUT_FILENO);
      ::dup2(fd, STDERR_FILENO);
      ::close(fd);
      std::vector<char*> args;
      for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      ::execv(args[0], args.data());
      std::fprintf(stderr, "exec %s failed: errno %d\n", args[0], errno);
      ::_exit(127);
    }
    ::close(fd);
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child() {
    stop();
    if (!log_path_.empty()) ::unlink(log_path_.c_str());
  }

  bool started() const { return pid_ > 0; }

  std::string output() const {
    std::ifstream in(log_path_);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  /// Waits up to `limit` for the child to exit; kills it if it does not. Returns the exit code,
  /// or -1 if it had to be killed or died from a signal.
  int wait_for(std::chrono::milliseconds limit) {
    const auto deadline = Clock::now() + limit;
    while (pid_ > 0) {
      int status = 0;
      const pid_t r = ::waitpid(pid_, &status, WNOHANG);
      if (r == pid_) {
        pid_ = -1;
        exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        return exit_code_;
      }
      if (Clock::now() >= deadline) {
        stop();
        return -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return exit_code_;
  }

  /// SIGINT (a clean stop for `rtmb serve`), then SIGKILL after 3 s.
  void stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGINT);
    const auto deadline = Clock::now() + std::chrono::seconds(3);
    while (Clock::now() < deadline) {
      if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
  int exit_code_ = -1;
  std::string log_path_;
};

/// The control port from the server's "control tcp 127.0.0.1:NNNN" line, or 0 on timeout.
int wait_for_control_port(const Child& server, std::chrono::milliseconds limit) {
  const std::string marker = "control tcp 127.0.0.1:";
  const auto deadline = Clock::now() + limit;
  while (Clock::now() < deadline) {
    const std::string out = server.output();
    const std::size_t at = out.find(marker);
    if (at != std::string::npos) {
      std::size_t end = at + marker.size();
      while (end < out.size() && out[end] >= '0' && out[end] <= '9') ++end;
      if (end < out.size() && end > at + marker.size()) {  // the whole number has been written
        return std::stoi(out.substr(at + marker.size(), end - at - marker.size()));
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return 0;
}

/// The last line of `out` that starts with '{'.
std::string last_json_line(const std::string& out) {
  std::istringstream lines(out);
  std::string found;
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line.front() == '{') found = line;
  }
  return found;
}

/// The raw text of key's value in a flat JSON object line ("" if absent).
struct Prerequisites {
  std::string python;
  fs::path script;
};

Prerequisites prerequisites() {
  Prerequisites p{find_python3(), client_script()};
  EXPECT_FALSE(p.python.empty())
      << "python3 is not on PATH. It is a required tool for this test (Debian package "
         "python3-minimal; scripts/install-deps.sh installs it).";
  EXPECT_FALSE(p.script.empty()) << "examples/python/rtmb_client.py not found from " << __FILE__
                                 << " or " << RTMB_BINARY;
  return p;
}

TEST(PythonClient, ReceivesStatesAndSeesItsInputEchoed) {
  const Prerequisites p = prerequisites();
  if (p.python.empty() || p.script.empty()) return;

  Child server({RTMB_BINARY, "serve", "pendulum", "--duration", "5", "--port", "0"});
  ASSERT_TRUE(server.started());
  const int port = wait_for_control_port(server, std::chrono::seconds(5));
  ASSERT_GT(port, 0) << "rtmb serve printed no control port:\n" << server.output();

  Child client({p.python, p.script.string(), "--port", std::to_string(port), "--count", "5",
                "--timeout", "3", "--json"});
  ASSERT_TRUE(client.started());
  const int code = client.wait_for(std::chrono::seconds(20));
  const std::string out = client.output();
  server.stop();

  EXPECT_EQ(code, 0) << out << "\nserver:\n" << server.output();
  const std::string summary = last_json_line(out);
  ASSERT_FALSE(summary.empty()) << "no JSON summary line:\n" << out;
  const std::string received = json_value(summary, "states_received");
  ASSERT_FALSE(received.empty()) << summary;
  EXPECT_GE(std::stoi(received), 5) << summary;
  EXPECT_EQ(json_value(summary, "invalid"), "0") << summary << "\n" << out;
  EXPECT_EQ(json_value(summary, "input_echoed"), "true") << summary << "\n" << out;
  const std::string last_step = json_value(summary, "last_step");
  ASSERT_FALSE(last_step.empty()) << summary;
  EXPECT_NE(last_step, "null") << summary;
  EXPECT_NE(out.find("outputs: q0"), std::string::npos) << "schema not printed:\n" << out;
  EXPECT_NE(out.find("echo: input #"), std::string::npos) << out;
  EXPECT_NE(out.find("unsubscribed (1 removed)"), std::string::npos) << out;
}

TEST(PythonClient, SpeaksTlsToATlsServer) {
  const Prerequisites p = prerequisites();
  if (p.python.empty() || p.script.empty()) return;
  const fs::path dir =
      fs::path(::testing::TempDir()) / ("rtmb_python_tls_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const rtmb::testing::TestCertificate cert =
      rtmb::testing::write_self_signed_certificate(dir, "server");

  Child server({RTMB_BINARY, "serve", "pendulum", "--duration", "8", "--port", "0", "--tls-cert",
                cert.cert_file, "--tls-key", cert.key_file});
  ASSERT_TRUE(server.started());
  const int port = wait_for_control_port(server, std::chrono::seconds(5));
  ASSERT_GT(port, 0) << "rtmb serve printed no control port:\n" << server.output();

  // trusting the self-signed certificate: the whole session over TLS
  Child client({p.python, p.script.string(), "--port", std::to_string(port), "--count", "2",
                "--timeout", "3", "--json", "--tls-ca", cert.cert_file});
  ASSERT_TRUE(client.started());
  const int code = client.wait_for(std::chrono::seconds(20));
  const std::string out = client.output();
  EXPECT_EQ(code, 0) << out << "\nserver:\n" << server.output();
  EXPECT_EQ(json_value(last_json_line(out), "input_echoed"), "true") << out;

  // pinned to another certificate: refused before hello
  const std::string wrong(64, 'a');
  Child pinned({p.python, p.script.string(), "--port", std::to_string(port), "--timeout", "3",
                "--json", "--tls-fingerprint", wrong});
  ASSERT_TRUE(pinned.started());
  EXPECT_EQ(pinned.wait_for(std::chrono::seconds(20)), 2) << pinned.output();
  EXPECT_NE(pinned.output().find("not the pinned one"), std::string::npos) << pinned.output();
  server.stop();
  std::error_code ec;
  fs::remove_all(dir, ec);
}

TEST(PythonClient, FailsClearlyWhenNothingListens) {
  const Prerequisites p = prerequisites();
  if (p.python.empty() || p.script.empty()) return;

  // A loopback port that is bound but not listening: a connection to it is refused, and no other
  // process can take it while the socket is open.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  const int port = ntohs(addr.sin_port);

  Child client(
      {p.python, p.script.string(), "--port", std::to_string(port), "--timeout", "2", "--json"});
  ASSERT_TRUE(client.started());
  const int code = client.wait_for(std::chrono::seconds(10));
  ::close(fd);
  const std::string out = client.output();
  EXPECT_EQ(code, 2) << out;
  EXPECT_NE(out.find("cannot connect to 127.0.0.1:" + std::to_string(port)), std::string::npos)
      << out;
}

}  // namespace
