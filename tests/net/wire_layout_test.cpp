// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// docs/protocol.md against the code: the layout tables (offset, size, type, field) agree with the
// constants of include/rtmb/net/wire.hpp and with the numbers written here, the example datagrams
// decode to what their comments say, and the example control lines give the documented replies.
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "net/control_command.hpp"
#include "rtmb/net/wire.hpp"

namespace rtmb {
namespace {

// The sizes the tables of docs/protocol.md state; changing one is a wire-format change.
static_assert(kHeaderBytes == 48);
static_assert(kStatePayloadFixedBytes == 56);
static_assert(kInputPayloadFixedBytes == 4);
static_assert(kInputSampleBytes == 10);
static_assert(kMaxPayloadBytes == 668);
static_assert(kMaxDatagramBytes == 716);
static_assert(state_datagram_bytes(0) == 104 && state_datagram_bytes(64) == 616);
static_assert(input_datagram_bytes(1) == 62 && input_datagram_bytes(64) == 692);
static_assert(kWireMagic == 0x424D5452u && kWireVersion == 1);
// version 2 ("## Wire version 2"): the input layout, then session id and a 16-byte tag
static_assert(kWireVersionAuthenticated == 2 && kInputTrailerBytes == 24);
static_assert(trailer_offset::kSession == 0 && trailer_offset::kTag == 8 && kInputTagBytes == 16);
static_assert(kSessionKeyBytes == 32);
static_assert(input_v2_datagram_bytes(1) == 86 && input_v2_datagram_bytes(64) == 716);

std::string protocol_doc() {
  // the source tree this test was built from (tests/CMakeLists.txt), whatever the working
  // directory or the form of __FILE__ (ccache's base_dir makes it relative)
  const std::filesystem::path root(RTMB_SOURCE_DIR);
  std::ifstream in(root / "docs" / "protocol.md");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

// One row of a layout table: offset, size, type, field (without the backticks).
struct Row {
  std::string offset, size, type, field;
  friend bool operator==(const Row&, const Row&) = default;
};

void PrintTo(const Row& r, std::ostream* os) {
  *os << "| " << r.offset << " | " << r.size << " | " << r.type << " | " << r.field << " |";
}

// The rows under the heading `### <title>` whose first cell is a number.
std::vector<Row> doc_table(const std::string& title) {
  std::vector<Row> rows;
  bool inside = false;
  for (const std::string& line : lines_of(protocol_doc())) {
    if (line.rfind("#", 0) == 0) {
      inside = line == "### " + title;
      continue;
    }
    if (!inside || line.rfind("| ", 0) != 0) continue;
    std::vector<std::string> cells;
    std::size_t start = 1;
    for (std::size_t bar = line.find('|', start); bar != std::string::npos;
         bar = line.find('|', start)) {
      cells.push_back(trim(std::string_view(line).substr(start, bar - start)));
      start = bar + 1;
    }
    if (cells.size() < 4 || cells[0].empty() ||
        !std::isdigit(static_cast<unsigned char>(cells[0][0]))) {
      continue;
    }
    std::string field = cells[3];
    std::erase(field, '`');
    rows.push_back({cells[0], cells[1], cells[2], field});
  }
  return rows;
}

std::string n(std::size_t v) {
  return std::to_string(v);
}

TEST(ProtocolDocLayout, DocumentIsFound) {
  EXPECT_NE(protocol_doc().find("# rtmb network protocol"), std::string::npos)
      << "docs/protocol.md not found under " << RTMB_SOURCE_DIR;
}

// docs/protocol.md, "### Header"
TEST(ProtocolDocLayout, HeaderTableMatchesCode) {
  const std::vector<Row> expected = {
      {n(header_offset::kMagic), "4", "u32", "magic"},
      {n(header_offset::kVersion), "2", "u16", "version"},
      {n(header_offset::kKind), "2", "u16", "kind"},
      {n(header_offset::kFlags), "2", "u16", "flags"},
      {n(header_offset::kReserved), "2", "u16", "reserved"},
      {n(header_offset::kPayloadBytes), "4", "u32", "payload_bytes"},
      {n(header_offset::kSequence), "8", "u64", "sequence"},
      {n(header_offset::kStep), "8", "u64", "step"},
      {n(header_offset::kSimTime), "8", "f64", "sim_time"},
      {n(header_offset::kSenderTime), "8", "i64", "sender_time"},
  };
  EXPECT_EQ(doc_table("Header"), expected);
  // the numbers themselves, independent of the constants
  EXPECT_EQ(header_offset::kPayloadBytes, 12u);
  EXPECT_EQ(header_offset::kSequence, 16u);
  EXPECT_EQ(header_offset::kSenderTime + 8, kHeaderBytes);
}

// docs/protocol.md, "### State payload"
TEST(ProtocolDocLayout, StatePayloadTableMatchesCode) {
  const std::vector<Row> expected = {
      {n(state_offset::kStepFlags), "4", "u32", "step_flags"},
      {n(state_offset::kChannelCount), "2", "u16", "channel_count"},
      {n(state_offset::kReserved), "2", "u16", "reserved"},
      {n(state_offset::kPositionDrift), "8", "f64", "position_drift"},
      {n(state_offset::kVelocityDrift), "8", "f64", "velocity_drift"},
      {n(state_offset::kEnergy), "8", "f64", "energy"},
      {n(state_offset::kEchoSequence), "8", "u64", "echo_sequence"},
      {n(state_offset::kEchoSenderTime), "8", "i64", "echo_sender_time"},
      {n(state_offset::kEchoStep), "8", "u64", "echo_step"},
      {n(state_offset::kChannels), "8 × count", "f64[count]", "channels"},
  };
  EXPECT_EQ(doc_table("State payload"), expected);
  EXPECT_EQ(state_offset::kEchoStep + 8, kStatePayloadFixedBytes);
  EXPECT_EQ(state_offset::kChannels, 56u);
}

// docs/protocol.md, "### Input payload" and "### Input sample"
TEST(ProtocolDocLayout, InputPayloadTablesMatchCode) {
  const std::vector<Row> payload = {
      {n(input_offset::kSampleCount), "2", "u16", "sample_count"},
      {n(input_offset::kReserved), "2", "u16", "reserved"},
      {n(input_offset::kSamples), n(kInputSampleBytes) + " × count", "sample[count]", "samples"},
  };
  EXPECT_EQ(doc_table("Input payload"), payload);
  const std::vector<Row> sample = {
      {n(input_offset::kSampleChannel), "2", "u16", "channel"},
      {n(input_offset::kSampleValue), "8", "f64", "value"},
  };
  EXPECT_EQ(doc_table("Input sample"), sample);
  EXPECT_EQ(input_offset::kSampleValue + 8, kInputSampleBytes);
}

// docs/protocol.md, "### Flags"
TEST(ProtocolDocLayout, FlagTableMatchesCode) {
  const std::string doc = protocol_doc();
  EXPECT_NE(doc.find("| 0 | `0x0001` | `kEchoValid` | state |"), std::string::npos);
  EXPECT_NE(doc.find("| 1 | `0x0002` | `kPaused` | state |"), std::string::npos);
  EXPECT_NE(doc.find("| 2 | `0x0004` | `kRestarted` | state |"), std::string::npos);
  EXPECT_EQ(static_cast<unsigned>(WireFlag::kEchoValid), 0x0001u);
  EXPECT_EQ(static_cast<unsigned>(WireFlag::kPaused), 0x0002u);
  EXPECT_EQ(static_cast<unsigned>(WireFlag::kRestarted), 0x0004u);
  EXPECT_EQ(kStateFlagMask, 0x0007u);
  EXPECT_EQ(kInputFlagMask, 0x0000u);
}

// docs/protocol.md, "### Rejection rules": every status name appears in the rules table.
TEST(ProtocolDocLayout, RejectionTableNamesEveryStatus) {
  const std::string doc = protocol_doc();
  const std::size_t rules = doc.find("### Rejection rules");
  const std::size_t end = doc.find("### Sequence numbers");
  ASSERT_NE(rules, std::string::npos);
  const std::string table = doc.substr(rules, end - rules);
  for (std::size_t i = 1; i < kPacketStatusCount; ++i) {
    const std::string name = "`" + std::string(to_string(static_cast<PacketStatus>(i))) + "`";
    EXPECT_NE(table.find(name), std::string::npos) << name;
  }
}

// The hex dumps of "### Example datagrams", in document order.
std::vector<std::vector<std::byte>> doc_hex_dumps() {
  std::vector<std::vector<std::byte>> dumps;
  bool in_examples = false;
  bool in_block = false;
  for (const std::string& line : lines_of(protocol_doc())) {
    if (line.rfind("#", 0) == 0) in_examples = line == "### Example datagrams";
    if (!in_examples) continue;
    if (line.rfind("```", 0) == 0) {
      in_block = !in_block;
      if (in_block) dumps.emplace_back();
      continue;
    }
    if (!in_block) continue;
    // leading two-digit hex groups up to the comment
    std::istringstream words(line);
    for (std::string w; words >> w;) {
      if (w.size() != 2 || !std::isxdigit(static_cast<unsigned char>(w[0])) ||
          !std::isxdigit(static_cast<unsigned char>(w[1]))) {
        break;
      }
      dumps.back().push_back(static_cast<std::byte>(std::stoi(w, nullptr, 16)));
    }
  }
  return dumps;
}

TEST(ProtocolDocExamples, DatagramsDecodeAsDescribed) {
  const auto dumps = doc_hex_dumps();
  ASSERT_EQ(dumps.size(), 2u);

  InputMessage in;
  ASSERT_EQ(decode_input(dumps[0], 259, in), PacketStatus::kOk);
  EXPECT_EQ(in.header.sequence, 42u);
  EXPECT_EQ(in.header.step, 1000u);
  EXPECT_EQ(in.header.sim_time_s, 0.25);
  EXPECT_EQ(in.header.sender_time_ns, 1'000'000'000);
  ASSERT_EQ(in.sample_count, 2);
  EXPECT_EQ(in.samples[0], (InputSample{3, 0.1}));
  EXPECT_EQ(in.samples[1], (InputSample{258, -2.0}));

  StateMessage st;
  ASSERT_EQ(decode_state(dumps[1], st), PacketStatus::kOk);
  EXPECT_EQ(st.header.flags, WireFlag::kEchoValid | WireFlag::kRestarted);
  EXPECT_EQ(st.header.sequence, 0x0102030405060708u);
  EXPECT_EQ(st.header.sim_time_s, 1.0);
  EXPECT_EQ(st.header.sender_time_ns, -2);
  EXPECT_EQ(st.step_flags, 5u);
  EXPECT_EQ(st.position_drift, 0.5);
  EXPECT_TRUE(std::signbit(st.velocity_drift));
  EXPECT_TRUE(std::isnan(st.energy));
  EXPECT_EQ(st.echo, (LatencyEcho{7, 123456789, 999}));
  ASSERT_EQ(st.channel_count, 2);
  EXPECT_EQ(st.channels[0], 2.0);
  EXPECT_EQ(st.channels[1], -1.5);
}

// The code blocks of the control-channel sections, one line per entry, blank lines dropped.
std::vector<std::string> doc_code_lines(const std::string& section) {
  std::vector<std::string> out;
  bool inside = false;
  bool in_block = false;
  for (const std::string& line : lines_of(protocol_doc())) {
    if (line.rfind("#", 0) == 0) inside = line == "### " + section;
    if (!inside) continue;
    if (line.rfind("```", 0) == 0) {
      in_block = !in_block;
      continue;
    }
    if (in_block && !line.empty()) out.push_back(line);
  }
  return out;
}

TEST(ProtocolDocExamples, ValidRequestsParse) {
  const auto lines = doc_code_lines("Commands");
  ASSERT_GE(lines.size(), 8u);
  for (const std::string& line : lines) {
    EXPECT_TRUE(std::holds_alternative<Command>(parse_command(line))) << line;
  }
}

TEST(ProtocolDocExamples, ErrorRepliesAreTheCodesReplies) {
  auto lines = doc_code_lines("Replies");
  ASSERT_FALSE(lines.empty());
  lines.erase(lines.begin());  // the template line
  ASSERT_EQ(lines.size() % 2, 0u);
  ASSERT_GE(lines.size(), 12u);
  for (std::size_t i = 0; i < lines.size(); i += 2) {
    const CommandParseResult r = parse_command(lines[i]);
    ASSERT_TRUE(std::holds_alternative<CommandError>(r)) << lines[i];
    EXPECT_EQ(error_reply(std::get<CommandError>(r)), lines[i + 1]) << lines[i];
  }
}

}  // namespace
}  // namespace rtmb
