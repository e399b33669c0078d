// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// The one JSON writer of the tree: a flat object on one line, for the control channel's replies
// (net/) and the command-line tools' summaries (apps/). The reader is net/flat_json.hpp.
// Not on the real-time path: it allocates.

#include <cstdint>
#include <string>
#include <string_view>

#include "rtmb/types.hpp"

namespace rtmb {

/// Appends s as a quoted JSON string (RFC 8259 §7): '"' and '\\' escaped, every control
/// character below 0x20 as \n, \t or \u00XX. Well-formed UTF-8 is copied as it is; each byte
/// that starts no well-formed UTF-8 sequence becomes \ufffd, so the result is always valid JSON.
void append_json_string(std::string& out, std::string_view s);

/// Appends a finite double as the shortest JSON number that reads back to the same value
/// (null if not finite, since JSON has no NaN or Infinity).
void append_json_number(std::string& out, double value);

/// Appends the point [x,y,z], each as append_json_number writes it (the live view's points).
void append_json_point(std::string& out, double x, double y, double z);

/// How JsonObjectWriter prints doubles. Both read back to the same double.
enum class JsonNumbers : std::uint8_t {
  kShortest,  ///< the shortest round-trip form (the control channel)
  kDigits17,  ///< printf "%.17g" (the command-line summaries have always printed this form,
              ///< and scripts compare their text)
};

/// One flat JSON object, built member by member: {"key":value,...}. Non-finite numbers are
/// written as null.
class JsonObjectWriter {
 public:
  explicit JsonObjectWriter(JsonNumbers numbers = JsonNumbers::kShortest) : numbers_(numbers) {}

  JsonObjectWriter& field(std::string_view key, std::string_view value);
  JsonObjectWriter& field(std::string_view key, const char* value) {
    return field(key, std::string_view(value));
  }
  JsonObjectWriter& field(std::string_view key, double value);
  JsonObjectWriter& field(std::string_view key, std::int64_t value);
  JsonObjectWriter& field(std::string_view key, std::uint64_t value);
  JsonObjectWriter& field(std::string_view key, bool value);
  JsonObjectWriter& field(std::string_view key, const Vec& values);  ///< a JSON array
  JsonObjectWriter& null_field(std::string_view key);

  /// The object so far, closed: valid after any number of fields (also none: "{}").
  [[nodiscard]] std::string str() const { return out_ + '}'; }

 private:
  void key(std::string_view key);
  void number(double value);

  JsonNumbers numbers_;
  std::string out_ = "{";
};

}  // namespace rtmb
