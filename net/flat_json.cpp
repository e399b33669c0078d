// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Strict flat-object JSON reader (net/flat_json.hpp); the writer is net/json_writer.hpp. The
// grammar is RFC 8259 restricted to one object of scalar values:
//   object = ws "{" ws [ member *( ws "," ws member ) ] ws "}" ws
//   member = string ws ":" ws ( string / number / "true" / "false" / "null" )
#include "net/flat_json.hpp"

#include <charconv>
#include <cmath>
#include <system_error>

namespace rtmb {

namespace {

// Quoted key or value for an error message, bounded so a long input cannot grow the reply.
constexpr std::size_t kQuoteBytes = 40;

[[nodiscard]] std::string quoted_clip(std::string_view s) {
  return '"' + clip_utf8(s, kQuoteBytes) + '"';
}

[[nodiscard]] bool is_ws(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}
[[nodiscard]] bool is_digit(char c) noexcept {
  return c >= '0' && c <= '9';
}

[[nodiscard]] int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// One pass over the text, no recursion. Every method returns false after setting error_.
class Reader {
 public:
  explicit Reader(std::string_view text) : s_(text) {}

  bool object(FlatJsonObject& out) {
    out.members.clear();
    skip_ws();
    if (at_end()) return fail("empty input, expected a JSON object");
    if (peek() != '{') return fail("expected '{': a command is one JSON object");
    ++pos_;
    skip_ws();
    if (take('}')) return end();
    for (;;) {
      if (!member(out)) return false;
      skip_ws();
      if (take('}')) return end();
      if (!take(',')) return fail("expected ',' or '}' after a value");
      skip_ws();
    }
  }

  [[nodiscard]] std::string error() const { return error_; }

 private:
  bool member(FlatJsonObject& out) {
    if (at_end() || peek() != '"') return fail("expected a key in double quotes");
    JsonMember m;
    const std::size_t key_pos = pos_;
    if (!string(m.key)) return false;
    if (out.find(m.key) != nullptr) {
      pos_ = key_pos;
      return fail("duplicate key " + quoted_clip(m.key));
    }
    if (out.members.size() == kMaxJsonKeys) {
      pos_ = key_pos;
      return fail("too many keys (at most " + std::to_string(kMaxJsonKeys) + ")");
    }
    skip_ws();
    if (!take(':')) return fail("expected ':' after key " + quoted_clip(m.key));
    skip_ws();
    if (!value(m.key, m.value)) return false;
    out.members.push_back(std::move(m));
    return true;
  }

  bool value(const std::string& key, JsonValue& out) {
    if (at_end()) return fail("missing value for key " + quoted_clip(key));
    const char c = peek();
    if (c == '"') {
      out.type = JsonType::kString;
      return string(out.text);
    }
    if (c == '{' || c == '[') {
      return fail("nested objects and arrays are not supported (key " + quoted_clip(key) + ")");
    }
    if (c == '-' || is_digit(c)) {
      out.type = JsonType::kNumber;
      return number(out.number);
    }
    if (literal("true")) {
      out.type = JsonType::kBool;
      out.boolean = true;
      return true;
    }
    if (literal("false")) {
      out.type = JsonType::kBool;
      out.boolean = false;
      return true;
    }
    if (literal("null")) {
      out.type = JsonType::kNull;
      return true;
    }
    return fail("invalid value for key " + quoted_clip(key) +
                ": expected a string, number, true, false or null (JSON has no NaN or Infinity)");
  }

  // string = '"' *char '"', with the escapes of RFC 8259 section 7
  bool string(std::string& out) {
    ++pos_;  // opening quote
    for (;;) {
      if (at_end()) return fail("unterminated string");
      const char c = s_[pos_];
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (static_cast<unsigned char>(c) < 0x20) {
        return fail("control character in a string (write it as an escape)");
      }
      if (c != '\\') {
        out += c;
        ++pos_;
        continue;
      }
      if (!escape(out)) return false;
    }
  }

  bool escape(std::string& out) {
    ++pos_;  // backslash
    if (at_end()) return fail("unterminated escape");
    const char e = s_[pos_++];
    switch (e) {
      case '"':
        out += '"';
        return true;
      case '\\':
        out += '\\';
        return true;
      case '/':
        out += '/';
        return true;
      case 'b':
        out += '\b';
        return true;
      case 'f':
        out += '\f';
        return true;
      case 'n':
        out += '\n';
        return true;
      case 'r':
        out += '\r';
        return true;
      case 't':
        out += '\t';
        return true;
      case 'u':
        return unicode_escape(out);
      default:
        break;
    }
    --pos_;
    // echo the character only if it is printable ASCII: anything else could be a control
    // character or part of a UTF-8 sequence, and would corrupt the reply
    if (e > ' ' && e < 0x7F) return fail("invalid escape '\\" + std::string(1, e) + "'");
    return fail("invalid escape: '\\' must be followed by one of \" \\ / b f n r t u");
  }

