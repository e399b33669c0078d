// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// The one spelling of a certificate's SHA-256 fingerprint, shared by the server (logged at start,
// Server::tls_fingerprint) and the client (compared with TlsOptions::fingerprint), so that what
// one prints is what the other pins.

#include <openssl/x509.h>

#include <string>

namespace rtmb {

/// SHA-256 of the certificate's DER encoding as upper-case hex pairs joined by ':' (as
/// `openssl x509 -noout -fingerprint -sha256` prints it); empty if OpenSSL cannot digest it.
[[nodiscard]] std::string sha256_fingerprint(X509* cert);

}  // namespace rtmb
