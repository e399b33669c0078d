// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// examples/python/rtmb_client.py against a real `rtmb serve` on loopback: schema, state stream,
// one input and its echo, unsubscribe; and a clear failure when nothing listens. Its wire version
// 2 (docs/protocol.md, "Wire version 2"): signed inputs accepted by a server bound beyond loopback
// (which refuses version 1), the protocol.md example datagram and tag reproduced byte for byte,
// and the fall-back to version 1 only when an old server does not know version 2. python3 is a
// required tool (scripts/install-deps.sh): its absence fails the test rather than skipping it.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

/// The control port from the server's "control tcp <bind>:NNNN" line, or 0 on timeout.
int wait_for_control_port(const Child& server,
                          std::chrono::milliseconds limit,
                          const std::string& bind = "127.0.0.1") {
  const std::string marker = "control tcp " + bind + ":";
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

/// The last non-empty line of `out`.
std::string last_line(const std::string& out) {
  std::istringstream lines(out);
  std::string found;
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) found = line;
  }
  return found;
}

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
  // on loopback too the client asks for, and gets, signed inputs
  EXPECT_NE(out.find("wire version 2: inputs signed"), std::string::npos) << out;
  EXPECT_NE(out.find("echo: input #"), std::string::npos) << out;
  EXPECT_NE(out.find("unsubscribed (1 removed)"), std::string::npos) << out;
}

// A server bound beyond loopback takes only version 2 (signed) inputs: the echo of the client's
// input shows the server accepted its tag. The same client forced to version 1 is refused at
// hello, so this test fails with a client that cannot sign.
TEST(PythonClient, SignsItsInputsForAServerBeyondLoopback) {
  const Prerequisites p = prerequisites();
  if (p.python.empty() || p.script.empty()) return;

  Child server({RTMB_BINARY, "serve", "pendulum", "--duration", "10", "--port", "0", "--bind",
                "0.0.0.0", "--token", "T"});
  ASSERT_TRUE(server.started());
  const int port = wait_for_control_port(server, std::chrono::seconds(5), "0.0.0.0");
  ASSERT_GT(port, 0) << "rtmb serve printed no control port:\n" << server.output();

  Child client({p.python, p.script.string(), "--port", std::to_string(port), "--token", "T",
                "--count", "3", "--timeout", "3", "--json"});
  ASSERT_TRUE(client.started());
  const int code = client.wait_for(std::chrono::seconds(20));
  const std::string out = client.output();
  EXPECT_EQ(code, 0) << out << "\nserver:\n" << server.output();
  const std::string summary = last_json_line(out);
  EXPECT_EQ(json_value(summary, "input_echoed"), "true") << summary << "\n" << out;
  EXPECT_EQ(json_value(summary, "invalid"), "0") << summary << "\n" << out;
  EXPECT_NE(out.find("wire version 2: inputs signed, session "), std::string::npos) << out;

  Child v1({p.python, p.script.string(), "--port", std::to_string(port), "--token", "T", "--count",
            "1", "--timeout", "3", "--json", "--wire-version", "1"});
  ASSERT_TRUE(v1.started());
  EXPECT_EQ(v1.wait_for(std::chrono::seconds(20)), 1) << v1.output();
  EXPECT_NE(v1.output().find("requires authenticated inputs"), std::string::npos) << v1.output();

  server.stop();
  // every input datagram the server received passed its checks (a bad tag is counted as
  // rejected, bad_mac): the closing report's "udp in: received N accepted N rejected 0"
  const std::string report = server.output();
  const std::size_t at = report.find("udp in: received ");
  ASSERT_NE(at, std::string::npos) << report;
  const std::string udp_in = report.substr(at, report.find('\n', at) - at);
  EXPECT_TRUE(udp_in.ends_with(" rejected 0")) << udp_in;
  EXPECT_EQ(udp_in.find("accepted 0 "), std::string::npos) << udp_in;
}

