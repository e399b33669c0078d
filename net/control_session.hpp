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
#include <cstdint>
#include <deque>
#include <memory>
#include <string>

#include "net/server_impl.hpp"

namespace rtmb {

// One TCP control connection: reads lines, answers each with one line. At most one async_write
// is outstanding; replies wait in a bounded queue, and a client that lets it fill is dropped.
class ControlSession : public std::enable_shared_from_this<ControlSession> {
 public:
  ControlSession(Server::Impl& server, tcp::socket socket, std::uint64_t id)
      : server_(&server), socket_(std::move(socket)), id_(id) {
    boost::system::error_code ec;
    peer_ = socket_.remote_endpoint(ec);
  }

  void start() { do_read(); }

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
  void do_read();

  void on_read(const boost::system::error_code& ec, std::size_t n);

  // the line is not read any further: answer, then close once the reply is out
  void too_long();

  void do_write();

  void on_write(const boost::system::error_code& ec);

  Server::Impl* server_;
  tcp::socket socket_;
  tcp::endpoint peer_;
  std::uint64_t id_;
  std::array<char, 2048> read_buffer_{};
  std::string line_;
  std::deque<std::string> queue_;
  bool writing_ = false;
  bool closed_ = false;
  bool close_after_write_ = false;
};

}  // namespace rtmb
