// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Which model files a control client may make the server read with `load` (issue 15).
//
// A client on the control channel must not be able to read, or even probe, files outside the
// folder the operator chose: the served model file's folder, or `rtmb serve --models DIR`. So a
// requested path is resolved before anything is opened, and a refusal is one fixed reply that
// does not depend on whether the file exists (no existence oracle) and quotes nothing.
//
// Resolution: the request, taken relative to the root, is first normalised lexically (so that
// `dir_not_there/../link` cannot hide `link` from the resolution behind a missing component),
// then std::filesystem::weakly_canonical resolves every symlink of the part that exists. The
// result must lie under the (canonical) root; the server then opens that resolved path, never the
// request's text, so what was checked is what is read.

#include <filesystem>
#include <optional>
#include <string_view>

namespace rtmb {

/// The reply's error text for every refused `load` path, whatever the reason.
inline constexpr std::string_view kLoadNotPermitted =
    "not permitted (load takes a built-in mechanism name, or a model file under the served model "
    "file's folder or rtmb serve --models DIR)";

/// The canonical root under which `load` may read model files: models_dir when given (it must
/// be an existing directory, else std::invalid_argument), else the folder of served_model_file
/// when one is served, else empty (no file permitted). Setup-only (touches the file system).
[[nodiscard]] std::filesystem::path load_root_for(
    std::string_view models_dir, std::optional<std::string_view> served_model_file);

/// The resolved path of model file `requested` when it lies strictly under `root` (see the file
/// comment); nullopt when root is empty, the request is empty, holds a NUL byte, or resolves
/// outside root or to root itself. Opens nothing.
[[nodiscard]] std::optional<std::filesystem::path> permitted_model_path(
    const std::filesystem::path& root, std::string_view requested);

}  // namespace rtmb
