// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// clang-format off
// <utility> first: Boost 1.74's asio/awaitable.hpp uses std::exchange without including it
#include <utility>
#include <boost/asio.hpp>
// clang-format on

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>

#include "net/server_impl.hpp"

namespace rtmb {

// How long a client on a TLS port may take to finish its handshake before it is dropped: a
// connection that says nothing must not hold one of the max_clients slots for ever.
inline constexpr std::chrono::seconds kTlsHandshakeTimeout{5};

// One TCP control connection: reads lines, answers each with one line. At most one async_write
// is outstanding; replies wait in a bounded queue, and a client that lets it fill is dropped.
// With a TLS context (rtmb serve --tls-cert/--tls-key) the lines travel inside TLS over the same
// socket: the session does the server handshake first and reads nothing before it succeeds; a
// failed or slow handshake (plain text on a TLS port, say) closes the connection and counts it
// in ServerStats::tls_failed.
class ControlSession : public std::enable_shared_from_this<ControlSession> {
 public:
  // tls: the server's context, or null for plain TCP
  ControlSession(Server::Impl& server,
                 tcp::socket socket,
                 std::uint64_t id,
                 asio::ssl::context* tls);
  ~ControlSession();
  ControlSession(const ControlSession&) = delete;
  ControlSession& operator=(const ControlSession&) = delete;

  void start();

  void send_line(std::string line);

  void close();

  [[nodiscard]] std::uint64_t id() const noexcept { return id_; }
  [[nodiscard]] const tcp::endpoint& peer() const noexcept { return peer_; }
  bool said_hello = false;
  std::uint64_t hello_number = 0;  // of this connection's newest hello (AdmissionEntry::hello)
  std::uint16_t wire_version = 0;  // of its inputs, chosen at hello (1 or 2)
  SessionEntry wire_session{};     // version 2: the id and key handed out at hello
  TokenBucket commands;            // rate limit of this connection's command lines

 private:
  struct Tls;  // asio::ssl::stream over socket_ (control_session.cpp)

  void on_handshake(const boost::system::error_code& ec);

  void do_read();

  void on_read(const boost::system::error_code& ec, std::size_t n);

  // the line is not read any further: answer, then close once the reply is out
  void too_long();

  void do_write();

  void on_write(const boost::system::error_code& ec);

  Server::Impl* server_;
  tcp::socket socket_;
  std::unique_ptr<Tls> tls_;            // null: plain TCP
  asio::steady_timer handshake_timer_;  // TLS: kTlsHandshakeTimeout
  tcp::endpoint peer_;
  std::uint64_t id_;
  std::array<char, 2048> read_buffer_{};
  std::string line_;
  std::deque<std::string> queue_;
  bool handshaking_ = false;  // TLS: between start() and the handshake's outcome
  bool writing_ = false;
  bool closed_ = false;
  bool close_after_write_ = false;
};

}  // namespace rtmb
