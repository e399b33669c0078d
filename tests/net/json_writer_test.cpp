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
