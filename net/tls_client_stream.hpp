// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// The TLS layer of rtmb::Client's control connection (include/rtmb/net/client.hpp): OpenSSL on
// the client's own non-blocking TCP socket, each call bounded by a deadline with poll() (the
// same waits as the plain path). Errors throw ClientError with the reason.

#include <openssl/types.h>

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

#include "rtmb/net/client.hpp"

namespace rtmb {

class TlsClientStream {
 public:
  using Deadline = std::chrono::steady_clock::time_point;

  /// Handshakes on fd (connected, non-blocking; not owned) with the server at host, checking its
  /// certificate as options say. Throws ClientError.
  TlsClientStream(int fd, const std::string& host, const TlsOptions& options, Deadline deadline);
  ~TlsClientStream();
  TlsClientStream(const TlsClientStream&) = delete;
  TlsClientStream& operator=(const TlsClientStream&) = delete;

  /// Writes all of bytes. Throws ClientError (on timeout too).
  void write(std::string_view bytes, Deadline deadline);
  /// Reads what is there, at most size bytes, waiting for some until the deadline: the count
  /// (> 0), 0 when the server closed the connection, -1 on timeout. Throws ClientError.
  [[nodiscard]] long read_some(char* out, std::size_t size, Deadline deadline);

 private:
  // After an SSL call that returned r <= 0: waits for the socket when OpenSSL asks for it (true),
  // false on timeout; throws ClientError for an error (what: the call's name).
  bool wait_for(int r, Deadline deadline, const char* what);

  int fd_;
  SSL_CTX* ctx_ = nullptr;
  SSL* ssl_ = nullptr;
};

/// Normalizes a SHA-256 fingerprint to upper-case hex pairs joined by ':'. Throws
/// std::invalid_argument unless it is 64 hex digits (':' between pairs allowed).
[[nodiscard]] std::string normalize_fingerprint(std::string_view text);

}  // namespace rtmb
