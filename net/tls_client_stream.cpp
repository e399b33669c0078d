// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// rtmb::TlsClientStream (net/tls_client_stream.hpp): OpenSSL's SSL on a socket file descriptor.
// The socket is non-blocking, so every SSL call may answer "want read" or "want write": the
// stream then waits for the socket with wait_for_socket and calls again, until the deadline.
#include "net/tls_client_stream.hpp"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <signal.h>

#include <array>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <stdexcept>

#include "net/tls_fingerprint.hpp"

namespace rtmb {

namespace {

// The oldest queued OpenSSL error (the root cause), the queue then emptied.
std::string openssl_reason() {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return {};
  const char* reason = ERR_reason_error_string(code);
  return reason != nullptr ? reason : "OpenSSL error " + std::to_string(code);
}

// SSL_write writes with write(2), which raises SIGPIPE on a connection the peer has closed (the
// plain path sends with MSG_NOSIGNAL instead). A library must not change the process's signal
// handling, so SIGPIPE is blocked on this thread for the call, and one the call raised is taken
// before the old mask comes back (a SIGPIPE pending before is left alone).
class SigpipeBlock {
 public:
  SigpipeBlock() {
    sigset_t pending;
    sigemptyset(&pending);
    (void)sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGPIPE);
    (void)pthread_sigmask(SIG_BLOCK, &block, &old_);
  }
  ~SigpipeBlock() {
    if (!was_pending_) {
      sigset_t pipe;
      sigemptyset(&pipe);
      sigaddset(&pipe, SIGPIPE);
      const timespec zero{0, 0};
      const int saved = errno;
      while (sigtimedwait(&pipe, nullptr, &zero) == SIGPIPE) {
      }
      errno = saved;
    }
    (void)pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeBlock(const SigpipeBlock&) = delete;
  SigpipeBlock& operator=(const SigpipeBlock&) = delete;

 private:
  sigset_t old_{};
  bool was_pending_ = false;
};

}  // namespace

std::string normalize_fingerprint(std::string_view text) {
  std::string hex;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ':' && hex.size() % 2 == 0 && !hex.empty() && i + 1 < text.size()) continue;
    if (std::isxdigit(static_cast<unsigned char>(c)) == 0) {
      throw std::invalid_argument("TLS fingerprint '" + std::string(text) +
                                  "': want 64 hex digits of SHA-256 (':' between pairs allowed)");
    }
    hex += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  if (hex.size() != 64) {
    throw std::invalid_argument("TLS fingerprint '" + std::string(text) +
                                "': " + std::to_string(hex.size()) +
                                " hex digits, a SHA-256 has 64 (':' between pairs allowed)");
  }
  std::string out;
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    if (i > 0) out += ':';
    out += hex.substr(i, 2);
  }
  return out;
}

