// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The TCP control channel's command lines: every command parses, every kind of bad line gets a
// clear error and a well-formed error reply, and the flat JSON reader under it is strict.
#include "net/control_command.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

#include "net/flat_json.hpp"

namespace rtmb {
namespace {

Command parsed(std::string_view line) {
  CommandParseResult r = parse_command(line);
  if (const auto* e = std::get_if<CommandError>(&r)) {
    ADD_FAILURE() << "rejected: " << line << "\n  error: " << e->message;
    return {};
  }
  return std::get<Command>(r);
}

CommandError rejected(std::string_view line) {
  CommandParseResult r = parse_command(line);
  if (std::holds_alternative<Command>(r)) {
    ADD_FAILURE() << "accepted: " << line;
    return {};
  }
  return std::get<CommandError>(r);
}

// The error message of a rejected line, checked to contain `fragment`.
void expect_error(std::string_view line, std::string_view fragment) {
  const CommandError e = rejected(line);
  EXPECT_NE(e.message.find(fragment), std::string::npos)
      << "line:     " << line.substr(0, 200) << "\nmessage:  " << e.message
      << "\nexpected: " << fragment;
}

// --- every command ----------------------------------------------------------------------------

TEST(ControlCommandParse, Hello) {
  const Command plain = parsed(R"({"command":"hello"})");
  ASSERT_TRUE(std::holds_alternative<HelloCommand>(plain.body));
  EXPECT_FALSE(std::get<HelloCommand>(plain.body).token);
  EXPECT_FALSE(plain.id);

  const Command full = parsed(R"({"command":"hello","token":"s3cret","version":1,"id":1})");
  const auto& hello = std::get<HelloCommand>(full.body);
  EXPECT_EQ(hello.token, "s3cret");
  EXPECT_EQ(hello.version, 1);
  EXPECT_EQ(full.id, 1u);
}

TEST(ControlCommandParse, CommandsWithoutKeys) {
  EXPECT_TRUE(std::holds_alternative<StartCommand>(parsed(R"({"command":"start"})").body));
  EXPECT_TRUE(std::holds_alternative<PauseCommand>(parsed(R"({"command":"pause"})").body));
  EXPECT_TRUE(std::holds_alternative<ResetCommand>(parsed(R"({"command":"reset"})").body));
  EXPECT_TRUE(std::holds_alternative<StatsCommand>(parsed(R"({"command":"stats"})").body));
}

TEST(ControlCommandParse, Step) {
  EXPECT_EQ(std::get<StepCommand>(parsed(R"({"command":"step"})").body).count, 1u);
  EXPECT_EQ(std::get<StepCommand>(parsed(R"({"command":"step","count":250})").body).count, 250u);
  // an integral number in any JSON spelling
  EXPECT_EQ(std::get<StepCommand>(parsed(R"({"command":"step","count":1e3})").body).count, 1000u);
  EXPECT_EQ(std::get<StepCommand>(parsed(R"({"command":"step","count":7.0})").body).count, 7u);
  EXPECT_EQ(std::get<StepCommand>(parsed(R"({"command":"step","count":1000000})").body).count,
            kMaxStepCount);
}

TEST(ControlCommandParse, Set) {
  const auto number =
      std::get<SetCommand>(parsed(R"({"command":"set","param":"dt","value":5e-4})").body);
  EXPECT_EQ(number.param, "dt");
  EXPECT_EQ(std::get<double>(number.value), 5e-4);

  const auto text = std::get<SetCommand>(
      parsed(R"({"command":"set","param":"stabilizer","value":"pstab"})").body);
  EXPECT_EQ(std::get<std::string>(text.value), "pstab");

  const auto flag =
      std::get<SetCommand>(parsed(R"({"command":"set","param":"monitor","value":false})").body);
  EXPECT_FALSE(std::get<bool>(flag.value));
}

TEST(ControlCommandParse, Drag) {
  const auto grab = std::get<DragCommand>(
      parsed(R"({"command":"drag","body":"rod","px":0.5,"py":-0.1,"x":1,"y":2.5,"z":-3})").body);
  EXPECT_EQ(grab.body, "rod");
  EXPECT_EQ(grab.px, 0.5);
  EXPECT_EQ(grab.py, -0.1);
  EXPECT_EQ(grab.pz, 0.0);  // absent: 0
  EXPECT_EQ(grab.x, 1.0);
  EXPECT_EQ(grab.y, 2.5);
  EXPECT_EQ(grab.z, -3.0);
  // no body: a release
  EXPECT_EQ(std::get<DragCommand>(parsed(R"({"command":"drag"})").body), DragCommand{});
  expect_error(R"({"command":"drag","x":1})",
               "a drag without \"body\" releases the drag and takes no other key");
  expect_error(R"({"command":"drag","body":"rod","x":"1"})", "\"x\" must be a number");
  expect_error(R"({"command":"drag","body":"","x":1})", "\"body\" must be a non-empty string");
  expect_error(R"({"command":"drag","body":"rod","w":1})",
               "unknown key \"w\" (valid: body, px, py, pz, x, y, z)");
}

TEST(ControlCommandParse, Report) {
  const auto r = std::get<ReportCommand>(
      parsed(R"({"command":"report","rtt_p50_us":120.5,"rtt_p99_us":300,"samples":1000})").body);
  EXPECT_EQ(r, (ReportCommand{120.5, 300.0, 1000}));
  expect_error(R"({"command":"report","rtt_p50_us":1,"samples":3})", "missing key \"rtt_p99_us\"");
  expect_error(R"({"command":"report","rtt_p50_us":5,"rtt_p99_us":4,"samples":3})",
               "\"rtt_p99_us\" >= \"rtt_p50_us\"");
  expect_error(R"({"command":"report","rtt_p50_us":-1,"rtt_p99_us":4,"samples":3})",
               "\"rtt_p50_us\" must be >= 0");
  expect_error(R"({"command":"report","rtt_p50_us":1,"rtt_p99_us":4,"samples":0})",
               "\"samples\" must be an integer from 1");
}

TEST(ControlCommandParse, Load) {
  const auto c =
      std::get<LoadCommand>(parsed(R"({"command":"load","model":"configs/chain.yaml"})").body);
  EXPECT_EQ(c.model, "configs/chain.yaml");
}

TEST(ControlCommandParse, Subscribe) {
  const auto c = std::get<SubscribeCommand>(
      parsed(R"({"command":"subscribe","address":"127.0.0.1","port":9001,"decimation":10})").body);
  EXPECT_EQ(c.address, "127.0.0.1");
  EXPECT_EQ(c.port, 9001);
  EXPECT_EQ(c.decimation, 10u);

  const auto minimal =
      std::get<SubscribeCommand>(parsed(R"({"command":"subscribe","port":65535})").body);
  EXPECT_FALSE(minimal.address);
  EXPECT_EQ(minimal.port, 65535);
  EXPECT_EQ(minimal.decimation, 1u);
}

TEST(ControlCommandParse, Unsubscribe) {
  const auto all = std::get<UnsubscribeCommand>(parsed(R"({"command":"unsubscribe"})").body);
  EXPECT_FALSE(all.address);
  EXPECT_FALSE(all.port);
  const auto one = std::get<UnsubscribeCommand>(
      parsed(R"({"command":"unsubscribe","address":"::1","port":9001})").body);
  EXPECT_EQ(one.address, "::1");
  EXPECT_EQ(one.port, 9001);
}

TEST(ControlCommandParse, WhitespaceKeyOrderAndCarriageReturn) {
  const Command c = parsed(" \t{ \"port\" : 9001 , \"command\" : \"subscribe\" }\r");
  EXPECT_EQ(std::get<SubscribeCommand>(c.body).port, 9001);
}

TEST(ControlCommandParse, NamesMatchTheVariant) {
  EXPECT_EQ(command_name(HelloCommand{}), "hello");
  EXPECT_EQ(command_name(StartCommand{}), "start");
  EXPECT_EQ(command_name(PauseCommand{}), "pause");
  EXPECT_EQ(command_name(StepCommand{}), "step");
  EXPECT_EQ(command_name(ResetCommand{}), "reset");
  EXPECT_EQ(command_name(SetCommand{}), "set");
  EXPECT_EQ(command_name(LoadCommand{}), "load");
  EXPECT_EQ(command_name(SubscribeCommand{}), "subscribe");
  EXPECT_EQ(command_name(UnsubscribeCommand{}), "unsubscribe");
  EXPECT_EQ(command_name(StatsCommand{}), "stats");
  EXPECT_EQ(command_name(DragCommand{}), "drag");
  EXPECT_EQ(command_name(ReportCommand{}), "report");
}

TEST(ControlCommandParse, ToJsonLineRoundTrips) {
  const Command commands[] = {
      {HelloCommand{"t\"ok\\en\n\u00e9", 1}, 0},
      {HelloCommand{}, std::nullopt},
      {StartCommand{}, 5},
      {PauseCommand{}, std::nullopt},
      {StepCommand{kMaxStepCount}, kMaxCommandId},
      {ResetCommand{}, std::nullopt},
      {SetCommand{"gain", -0.0}, std::nullopt},
      {SetCommand{"gain", 1.0000000000000002}, std::nullopt},
      {SetCommand{"gain", 4.9e-324}, std::nullopt},
      {SetCommand{"gain", 1.7976931348623157e308}, std::nullopt},
      {SetCommand{"on", true}, std::nullopt},
      {SetCommand{"mode", std::string("hold last")}, std::nullopt},
      {LoadCommand{"pendulum"}, 2},
      {SubscribeCommand{"10.0.0.2", 1, kMaxDecimation}, std::nullopt},
      {SubscribeCommand{std::nullopt, 9001, 1}, std::nullopt},
      {UnsubscribeCommand{std::nullopt, 9001}, std::nullopt},
      {StatsCommand{}, 3},
      {DragCommand{}, 4},
      {DragCommand{"rod", 0.5, -0.25, 0.0, 1e-3, -2.0, 7.0}, std::nullopt},
      {ReportCommand{80.25, 1e3, 999}, 6},
  };
  for (const Command& c : commands) {
    const std::string line = to_json_line(c);
    EXPECT_EQ(line.find('\n'), std::string::npos) << line;
    EXPECT_EQ(parsed(line), c) << line;
  }
}

// --- bad lines --------------------------------------------------------------------------------

TEST(ControlCommandReject, NotJson) {
  expect_error("start", "invalid JSON: column 1: expected '{'");
  expect_error("", "empty input");
  expect_error("   ", "empty input");
  expect_error(R"(["command","start"])", "expected '{'");
  expect_error(R"("start")", "expected '{'");
  expect_error(R"({command:"start"})", "column 2: expected a key in double quotes");
  expect_error(R"({'command':'start'})", "expected a key in double quotes");
  expect_error(R"({"command":"start",})", "column 20: expected a key");
  expect_error(R"({"command" "start"})", "expected ':'");
  expect_error(R"({"command":"start"} {"command":"stats"})", "unexpected text after the object");
  expect_error(R"({"command":start})", "invalid value for key \"command\"");
}

TEST(ControlCommandReject, Truncated) {
  const std::string full = R"({"command":"subscribe","address":"127.0.0.1","port":9001})";
  for (std::size_t n = 0; n < full.size(); ++n) {
    const CommandError e = rejected(std::string_view(full).substr(0, n));
    EXPECT_FALSE(e.message.empty()) << n;
    EXPECT_EQ(e.message.rfind("invalid JSON", 0), 0u) << n << ": " << e.message;
  }
  expect_error(R"({"command":"sta)", "unterminated string");
  expect_error(R"({"command":"step","count":)", "missing value");
  expect_error(R"({"command":"step","count":1)", "expected ',' or '}'");
}

TEST(ControlCommandReject, WrongTypes) {
  expect_error(R"({"command":5})", "\"command\" must be a string");
  expect_error(R"({"command":null})", "\"command\" must be a string");
  expect_error(R"({"command":"step","count":"10"})",
               "\"count\" must be an integer from 1 to 1000000");
  expect_error(R"({"command":"step","count":2.5})", "\"count\" must be an integer");
  expect_error(R"({"command":"step","count":0})", "\"count\" must be an integer from 1");
  expect_error(R"({"command":"step","count":-1})", "\"count\" must be an integer");
  expect_error(R"({"command":"step","count":1000001})", "\"count\" must be an integer");
  expect_error(R"({"command":"step","count":true})", "\"count\" must be an integer");
  expect_error(R"({"command":"subscribe","port":70000})",
               "\"port\" must be an integer from 1 to 65535");
  expect_error(R"({"command":"subscribe","port":9001,"decimation":0})", "\"decimation\" must be");
  expect_error(R"({"command":"subscribe","port":9001,"address":7})",
               "\"address\" must be a non-empty string");
  expect_error(R"({"command":"subscribe","port":9001,"address":""})",
               "\"address\" must be a non-empty string");
  expect_error(R"({"command":"hello","token":123})", "\"token\" must be a non-empty string");
  expect_error(R"({"command":"hello","version":0})",
               "\"version\" must be an integer from 1 to 65535");
  expect_error(R"({"command":"set","param":"dt","value":null})",
               "\"value\" must be a number, a string or a boolean");
  expect_error(R"({"command":"load","model":false})", "\"model\" must be a non-empty string");
  expect_error(R"({"command":"stats","id":-3})",
               "\"id\" must be an integer from 0 to 9007199254740991");
  expect_error(R"({"command":"stats","id":9007199254740992})", "\"id\" must be an integer");
  expect_error(R"({"command":"stats","id":"7"})", "\"id\" must be an integer");
}

TEST(ControlCommandReject, UnknownCommandOrKey) {
  expect_error(R"({"command":"jump"})",
               "unknown command \"jump\" (valid commands: hello, start, pause, step, reset, set, "
               "load, subscribe, unsubscribe, stats, drag, report)");
  expect_error(R"({"command":"START"})", "unknown command \"START\"");
  expect_error(R"({"command":""})", "unknown command \"\"");
  expect_error(R"({"command":"start","count":3})",
               "unknown key \"count\" (this command takes no keys");
  expect_error(R"({"command":"step","cuont":3})", "unknown key \"cuont\" (valid: count)");
  expect_error(R"({"command":"subscribe","port":1,"rate":5})",
               "(valid: address, port, decimation)");
}

TEST(ControlCommandReject, MissingField) {
  expect_error(R"({})", "missing key \"command\" (valid commands: hello,");
  expect_error(R"({"id":4})", "missing key \"command\"");
  expect_error(R"({"command":"set","value":1})", "missing key \"param\"");
  expect_error(R"({"command":"set","param":"dt"})", "missing key \"value\"");
  expect_error(R"({"command":"load"})", "missing key \"model\"");
  expect_error(R"({"command":"subscribe","address":"127.0.0.1"})", "missing key \"port\"");
}

TEST(ControlCommandReject, HugeLine) {
  const std::string padding(kMaxCommandLineBytes, ' ');
  EXPECT_TRUE(std::holds_alternative<Command>(
      parse_command(R"({"command":"stats"})" + padding.substr(0, kMaxCommandLineBytes - 19))));
  const std::string huge = R"({"command":"stats"})" + padding;
  expect_error(huge, "line too long: 4115 bytes (at most 4096)");
  expect_error(std::string(1'000'000, '{'), "line too long");
  const std::string long_token = R"({"command":"hello","token":")" + std::string(5000, 'x') + "\"}";
  expect_error(long_token, "line too long");
}

TEST(ControlCommandReject, DeepNesting) {
  std::string deep = R"({"command":"start","x":)";
  deep += std::string(2000, '[');
  expect_error(deep, "nested objects and arrays are not supported (key \"x\")");
  std::string objects = R"({"command":"start","x":)";
  for (int i = 0; i < 500; ++i) objects += R"({"a":)";
  expect_error(objects, "nested objects and arrays are not supported");
  expect_error(R"({"command":"set","param":"p","value":[1,2]})", "nested objects and arrays");
}

TEST(ControlCommandReject, NaNAndOtherNonJsonNumbers) {
  // (value of "set", the error it gets)
  const std::pair<const char*, const char*> cases[] = {
      {"NaN", "JSON has no NaN or Infinity"},
      {"nan", "JSON has no NaN or Infinity"},
      {"Infinity", "JSON has no NaN or Infinity"},
      {"-Infinity", "invalid number"},
      {"1e999", "number out of range"},
      {"-1e400", "number out of range"},
      {"+1", "invalid value"},
      {".5", "invalid value"},
      {"1.", "digits expected after '.'"},
      {"01", "leading zeros"},
      {"1e", "digits expected in the exponent"},
      {"0x10", "expected ',' or '}'"},
      {"-", "invalid number"},
  };
  for (const auto& [value, error] : cases) {
    expect_error(std::string(R"({"command":"set","param":"p","value":)") + value + "}", error);
  }
}

TEST(ControlCommandReject, DuplicateKeys) {
  expect_error(R"({"command":"step","count":1,"count":2})", "column 29: duplicate key \"count\"");
  expect_error(R"({"command":"start","command":"pause"})", "duplicate key \"command\"");
}

TEST(ControlCommandReject, TooManyKeys) {
  std::string line = R"({"command":"start")";
  for (std::size_t i = 0; i < kMaxJsonKeys; ++i) line += ",\"k" + std::to_string(i) + "\":1";
  line += '}';
  expect_error(line, "too many keys (at most 16)");
}

TEST(ControlCommandReject, BadStrings) {
  expect_error(
      "{\"command\":\"st\x01"
      "art\"}",
      "control character in a string");
  expect_error("{\"command\":\"st\tart\"}", "control character in a string");
  expect_error(R"({"command":"st\qart"})", "invalid escape '\\q'");
  // a non-printable or non-ASCII character after '\' is described, not echoed into the reply
  expect_error("{\"command\":\"a\\\xc3\xa9\"}", "invalid escape: '\\' must be followed by one of");
  expect_error(R"({"command":"\u00"})", "\\u needs four hex digits");
  expect_error(R"({"command":"\uZZZZ"})", "\\u needs four hex digits");
  expect_error(R"({"command":"\u0000"})", "\\u0000 is not allowed");
  expect_error(R"({"command":"\ud800"})", "unpaired high surrogate");
  expect_error(R"({"command":"\ud800\u0041"})", "unpaired high surrogate");
  expect_error(R"({"command":"\udc00"})", "unpaired low surrogate");
  expect_error("{\"command\":\"\xff\"}", "input is not valid UTF-8");
  expect_error("{\"command\":\"\xc0\xaf\"}", "not valid UTF-8");          // overlong '/'
  expect_error("{\"command\":\"\xed\xa0\x80\"}", "not valid UTF-8");      // encoded surrogate
  expect_error("{\"command\":\"\xf4\x90\x80\x80\"}", "not valid UTF-8");  // above U+10FFFF
  expect_error("{\"command\":\"\xe2\x82\"}", "not valid UTF-8");          // truncated sequence
  expect_error(std::string("{\"command\":\"st\0art\"}", 20), "control character");
}

TEST(ControlCommandReject, EscapedNamesAreDecoded) {
  // "st\u0061rt" is "start": escapes are decoded before the name is looked up
  EXPECT_TRUE(std::holds_alternative<StartCommand>(parsed(R"({"command":"st\u0061rt"})").body));
  const auto c = std::get<LoadCommand>(
      parsed(R"({"command":"load","model":"a\/b \"q\" \u00e9 \ud83d\ude00"})").body);
  EXPECT_EQ(c.model, "a/b \"q\" \u00e9 \U0001F600");
}

// --- error replies ----------------------------------------------------------------------------

// An error reply must itself be a flat JSON object with ok=false and a non-empty error.
void expect_well_formed_reply(const CommandError& e) {
  const std::string reply = error_reply(e);
  EXPECT_EQ(reply.find('\n'), std::string::npos) << reply;
  FlatJsonObject o;
  std::string why;
  ASSERT_TRUE(parse_flat_json(reply, o, why)) << reply << ": " << why;
  ASSERT_NE(o.find("ok"), nullptr);
  EXPECT_EQ(o.find("ok")->type, JsonType::kBool);
  EXPECT_FALSE(o.find("ok")->boolean);
  ASSERT_NE(o.find("error"), nullptr);
  EXPECT_EQ(o.find("error")->text, e.message);
  ASSERT_NE(o.find("command"), nullptr);
}

TEST(ControlCommandReply, ShapeForKnownAndUnknownCommand) {
  EXPECT_EQ(error_reply(rejected(R"({"command":"step","count":0,"id":12})")),
            R"({"ok":false,"error":"\"count\" must be an integer from 1 to 1000000",)"
            R"("command":"step","id":12})");
  EXPECT_EQ(error_reply(rejected("nonsense")),
            R"({"ok":false,"error":"invalid JSON: column 1: expected '{': a command is one JSON )"
            R"(object","command":null})");
  EXPECT_EQ(error_reply(rejected(R"({"command":"fly\n"})")),
            R"x({"ok":false,"error":"unknown command \"fly\n\" (valid commands: hello, start, )x"
            R"x(pause, step, reset, set, load, subscribe, unsubscribe, stats, drag, report)",)x"
            R"x("command":"fly\n"})x");
}

