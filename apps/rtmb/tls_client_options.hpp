// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// The TLS options of the subcommands that connect to a running `rtmb serve --tls-cert ...`
// (latency, haptic-sim, with --connect): --tls, --tls-ca FILE, --tls-fingerprint SHA256, and the
// connect that uses them (include/rtmb/net/client.hpp, TlsOptions).

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "rtmb/net/client.hpp"

namespace rtmb::app {

struct TlsClientArgs {
  bool tls = false;         ///< --tls: TLS, the certificate checked against the system's CAs
  std::string ca_file;      ///< --tls-ca FILE: TLS, trusting the certificates in FILE
  std::string fingerprint;  ///< --tls-fingerprint HEX: TLS, pinned to that certificate

  /// Any of the three given.
  [[nodiscard]] bool any() const { return tls || !ca_file.empty() || !fingerprint.empty(); }
};

/// Adds --tls, --tls-ca and --tls-fingerprint to cmd (each needs connect, the --connect option).
inline void add_tls_client_options(CLI::App* cmd, TlsClientArgs& a, CLI::Option* connect) {
  cmd->add_flag("--tls", a.tls,
                "--connect over TLS (rtmb serve --tls-cert): the server's certificate must be "
                "trusted by the system's CAs and name the host's IP address")
      ->needs(connect);
  cmd->add_option("--tls-ca", a.ca_file,
                  "--connect over TLS, trusting the certificates in this PEM file (a CA, or the "
                  "server's self-signed certificate)")
      ->needs(connect);
  cmd->add_option("--tls-fingerprint", a.fingerprint,
                  "--connect over TLS to the server whose certificate has this SHA-256 (as rtmb "
                  "serve prints it), whoever issued it")
      ->needs(connect);
}

/// Connects client to host:port, over TLS when a.any(). Throws ClientError.
inline void connect_client(Client& client,
                           const std::string& host,
                           std::uint16_t port,
                           const TlsClientArgs& a) {
  if (!a.any()) {
    client.connect(host, port);
    return;
  }
  client.connect(host, port, Client::Timeout{2000}, TlsOptions{a.ca_file, a.fingerprint});
}

}  // namespace rtmb::app
