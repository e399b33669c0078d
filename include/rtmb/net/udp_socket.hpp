// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// A blocking-free IPv4 UDP socket on plain POSIX calls, for the tools around `rtmb serve`: the
// client library (rtmb::Client) and `rtmb latency` (device socket, loopback floor). Waits are
// bounded by an absolute steady-clock deadline (ppoll: nanosecond timeouts, so a 1 kHz device can
// wait for less than a millisecond). Not for the real-time thread (throws). One thread at a time.

#include <netinet/in.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>

namespace rtmb {

/// A failed socket call (the message names the call and errno's text) or a bad address.
class SocketError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The IPv4 address of a dotted quad and a port. Throws SocketError for anything else.
[[nodiscard]] sockaddr_in ipv4_address(const std::string& host, std::uint16_t port);

/// Waits until fd is ready for `events` (POLLIN: readable, POLLOUT: writable); false when the
/// deadline passes first. Interrupted waits resume. Throws SocketError when poll fails.
[[nodiscard]] bool wait_for_socket(int fd,
                                   short events,
                                   std::chrono::steady_clock::time_point deadline);

/// One IPv4 UDP socket, closed by the destructor.
class UdpSocket {
 public:
  /// Opens the socket (close-on-exec). Throws SocketError.
  UdpSocket();
  /// Takes over other's socket; other is left closed. (Not copyable: one owner per socket.)
  UdpSocket(UdpSocket&& other) noexcept;
  UdpSocket& operator=(UdpSocket&&) = delete;
  ~UdpSocket();

  /// Binds to a local address (port 0: the OS chooses one); returns the bound port.
  std::uint16_t bind(const sockaddr_in& local);
  /// Binds to 127.0.0.1 on a port the OS chooses; returns it.
  std::uint16_t bind_loopback() { return bind(ipv4_address("127.0.0.1", 0)); }
  /// Fixes the peer: send() goes there and only its datagrams are received.
  void connect(const std::string& host, std::uint16_t port);
  /// Asks the kernel for a receive buffer of this many bytes (best effort).
  void set_receive_buffer(int bytes) noexcept;

  /// Waits for a datagram until the deadline; false on timeout.
  [[nodiscard]] bool wait_readable(std::chrono::steady_clock::time_point deadline) const;
  /// The same without ever sleeping: polls in a loop until a datagram is queued or the deadline
  /// passes. For a device loop on a CPU of its own: a datagram to a thread asleep on another CPU
  /// makes the sender's system call wake that CPU (tens of microseconds on a VM, issue 14), one
  /// to a polling thread does not.
  [[nodiscard]] bool poll_readable(std::chrono::steady_clock::time_point deadline) const;
  /// Reads one datagram without blocking into buffer (a longer one is truncated); returns its
  /// size, or -1 with errno set (EAGAIN when none is queued). `from` receives the sender.
  [[nodiscard]] long receive(std::span<std::byte> buffer, sockaddr_in* from = nullptr) noexcept;
  /// Sends one datagram to the connected peer; false (errno set) when the kernel refuses it.
  bool send(std::span<const std::byte> bytes) noexcept;
  /// Sends one datagram to an address; false (errno set) when the kernel refuses it.
  bool send_to(std::span<const std::byte> bytes, const sockaddr_in& to) noexcept;

 private:
  int fd_;
};

}  // namespace rtmb
