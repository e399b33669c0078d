// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#include "net/tls_fingerprint.hpp"

#include <openssl/evp.h>

#include <array>
#include <cstdio>

namespace rtmb {

std::string sha256_fingerprint(X509* cert) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
  unsigned int n = 0;
  if (X509_digest(cert, EVP_sha256(), md.data(), &n) != 1) return {};
  std::string out;
  for (unsigned int i = 0; i < n; ++i) {
    std::array<char, 4> pair{};
    std::snprintf(pair.data(), pair.size(), "%02X", md[i]);
    if (i > 0) out += ':';
    out += pair.data();
  }
  return out;
}

}  // namespace rtmb
