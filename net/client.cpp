// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// rtmb::Client (include/rtmb/net/client.hpp) on plain POSIX sockets: blocking calls bounded by
// poll() timeouts (wait_for_socket), the UDP side an rtmb::UdpSocket, the same wire functions as
// the server.
#include "rtmb/net/client.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>

#include "net/control_command.hpp"
#include "net/flat_json.hpp"
#include "net/input_auth.hpp"
#include "net/tls_client_stream.hpp"

namespace rtmb {

namespace {

using Clock = std::chrono::steady_clock;

[[nodiscard]] std::string errno_text(const char* what) {
  return std::string(what) + ": " + std::strerror(errno);
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

Client::Client() = default;  // here, where TlsClientStream is complete

Client::~Client() {
  close();
}

void Client::close() noexcept {
  tls_.reset();  // before its socket
  if (tcp_ >= 0) ::close(tcp_);
  tcp_ = -1;
  udp_.reset();
  local_udp_port_ = 0;
  pending_.clear();
}

void Client::connect(const std::string& host, std::uint16_t tcp_port, Timeout timeout) {
  close();
  const sockaddr_in addr = ipv4_address(host, tcp_port);
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
    if (!wait_for_socket(tcp_, POLLOUT, Clock::now() + timeout)) {
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

void Client::connect(const std::string& host,
                     std::uint16_t tcp_port,
                     Timeout timeout,
                     const TlsOptions& tls) {
  const auto deadline = Clock::now() + timeout;
  connect(host, tcp_port, timeout);
  try {
    tls_ = std::make_unique<TlsClientStream>(tcp_, host, tls, deadline);
  } catch (...) {
    close();
    throw;
  }
}

void Client::send_raw(const std::string& bytes) {
  if (tcp_ < 0) throw ClientError("not connected");
  std::size_t sent = 0;
  const auto deadline = Clock::now() + std::chrono::seconds(2);
  if (tls_) {
    tls_->write(bytes, deadline);
    return;
  }
  while (sent < bytes.size()) {
    const ssize_t n = ::send(tcp_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
      if (!wait_for_socket(tcp_, POLLOUT, deadline)) throw ClientError("send: timed out");
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
    std::array<char, 4096> buf{};
    if (tls_) {
      // TLS may hold decrypted bytes the socket no longer shows as readable: read first
      const long got = tls_->read_some(buf.data(), buf.size(), deadline);
      if (got < 0) throw ClientError("no reply: timed out");
      if (got == 0) throw ClientError("connection closed by the server");
      pending_.append(buf.data(), static_cast<std::size_t>(got));
      continue;
    }
    if (!wait_for_socket(tcp_, POLLIN, deadline)) throw ClientError("no reply: timed out");
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
  init_crypto();
  Command c;
  c.body = HelloCommand{token, kWireVersionAuthenticated};
  std::string reply = request(to_json_line(c));
  if (reply.starts_with("{\"ok\":false") && reply.find("is not supported") != std::string::npos) {
    // a server from before version 2: unauthenticated inputs, which it accepts on loopback only
    c.body = HelloCommand{token, std::nullopt};
    reply = request(to_json_line(c));
  }
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
  SessionKey key{};
  if (s.version == kWireVersionAuthenticated) {
    if (!session_from_hex(text("session"), s.session) || s.session == 0 ||
        !key_from_hex(text("key"), key)) {
      throw ClientError("hello reply with a malformed \"session\" or \"key\"");
    }
  } else if (s.version != kWireVersion) {
    throw ClientError("hello reply with an unknown \"version\": " + reply);
  }
  key_ = key;
  schema_ = s;
  return s;
}

void Client::open_udp() {
  if (udp_) return;
  udp_.emplace();
  // the same local address as the control connection: the server streams to the peer address
  sockaddr_in local{};
  socklen_t len = sizeof local;
  if (::getsockname(tcp_, reinterpret_cast<sockaddr*>(&local), &len) != 0) {
    throw ClientError(errno_text("getsockname"));
  }
  local.sin_port = 0;
  local_udp_port_ = udp_->bind(local);
  udp_->set_receive_buffer(1 << 20);
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
  if (!udp_) throw ClientError("receive_state: subscribe first");
  std::array<std::byte, kMaxDatagramBytes + 1> buf{};
  for (;;) {
    if (!(busy_poll_ ? udp_->poll_readable(deadline) : udp_->wait_readable(deadline))) {
      return false;
    }
    const long n = udp_->receive(buf);
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
  const std::size_t n = encode_input_datagram(m, buf);
  send_datagram(std::span<const std::byte>(buf.data(), n));
  return m.header;
}

std::size_t Client::encode_input_datagram(const InputMessage& m, std::span<std::byte> out) const {
  if (schema_.version != kWireVersionAuthenticated) return encode_input(m, out);
  const std::size_t n = encode_input_v2(m, schema_.session, out);
  if (n > 0) sign_input(out.first(n), key_);
  return n;
}

void Client::send_datagram(std::span<const std::byte> bytes) {
  if (schema_.udp_port == 0) throw ClientError("send: say hello first");
  open_udp();
  if (!udp_->send_to(bytes, ipv4_address(host_, schema_.udp_port))) {
    throw ClientError(errno_text("sendto"));
  }
}

}  // namespace rtmb
