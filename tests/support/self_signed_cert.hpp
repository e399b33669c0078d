// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// A fresh self-signed certificate and its key, made at test time with the OpenSSL API (no
// `openssl` command, no key checked into the tree), for the TLS tests of the control channel
// (tests/net/server_tls_test.cpp, tests/apps/rtmb/serve_command_tls_test.cpp).

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace rtmb::testing {

struct TestCertificate {
  std::string cert_file;    ///< PEM certificate: CN and subjectAltName IP 127.0.0.1
  std::string key_file;     ///< PEM private key (EC P-256), unencrypted
  std::string fingerprint;  ///< SHA-256 of the certificate, "AB:CD:..." (upper-case)
};

/// Writes dir/NAME.crt and dir/NAME.key: a self-signed certificate for 127.0.0.1 valid from an
/// hour ago for a day. Every call makes a new key, so two calls give two certificates that do
/// not trust each other. Throws std::runtime_error.
inline TestCertificate write_self_signed_certificate(const std::filesystem::path& dir,
                                                     const std::string& name) {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  X509* cert = X509_new();
  if (key == nullptr || cert == nullptr) throw std::runtime_error("OpenSSL: no key/certificate");
  struct Free {
    EVP_PKEY* k;
    X509* c;
    ~Free() {
      X509_free(c);
      EVP_PKEY_free(k);
    }
  } free_them{key, cert};
  (void)X509_set_version(cert, 2);  // v3, for the extension
  (void)ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
  (void)X509_gmtime_adj(X509_getm_notBefore(cert), -3600);
  (void)X509_gmtime_adj(X509_getm_notAfter(cert), 24 * 3600);
  (void)X509_set_pubkey(cert, key);
  X509_NAME* subject = X509_get_subject_name(cert);
  (void)X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_ASC,
                                   reinterpret_cast<const unsigned char*>("127.0.0.1"), -1, -1, 0);
  (void)X509_set_issuer_name(cert, subject);
  // a client checks the IP address it connected to against subjectAltName, not CN
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
  X509_EXTENSION* san = X509V3_EXT_conf_nid(nullptr, &ctx, NID_subject_alt_name, "IP:127.0.0.1");
  if (san == nullptr || X509_add_ext(cert, san, -1) != 1) {
    throw std::runtime_error("OpenSSL: no subjectAltName");
  }
  X509_EXTENSION_free(san);
  if (X509_sign(cert, key, EVP_sha256()) == 0) throw std::runtime_error("OpenSSL: sign failed");

  TestCertificate out;
  out.cert_file = (dir / (name + ".crt")).string();
  out.key_file = (dir / (name + ".key")).string();
  std::FILE* f = std::fopen(out.cert_file.c_str(), "wb");
  if (f == nullptr) throw std::runtime_error("cannot write " + out.cert_file);
  const bool cert_ok = PEM_write_X509(f, cert) == 1;
  std::fclose(f);
  f = std::fopen(out.key_file.c_str(), "wb");
  if (f == nullptr) throw std::runtime_error("cannot write " + out.key_file);
  const bool key_ok = PEM_write_PrivateKey(f, key, nullptr, nullptr, 0, nullptr, nullptr) == 1;
  std::fclose(f);
  if (!cert_ok || !key_ok) throw std::runtime_error("OpenSSL: PEM write failed");

  std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
  unsigned int n = 0;
  (void)X509_digest(cert, EVP_sha256(), md.data(), &n);
  for (unsigned int i = 0; i < n; ++i) {
    std::array<char, 4> pair{};
    std::snprintf(pair.data(), pair.size(), "%02X", md[i]);
    if (i > 0) out.fingerprint += ':';
    out.fingerprint += pair.data();
  }
  return out;
}

}  // namespace rtmb::testing
