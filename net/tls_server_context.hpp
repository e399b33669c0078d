// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// The TLS side of rtmb::Server's control channel (rtmb serve --tls-cert/--tls-key): an OpenSSL
// server context for Boost.Asio's ssl::stream, loaded once at construction. TLS 1.2 and newer
// only: 1.0 and 1.1 are deprecated (RFC 8996).

#include <memory>
#include <string>

namespace boost::asio::ssl {
class context;
}  // namespace boost::asio::ssl

namespace rtmb {

/// Loads the certificate chain (PEM, the server's certificate first) and its private key (PEM).
/// Throws std::invalid_argument with a one-line reason that names the file at fault: a file that
/// cannot be read, one that holds no certificate or key, or a key that is not the certificate's.
[[nodiscard]] std::unique_ptr<boost::asio::ssl::context> make_tls_server_context(
    const std::string& cert_file, const std::string& key_file);

/// SHA-256 of the context's certificate (DER), as upper-case hex pairs joined by ':' (what
/// `openssl x509 -noout -fingerprint -sha256` prints): what a client pins with
/// TlsOptions::fingerprint.
[[nodiscard]] std::string tls_certificate_fingerprint(boost::asio::ssl::context& context);

}  // namespace rtmb
