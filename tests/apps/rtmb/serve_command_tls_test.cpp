// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// `rtmb serve --tls-cert FILE --tls-key FILE` as a user runs it (issue 15): unusable files are
// exit 2 with one line naming the file; a token beyond loopback without TLS is warned about (the
// token would travel in plain text); and `rtmb latency --connect --tls-ca` measures through a
// TLS control channel of a running server. The certificate is made at test time
// (tests/support/self_signed_cert.hpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/run_binary.hpp"
#include "tests/support/self_signed_cert.hpp"

namespace {

namespace fs = std::filesystem;
using rtmb::testing::CommandResult;
using rtmb::testing::contains_all;
using rtmb::testing::run_rtmb;
using rtmb::testing::TestCertificate;

class ServeCommandTls : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("rtmb_serve_tls_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    cert_ = rtmb::testing::write_self_signed_certificate(dir_, "server");
    garbage_ = (dir_ / "garbage.key").string();
    std::ofstream(garbage_) << "-----BEGIN PRIVATE KEY-----\nnot base64 at all\n";
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  std::string tls_args() const {
    return " --tls-cert " + cert_.cert_file + " --tls-key " + cert_.key_file;
  }

  fs::path dir_;
  TestCertificate cert_;
  std::string garbage_;
};

TEST_F(ServeCommandTls, ABadKeyFileIsExit2WithOneLineNamingIt) {
  const CommandResult r = run_rtmb("serve pendulum --duration 5 --tls-cert " + cert_.cert_file +
                                   " --tls-key " + garbage_);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(contains_all(r.out, {"rtmb serve: TLS key file '" + garbage_ + "'"}));
  EXPECT_EQ(r.out, r.last_line + "\n") << "more than one line";
}

TEST_F(ServeCommandTls, AMissingCertificateIsExit2NamingIt) {
  const std::string missing = (dir_ / "missing.crt").string();
  const CommandResult r =
      run_rtmb("serve pendulum --duration 5 --tls-cert " + missing + " --tls-key " + garbage_);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(contains_all(r.out, {"TLS certificate file '" + missing + "'", "No such file"}));
}

TEST_F(ServeCommandTls, ACertificateNeedsItsKey) {
  const CommandResult r = run_rtmb("serve pendulum --duration 5 --tls-cert " + cert_.cert_file);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(contains_all(r.out, {"--tls-key"}));
}

TEST_F(ServeCommandTls, ATokenBeyondLoopbackIsWarnedAboutWithoutTlsOnly) {
  CommandResult r = run_rtmb("serve pendulum --bind 0.0.0.0 --port 0 --duration 0.3 --token s3");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(contains_all(r.out, {"the token travels in plain text", "--tls-cert"}));
  r = run_rtmb("serve pendulum --bind 0.0.0.0 --port 0 --duration 0.3 --token s3" + tls_args());
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(contains_all(r.out, {"(TLS)", cert_.fingerprint, "closing report"}));
  EXPECT_EQ(r.out.find("plain text"), std::string::npos) << r.out;
}

TEST_F(ServeCommandTls, LatencyMeasuresThroughATlsControlChannel) {
  // the server in the background; its start line says the port the OS chose
  const std::string serve =
      std::string(RTMB_BINARY) + " serve pendulum --port 0 --duration 6" + tls_args() + " 2>&1";
  FILE* pipe = popen(serve.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string serve_out;
  int port = 0;
  std::array<char, 4096> buf{};
  const std::string marker = "control tcp 127.0.0.1:";
  while (port == 0 && std::fgets(buf.data(), buf.size(), pipe) != nullptr) {
    const std::string line = buf.data();
    serve_out += line;
    const std::size_t at = line.find(marker);
    if (at != std::string::npos) port = std::atoi(line.c_str() + at + marker.size());
  }
  EXPECT_GT(port, 0) << serve_out;
  if (port > 0) {
    const std::string connect = " --connect 127.0.0.1:" + std::to_string(port);
    const CommandResult r = run_rtmb("latency --rate 200 --duration 0.5 --json" + connect +
                                     " --tls-ca " + cert_.cert_file);
    EXPECT_EQ(r.exit_code, 0) << r.out;
    EXPECT_TRUE(contains_all(r.last_line, {"\"clock\":\"server's\""}));
    EXPECT_GT(rtmb::testing::json_number(r.last_line, "echoed"), 0.0) << r.out;
    // pinned by the fingerprint rtmb serve prints
    const CommandResult pinned = run_rtmb("latency --rate 200 --duration 0.3" + connect +
                                          " --tls-fingerprint " + cert_.fingerprint);
    EXPECT_EQ(pinned.exit_code, 0) << pinned.out;
    // plain text against the TLS port: the connection fails, exit 2 with the reason
    const CommandResult plain = run_rtmb("latency --rate 200 --duration 0.3" + connect);
    EXPECT_EQ(plain.exit_code, 2) << plain.out;
  }
  while (std::fgets(buf.data(), buf.size(), pipe) != nullptr) serve_out += buf.data();
  EXPECT_EQ(pclose(pipe), 0) << serve_out;
  EXPECT_TRUE(contains_all(serve_out, {"(TLS)", "closing report"}));
}

TEST_F(ServeCommandTls, TlsClientOptionsNeedConnect) {
  const CommandResult r = run_rtmb("latency --tls-ca " + cert_.cert_file);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(contains_all(r.out, {"--connect"}));
}

}  // namespace
