// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// `rtmb run`'s last line is JSON whatever the model is called (issue 15): a model name with
// control characters, quotes and bytes that are not UTF-8 is escaped by the one JSON writer.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/json_check.hpp"
#include "tests/support/run_binary.hpp"
#include "tests/support/text_files.hpp"

namespace {

using rtmb::testing::python_accepts_json;
using rtmb::testing::read_text;
using rtmb::testing::run_rtmb;
using rtmb::testing::write_temp_file;

TEST(RunCommandJson, ModelNameWithControlCharactersStillGivesAJsonLastLine) {
  std::string model = read_text(std::string(RTMB_SOURCE_DIR) + "/configs/pendulum_body.yaml");
  const std::string plain = "name: pendulum_body";
  const std::size_t at = model.find(plain);
  ASSERT_NE(at, std::string::npos);
  // YAML double-quoted escapes: SOH, a tab, a quote, a backslash, a newline
  model.replace(at, plain.size(), R"(name: "pend\x01ulum\t\"q\" \\ x\ny")");
  const std::string file = write_temp_file("rtmb_control_name.yaml", model);

  const auto r = run_rtmb("run " + file + " --t-end 0.01");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(python_accepts_json(r.last_line)) << r.last_line;
  // the escapes, as RFC 8259 writes them
  EXPECT_NE(r.last_line.find(R"("model":"pend\u0001ulum\t\"q\" \\ x\ny")"), std::string::npos)
      << r.last_line;
}

TEST(RunCommandJson, TheCheckerRefusesWhatIsNotJson) {
  // the checker itself can fail: a raw control character in a string, a cut line, bad UTF-8
  EXPECT_TRUE(python_accepts_json(R"({"a":"b\u0001"})"));
  EXPECT_FALSE(python_accepts_json("{\"a\":\"b\x01\"}"));
  EXPECT_FALSE(python_accepts_json(R"({"a":)"));
  EXPECT_FALSE(python_accepts_json("{\"a\":\"\xff\"}"));
}

}  // namespace
