// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// rtmb::make_tls_server_context (net/tls_server_context.hpp). The OpenSSL calls are made on the
// context's native handle rather than through asio::ssl::context's throwing wrappers, so that
// each failure is reported with the file it concerns and OpenSSL's own reason.
#include "net/tls_server_context.hpp"

// clang-format off
// <utility> first: Boost 1.74's asio/awaitable.hpp uses std::exchange without including it
#include <utility>
#include <boost/asio/ssl/context.hpp>
// clang-format on

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "net/tls_fingerprint.hpp"

namespace rtmb {

namespace {

// The oldest error OpenSSL queued (the root cause), then the queue emptied.
std::string openssl_refusal() {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "not accepted by OpenSSL";
  const char* reason = ERR_reason_error_string(code);
  return reason != nullptr ? reason : "OpenSSL error " + std::to_string(code);
}

void require_readable(const std::string& what, const std::string& path) {
  if (path.empty()) throw std::invalid_argument(what + ": no file given");
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::invalid_argument("cannot read " + what + " '" + path + "': " + std::strerror(errno));
  }
}

}  // namespace

std::unique_ptr<boost::asio::ssl::context> make_tls_server_context(const std::string& cert_file,
                                                                   const std::string& key_file) {
  require_readable("TLS certificate file", cert_file);
  require_readable("TLS key file", key_file);
  auto context = std::make_unique<boost::asio::ssl::context>(boost::asio::ssl::context::tls_server);
  SSL_CTX* ctx = context->native_handle();
  ERR_clear_error();
  if (SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1) {
    throw std::invalid_argument("TLS: cannot require TLS 1.2: " + openssl_refusal());
  }
  // no renegotiation, no compression (CRIME); a fresh key per connection
  SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION | SSL_OP_SINGLE_DH_USE |
                               SSL_OP_SINGLE_ECDH_USE);
  if (SSL_CTX_use_certificate_chain_file(ctx, cert_file.c_str()) != 1) {
    throw std::invalid_argument("TLS certificate file '" + cert_file +
                                "': no usable PEM certificate (" + openssl_refusal() + ")");
  }
  if (SSL_CTX_use_PrivateKey_file(ctx, key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    // OpenSSL compares the key with the certificate already here
    const std::string reason = openssl_refusal();
    if (reason.find("mismatch") != std::string::npos) {
      throw std::invalid_argument("TLS key file '" + key_file +
                                  "' is not the key of the certificate in '" + cert_file + "' (" +
                                  reason + ")");
    }
    throw std::invalid_argument("TLS key file '" + key_file + "': no usable PEM private key (" +
                                reason + ")");
  }
  if (SSL_CTX_check_private_key(ctx) != 1) {
    throw std::invalid_argument("TLS key file '" + key_file +
                                "' is not the key of the certificate in '" + cert_file + "' (" +
                                openssl_refusal() + ")");
  }
  return context;
}

std::string tls_certificate_fingerprint(boost::asio::ssl::context& context) {
  X509* cert = SSL_CTX_get0_certificate(context.native_handle());
  if (cert == nullptr) return {};
  return sha256_fingerprint(cert);
}

}  // namespace rtmb
