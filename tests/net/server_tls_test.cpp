// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// rtmb::Server's control channel over TLS (issue 15, ServerConfig::tls_cert_file/tls_key_file):
// the accept path hands each connection to a ControlSession that handshakes first. A client that
// trusts the certificate (or pins it) says hello and runs commands over TLS, and the UDP stream
// works beside it; a plain-text client on the TLS port gets no reply line and is dropped while
// the server keeps serving others; untrusted or wrongly pinned certificates are refused by the
// client. The certificates are made at test time (tests/support/self_signed_cert.hpp).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "rtmb/net/client.hpp"
#include "rtmb/net/server.hpp"
#include "tests/support/loopback_server.hpp"
#include "tests/support/self_signed_cert.hpp"

namespace rtmb {
namespace {

namespace fs = std::filesystem;
using testing::eventually;
using testing::loopback_config;
using testing::TestCertificate;
using testing::write_self_signed_certificate;

class ServerTls : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::path(::testing::TempDir()) / ("rtmb_server_tls_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    server_cert_ = write_self_signed_certificate(dir_, "server");
    other_cert_ = write_self_signed_certificate(dir_, "other");
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  static ServerConfig tls_config() {
    ServerConfig c = loopback_config();
    c.tls_cert_file = server_cert_.cert_file;
    c.tls_key_file = server_cert_.key_file;
    return c;
  }

  static TlsOptions trusting_server() { return TlsOptions{server_cert_.cert_file, {}}; }

  static inline fs::path dir_;
  static inline TestCertificate server_cert_;
  static inline TestCertificate other_cert_;
};

// Everything a plain client receives until the server closes (or 3 s pass): the raw bytes.
struct RawReply {
  std::string bytes;
  bool closed = false;
};

RawReply send_plain_text(std::uint16_t port, const std::string& text) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  RawReply out;
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    throw std::runtime_error("connect failed");
  }
  (void)::send(fd, text.data(), text.size(), MSG_NOSIGNAL);
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (std::chrono::steady_clock::now() < end) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    std::array<char, 1024> buf{};
    const ssize_t n = ::recv(fd, buf.data(), buf.size(), 0);
    if (n <= 0) {
      out.closed = true;  // EOF, or a reset
      break;
    }
    out.bytes.append(buf.data(), static_cast<std::size_t>(n));
  }
  ::close(fd);
  return out;
}

TEST_F(ServerTls, HelloAndCommandsTravelOverTls) {
  Server server(tls_config());
  server.start();
  EXPECT_EQ(server.tls_fingerprint(), server_cert_.fingerprint);
  Client client;
  client.connect("127.0.0.1", server.tcp_port(), Client::Timeout{5000}, trusting_server());
  EXPECT_TRUE(client.tls());
  const ClientSchema schema = client.hello();
  EXPECT_EQ(schema.model, "pendulum");
  EXPECT_EQ(schema.inputs.size(), 2u);  // one generalized force per velocity coordinate
  // a command and its reply over TLS: pause, then two steps, seen in the stats reply
  EXPECT_EQ(client.request("{\"command\":\"pause\",\"id\":7}"),
            "{\"ok\":true,\"command\":\"pause\",\"id\":7}");
  const std::string stats = client.request("{\"command\":\"stats\"}");
  EXPECT_NE(stats.find("\"ok\":true"), std::string::npos) << stats;
  EXPECT_NE(stats.find("\"tls_failed\":0"), std::string::npos) << stats;
  // the UDP stream is unchanged beside a TLS control channel
  client.subscribe(1);
  StateMessage m;
  EXPECT_TRUE(client.receive_state(m, Client::Timeout{3000}));
  server.request_stop();
  server.join();
  EXPECT_EQ(server.stats().tls_failed, 0u);
  EXPECT_GE(server.stats().commands, 4u);
}

TEST_F(ServerTls, APinnedCertificateIsAcceptedWhateverItsIssuer) {
  Server server(tls_config());
  server.start();
  Client client;
  client.connect("127.0.0.1", server.tcp_port(), Client::Timeout{5000},
                 TlsOptions{{}, server_cert_.fingerprint});
  EXPECT_EQ(client.hello().model, "pendulum");
}

