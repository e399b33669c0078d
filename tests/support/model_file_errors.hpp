// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Helpers of the bad-input tests of model files: the message a text that must fail produces,
// and a one-place edit of a valid text.

#include <gtest/gtest.h>

#include <cstddef>
#include <string>

#include "rtmb/models/model_file.hpp"

namespace rtmb::testing {

/// Parses `text` (reported as `path`), which must be refused; returns the ModelFileError's
/// message. A text that is accepted is a test failure and returns "(no error)".
inline std::string model_file_error(const std::string& text, const std::string& path = "rig.yaml") {
  try {
    (void)parse_model_file(text, path);
  } catch (const ModelFileError& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted:\n" << text;
  return "(no error)";
}

/// `text` with the first occurrence of `from` replaced by `to`; a test failure when `from` is
/// not in it.
inline std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

}  // namespace rtmb::testing
