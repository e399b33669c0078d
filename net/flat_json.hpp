// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// A strict reader for the one shape the TCP control channel uses: a single flat JSON object
// (RFC 8259) whose values are strings, numbers, true, false or null, on one line.
//
// Why not a JSON library: the project takes no dependency beyond Debian packages for this, and
// the control channel needs only flat objects. Keeping the reader this small makes it easy to
// fuzz to exhaustion (fuzz/fuzz_command.cpp). It is deliberately strict: nested objects and
// arrays, duplicate keys, invalid UTF-8, lone surrogates, "\u0000", numbers JSON does not allow
// (NaN, Infinity, 01, .5, +1) and numbers outside the double range are errors, each with the
// 1-based column where it was found. It does not recurse, so nesting depth cannot exhaust the
// stack. Not on the real-time path: it allocates (std::string, std::vector).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rtmb {

/// Most members a flat object may have.
inline constexpr std::size_t kMaxJsonKeys = 16;

/// Type of a flat JSON value.
enum class JsonType : std::uint8_t { kString, kNumber, kBool, kNull };

/// One value of a flat object.
struct JsonValue {
  JsonType type = JsonType::kNull;
  std::string text;      ///< kString: the decoded value, valid UTF-8 without NUL
  double number = 0.0;   ///< kNumber: the value, finite
  bool boolean = false;  ///< kBool
};

/// One key/value pair.
struct JsonMember {
  std::string key;  ///< decoded key, valid UTF-8 without NUL
  JsonValue value;
};

/// A parsed flat object: members in input order, keys unique.
struct FlatJsonObject {
  std::vector<JsonMember> members;

  /// The value for key, or nullptr. The pointer is valid until members changes.
  [[nodiscard]] const JsonValue* find(std::string_view key) const noexcept;
};

/// Parses text as exactly one flat JSON object, optionally surrounded by JSON whitespace.
/// On success returns true and replaces out. On failure returns false and sets out_error to
/// "column N: what was wrong"; out is then unspecified. Throws only std::bad_alloc.
[[nodiscard]] bool parse_flat_json(std::string_view text,
                                   FlatJsonObject& out,
                                   std::string& out_error);

/// The length of the well-formed UTF-8 sequence that starts at s[i] (i < s.size()), 0 if none
/// starts there (RFC 3629: no overlong forms, surrogates or code points > U+10FFFF).
[[nodiscard]] std::size_t utf8_sequence_length(std::string_view s, std::size_t i) noexcept;

/// Whether s is well-formed UTF-8 (no overlong forms, surrogates or code points > U+10FFFF).
[[nodiscard]] bool is_valid_utf8(std::string_view s) noexcept;

/// At most max_bytes of s, cut at a UTF-8 character boundary, with "..." appended when cut.
/// For quoting user input in error messages without letting it grow the reply.
[[nodiscard]] std::string clip_utf8(std::string_view s, std::size_t max_bytes);

}  // namespace rtmb
