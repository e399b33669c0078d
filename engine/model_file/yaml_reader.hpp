// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Internal to the model-file loader (model_file.cpp, spatial_model_file.cpp, channels): typed
// reads of YAML nodes whose every failure is a ModelFileError "FILE:LINE:COLUMN: key 'a.b':
// reason" (docs/model-format.md, "Errors"). Setup-only.

// GCC 12 at -O3 reports a bogus -Wrestrict inside std::string concatenation (GCC bug 105329);
// the messages of every model-file reader (all of which include this header) are plain
// `std::string + literal` expressions, so the warning is silenced here once for all of them.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ == 12
#pragma GCC diagnostic ignored "-Wrestrict"
#endif

#include <yaml-cpp/yaml.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <string>
#include <string_view>

#include "rtmb/models/model_file.hpp"

namespace rtmb::detail {

// Reads one file: every accessor knows the file name, so every error can say where it is.
class YamlReader {
 public:
  explicit YamlReader(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail(const YAML::Node& at,
                         const std::string& key,
                         const std::string& why) const {
    const YAML::Mark m = at.Mark();
    // yaml-cpp marks are 0-based; a node without a position (-1) is reported at line 0
    throw ModelFileError(path_, m.line + 1, m.column + 1, key, why);
  }

  // Fails on any key of `map` not in `allowed`; fails if `map` is not a mapping.
  void check_keys(const YAML::Node& map,
                  const std::string& prefix,
                  std::initializer_list<std::string_view> allowed) const {
    if (!map.IsMap()) fail(map, prefix.empty() ? "(top level)" : prefix, "expected a mapping");
    for (const auto& kv : map) {
      // a key that is a list, a mapping or empty (`? [a]: 1`, `&x: 1`) has no string to compare;
      // as<std::string>() would throw a YAML exception past the loader (found by fuzz_model)
      if (!kv.first.IsScalar()) {
        fail(kv.first, prefix.empty() ? "(top level)" : prefix,
             "a key must be a plain name, not a list, a mapping or empty");
      }
      const std::string k = kv.first.as<std::string>();
      if (std::find(allowed.begin(), allowed.end(), k) != allowed.end()) continue;
      std::string valid;
      for (const std::string_view a : allowed) {
        if (!valid.empty()) valid += ", ";
        valid += a;
      }
      fail(kv.first, join(prefix, k), "unknown key (valid here: " + valid + ")");
    }
  }

  static std::string join(const std::string& prefix, std::string_view key) {
    return prefix.empty() ? std::string(key) : prefix + "." + std::string(key);
  }

  [[nodiscard]] std::string string(const YAML::Node& n, const std::string& key) const {
    if (!n.IsScalar()) fail(n, key, "expected a string");
    return n.as<std::string>();
  }

  [[nodiscard]] double number(const YAML::Node& n, const std::string& key) const {
    if (!n.IsScalar()) fail(n, key, "expected a number");
    double v = 0.0;
    if (!YAML::convert<double>::decode(n, v)) {
      fail(n, key, "expected a number, got '" + n.as<std::string>() + "'");
    }
    if (!std::isfinite(v)) fail(n, key, "must be finite");
    return v;
  }

  [[nodiscard]] double positive(const YAML::Node& n, const std::string& key) const {
    const double v = number(n, key);
    if (!(v > 0.0)) fail(n, key, "must be > 0");
    return v;
  }

  [[nodiscard]] double non_negative(const YAML::Node& n, const std::string& key) const {
    const double v = number(n, key);
    if (v < 0.0) fail(n, key, "must be >= 0");
    return v;
  }

  [[nodiscard]] long long integer(const YAML::Node& n, const std::string& key) const {
    if (!n.IsScalar()) fail(n, key, "expected an integer");
    long long v = 0;
    if (!YAML::convert<long long>::decode(n, v)) {
      fail(n, key, "expected an integer, got '" + n.as<std::string>() + "'");
    }
    return v;
  }

  [[nodiscard]] bool boolean(const YAML::Node& n, const std::string& key) const {
    if (!n.IsScalar()) fail(n, key, "expected true or false");
    bool v = false;
    if (!YAML::convert<bool>::decode(n, v)) {
      fail(n, key, "expected true or false, got '" + n.as<std::string>() + "'");
    }
    return v;
  }

  // a flow or block list of exactly N numbers, e.g. [0.5, 0, 0]
  template <int N>
  [[nodiscard]] Eigen::Matrix<double, N, 1> vec(const YAML::Node& n, const std::string& key) const {
    if (!n.IsSequence() || static_cast<int>(n.size()) != N) {
      fail(n, key, "expected a list of " + std::to_string(N) + " numbers");
    }
    Eigen::Matrix<double, N, 1> out;
    for (int i = 0; i < N; ++i) {
      out(i) = number(n[static_cast<std::size_t>(i)], key + "[" + std::to_string(i) + "]");
    }
    return out;
  }

  // a list of one of `sizes` numbers (e.g. an inertia given as 3 principal values or 9 entries)
  [[nodiscard]] Eigen::VectorXd list(const YAML::Node& n,
                                     const std::string& key,
                                     std::initializer_list<int> sizes,
                                     const std::string& what) const {
    if (!n.IsSequence() ||
        std::find(sizes.begin(), sizes.end(), static_cast<int>(n.size())) == sizes.end()) {
      fail(n, key, "expected " + what);
    }
    Eigen::VectorXd out(static_cast<Eigen::Index>(n.size()));
    for (std::size_t i = 0; i < n.size(); ++i) {
      out(static_cast<Eigen::Index>(i)) = number(n[i], key + "[" + std::to_string(i) + "]");
    }
    return out;
  }

  [[nodiscard]] Eigen::Vector3d vec3(const YAML::Node& n, const std::string& key) const {
    return vec<3>(n, key);
  }

  [[nodiscard]] Eigen::Vector3d nonzero3(const YAML::Node& n, const std::string& key) const {
    const Eigen::Vector3d v = vec3(n, key);
    if (!(v.norm() > 0.0)) fail(n, key, "must not be zero");
    return v;
  }

  // map[name], which must be there: otherwise "missing (what)" at `map`, key prefix.name.
  // Returned by value (a reference to the looked-up node would dangle after the caller's
  // full-expression).
  [[nodiscard]] YAML::Node required(const YAML::Node& map,
                                    const std::string& prefix,
                                    const char* name,
                                    const std::string& what) const {
    // a scalar has no keys: yaml-cpp's operator[] would throw BadSubscript past the loader (found
    // by fuzz_model: `driver: some text` where a driver mapping belongs)
    if (map.IsScalar() || map.IsSequence()) {
      fail(map, prefix, std::string("expected a mapping with '") + name + "' (" + what + ")");
    }
    YAML::Node value = map[name];
    if (!value) fail(map, join(prefix, name), "missing (" + what + ")");
    return value;
  }

  [[nodiscard]] const std::string& path() const noexcept { return path_; }

 private:
  std::string path_;
};

}  // namespace rtmb::detail