TEST_F(ServerTls, PlainTextOnTheTlsPortGetsNoReplyAndOthersAreServed) {
  Server server(tls_config());
  server.start();
  const RawReply plain = send_plain_text(server.tcp_port(), "{\"command\":\"hello\"}\n");
  EXPECT_TRUE(plain.closed) << "the server kept a plain-text client's connection open";
  // at most a TLS alert record, never a reply line
  EXPECT_EQ(plain.bytes.find('{'), std::string::npos) << plain.bytes;
  EXPECT_EQ(plain.bytes.find('\n'), std::string::npos) << plain.bytes;
  EXPECT_TRUE(eventually([&] { return server.stats().tls_failed >= 1; }));
  EXPECT_TRUE(server.running());
  // a TLS client is served as before
  Client client;
  client.connect("127.0.0.1", server.tcp_port(), Client::Timeout{5000}, trusting_server());
  EXPECT_EQ(client.hello().model, "pendulum");
  EXPECT_TRUE(eventually([&] { return server.stats().clients == 1; }));
}

TEST_F(ServerTls, AnUntrustedCertificateIsRefusedByTheClient) {
  Server server(tls_config());
  server.start();
  Client client;
  try {
    client.connect("127.0.0.1", server.tcp_port(), Client::Timeout{5000},
                   TlsOptions{other_cert_.cert_file, {}});
    FAIL() << "the client accepted a certificate it does not trust";
  } catch (const ClientError& e) {
    EXPECT_NE(std::string(e.what()).find("not trusted"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(client.tls());
  // the server counts the handshake the client broke off
  EXPECT_TRUE(eventually([&] { return server.stats().tls_failed >= 1; }));
}

TEST_F(ServerTls, AWrongPinIsRefusedByTheClient) {
  Server server(tls_config());
  server.start();
  Client client;
  try {
    client.connect("127.0.0.1", server.tcp_port(), Client::Timeout{5000},
                   TlsOptions{{}, other_cert_.fingerprint});
    FAIL() << "the client accepted a certificate other than the pinned one";
  } catch (const ClientError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("not the pinned one"), std::string::npos) << what;
    EXPECT_NE(what.find(server_cert_.fingerprint), std::string::npos) << what;
  }
}

TEST_F(ServerTls, ATlsClientAgainstAPlainServerFailsAndThePlainServerGoesOn) {
  Server server(loopback_config());
  server.start();
  EXPECT_TRUE(server.tls_fingerprint().empty());
  Client tls_client;
  EXPECT_THROW(
      tls_client.connect("127.0.0.1", server.tcp_port(), Client::Timeout{3000}, trusting_server()),
      ClientError);
  Client plain;
  plain.connect("127.0.0.1", server.tcp_port());
  EXPECT_EQ(plain.hello().model, "pendulum");
}

TEST_F(ServerTls, ACertificateWithoutItsKeyIsRefused) {
  ServerConfig c = loopback_config();
  c.tls_cert_file = server_cert_.cert_file;
  try {
    Server server(c);
    FAIL() << "a server with a certificate and no key was built";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--tls-key"), std::string::npos) << e.what();
  }
}

TEST_F(ServerTls, ATokenBeyondLoopbackWithoutTlsIsWarnedAboutOnce) {
  for (const bool tls : {false, true}) {
    ServerConfig c = tls ? tls_config() : loopback_config();
    c.bind_address = "0.0.0.0";
    c.token = "s3cret";
    Server server(c);
    server.start();
    const std::uint64_t before = server.stats().step;
    EXPECT_TRUE(eventually([&] { return server.stats().step > before + 20; }));
    server.request_stop();
    server.join();
    EXPECT_EQ(server.stats().plaintext_token_warnings, tls ? 0u : 1u) << "tls " << tls;
  }
  // loopback: the token never leaves the machine
  ServerConfig c = loopback_config();
  c.token = "s3cret";
  Server server(c);
  server.start();
  server.request_stop();
  server.join();
  EXPECT_EQ(server.stats().plaintext_token_warnings, 0u);
}

}  // namespace
}  // namespace rtmb