// The version 2 example of docs/protocol.md ("Wire version 2", "Example"; the same bytes as
// tests/net/input_auth_test.cpp): sequence 7, sender_time 1000, channel 0 = 0.5, session
// 0102030405060708, key 00 01 .. 1f. The dump below is copied from protocol.md, not from the
// script, so the script's encoder and HMAC are checked against the specification.
TEST(PythonClient, SignsTheProtocolExampleDatagram) {
  const Prerequisites p = prerequisites();
  if (p.python.empty() || p.script.empty()) return;
  const std::string expected =
      "52544d42020002000000000026000000"
      "07000000000000000000000000000000"
      "0000000000000000e803000000000000"
      "010000000000000000000000e03f0807"
      "0605040302013b465a9f03ff1a3bbdac"
      "6af3660984d9";
  Child check({p.python, p.script.string(), "--self-check"});
  ASSERT_TRUE(check.started());
  EXPECT_EQ(check.wait_for(std::chrono::seconds(20)), 0) << check.output();
  EXPECT_EQ(last_line(check.output()), expected);
}

/// A one-connection stand-in for a server from before wire version 2: it refuses the first
/// hello as such a server does ("... is not supported"), records the next request line and
/// refuses it too, so that the client exits.
class OldServer {
 public:
  OldServer() {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
        ::listen(listen_fd_, 1) != 0 ||
        ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      return;
    }
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  OldServer(const OldServer&) = delete;
  OldServer& operator=(const OldServer&) = delete;
  ~OldServer() {
    if (listen_fd_ >= 0) ::shutdown(listen_fd_, SHUT_RDWR);
    if (thread_.joinable()) thread_.join();
    if (listen_fd_ >= 0) ::close(listen_fd_);
  }

  int port() const { return port_; }
  /// The request lines received; call once the client has exited (a client that never
  /// connected leaves accept() waiting: shutting the listening socket down ends it).
  std::vector<std::string> join() {
    if (listen_fd_ >= 0) ::shutdown(listen_fd_, SHUT_RDWR);
    if (thread_.joinable()) thread_.join();
    return lines_;
  }

 private:
  void serve() {
    const int fd = ::accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) return;
    timeval tv{};
    tv.tv_sec = 10;  // a client that hangs does not hang the test
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    const char* replies[] = {
        "{\"ok\":false,\"command\":\"hello\",\"id\":1,\"error\":\"protocol version 2 is "
        "not supported; this server speaks version 1\"}\n",
        "{\"ok\":false,\"command\":\"hello\",\"id\":2,\"error\":\"test server: stop "
        "here\"}\n"};
    std::string buf;
    for (const char* reply : replies) {
      std::size_t nl = 0;
      while ((nl = buf.find('\n')) == std::string::npos) {
        char chunk[512];
        const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
        if (n <= 0) {
          ::close(fd);
          return;
        }
        buf.append(chunk, static_cast<std::size_t>(n));
      }
      lines_.push_back(buf.substr(0, nl));
      buf.erase(0, nl + 1);
      if (::send(fd, reply, std::strlen(reply), MSG_NOSIGNAL) < 0) break;
    }
    ::close(fd);
  }

  int listen_fd_ = -1;
  int port_ = 0;
  std::thread thread_;
  std::vector<std::string> lines_;
};

TEST(PythonClient, FallsBackToVersionOneOnlyForAnOldServer) {
  const Prerequisites p = prerequisites();
  if (p.python.empty() || p.script.empty()) return;
  OldServer old;
  ASSERT_GT(old.port(), 0);
  Child client({p.python, p.script.string(), "--port", std::to_string(old.port()), "--timeout", "5",
                "--json"});
  ASSERT_TRUE(client.started());
  EXPECT_EQ(client.wait_for(std::chrono::seconds(20)), 1) << client.output();
  const std::vector<std::string> lines = old.join();
  ASSERT_EQ(lines.size(), 2u) << client.output();
  EXPECT_NE(lines[0].find("\"command\":\"hello\""), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("\"version\":2"), std::string::npos) << lines[0];
  // the repeated hello names no version: version 1, all that the old server knows
  EXPECT_NE(lines[1].find("\"command\":\"hello\""), std::string::npos) << lines[1];
  EXPECT_EQ(lines[1].find("\"version\""), std::string::npos) << lines[1];
  EXPECT_NE(client.output().find("test server: stop here"), std::string::npos) << client.output();
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
