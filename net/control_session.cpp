// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// One TCP control connection of rtmb::Server (net/control_session.hpp): line framing, the
// bounded reply queue. What each command line gets as its reply is server_commands.cpp.
#include "net/control_session.hpp"

#include <spdlog/spdlog.h>

#include <utility>

namespace rtmb {

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
  socket_.shutdown(tcp::socket::shutdown_both, ec);
  socket_.close(ec);
  server_->session_closed(*this);
}

void ControlSession::do_read() {
  if (closed_) return;
  socket_.async_read_some(asio::buffer(read_buffer_),
                          [self = shared_from_this()](const boost::system::error_code& ec,
                                                      std::size_t n) { self->on_read(ec, n); });
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
  asio::async_write(socket_, asio::buffer(queue_.front()),
                    [self = shared_from_this()](const boost::system::error_code& ec,
                                                std::size_t /*n*/) { self->on_write(ec); });
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
