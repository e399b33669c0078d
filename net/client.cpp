// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// rtmb::Client (include/rtmb/net/client.hpp) on plain POSIX sockets: blocking calls bounded by
// poll() timeouts, the same wire functions as the server.
#include "rtmb/net/client.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>

#include "net/control_command.hpp"
#include "net/flat_json.hpp"

namespace rtmb {

namespace {

using Clock = std::chrono::steady_clock;

[[nodiscard]] std::string errno_text(const char* what) {
  return std::string(what) + ": " + std::strerror(errno);
}

[[nodiscard]] sockaddr_in ipv4(const std::string& host, std::uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  if (inet_pton(AF_INET, host.c_str(), &a.sin_addr) != 1) {
    throw ClientError("not an IPv4 address: '" + host + "'");
  }
  return a;
}

// Waits until fd is readable (events = POLLIN) or writable; false on timeout.
[[nodiscard]] bool wait_for(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    // ppoll: nanosecond timeout, so a 1 kHz client can wait for less than a millisecond
    const auto left = std::max<std::int64_t>(
        0, std::chrono::duration_cast<std::chrono::nanoseconds>(deadline - Clock::now()).count());
    const timespec ts{static_cast<time_t>(left / 1'000'000'000),
                      static_cast<long>(left % 1'000'000'000)};
    pollfd p{fd, events, 0};
    const int r = ::ppoll(&p, 1, &ts, nullptr);
    if (r > 0) return true;
    if (r == 0) return false;
    if (errno != EINTR) throw ClientError(errno_text("poll"));
  }
}

[[nodiscard]] std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::size_t begin = 0;
  while (begin <= s.size() && !s.empty()) {
    const std::size_t comma = s.find(',', begin);
    if (comma == std::string::npos) {
      out.push_back(s.substr(begin));
      break;
    }
    out.push_back(s.substr(begin, comma - begin));
    begin = comma + 1;
  }
  return out;
}

[[nodiscard]] std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

}  // namespace

Client::~Client() {
  close();
}

void Client::close() noexcept {
  if (tcp_ >= 0) ::close(tcp_);
  if (udp_ >= 0) ::close(udp_);
  tcp_ = -1;
  udp_ = -1;
  local_udp_port_ = 0;
  pending_.clear();
}

void Client::connect(const std::string& host, std::uint16_t tcp_port, Timeout timeout) {
  close();
  const sockaddr_in addr = ipv4(host, tcp_port);
  tcp_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (tcp_ < 0) throw ClientError(errno_text("socket"));
  host_ = host;
  const int one = 1;
  (void)::setsockopt(tcp_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (::connect(tcp_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    if (errno != EINPROGRESS) {
      const std::string e = errno_text("connect");
      close();
      throw ClientError(e);
    }
    if (!wait_for(tcp_, POLLOUT, Clock::now() + timeout)) {
      close();
      throw ClientError("connect: timed out");
    }
    int err = 0;
    socklen_t len = sizeof err;
    (void)::getsockopt(tcp_, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
      close();
      throw ClientError(std::string("connect: ") + std::strerror(err));
    }
  }
}

void Client::send_raw(const std::string& bytes) {
  if (tcp_ < 0) throw ClientError("not connected");
  std::size_t sent = 0;
  const auto deadline = Clock::now() + std::chrono::seconds(2);
  while (sent < bytes.size()) {
    const ssize_t n = ::send(tcp_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
      if (!wait_for(tcp_, POLLOUT, deadline)) throw ClientError("send: timed out");
    } else {
      throw ClientError(errno_text("send"));
    }
  }
}

std::string Client::read_line(Timeout timeout) {
  if (tcp_ < 0) throw ClientError("not connected");
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    const std::size_t nl = pending_.find('\n');
    if (nl != std::string::npos) {
      std::string line = pending_.substr(0, nl);
      pending_.erase(0, nl + 1);
      return line;
    }
    if (pending_.size() > 1'000'000) throw ClientError("reply line too long");
    if (!wait_for(tcp_, POLLIN, deadline)) throw ClientError("no reply: timed out");
    std::array<char, 4096> buf{};
    const ssize_t n = ::recv(tcp_, buf.data(), buf.size(), 0);
    if (n == 0) throw ClientError("connection closed by the server");
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) continue;
      throw ClientError(errno_text("recv"));
    }
    pending_.append(buf.data(), static_cast<std::size_t>(n));
  }
}

std::string Client::request(const std::string& line, Timeout timeout) {
  send_raw(line + '\n');
  return read_line(timeout);
}

ClientSchema Client::hello(const std::optional<std::string>& token) {
  Command c;
  c.body = HelloCommand{token, kWireVersion};
  const std::string reply = request(to_json_line(c));
  FlatJsonObject o;
  std::string error;
  if (!parse_flat_json(reply, o, error)) throw ClientError("malformed hello reply: " + error);
  const JsonValue* ok = o.find("ok");
  if (ok == nullptr || ok->type != JsonType::kBool || !ok->boolean) throw ClientError(reply);
  const auto text = [&](const char* key) {
    const JsonValue* v = o.find(key);
    if (v == nullptr || v->type != JsonType::kString) {
      throw ClientError(std::string("hello reply without \"") + key + "\": " + reply);
    }
    return v->text;
  };
  const auto number = [&](const char* key) {
    const JsonValue* v = o.find(key);
    if (v == nullptr || v->type != JsonType::kNumber) {
      throw ClientError(std::string("hello reply without \"") + key + "\": " + reply);
    }
    return v->number;
  };
  ClientSchema s;
  s.version = static_cast<std::uint16_t>(number("version"));
  s.model = text("model");
  s.rate_hz = number("rate_hz");
  s.dt = number("dt");
  s.udp_port = static_cast<std::uint16_t>(number("udp_port"));
  s.outputs = split(text("outputs"));
  s.output_units = split(text("output_units"));
  s.inputs = split(text("inputs"));
  s.input_units = split(text("input_units"));
  schema_ = s;
  return s;
}

void Client::open_udp() {
  if (udp_ >= 0) return;
  udp_ = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (udp_ < 0) throw ClientError(errno_text("socket"));
  // the same local address as the control connection: the server streams to the peer address
  sockaddr_in local{};
  socklen_t len = sizeof local;
  if (::getsockname(tcp_, reinterpret_cast<sockaddr*>(&local), &len) != 0) {
    throw ClientError(errno_text("getsockname"));
  }
  local.sin_port = 0;
  if (::bind(udp_, reinterpret_cast<const sockaddr*>(&local), sizeof local) != 0) {
    throw ClientError(errno_text("bind"));
  }
  len = sizeof local;
  (void)::getsockname(udp_, reinterpret_cast<sockaddr*>(&local), &len);
  local_udp_port_ = ntohs(local.sin_port);
  const int bytes = 1 << 20;
  (void)::setsockopt(udp_, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes);
}

void Client::subscribe(std::uint32_t decimation) {
  if (schema_.udp_port == 0) throw ClientError("subscribe: say hello first");
  open_udp();
  Command c;
  c.body = SubscribeCommand{std::nullopt, local_udp_port_, decimation};
  const std::string reply = request(to_json_line(c));
  if (!reply.starts_with("{\"ok\":true")) throw ClientError(reply);
}

bool Client::receive_state(StateMessage& out, Timeout timeout) {
  return receive_state_until(out, Clock::now() + timeout);
}

bool Client::receive_state_until(StateMessage& out,
                                 std::chrono::steady_clock::time_point deadline) {
  if (udp_ < 0) throw ClientError("receive_state: subscribe first");
  std::array<std::byte, kMaxDatagramBytes + 1> buf{};
  for (;;) {
    if (!wait_for(udp_, POLLIN, deadline)) return false;
    const ssize_t n = ::recv(udp_, buf.data(), buf.size(), MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || errno == ECONNREFUSED) {
        continue;
      }
      throw ClientError(errno_text("recv"));
    }
    const PacketStatus s =
        admit_state(std::span<const std::byte>(buf.data(), static_cast<std::size_t>(n)), window_,
                    counters_, out);
    if (s == PacketStatus::kOk) {
      newest_step_ = out.header.step;
      newest_time_ = out.header.sim_time_s;
      return true;
    }
  }
}

MessageHeader Client::send_input(std::span<const InputSample> samples) {
  if (samples.empty() || samples.size() > kMaxInputSamples) {
    throw ClientError("send_input: 1 to 64 samples");
  }
  InputMessage m;
  m.header.sequence = next_sequence_++;
  m.header.step = newest_step_;
  m.header.sim_time_s = newest_time_;
  m.header.sender_time_ns = steady_ns();
  m.sample_count = static_cast<std::uint16_t>(samples.size());
  std::copy(samples.begin(), samples.end(), m.samples.begin());
  std::array<std::byte, kMaxDatagramBytes> buf{};
  const std::size_t n = encode_input(m, buf);
  send_datagram(std::span<const std::byte>(buf.data(), n));
  return m.header;
}

void Client::send_datagram(std::span<const std::byte> bytes) {
  if (schema_.udp_port == 0) throw ClientError("send: say hello first");
  open_udp();
  const sockaddr_in to = ipv4(host_, schema_.udp_port);
  const ssize_t n = ::sendto(udp_, bytes.data(), bytes.size(), 0,
                             reinterpret_cast<const sockaddr*>(&to), sizeof to);
  if (n < 0) throw ClientError(errno_text("sendto"));
}

}  // namespace rtmb