  // \uXXXX, or a surrogate pair \uD8XX\uDCXX for code points above U+FFFF
  bool unicode_escape(std::string& out) {
    std::uint32_t cp = 0;
    if (!hex4(cp)) return false;
    if (cp >= 0xDC00 && cp <= 0xDFFF) return fail("unpaired low surrogate in \\u escape");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      std::uint32_t low = 0;
      if (s_.substr(pos_, 2) != "\\u") return fail("unpaired high surrogate in \\u escape");
      pos_ += 2;
      if (!hex4(low)) return false;
      if (low < 0xDC00 || low > 0xDFFF) return fail("unpaired high surrogate in \\u escape");
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    if (cp == 0) return fail("\\u0000 is not allowed");
    append_utf8(out, cp);
    return true;
  }

  bool hex4(std::uint32_t& out) {
    if (s_.size() - pos_ < 4) return fail("\\u needs four hex digits");
    out = 0;
    for (int k = 0; k < 4; ++k) {
      const int h = hex_value(s_[pos_ + static_cast<std::size_t>(k)]);
      if (h < 0) return fail("\\u needs four hex digits");
      out = out * 16 + static_cast<std::uint32_t>(h);
    }
    pos_ += 4;
    return true;
  }

  // number = [ "-" ] int [ frac ] [ exp ]; the grammar is checked here because from_chars
  // alone would also take "inf", "nan" and hexadecimal forms
  bool number(double& out) {
    const std::size_t start = pos_;
    take('-');
    if (take('0')) {
      if (!at_end() && is_digit(peek())) return fail("leading zeros are not allowed in numbers");
    } else if (!digits()) {
      return fail("invalid number");
    }
    if (take('.') && !digits()) return fail("invalid number: digits expected after '.'");
    if (!at_end() && (peek() == 'e' || peek() == 'E')) {
      ++pos_;
      if (!take('+')) take('-');
      if (!digits()) return fail("invalid number: digits expected in the exponent");
    }
    const char* first = s_.data() + start;
    const char* last = s_.data() + pos_;
    const auto [ptr, ec] = std::from_chars(first, last, out);
    if (ec != std::errc{} || ptr != last || !std::isfinite(out)) {
      pos_ = start;
      return fail("number out of range");
    }
    return true;
  }

  bool digits() {
    const std::size_t start = pos_;
    while (!at_end() && is_digit(peek())) ++pos_;
    return pos_ > start;
  }

  bool literal(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  bool end() {
    skip_ws();
    if (!at_end()) return fail("unexpected text after the object");
    return true;
  }

  void skip_ws() noexcept {
    while (!at_end() && is_ws(peek())) ++pos_;
  }
  bool take(char c) noexcept {
    if (at_end() || peek() != c) return false;
    ++pos_;
    return true;
  }
  [[nodiscard]] bool at_end() const noexcept { return pos_ >= s_.size(); }
  [[nodiscard]] char peek() const noexcept { return s_[pos_]; }

  bool fail(const std::string& what) {
    error_ = "column " + std::to_string(pos_ + 1) + ": " + what;
    return false;
  }

  std::string_view s_;
  std::size_t pos_ = 0;
  std::string error_;
};

}  // namespace

const JsonValue* FlatJsonObject::find(std::string_view key) const noexcept {
  for (const JsonMember& m : members) {
    if (m.key == key) return &m.value;
  }
  return nullptr;
}

bool parse_flat_json(std::string_view text, FlatJsonObject& out, std::string& out_error) {
  // validated up front so every string taken from the text, and echoed in replies, is UTF-8
  if (!is_valid_utf8(text)) {
    out_error = "input is not valid UTF-8";
    return false;
  }
  Reader reader(text);
  if (reader.object(out)) return true;
  out_error = reader.error();
  return false;
}

std::size_t utf8_sequence_length(std::string_view s, std::size_t i) noexcept {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char b0 = byte(0);
  if (b0 < 0x80) return 1;
  std::size_t n = 0;
  unsigned char lo = 0x80;
  unsigned char hi = 0xBF;  // allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3;
    if (b0 == 0xE0) lo = 0xA0;  // overlong
    if (b0 == 0xED) hi = 0x9F;  // surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4;
    if (b0 == 0xF0) lo = 0x90;  // overlong
    if (b0 == 0xF4) hi = 0x8F;  // above U+10FFFF
  } else {
    return 0;
  }
  if (s.size() - i < n) return 0;
  if (byte(1) < lo || byte(1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k) {
    if ((byte(k) & 0xC0) != 0x80) return 0;
  }
  return n;
}

bool is_valid_utf8(std::string_view s) noexcept {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_sequence_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string clip_utf8(std::string_view s, std::size_t max_bytes) {
  if (s.size() <= max_bytes) return std::string(s);
  std::size_t cut = max_bytes;
  // step back over continuation bytes so the cut falls between characters
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return std::string(s.substr(0, cut)) + "...";
}

}  // namespace rtmb
