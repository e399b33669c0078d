// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// make_tls_server_context (net/tls_server_context.hpp): every unusable file is refused with a
// one-line reason naming that file (what `rtmb serve --tls-cert/--tls-key` prints with exit 2),
// and the fingerprint is the certificate's SHA-256 as OpenSSL prints it.
#include "net/tls_server_context.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/asio/ssl/context.hpp>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "tests/support/self_signed_cert.hpp"

namespace rtmb {
namespace {

namespace fs = std::filesystem;
using testing::TestCertificate;
using testing::write_self_signed_certificate;

class TlsServerContext : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("rtmb_tls_context_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    cert_ = write_self_signed_certificate(dir_, "server");
    other_ = write_self_signed_certificate(dir_, "other");
    garbage_ = (dir_ / "garbage.pem").string();
    std::ofstream(garbage_) << "this is not PEM\n";
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // the reason the context is refused with; fails the test when it is built
  static std::string refusal(const std::string& cert, const std::string& key) {
    try {
      (void)make_tls_server_context(cert, key);
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.find('\n'), std::string::npos) << "not one line: " << what;
      return what;
    }
    ADD_FAILURE() << "accepted cert " << cert << " with key " << key;
    return {};
  }

  fs::path dir_;
  TestCertificate cert_;
  TestCertificate other_;
  std::string garbage_;
};

TEST_F(TlsServerContext, AMatchingPairLoadsAndHasItsFingerprint) {
  const auto context = make_tls_server_context(cert_.cert_file, cert_.key_file);
  ASSERT_NE(context, nullptr);
  EXPECT_EQ(tls_certificate_fingerprint(*context), cert_.fingerprint);
  EXPECT_EQ(cert_.fingerprint.size(), 32u * 3 - 1);  // "AB:" x 32 without the last ':'
  EXPECT_NE(cert_.fingerprint, other_.fingerprint);
}

TEST_F(TlsServerContext, AMissingFileIsNamed) {
  const std::string missing = (dir_ / "nope.key").string();
  std::string why = refusal(cert_.cert_file, missing);
  EXPECT_NE(why.find("TLS key file '" + missing + "'"), std::string::npos) << why;
  EXPECT_NE(why.find("No such file"), std::string::npos) << why;
  why = refusal(missing, cert_.key_file);
  EXPECT_NE(why.find("TLS certificate file '" + missing + "'"), std::string::npos) << why;
}

TEST_F(TlsServerContext, ABadKeyFileIsNamed) {
  const std::string why = refusal(cert_.cert_file, garbage_);
  EXPECT_NE(why.find("TLS key file '" + garbage_ + "'"), std::string::npos) << why;
  EXPECT_NE(why.find("no usable PEM private key"), std::string::npos) << why;
}

TEST_F(TlsServerContext, ABadCertificateFileIsNamed) {
  // a key is not a certificate either
  for (const std::string& bad : {garbage_, cert_.key_file}) {
    const std::string why = refusal(bad, cert_.key_file);
    EXPECT_NE(why.find("TLS certificate file '" + bad + "'"), std::string::npos) << why;
  }
}

TEST_F(TlsServerContext, AnotherCertificatesKeyIsRefusedNamingBothFiles) {
  const std::string why = refusal(cert_.cert_file, other_.key_file);
  EXPECT_NE(why.find(other_.key_file), std::string::npos) << why;
  EXPECT_NE(why.find(cert_.cert_file), std::string::npos) << why;
  EXPECT_NE(why.find("is not the key of the certificate"), std::string::npos) << why;
}

}  // namespace
}  // namespace rtmb
