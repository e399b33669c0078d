// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// normalize_fingerprint (net/tls_client_stream.hpp): the forms a user pastes (OpenSSL's
// "AB:CD:...", bare hex, lower case) pin the same certificate; anything else is refused with the
// reason. The stream itself is exercised against a server in tests/net/server_tls_test.cpp.
#include "net/tls_client_stream.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <stdexcept>
#include <string>

namespace rtmb {
namespace {

const std::string kHex = "00112233445566778899AABBCCDDEEFF00112233445566778899AABBCCDDEEFF";
const std::string kColons =
    "00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:"
    "00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF";

TEST(TlsClientStream, FingerprintFormsNormalizeToOpenSslsColonForm) {
  EXPECT_EQ(normalize_fingerprint(kHex), kColons);
  EXPECT_EQ(normalize_fingerprint(kColons), kColons);
  std::string lower = kColons;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  EXPECT_EQ(normalize_fingerprint(lower), kColons);
}

TEST(TlsClientStream, MalformedFingerprintsAreRefused) {
  for (const std::string& bad :
       {std::string(), kHex.substr(2), kHex + "00", "zz" + kHex.substr(2), ":" + kHex, kHex + ":",
        kColons.substr(0, 47) + "-" + kColons.substr(48)}) {
    EXPECT_THROW((void)normalize_fingerprint(bad), std::invalid_argument) << bad;
  }
}

}  // namespace
}  // namespace rtmb
