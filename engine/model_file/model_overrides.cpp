// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Overrides by key path (issue 18): "integration.dt" = "5e-4", "bodies[2].mass" = "1.5". The key
// path is the one the loader's errors print (dots between mapping keys, [i] for list entries),
// plus [NAME] for the entry of a list whose `name` is NAME. Each override edits the YAML tree in
// place; the loader then reads the tree as it reads any file, so every override is validated by
// the same code as the file's own values (there is no second set of rules to keep in step).
// A scalar written over a scalar keeps that node's position, so an error about the new value
// names the line of the value it replaced.
// GCC 12 at -O3 reports a bogus -Wrestrict inside std::string concatenation (GCC bug 105329),
// as in every model-file reader (engine/model_file/yaml_reader.hpp).
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ == 12
#pragma GCC diagnostic ignored "-Wrestrict"
#endif

#include "engine/model_file/model_overrides.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace rtmb::detail {

namespace {

// One step of a key path: a mapping key, or a list entry by index or by name.
struct PathStep {
  enum Kind { kKey, kIndex, kName } kind = kKey;
  std::string text;  // the key, or the name
  std::size_t index = 0;
};

[[noreturn]] void fail(const std::string& path, const ModelOverride& o, const std::string& why) {
  throw ModelFileError(path + ": override '" + o.key + "': " + why);
}

std::vector<PathStep> parse_path(const std::string& path, const ModelOverride& o) {
  std::vector<PathStep> steps;
  const std::string_view key = o.key;
  std::size_t i = 0;
  while (i < key.size()) {
    if (key[i] == '[') {
      const std::size_t close = key.find(']', i);
      if (close == std::string_view::npos || close == i + 1) fail(path, o, "unclosed or empty []");
      const std::string inner(key.substr(i + 1, close - i - 1));
      PathStep s;
      const bool digits = std::all_of(inner.begin(), inner.end(),
                                      [](unsigned char c) { return std::isdigit(c) != 0; });
      if (digits) {
        s.kind = PathStep::kIndex;
        s.index = std::stoul(inner);
      } else {
        s.kind = PathStep::kName;
        s.text = inner;
      }
      steps.push_back(s);
      i = close + 1;
      if (i < key.size() && key[i] == '.') ++i;
      continue;
    }
    const std::size_t end = key.find_first_of(".[", i);
    const std::size_t stop = end == std::string_view::npos ? key.size() : end;
    if (stop == i) fail(path, o, "empty key in the path");
    PathStep s;
    s.text = std::string(key.substr(i, stop - i));
    steps.push_back(s);
    i = stop;
    if (i < key.size() && key[i] == '.') ++i;
  }
  if (steps.empty() || steps.front().kind != PathStep::kKey) {
    fail(path, o, "expected a key path such as integration.dt or bodies[2].mass");
  }
  return steps;
}

}  // namespace

std::vector<std::string> apply_overrides(YAML::Node& root,
                                         std::span<const ModelOverride> overrides,
                                         const std::string& path) {
  std::vector<std::string> resolved;
  resolved.reserve(overrides.size());
  for (const ModelOverride& o : overrides) {
    YAML::Node value;
    try {
      value = YAML::Load(o.value);
    } catch (const YAML::Exception& e) {
      fail(path, o, "the value '" + o.value + "' is not YAML (" + e.msg + ")");
    }
    const std::vector<PathStep> steps = parse_path(path, o);
    // walk down the path; handles share the tree, so writing through the last one edits root.
    // (A Node's operator= assigns a value to the node it refers to; reset() re-points the
    // handle, which is what walking needs.)
    YAML::Node at(root);
    std::string key;
    for (std::size_t k = 0; k < steps.size(); ++k) {
      const PathStep& s = steps[k];
      YAML::Node next;
      if (s.kind == PathStep::kKey) {
        if (at.IsDefined() && !at.IsNull() && !at.IsMap()) {
          fail(path, o, "'" + (key.empty() ? "(top level)" : key) + "' is not a mapping");
        }
        key = key.empty() ? s.text : key + "." + s.text;
        next.reset(at[s.text]);
      } else {
        if (!at.IsSequence()) fail(path, o, "'" + key + "' is not a list");
        std::size_t index = s.index;
        if (s.kind == PathStep::kName) {
          index = at.size();
          for (std::size_t e = 0; e < at.size(); ++e) {
            const YAML::Node name = at[e].IsMap() ? at[e]["name"] : YAML::Node();
            if (name && name.IsScalar() && name.Scalar() == s.text) {
              index = e;
              break;
            }
          }
          if (index == at.size()) fail(path, o, "'" + key + "' has no entry named " + s.text);
        } else if (index >= at.size()) {
          fail(path, o, "'" + key + "' has " + std::to_string(at.size()) + " entries");
        }
        key += "[" + std::to_string(index) + "]";
        next.reset(at[index]);
      }
      if (k + 1 == steps.size()) {
        // a scalar over a scalar keeps the node (and its position in the file); anything else
        // replaces it
        if (value.IsScalar() && (!next.IsDefined() || next.IsScalar() || next.IsNull())) {
          next = value.Scalar();
        } else {
          next = value;
        }
      }
      at.reset(next);
    }
    resolved.push_back(key);
  }
  return resolved;
}

}  // namespace rtmb::detail
