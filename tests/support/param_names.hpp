// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Names of parameterized GoogleTest cases built from methods, stabilizers and labels.

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <string_view>
#include <tuple>

#include "rtmb/step.hpp"

namespace rtmb::testing {

/// The parts joined by '_', with '-' (as in "s-both") turned into '_': GoogleTest allows only
/// letters, digits and '_' in a parameter name.
inline std::string param_name(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) {
    if (!out.empty()) out += '_';
    out += p;
  }
  for (char& c : out) {
    if (c == '-') c = '_';
  }
  return out;
}

/// Name generator of a suite parameterized by a Method.
inline std::string method_param_name(const ::testing::TestParamInfo<Method>& p) {
  return param_name({to_string(p.param)});
}

/// Name generator of a suite parameterized by (Method, StabilizerKind).
inline std::string method_stabilizer_param_name(
    const ::testing::TestParamInfo<std::tuple<Method, StabilizerKind>>& p) {
  return param_name({to_string(std::get<0>(p.param)), to_string(std::get<1>(p.param))});
}

/// Name generator of a suite parameterized by (index into `files`, Method, StabilizerKind): the
/// file name without its extension, the method and the stabilizer.
struct FileComboName {
  const char* const* files;
  std::string operator()(
      const ::testing::TestParamInfo<std::tuple<int, Method, StabilizerKind>>& p) const {
    const std::string file = files[std::get<0>(p.param)];
    return param_name({file.substr(0, file.find('.')), to_string(std::get<1>(p.param)),
                       to_string(std::get<2>(p.param))});
  }
};

}  // namespace rtmb::testing
