// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Models for the sparse-path tests: every model file in configs/ that has a sparse structure
// (iterated over the directory, so files added later are covered), pinned chains, and helpers
// that turn the CSC values of System::sparse_structure back into dense matrices.

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "rtmb/models/model_file.hpp"
#include "rtmb/models/planar_multibody.hpp"
#include "rtmb/system.hpp"

namespace rtmb::testing {

struct NamedSystem {
  std::string name;
  std::shared_ptr<const System> system;
  double dt = 1e-3;  ///< the model file's integration.dt (stiff models such as Andrews need theirs)
};

/// Every configs/*.yaml whose System has a sparse structure, sorted by file name. A file that
/// describes bodies must have one (`has_bodies_without_structure` counts those that do not);
/// files naming a built-in mechanism are kept only if theirs has one.
inline std::vector<NamedSystem> sparse_config_models(int* bodies_without_structure = nullptr) {
  std::vector<std::filesystem::path> paths;
  for (const auto& e :
       std::filesystem::directory_iterator(std::string(RTMB_SOURCE_DIR) + "/configs")) {
    if (e.path().extension() == ".yaml") paths.push_back(e.path());
  }
  std::sort(paths.begin(), paths.end());
  std::vector<NamedSystem> out;
  if (bodies_without_structure != nullptr) *bodies_without_structure = 0;
  for (const auto& p : paths) {
    const ModelFile file = load_model_file(p.string());
    std::shared_ptr<const System> sys = make_system(file);
    SparsePattern m;
    SparsePattern g;
    if (sys->sparse_structure(m, g)) {
      out.push_back({p.filename().string(), std::move(sys), file.settings.dt});
    } else if (file.bodies && bodies_without_structure != nullptr) {
      ++*bodies_without_structure;
    }
  }
  return out;
}

/// Dense matrix of a CSC pattern and its values; `symmetric_lower` mirrors the lower triangle.
inline Mat dense_from_csc(const SparsePattern& p,
                          const std::vector<double>& values,
                          bool symmetric_lower) {
  Mat out = Mat::Zero(p.rows, p.cols);
  for (int c = 0; c < p.cols; ++c) {
    for (int k = p.outer[static_cast<std::size_t>(c)]; k < p.outer[static_cast<std::size_t>(c) + 1];
         ++k) {
      const int r = p.inner[static_cast<std::size_t>(k)];
      out(r, c) = values[static_cast<std::size_t>(k)];
      if (symmetric_lower) out(c, r) = values[static_cast<std::size_t>(k)];
    }
  }
  return out;
}

}  // namespace rtmb::testing
