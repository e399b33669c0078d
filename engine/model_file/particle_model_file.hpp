// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Internal to the model-file loader: point-mass models (`particles:`, docs/model-format.md,
// "Particles, rods, trusses and bending elements"), compiled to a ParticleSystem
// (rtmb/models/particle_system.hpp). Every error is a ModelFileError with file, line, column and
// key.

#include <yaml-cpp/yaml.h>

#include <memory>
#include <string>

#include "rtmb/models/particle_system.hpp"

namespace rtmb::detail {

/// The top-level keys a particle model may use besides the common ones (name, dimension,
/// integration, serve, inputs, outputs).
inline constexpr const char* kParticleModelKeys[] = {"particles", "rods",   "trusses",
                                                     "bendings",  "pulses", "gravity"};

/// Reads `particles`, `rods`, `trusses`, `bendings`, `pulses` and `gravity` (`dimension: spatial`
/// for 3-D, planar by default) and checks that the initial positions satisfy every rod (a particle
/// model is not assembled: the file must give a consistent state). Setup-only.
[[nodiscard]] std::shared_ptr<const ParticleModelSpec> read_particle_model(const YAML::Node& root,
                                                                           const std::string& path);

}  // namespace rtmb::detail
