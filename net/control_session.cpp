// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// One TCP control connection of rtmb::Server (net/control_session.hpp): the TLS handshake when
// the server has a TLS context, line framing, the bounded reply queue. What each command line
// gets as its reply is server_commands.cpp.
#include "net/control_session.hpp"

#include <spdlog/spdlog.h>

#include <boost/asio/ssl.hpp>
#include <utility>

namespace rtmb {

// The TLS layer over the session's socket; the socket stays the session's (closing it ends
// both), so the stream holds a reference to it.
struct ControlSession::Tls {
  Tls(tcp::socket& socket, asio::ssl::context& context) : stream(socket, context) {}
  asio::ssl::stream<tcp::socket&> stream;
};

ControlSession::ControlSession(Server::Impl& server,
                               tcp::socket socket,
                               std::uint64_t id,
                               asio::ssl::context* tls)
    : server_(&server),
      socket_(std::move(socket)),
      handshake_timer_(socket_.get_executor()),
      id_(id) {
  boost::system::error_code ec;
  peer_ = socket_.remote_endpoint(ec);
  if (tls != nullptr) tls_ = std::make_unique<Tls>(socket_, *tls);
}

ControlSession::~ControlSession() = default;

void ControlSession::start() {
  if (!tls_) {
    do_read();
    return;
  }
  handshaking_ = true;
  handshake_timer_.expires_after(kTlsHandshakeTimeout);
  handshake_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    // a handshake that finished while this expiry was queued has won
    if (ec || self->closed_ || !self->handshaking_) return;
    self->on_handshake(asio::error::timed_out);
  });
  tls_->stream.async_handshake(
      asio::ssl::stream_base::server,
      [self = shared_from_this()](const boost::system::error_code& ec) { self->on_handshake(ec); });
}

void ControlSession::on_handshake(const boost::system::error_code& ec) {
  if (closed_ || !handshaking_) return;
  handshaking_ = false;
  handshake_timer_.cancel();
  if (!ec) {
    do_read();
    return;
  }
  // the first failure is worth a line (a client that does not speak TLS, a certificate it
  // refuses); the rest are counted only, so that a flood of them cannot fill the log
  ++server_->net_stats.tls_failed;
  if (server_->net_stats.tls_failed == 1) {
    spdlog::warn(
        "control client {}: TLS handshake failed ({}); dropped (later failures are "
        "counted in stats as tls_failed)",
        peer_.address().to_string(), ec.message());
  } else {
    spdlog::debug("control client {}: TLS handshake failed ({})", peer_.address().to_string(),
                  ec.message());
  }
  close();
}

void ControlSession::send_line(std::string line) {
  if (closed_) return;
  if (queue_.size() >= server_->config.max_queued_replies) {
    ++server_->net_stats.tcp_dropped;
    spdlog::warn("control client {} dropped: {} replies unread (raise max_queued_replies)",
                 peer_.address().to_string(), queue_.size());
    close();
    return;
  }
  line += '\n';
  queue_.push_back(std::move(line));
  if (!writing_) do_write();
}

void ControlSession::close() {
  if (closed_) return;
  closed_ = true;
  boost::system::error_code ec;
  handshake_timer_.cancel();
  socket_.shutdown(tcp::socket::shutdown_both, ec);
  socket_.close(ec);
  server_->session_closed(*this);
}

void ControlSession::do_read() {
  if (closed_) return;
  auto on_read = [self = shared_from_this()](const boost::system::error_code& ec, std::size_t n) {
    self->on_read(ec, n);
  };
  if (tls_) {
    tls_->stream.async_read_some(asio::buffer(read_buffer_), std::move(on_read));
  } else {
    socket_.async_read_some(asio::buffer(read_buffer_), std::move(on_read));
  }
}

void ControlSession::on_read(const boost::system::error_code& ec, std::size_t n) {
  if (closed_) return;
  if (ec) {
    close();
    return;
  }
  std::size_t begin = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (read_buffer_[i] != '\n') continue;
    line_.append(read_buffer_.data() + begin, i - begin);
    begin = i + 1;
    if (line_.size() > kMaxCommandLineBytes) {
      too_long();
      return;
    }
    send_line(server_->handle_line(*this, line_));
    line_.clear();
    if (closed_) return;
  }
  line_.append(read_buffer_.data() + begin, n - begin);
  if (line_.size() > kMaxCommandLineBytes) {
    too_long();
    return;
  }
  do_read();
}

void ControlSession::too_long() {
  ++server_->net_stats.commands;
  ++server_->net_stats.command_errors;
  ++server_->net_stats.tcp_dropped;
  close_after_write_ = true;
  send_line(error_reply(too_long_error(line_.size())));
  line_.clear();
}

void ControlSession::do_write() {
  writing_ = true;
  auto on_write = [self = shared_from_this()](const boost::system::error_code& ec,
                                              std::size_t /*n*/) { self->on_write(ec); };
  if (tls_) {
    asio::async_write(tls_->stream, asio::buffer(queue_.front()), std::move(on_write));
  } else {
    asio::async_write(socket_, asio::buffer(queue_.front()), std::move(on_write));
  }
}

void ControlSession::on_write(const boost::system::error_code& ec) {
  writing_ = false;
  if (closed_) return;
  if (ec) {
    close();
    return;
  }
  queue_.pop_front();
  if (!queue_.empty()) {
    do_write();
  } else if (close_after_write_) {
    close();
  }
}

}  // namespace rtmb
