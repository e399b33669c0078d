// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Writes the seed corpora of the fuzz targets: `make_seeds DIR` creates DIR/packet (valid and
// nearly valid datagrams of both kinds, from the real encoder, so they follow the current wire
// version), DIR/command (one control line per file: every command, and typical mistakes) and
// DIR/view (browser requests to the live view, some followed by WebSocket frames). The record and
// model targets' seeds are files: fuzz/seeds/record (written by rtmb serve --record) and
// configs/*.yaml.
// Generated rather than checked in so the seeds never go stale when the layout changes.
#include <array>
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rtmb/net/wire.hpp"

namespace {

namespace fs = std::filesystem;

void write_file(const fs::path& path, std::span<const std::byte> bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  for (const std::byte b : bytes) out.put(static_cast<char>(b));
}

void write_packets(const fs::path& dir) {
  fs::create_directories(dir);
  std::array<std::byte, rtmb::kMaxDatagramBytes> buf{};
  int index = 0;
  const auto save = [&](std::size_t n) {
    write_file(dir / ("seed_" + std::to_string(index++)), std::span(buf).first(n));
  };

  // states with 0, 1, 3 and 64 channels, some with flags and NaN energy
  for (const std::uint16_t channels : {0, 1, 3, 64}) {
    rtmb::StateMessage m;
    m.header.flags = channels % 2 == 1 ? rtmb::WireFlag::kEchoValid | rtmb::WireFlag::kPaused : 0;
    m.header.sequence = 1000u + channels;
    m.header.step = 42;
    m.header.sim_time_s = 0.042;
    m.header.sender_time_ns = 123456789;
    m.energy = channels == 3 ? std::numeric_limits<double>::quiet_NaN() : 9.81;
    m.echo = {7, 1000, 41};
    m.channel_count = channels;
    for (std::size_t i = 0; i < channels; ++i) m.channels[i] = 0.5 * static_cast<double>(i) - 1.0;
    save(rtmb::encode_state(m, buf));
  }

  // inputs with 1, 2 and 64 samples, channels below 300 (the fuzz target's channel count)
  for (const std::uint16_t samples : {1, 2, 64}) {
    rtmb::InputMessage m;
    m.header.sequence = 5u + samples;
    m.header.sender_time_ns = 987654321;
    m.sample_count = samples;
    for (std::size_t i = 0; i < samples; ++i) {
      m.samples[i] = {static_cast<std::uint16_t>(i * 4), 0.25 * static_cast<double>(i)};
    }
    save(rtmb::encode_input(m, buf));
    // and as wire version 2 (framing only: the tag is left zero, the fuzz target has no MAC)
    save(rtmb::encode_input_v2(m, 0x0102030405060708u + samples, buf));
  }

  // nearly valid: a truncated header, and an input with a NaN sample
  rtmb::InputMessage m;
  m.sample_count = 1;
  m.samples[0] = {1, std::numeric_limits<double>::quiet_NaN()};
  const std::size_t n = rtmb::encode_input(m, buf);
  save(n);
  save(rtmb::kHeaderBytes - 1);
}

void write_commands(const fs::path& dir) {
  fs::create_directories(dir);
  const std::string_view lines[] = {
      R"({"command":"hello","token":"s3cret","version":1,"id":1})",
      R"({"command":"start"})",
      R"({"command":"pause","id":2})",
      R"({"command":"step","count":250})",
      R"({"command":"reset"})",
      R"({"command":"set","param":"dt","value":5e-4})",
      R"({"command":"set","param":"stabilizer","value":"pstab"})",
      R"({"command":"set","param":"monitor","value":false})",
      R"({"command":"load","model":"double_pendulum"})",
      R"({"command":"subscribe","address":"127.0.0.1","port":9001,"decimation":10})",
      R"({"command":"unsubscribe","port":9001})",
      R"({"command":"stats","id":9007199254740991})",
      R"({"command":"step","count":1,"count":2})",
      R"({"command":"set","param":"p","value":NaN})",
      R"({"command":"load","model":"a\/b \"q\" \u00e9 \ud83d\ude00"})",
      R"( {"command" : "step" , "count" : 1e3 } )",
      R"({"command":"x","a":{"b":[1]}})",
      R"({"command":"hello","token":null})",
  };
  int index = 0;
  for (const std::string_view line : lines) {
    write_file(dir / ("seed_" + std::to_string(index++)), std::as_bytes(std::span(line)));
  }
}

}  // namespace

// A masked client frame (RFC 6455 5.2): FIN + opcode, the payload length (< 126) with the mask
// bit, the key, the payload XORed with the key.
std::string masked_frame(unsigned opcode, std::string_view payload) {
  const unsigned char key[4] = {0x12, 0x34, 0x56, 0x78};
  std::string f;
  f += static_cast<char>(0x80 | opcode);
  f += static_cast<char>(0x80 | payload.size());
  for (const unsigned char k : key) f += static_cast<char>(k);
  for (std::size_t i = 0; i < payload.size(); ++i) {
    f += static_cast<char>(static_cast<unsigned char>(payload[i]) ^ key[i % 4]);
  }
  return f;
}

void write_view_requests(const fs::path& dir) {
  fs::create_directories(dir);
  const std::string upgrade =
      "GET /ws?token=s3cret HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nConnection: Upgrade\r\n"
      "Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n";
  const std::string requests[] = {
      "GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n",
      "GET /?token=s3cret HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nConnection: keep-alive\r\n\r\n",
      "GET /index.html?token=s3%63ret HTTP/1.1\r\nHost: x\r\n\r\n",
      "HEAD /view.js HTTP/1.0\r\n\r\n",
      "GET /three.module.js HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s3cret\r\n\r\n",
      "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello",
      "GET /nope HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
      upgrade,
      upgrade + masked_frame(0x1, "hello") + masked_frame(0x9, "") + masked_frame(0x8, "\x03\xe8"),
      upgrade + masked_frame(0x2, std::string(100, 'x')) + masked_frame(0x0, "more"),
  };
  int index = 0;
  for (const std::string& r : requests) {
    write_file(dir / ("seed_" + std::to_string(index++)),
               std::as_bytes(std::span(r.data(), r.size())));
  }
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT_DIR\n", argv[0]);
    return 2;
  }
  const fs::path root(argv[1]);
  write_packets(root / "packet");
  write_commands(root / "command");
  write_view_requests(root / "view");
  return 0;
}
