// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// rtmb::UdpSocket (include/rtmb/net/udp_socket.hpp) on plain POSIX sockets.
#include "rtmb/net/udp_socket.hpp"

#include <arpa/inet.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace rtmb {

namespace {

[[noreturn]] void fail(const char* what) {
  throw SocketError(std::string(what) + ": " + std::strerror(errno));
}

}  // namespace

sockaddr_in ipv4_address(const std::string& host, std::uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  if (::inet_pton(AF_INET, host.c_str(), &a.sin_addr) != 1) {
    throw SocketError("not an IPv4 address: '" + host + "'");
  }
  return a;
}

bool wait_for_socket(int fd, short events, std::chrono::steady_clock::time_point deadline) {
  using Clock = std::chrono::steady_clock;
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
    if (errno != EINTR) fail("poll");
  }
}

UdpSocket::UdpSocket() : fd_(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) {
  if (fd_ < 0) fail("socket");
}

UdpSocket::UdpSocket(UdpSocket&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

UdpSocket::~UdpSocket() {
  if (fd_ >= 0) ::close(fd_);
}

std::uint16_t UdpSocket::bind(const sockaddr_in& local) {
  if (::bind(fd_, reinterpret_cast<const sockaddr*>(&local), sizeof local) != 0) fail("bind");
  sockaddr_in bound{};
  socklen_t len = sizeof bound;
  (void)::getsockname(fd_, reinterpret_cast<sockaddr*>(&bound), &len);
  return ntohs(bound.sin_port);
}

void UdpSocket::connect(const std::string& host, std::uint16_t port) {
  const sockaddr_in a = ipv4_address(host, port);
  if (::connect(fd_, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) fail("connect");
}

void UdpSocket::set_receive_buffer(int bytes) noexcept {
  (void)::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes);
}

bool UdpSocket::wait_readable(std::chrono::steady_clock::time_point deadline) const {
  return wait_for_socket(fd_, POLLIN, deadline);
}

bool UdpSocket::poll_readable(std::chrono::steady_clock::time_point deadline) const {
  const timespec zero{0, 0};
  for (;;) {
    pollfd p{fd_, POLLIN, 0};
    const int r = ::ppoll(&p, 1, &zero, nullptr);
    if (r > 0) return true;
    if (r < 0 && errno != EINTR) fail("poll");
    if (std::chrono::steady_clock::now() >= deadline) return false;
  }
}

long UdpSocket::receive(std::span<std::byte> buffer, sockaddr_in* from) noexcept {
  socklen_t len = sizeof(sockaddr_in);
  return ::recvfrom(fd_, buffer.data(), buffer.size(), MSG_DONTWAIT,
                    reinterpret_cast<sockaddr*>(from), from != nullptr ? &len : nullptr);
}

bool UdpSocket::send(std::span<const std::byte> bytes) noexcept {
  return ::send(fd_, bytes.data(), bytes.size(), 0) >= 0;
}

bool UdpSocket::send_to(std::span<const std::byte> bytes, const sockaddr_in& to) noexcept {
  return ::sendto(fd_, bytes.data(), bytes.size(), 0, reinterpret_cast<const sockaddr*>(&to),
                  sizeof to) >= 0;
}

}  // namespace rtmb