TEST(ControlCommandReply, EchoesClippedCommandAndValidId) {
  const std::string name(200, 'z');
  const CommandError e = rejected(R"({"command":")" + name + R"(","id":3})");
  ASSERT_TRUE(e.command);
  EXPECT_EQ(*e.command, std::string(64, 'z') + "...");
  EXPECT_EQ(e.id, 3u);
  EXPECT_LT(error_reply(e).size(), 400u);  // the name is clipped in the message too

  const CommandError bad_id = rejected(R"({"command":"stats","id":1.5})");
  EXPECT_FALSE(bad_id.id);
  EXPECT_EQ(bad_id.command, "stats");

  // clipping never splits a UTF-8 character
  std::string e_acute;
  for (int i = 0; i < 50; ++i) e_acute += "\u00e9";
  const CommandError utf = rejected(R"({"command":"a)" + e_acute + R"("})");
  ASSERT_TRUE(utf.command);
  EXPECT_TRUE(is_valid_utf8(*utf.command));
  expect_well_formed_reply(utf);
}

TEST(ControlCommandReply, EveryRejectionGivesAWellFormedReply) {
  const std::string lines[] = {
      "",
      "{",
      "}",
      "\x80",
      R"({"command":"hell\u001f\"\\"})",
      R"({"command":"x\u007f"})",
      R"({"command":"set","param":"p","value":NaN})",
      std::string(kMaxCommandLineBytes + 1, 'a'),
      R"({"a":1,"a":2})",
      R"({"command":"\ud83d\ude00"})",
      std::string("{\"model\":\"q\\\0\"}", 15),  // fuzz finding: NUL after '\'
      "{\"model\":\"q\\\x7f\"}",
  };
  for (const std::string& line : lines) {
    CommandParseResult r = parse_command(line);
    ASSERT_TRUE(std::holds_alternative<CommandError>(r)) << line.substr(0, 80);
    expect_well_formed_reply(std::get<CommandError>(r));
  }
  expect_well_formed_reply(too_long_error(1u << 20));
}

