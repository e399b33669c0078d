// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Model files (YAML, docs/model-format.md): what to simulate, how to integrate it, and what its
// input channels do when samples are late or lost. A file either names one of the built-in
// reference mechanisms (`mechanism:`) or describes planar bodies, joints and forces (`bodies:`,
// `joints:`, `forces:`), compiled to a PlanarMultibody (rtmb/models/planar_multibody.hpp), or, with
// `dimension: spatial`, spatial ones compiled to a SpatialMultibody
// (rtmb/models/spatial_multibody.hpp), or point masses (`particles:`) compiled to a
// ParticleSystem (rtmb/models/particle_system.hpp); redundant joint rows are refused or removed
// (engine/constraints/redundant_constraints.hpp).
//
// Errors. A bad file must never start anything and must say exactly where it is wrong: every
// problem is a ModelFileError whose message starts with "FILE:LINE:COLUMN: key 'a.b.c': ", the
// position of the offending value (or of the mapping that lacks a required key). Unknown keys are
// errors too: a misspelt key that were silently ignored would leave a default in force that the
// user believes they changed.

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "rtmb/model.hpp"
#include "rtmb/models/joint_space_outputs.hpp"
#include "rtmb/models/joint_space_tree.hpp"
#include "rtmb/models/mechanisms.hpp"
#include "rtmb/models/particle_system.hpp"
#include "rtmb/models/planar_multibody.hpp"
#include "rtmb/models/planar_outputs.hpp"
#include "rtmb/models/spatial_multibody.hpp"
#include "rtmb/models/spatial_outputs.hpp"
#include "rtmb/runtime/clock_mode.hpp"
#include "rtmb/runtime/input_channels.hpp"

namespace rtmb {

/// A model file that cannot be used: what() is "FILE:LINE:COLUMN: key 'KEY': reason" (or
/// "FILE: reason" when the file cannot be read at all).
class ModelFileError : public std::runtime_error {
 public:
  ModelFileError(std::string file, int line, int column, std::string key, const std::string& why);
  explicit ModelFileError(const std::string& message);

  [[nodiscard]] const std::string& file() const noexcept { return file_; }
  [[nodiscard]] int line() const noexcept { return line_; }      ///< 1-based; 0: not known
  [[nodiscard]] int column() const noexcept { return column_; }  ///< 1-based; 0: not known
  [[nodiscard]] const std::string& key() const noexcept { return key_; }
  /// What is wrong, without the "FILE:LINE:COLUMN: key 'KEY': " prefix (the whole message when
  /// the error has no position).
  [[nodiscard]] const std::string& reason() const noexcept { return reason_; }

 private:
  std::string file_;
  int line_ = 0;
  int column_ = 0;
  std::string key_;
  std::string reason_;
};

/// One input channel of a model file.
struct InputChannelSpec {
  std::string name;  ///< as announced by hello, e.g. "f0"
  std::string unit;  ///< e.g. "N*m"
  InputChannelConfig config;
};

/// A parsed and validated model file.
struct ModelFile {
  std::string path;       ///< as given to load_model_file
  std::string mechanism;  ///< built-in mechanism name (rtmb/models/mechanisms.hpp)
  /// Non-null when the file describes bodies (then `mechanism` is empty): the planar model,
  /// already assembled (consistent initial pose and velocity).
  std::shared_ptr<const PlanarModelSpec> bodies;
  /// Non-null for `dimension: spatial` (then `bodies` is null): the spatial model, assembled.
  std::shared_ptr<const SpatialModelSpec> spatial;
  /// Non-null for a URDF robot (a path ending in `.urdf`; then `bodies` and `spatial` are null):
  /// its joint-space tree (rtmb/models/joint_space_tree.hpp).
  std::shared_ptr<const JointSpaceSpec> joint_space;
  /// Non-null for a point-mass model (`particles:`; the others are null): particles, rods,
  /// trusses and bending elements (rtmb/models/particle_system.hpp).
  std::shared_ptr<const ParticleModelSpec> particles;
  /// Empty: every constraint row. Otherwise the independent rows kept after
  /// `redundant_constraints: remove` (make_system wraps the model in an IndependentRowsSystem).
  std::vector<int> kept_constraint_rows;
  std::vector<std::string> notes;  ///< what the loader changed, e.g. assembly; for the caller's log
  MechanismOptions options;        ///< its options
  Settings settings;               ///< integration; dt defaults to the mechanism's default_dt
  double rate_hz = 0.0;            ///< serve: loop rate [Hz]; 0: 1/dt
  std::optional<ClockMode> clock;  ///< serve.clock: what clocks the loop; empty: wall
  /// serve.input_margin_us: phase-lock's target input -> tick wait [µs]; empty: 30
  std::optional<int> input_margin_us;
  /// Schema order: one per velocity coordinate (generalized forces), or, for a body model with
  /// named channels (`drive` keys), one per bodies->inputs entry.
  std::vector<InputChannelSpec> inputs;
  std::vector<std::string> output_units;  ///< q0.., then v0..; empty: "m|rad", "m/s|rad/s"
  /// Named output channels (`outputs.channels`, body models only); empty: the stream carries q
  /// then v.
  std::vector<PlanarOutputSpec> outputs;
  /// Named output channels of a spatial model (`outputs.channels` with `dimension: spatial`).
  std::vector<SpatialOutputSpec> spatial_outputs;
  /// Named output channels of a URDF robot (`outputs.channels` with `urdf`), by joint and link.
  std::vector<JointSpaceOutputSpec> joint_space_outputs;
  InputBankConfig input_bank;  ///< staleness threshold and watchdog ramp (period: serve's)
};

/// The System a model file describes: the built-in mechanism or the compiled bodies. Setup-only.
[[nodiscard]] std::unique_ptr<System> make_system(const ModelFile& file);

/// The evaluator of the file's named output channels for sys (make_system(file)), or null when
/// the file defines none. Setup-only.
[[nodiscard]] std::unique_ptr<OutputEvaluator> make_output_evaluator(const ModelFile& file,
                                                                     const System& sys);

/// The scalar named output channels (name, unit) of the file, planar or spatial, in schema
/// order; empty: the stream carries q then v. Setup-only.
[[nodiscard]] std::vector<std::pair<std::string, std::string>> model_output_channels(
    const ModelFile& file);

/// The model's name: the mechanism, or the body model's `name` (default: the file's stem).
[[nodiscard]] std::string model_name(const ModelFile& file);

/// Reads and validates a model file. Throws ModelFileError (file, line, key) on any problem,
/// including Settings the Model constructor would refuse. Setup-only.
[[nodiscard]] ModelFile load_model_file(const std::string& path);

/// The same for YAML text already in memory; `path` is used in messages only.
[[nodiscard]] ModelFile parse_model_file(const std::string& text, const std::string& path);

/// A ModelFile for a built-in mechanism with every default: what `rtmb serve NAME` uses. Throws
/// std::invalid_argument for an unknown name.
[[nodiscard]] ModelFile builtin_model_file(const std::string& mechanism,
                                           const MechanismOptions& options = {});

/// The channel defaults of a built-in mechanism with n_v velocity coordinates: f0.. , each a
/// force (watched by the watchdog) that holds its last value between samples.
[[nodiscard]] std::vector<InputChannelSpec> default_input_channels(int n_v);

}  // namespace rtmb
