// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// A small blocking client of `rtmb serve` for tools and tests (docs/protocol.md): a TCP control
// connection (one JSON line per request, one per reply) and a UDP socket that receives the state
// stream and sends inputs. Every call blocks at most for the timeout it is given. Errors of the
// transport throw ClientError (or its base SocketError, from a socket call); a request the server
// refuses comes back as its reply line. Not for the real-time thread (allocates, blocks). One
// thread at a time. The control connection may be TLS (rtmb serve --tls-cert/--tls-key):
// connect() with TlsOptions.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "rtmb/net/udp_socket.hpp"
#include "rtmb/net/wire.hpp"

namespace rtmb {

/// A transport failure (connect, send, receive, timeout on a control reply, malformed reply).
/// A failed socket call or a bad address comes as its base, SocketError.
class ClientError : public SocketError {
 public:
  using SocketError::SocketError;
};

/// TLS on the control connection (OpenSSL, TLS 1.2 or newer). The server's certificate is
/// checked either against trusted certificates and the host connected to (its subjectAltName
/// must name that IP address), or, with fingerprint, by pinning the certificate itself. There is
/// no mode that checks nothing.
struct TlsOptions {
  /// PEM file of the certificates to trust (a CA, or the server's self-signed certificate
  /// itself); empty: the system's trust store.
  std::string ca_file;
  /// SHA-256 of the server's certificate, 64 hex digits, ':' between pairs allowed (what
  /// `rtmb serve --tls-cert` logs and `openssl x509 -noout -fingerprint -sha256` prints).
  /// Non-empty: this certificate is accepted and no other, whatever its issuer or name.
  std::string fingerprint;
};

class TlsClientStream;  // net/tls_client_stream.hpp

/// What hello told about the server and its model.
struct ClientSchema {
  std::uint16_t version = 0;  ///< wire version of this client's inputs: 2 (authenticated) unless
                              ///< the server speaks only version 1
  std::uint64_t session = 0;  ///< version 2: the session id hello handed out (its key stays inside)
  std::string model;          ///< model name
  double rate_hz = 0.0;       ///< loop rate [Hz]
  double dt = 0.0;            ///< engine step [s]
  std::uint16_t udp_port = 0;        ///< where inputs go and state comes from
  std::vector<std::string> outputs;  ///< state channel names, in datagram order
  std::vector<std::string> output_units;
  std::vector<std::string> inputs;  ///< input channel names (index = channel number)
  std::vector<std::string> input_units;
};

class Client {
 public:
  using Timeout = std::chrono::milliseconds;

  Client();
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  /// Opens the control connection to an IPv4 host (dotted quad) and port.
  void connect(const std::string& host, std::uint16_t tcp_port, Timeout timeout = Timeout{2000});
  /// The same, then a TLS handshake on it within the same timeout; every later request goes
  /// through TLS. Throws ClientError when the handshake fails (the reason: a server that does
  /// not speak TLS, a certificate that is not trusted or not pinned, ...).
  void connect(const std::string& host,
               std::uint16_t tcp_port,
               Timeout timeout,
               const TlsOptions& tls);
  /// The control connection runs over TLS.
  [[nodiscard]] bool tls() const noexcept { return tls_ != nullptr; }
  /// Sends one request line (without '\n') and returns the reply line (without '\n').
  [[nodiscard]] std::string request(const std::string& line, Timeout timeout = Timeout{2000});
  /// Sends raw bytes on the control connection (for tests of malformed traffic).
  void send_raw(const std::string& bytes);
  /// Reads one reply line (without '\n').
  [[nodiscard]] std::string read_line(Timeout timeout = Timeout{2000});

  /// hello; throws ClientError if the server refuses (message = the reply line). Asks for wire
  /// version 2 (authenticated inputs: the reply's session key signs every input from then on),
  /// and falls back to version 1 if the server does not speak 2 (docs/protocol.md).
  ClientSchema hello(const std::optional<std::string>& token = std::nullopt);
  /// Opens the UDP socket (if not yet) and subscribes it to the state stream. Needs hello first.
  void subscribe(std::uint32_t decimation = 1);
  /// Waits for the next accepted state datagram (admit_state: decoded, in sequence). Returns
  /// false on timeout. Rejected datagrams are counted in state_counters() and skipped.
  [[nodiscard]] bool receive_state(StateMessage& out, Timeout timeout = Timeout{1000});
  /// The same with an absolute deadline (sub-millisecond waits for device loops).
  [[nodiscard]] bool receive_state_until(StateMessage& out,
                                         std::chrono::steady_clock::time_point deadline);
  /// on: receive_state waits by polling the socket in a loop and never sleeps
  /// (UdpSocket::poll_readable), for a device loop with a CPU of its own; off (the default): it
  /// sleeps in the kernel until a datagram comes.
  void set_busy_poll(bool on) noexcept { busy_poll_ = on; }
  /// Sends one input datagram with the next sequence number and the current steady clock as
  /// sender time; header step/time are those of the newest state received. Returns the header.
  MessageHeader send_input(std::span<const InputSample> samples);
  /// Encodes m as this session's input datagram into out: version 2 signed with the session key,
  /// or version 1 (hello's version). Returns its size, 0 if m does not fit (encode_input). For
  /// senders that use a socket of their own (rtmb latency's device); safe to call from another
  /// thread than the one receiving states, once hello has returned.
  [[nodiscard]] std::size_t encode_input_datagram(const InputMessage& m,
                                                  std::span<std::byte> out) const;
  /// Sends arbitrary bytes to the server's UDP port from the client's UDP socket (tests).
  void send_datagram(std::span<const std::byte> bytes);

  /// Closes both sockets. Idempotent.
  void close() noexcept;

  [[nodiscard]] const PacketCounters& state_counters() const noexcept { return counters_; }
  [[nodiscard]] const ClientSchema& schema() const noexcept { return schema_; }
  /// Local UDP port (0 before subscribe).
  [[nodiscard]] std::uint16_t udp_port() const noexcept { return local_udp_port_; }

 private:
  void open_udp();

  int tcp_ = -1;
  std::unique_ptr<TlsClientStream> tls_;  // connect with TlsOptions; null: plain TCP
  std::optional<UdpSocket> udp_;          // opened by subscribe or the first datagram sent
  bool busy_poll_ = false;                // receive_state polls instead of sleeping
  std::string host_;
  std::string pending_;  // bytes read past the last line
  std::uint16_t local_udp_port_ = 0;
  ClientSchema schema_;
  SessionKey key_{};  // version 2: the session key from hello
  SequenceWindow window_;
  PacketCounters counters_;
  std::uint64_t next_sequence_ = 1;
  std::uint64_t newest_step_ = 0;
  double newest_time_ = 0.0;
};

}  // namespace rtmb