// --- the flat JSON reader itself --------------------------------------------------------------

TEST(CommandJson, ReadsEveryValueType) {
  FlatJsonObject o;
  std::string why;
  ASSERT_TRUE(
      parse_flat_json(R"({"s":"x","n":-12.5e-1,"t":true,"f":false,"z":null,"e":""})", o, why))
      << why;
  ASSERT_EQ(o.members.size(), 6u);
  EXPECT_EQ(o.members[0].key, "s");
  EXPECT_EQ(o.find("s")->text, "x");
  EXPECT_EQ(o.find("n")->number, -1.25);
  EXPECT_TRUE(o.find("t")->boolean);
  EXPECT_EQ(o.find("f")->type, JsonType::kBool);
  EXPECT_FALSE(o.find("f")->boolean);
  EXPECT_EQ(o.find("z")->type, JsonType::kNull);
  EXPECT_EQ(o.find("e")->text, "");
  EXPECT_EQ(o.find("missing"), nullptr);
  ASSERT_TRUE(parse_flat_json("{}", o, why));
  EXPECT_TRUE(o.members.empty());
  ASSERT_TRUE(parse_flat_json(R"({"n":-0})", o, why));
  EXPECT_TRUE(std::signbit(o.find("n")->number));
}

}  // namespace
}  // namespace rtmb
