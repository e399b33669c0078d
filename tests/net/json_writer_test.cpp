// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The JSON writer (net/json_writer.hpp): escaping, number forms, and what the reader makes of it.
#include "net/json_writer.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "net/flat_json.hpp"

namespace rtmb {
namespace {

TEST(CommandJson, WritersEscapeAndRoundTrip) {
  std::string s;
  append_json_string(s, "a\"b\\c\n\t\x01\x7f\u00e9");
  EXPECT_EQ(s, R"("a\"b\\c\n\t\u0001)"
               "\x7f"
               "\u00e9\"");
  std::string n;
  append_json_number(n, 0.1);
  EXPECT_EQ(n, "0.1");
  n.clear();
  append_json_number(n, std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(n, "null");

  for (const double x : {0.1, -0.0, 5e-324, 1.7976931348623157e308, 123456789.0, -2.5e-10}) {
    std::string line = "{\"x\":";
    append_json_number(line, x);
    line += '}';
    FlatJsonObject o;
    std::string why;
    ASSERT_TRUE(parse_flat_json(line, o, why)) << line << ": " << why;
    EXPECT_EQ(std::bit_cast<std::uint64_t>(o.find("x")->number), std::bit_cast<std::uint64_t>(x))
        << line;
  }
}

// Every control character, written out by hand: RFC 8259 §7 allows no raw byte below 0x20.
TEST(CommandJson, EveryControlCharacterIsEscaped) {
  std::string all;
  for (int c = 0; c < 0x20; ++c) all += static_cast<char>(c);
  std::string s;
  append_json_string(s, all);
  EXPECT_EQ(s, R"("\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\u0008\t\n\u000b\u000c\u000d)"
               R"(\u000e\u000f\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001a)"
               R"(\u001b\u001c\u001d\u001e\u001f")");
  s.clear();
  append_json_string(s, R"(say "hi" \ bye)");
  EXPECT_EQ(s, R"("say \"hi\" \\ bye")");
  s.clear();
  append_json_string(s, "");
  EXPECT_EQ(s, R"("")");
}

// Well-formed UTF-8 passes through; any other byte is U+FFFD, so the line stays valid JSON text.
TEST(CommandJson, MalformedUtf8BecomesTheReplacementCharacter) {
  const auto json = [](std::string_view in) {
    std::string s;
    append_json_string(s, in);
    return s;
  };
  EXPECT_EQ(json("\u00e9\u20ac\U0001F600"), "\"\u00e9\u20ac\U0001F600\"");
  EXPECT_EQ(json("a\xff"
                 "b"),
            R"("a\ufffdb")");                                            // never in UTF-8
  EXPECT_EQ(json("a\xc3"), R"("a\ufffd")");                              // cut after the lead byte
  EXPECT_EQ(json("\xc0\xaf"), R"("\ufffd\ufffd")");                      // overlong '/'
  EXPECT_EQ(json("\xed\xa0\x80"), R"("\ufffd\ufffd\ufffd")");            // a surrogate, U+D800
  EXPECT_EQ(json("\xf4\x90\x80\x80"), R"("\ufffd\ufffd\ufffd\ufffd")");  // above U+10FFFF
  EXPECT_EQ(json("\x80x"), R"("\ufffdx")");                              // a lone continuation byte
}

TEST(JsonObjectWriter, FieldsInOrderWithBothNumberForms) {
  JsonObjectWriter w;
  EXPECT_EQ(w.str(), "{}");
  w.field("s", "a\x01").field("n", 0.1).field("i", std::int64_t{-3}).field("u", std::uint64_t{7});
  w.field("b", true).null_field("z").field("nan", std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(w.str(), R"({"s":"a\u0001","n":0.1,"i":-3,"u":7,"b":true,"z":null,"nan":null})");

  JsonObjectWriter d(JsonNumbers::kDigits17);
  Vec v(2);
  v << 0.1, 2.0;
  d.field("x", 0.1).field("v", v);
  EXPECT_EQ(d.str(), R"({"x":0.10000000000000001,"v":[0.10000000000000001,2]})");
}

}  // namespace
}  // namespace rtmb