TlsClientStream::TlsClientStream(int fd,
                                 const std::string& host,
                                 const TlsOptions& options,
                                 Deadline deadline)
    : fd_(fd) {
  std::string pinned;
  if (!options.fingerprint.empty()) {
    try {
      pinned = normalize_fingerprint(options.fingerprint);
    } catch (const std::invalid_argument& e) {
      throw ClientError(e.what());
    }
  }
  ERR_clear_error();
  ctx_ = SSL_CTX_new(TLS_client_method());
  if (ctx_ == nullptr) throw ClientError("TLS: cannot create a context: " + openssl_reason());
  // the destructor does not run for a throwing constructor
  struct Cleanup {
    TlsClientStream* self;
    bool armed = true;
    ~Cleanup() {
      if (!armed) return;
      if (self->ssl_ != nullptr) SSL_free(self->ssl_);
      SSL_CTX_free(self->ctx_);
    }
  } cleanup{this};
  (void)SSL_CTX_set_min_proto_version(ctx_, TLS1_2_VERSION);
  if (pinned.empty()) {
    const bool loaded = options.ca_file.empty() ? SSL_CTX_set_default_verify_paths(ctx_) == 1
                                                : SSL_CTX_load_verify_locations(
                                                      ctx_, options.ca_file.c_str(), nullptr) == 1;
    if (!loaded) {
      throw ClientError("TLS CA file '" + options.ca_file + "': no usable PEM certificate (" +
                        openssl_reason() + ")");
    }
    SSL_CTX_set_verify(ctx_, SSL_VERIFY_PEER, nullptr);
  } else {
    // the pinned certificate is compared after the handshake, whoever issued it
    SSL_CTX_set_verify(ctx_, SSL_VERIFY_NONE, nullptr);
  }
  ssl_ = SSL_new(ctx_);
  if (ssl_ == nullptr || SSL_set_fd(ssl_, fd) != 1) {
    throw ClientError("TLS: cannot set up the connection: " + openssl_reason());
  }
  if (pinned.empty()) {
    // the certificate must name what was connected to: an IP address (subjectAltName IP), or a
    // host name (and then also sent as SNI)
    in_addr ip{};
    X509_VERIFY_PARAM* param = SSL_get0_param(ssl_);
    if (::inet_pton(AF_INET, host.c_str(), &ip) == 1) {
      (void)X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str());
    } else {
      (void)SSL_set1_host(ssl_, host.c_str());
      (void)SSL_set_tlsext_host_name(ssl_, host.c_str());
    }
  }
  for (;;) {
    const int r = SSL_connect(ssl_);
    if (r == 1) break;
    const long verify = SSL_get_verify_result(ssl_);
    try {
      if (!wait_for(r, deadline, "TLS handshake")) {
        throw ClientError("TLS handshake with " + host + ": timed out");
      }
    } catch (const ClientError& e) {
      if (verify != X509_V_OK) {
        throw ClientError("TLS handshake with " + host +
                          ": the server's certificate is not "
                          "trusted (" +
                          X509_verify_cert_error_string(verify) +
                          "; --tls-ca FILE names what to trust)");
      }
      throw;
    }
  }
  if (!pinned.empty()) {
    X509* peer = SSL_get1_peer_certificate(ssl_);
    const std::string got = peer != nullptr ? sha256_fingerprint(peer) : std::string();
    X509_free(peer);
    if (got != pinned) {
      throw ClientError("TLS: the server's certificate (SHA-256 " +
                        (got.empty() ? std::string("none") : got) + ") is not the pinned one (" +
                        pinned + ")");
    }
  }
  cleanup.armed = false;
}

TlsClientStream::~TlsClientStream() {
  if (ssl_ != nullptr) {
    // close_notify, best effort: one non-blocking try, no wait for the server's
    const SigpipeBlock block;
    (void)SSL_shutdown(ssl_);
    SSL_free(ssl_);
  }
  SSL_CTX_free(ctx_);
  ERR_clear_error();
}

bool TlsClientStream::wait_for(int r, Deadline deadline, const char* what) {
  const int saved_errno = errno;
  const int e = SSL_get_error(ssl_, r);
  if (e == SSL_ERROR_WANT_READ) return wait_for_socket(fd_, POLLIN, deadline);
  if (e == SSL_ERROR_WANT_WRITE) return wait_for_socket(fd_, POLLOUT, deadline);
  std::string reason = openssl_reason();
  if (reason.empty() && e == SSL_ERROR_SYSCALL) {
    reason = saved_errno != 0 ? std::strerror(saved_errno) : "the connection was closed";
  }
  if (reason.empty()) reason = "SSL error " + std::to_string(e);
  throw ClientError(std::string(what) + ": " + reason);
}

void TlsClientStream::write(std::string_view bytes, Deadline deadline) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    std::size_t n = 0;
    ERR_clear_error();
    errno = 0;
    int r = 0;
    {
      const SigpipeBlock block;
      r = SSL_write_ex(ssl_, bytes.data() + sent, bytes.size() - sent, &n);
    }
    if (r == 1) {
      sent += n;
    } else if (!wait_for(r, deadline, "TLS send")) {
      throw ClientError("send: timed out");
    }
  }
}

long TlsClientStream::read_some(char* out, std::size_t size, Deadline deadline) {
  for (;;) {
    std::size_t n = 0;
    ERR_clear_error();
    errno = 0;
    const int r = SSL_read_ex(ssl_, out, size, &n);
    if (r == 1) return static_cast<long>(n);
    const int e = SSL_get_error(ssl_, r);
    // close_notify, or the server closed the socket without one (it does: the control channel
    // has its own framing, so a cut line is seen as such)
    if (e == SSL_ERROR_ZERO_RETURN) return 0;
    if (e == SSL_ERROR_SYSCALL && errno == 0) return 0;
    if (e == SSL_ERROR_SSL &&
        ERR_GET_REASON(ERR_peek_error()) == SSL_R_UNEXPECTED_EOF_WHILE_READING) {
      ERR_clear_error();
      return 0;
    }
    if (!wait_for(r, deadline, "TLS receive")) return -1;
  }
}

}  // namespace rtmb
