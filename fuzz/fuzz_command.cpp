// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// libFuzzer target for the TCP control channel's line parser (net/control_command.hpp, and the
// flat JSON reader under it). Each input is one line. Besides crashes, sanitizer reports and
// escaping exceptions (an uncaught exception aborts, which libFuzzer reports) it checks:
//   - an accepted command written back with to_json_line parses to the same command;
//   - a rejected line gives a non-empty message and an error reply that is itself a valid flat
//     JSON object, in UTF-8, with "ok":false, the same message, and the request id if any.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <variant>

#include "net/control_command.hpp"
#include "net/flat_json.hpp"

namespace {

void require(bool condition) {
  if (!condition) std::abort();
}

void check_command(const rtmb::Command& c) {
  const std::string line = rtmb::to_json_line(c);
  require(line.find('\n') == std::string::npos);
  // writing can lengthen a line (1e6 -> 1000000), past the limit only for near-limit input
  if (line.size() > rtmb::kMaxCommandLineBytes) return;
  const rtmb::CommandParseResult again = rtmb::parse_command(line);
  require(std::holds_alternative<rtmb::Command>(again));
  require(std::get<rtmb::Command>(again) == c);
}

void check_error(const rtmb::CommandError& e) {
  require(!e.message.empty());
  const std::string reply = rtmb::error_reply(e);
  require(reply.find('\n') == std::string::npos);
  require(rtmb::is_valid_utf8(reply));
  rtmb::FlatJsonObject o;
  std::string why;
  require(rtmb::parse_flat_json(reply, o, why));
  const rtmb::JsonValue* ok = o.find("ok");
  const rtmb::JsonValue* error = o.find("error");
  const rtmb::JsonValue* command = o.find("command");
  require(ok != nullptr && ok->type == rtmb::JsonType::kBool && !ok->boolean);
  require(error != nullptr && error->text == e.message);
  require(command != nullptr);
  require((o.find("id") != nullptr) == e.id.has_value());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string line(data, data + size);
  const rtmb::CommandParseResult r = rtmb::parse_command(line);
  if (const auto* c = std::get_if<rtmb::Command>(&r)) {
    check_command(*c);
  } else {
    check_error(std::get<rtmb::CommandError>(r));
  }
  return 0;
}
