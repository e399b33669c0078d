// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The JSON writer (net/json_writer.hpp).
#include "net/json_writer.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <system_error>

#include "net/flat_json.hpp"

namespace rtmb {

void append_json_string(std::string& out, std::string_view s) {
  // RFC 8259 §7: '"', '\\' and U+0000..U+001F must be escaped; the text must be UTF-8 (§8.1),
  // so a byte that starts no well-formed sequence becomes U+FFFD, the replacement character
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    const char c = s[i];
    const auto u = static_cast<unsigned char>(c);
    std::size_t n = 1;  // bytes of s taken
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20) {
      out += "\\u00";
      out += kHex[u >> 4];
      out += kHex[u & 0xF];
    } else if (u < 0x80) {
      out += c;
    } else if ((n = utf8_sequence_length(s, i)) > 0) {
      out.append(s.substr(i, n));
    } else {
      out += "\\ufffd";
      n = 1;
    }
    i += n;
  }
  out += '"';
}

void append_json_number(std::string& out, double value) {
  if (!std::isfinite(value)) {
    out += "null";
    return;
  }
  // shortest round-trip form; to_chars never writes "inf"/"nan" for finite values, and its
  // exponent form ("1e+300") is valid JSON
  char buf[32];
  const auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, value);
  if (ec != std::errc{}) {
    out += "null";
    return;
  }
  out.append(buf, ptr);
}

void append_json_point(std::string& out, double x, double y, double z) {
  out += '[';
  append_json_number(out, x);
  out += ',';
  append_json_number(out, y);
  out += ',';
  append_json_number(out, z);
  out += ']';
}

void JsonObjectWriter::key(std::string_view k) {
  if (out_.size() > 1) out_ += ',';
  append_json_string(out_, k);
  out_ += ':';
}

void JsonObjectWriter::number(double value) {
  if (numbers_ == JsonNumbers::kShortest || !std::isfinite(value)) {
    append_json_number(out_, value);
    return;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", value);
  out_ += buf;
}

JsonObjectWriter& JsonObjectWriter::field(std::string_view k, std::string_view value) {
  key(k);
  append_json_string(out_, value);
  return *this;
}

JsonObjectWriter& JsonObjectWriter::field(std::string_view k, double value) {
  key(k);
  number(value);
  return *this;
}

JsonObjectWriter& JsonObjectWriter::field(std::string_view k, std::int64_t value) {
  key(k);
  out_ += std::to_string(value);
  return *this;
}

JsonObjectWriter& JsonObjectWriter::field(std::string_view k, std::uint64_t value) {
  key(k);
  out_ += std::to_string(value);
  return *this;
}

JsonObjectWriter& JsonObjectWriter::field(std::string_view k, bool value) {
  key(k);
  out_ += value ? "true" : "false";
  return *this;
}

JsonObjectWriter& JsonObjectWriter::field(std::string_view k, const Vec& values) {
  key(k);
  out_ += '[';
  for (Eigen::Index i = 0; i < values.size(); ++i) {
    if (i > 0) out_ += ',';
    number(values[i]);
  }
  out_ += ']';
  return *this;
}

JsonObjectWriter& JsonObjectWriter::null_field(std::string_view k) {
  key(k);
  out_ += "null";
  return *this;
}

}  // namespace rtmb
