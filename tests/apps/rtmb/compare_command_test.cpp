// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// `rtmb compare` (issue 6 acceptance 5): on andrews and slider_crank it writes compare.md,
// compare.csv, drift.png and energy.png; the tables parse and carry the expected columns, one row
// per combination, and the PNGs are PNG files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/run_binary.hpp"

namespace {

using rtmb::testing::run_rtmb;

const std::vector<std::string> kColumns{
    "method",          "stabilizer", "max_position_drift", "max_velocity_drift", "max_energy_drift",
    "error_vs_finest", "steps",      "rhs_evaluations",    "median_step_us",     "flags"};
constexpr std::size_t kDefaultCombos = 11;

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  for (std::string cell; std::getline(ss, cell, sep);) out.push_back(cell);
  return out;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(' ');
  const auto e = s.find_last_not_of(' ');
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

bool is_png(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  char magic[8] = {};
  in.read(magic, 8);
  return in.gcount() == 8 && std::string(magic, 8) == std::string("\x89PNG\r\n\x1a\n", 8) &&
         std::filesystem::file_size(p) > 1000;
}

void check_report(const std::string& model, const std::string& extra) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("rtmb_compare_" + model + "_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  const auto r = run_rtmb("compare " + model + " " + extra + " --out " + dir.string());
  ASSERT_EQ(r.exit_code, 0) << r.out;

  // CSV: header = the columns, one row per default combination, numeric cells parse
  std::ifstream csv(dir / "compare.csv");
  ASSERT_TRUE(csv.is_open());
  std::string line;
  ASSERT_TRUE(std::getline(csv, line));
  EXPECT_EQ(split(line, ','), kColumns);
  std::size_t rows = 0;
  while (std::getline(csv, line)) {
    const auto cells = split(line, ',');
    ASSERT_EQ(cells.size(), kColumns.size()) << line;
    for (std::size_t i = 2; i + 1 < cells.size(); ++i) {
      std::size_t used = 0;
      EXPECT_NO_THROW((void)std::stod(cells[i], &used)) << kColumns[i] << " in " << line;
      EXPECT_EQ(used, cells[i].size()) << kColumns[i] << " in " << line;
    }
    EXPECT_GT(std::stol(cells[6]), 0) << line;  // steps
    ++rows;
  }
  EXPECT_EQ(rows, kDefaultCombos);

  // Markdown: a table with the same header and rows
  std::ifstream md(dir / "compare.md");
  ASSERT_TRUE(md.is_open());
  std::vector<std::string> table;
  while (std::getline(md, line)) {
    if (!line.empty() && line.front() == '|') table.push_back(line);
  }
  ASSERT_EQ(table.size(), kDefaultCombos + 2);  // header, separator, rows
  std::vector<std::string> header;
  for (const auto& cell : split(table[0].substr(1), '|')) header.push_back(trim(cell));
  EXPECT_EQ(header, kColumns);
  for (std::size_t i = 2; i < table.size(); ++i) {
    EXPECT_EQ(split(table[i].substr(1), '|').size(), kColumns.size()) << table[i];
  }

  EXPECT_TRUE(is_png(dir / "drift.png"));
  EXPECT_TRUE(is_png(dir / "energy.png"));
  std::filesystem::remove_all(dir);
}

TEST(CompareCommand, AndrewsWritesTablesAndPlots) {
  check_report("andrews", "");
}

TEST(CompareCommand, SliderCrankWritesTablesAndPlots) {
  check_report("slider_crank", "--t-end 2");
}

TEST(CompareCommand, RejectsUnknownCombination) {
  const auto r = run_rtmb("compare pendulum --methods rk4:bogus --out /tmp/rtmb_never_written");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("unknown stabilizer 'bogus'"), std::string::npos) << r.out;
}

}  // namespace
