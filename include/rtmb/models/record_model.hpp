// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// The model of a record (rtmb/runtime/record.hpp), rebuilt from its header. It lives in the model
// file layer, not in the runtime, because it parses the model file's text the header carries:
// the runtime replays on a Model it is given and never reads model files.

#include <cstdint>
#include <functional>
#include <memory>

#include "rtmb/model.hpp"
#include "rtmb/runtime/record.hpp"

namespace rtmb {

/// The recorded model: the header's model file text (or its built-in mechanism by name) with its
/// settings, and the solver the server ran (std::invalid_argument if it is unknown).
[[nodiscard]] std::unique_ptr<Model> record_model(const RecordHeader& header);

/// Re-runs a record offline: replay(record, *record_model(record.header), progress).
[[nodiscard]] ReplayResult replay_record(const RecordFile& record,
                                         const std::function<void(std::int64_t)>& progress = {});

}  // namespace rtmb
