// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The `load` path rule (net/load_permission.hpp).
#include "net/load_permission.hpp"

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <string>
#include <system_error>

namespace rtmb {

namespace fs = std::filesystem;

fs::path load_root_for(std::string_view models_dir,
                       std::optional<std::string_view> served_model_file) {
  std::error_code ec;
  if (!models_dir.empty()) {
    const fs::path root = fs::canonical(fs::path(models_dir), ec);
    if (ec || !fs::is_directory(root, ec)) {
      throw std::invalid_argument("--models '" + std::string(models_dir) +
                                  "' is not an existing directory");
    }
    return root;
  }
  if (!served_model_file) return {};
  // the served file was just read, so it exists; should resolution fail anyway, nothing is
  // permitted (fail closed)
  const fs::path served = fs::canonical(fs::path(*served_model_file), ec);
  return ec ? fs::path() : served.parent_path();
}

std::optional<fs::path> permitted_model_path(const fs::path& root, std::string_view requested) {
  if (root.empty() || requested.empty()) return std::nullopt;
  if (requested.find('\0') != std::string_view::npos) return std::nullopt;
  // an absolute request replaces root in operator/, and is checked like any other
  const fs::path normal = (root / fs::path(requested)).lexically_normal();
  std::error_code ec;
  const fs::path resolved = fs::weakly_canonical(normal, ec);
  if (ec) return std::nullopt;
  // strictly under root, element by element ("/a/bc" is not under "/a/b")
  const auto [root_end, rest] =
      std::mismatch(root.begin(), root.end(), resolved.begin(), resolved.end());
  if (root_end != root.end() || rest == resolved.end()) return std::nullopt;
  // a trailing separator leaves one empty element: still root itself
  if (std::next(rest) == resolved.end() && rest->empty()) return std::nullopt;
  return resolved;
}

}  // namespace rtmb
