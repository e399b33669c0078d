// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// rtmb.Model: an immutable, loaded model (MuJoCo's MjModel): the parsed model file, the System
// it describes and the engine Model (System + integration settings). Many Simulations may share
// one (the engine's Model/Workspace split, issue 13).

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "rtmb/model.hpp"
#include "rtmb/models/model_file.hpp"

namespace rtmb::python {

/// A named scalar channel and its unit.
using Channel = std::pair<std::string, std::string>;

struct PyModel {
  std::shared_ptr<const ModelFile> file;  ///< what was loaded (a built-in: its default file)
  std::shared_ptr<const Model> model;     ///< System + Settings
  std::string name;                       ///< model_name(file)
  /// Output channels in schema order: the file's named outputs, or q0.., v0.. (as rtmb serve's
  /// hello announces them, docs/protocol.md).
  std::vector<Channel> outputs;
  bool named_outputs = false;   ///< outputs are evaluated by an OutputEvaluator
  std::vector<Channel> inputs;  ///< input channels in schema order
  /// Inputs are the System's named input channels (input_values(ws)) rather than generalized
  /// forces (applied_force(ws)), as SimulationRunner applies them.
  bool named_inputs = false;
};

/// Builds the engine Model of a parsed file. Setup-only (allocates, throws).
[[nodiscard]] std::shared_ptr<PyModel> make_py_model(ModelFile file);

}  // namespace rtmb::python
