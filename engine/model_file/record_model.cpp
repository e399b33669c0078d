// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The model of a record, rebuilt from its header (include/rtmb/models/record_model.hpp).
#include "rtmb/models/record_model.hpp"

#include <optional>
#include <stdexcept>
#include <string>

#include "rtmb/models/model_file.hpp"

namespace rtmb {

std::unique_ptr<Model> record_model(const RecordHeader& h) {
  const ModelFile file = h.model_text.empty() ? builtin_model_file(h.mechanism)
                                              : parse_model_file(h.model_text, h.model_path);
  Settings settings = file.settings;
  if (!h.solver.empty()) {
    const std::optional<KktSolver> solver = parse_solver(h.solver);
    if (!solver) throw std::invalid_argument("replay: unknown solver '" + h.solver + "'");
    settings.solver = *solver;
  }
  return std::make_unique<Model>(std::shared_ptr<const System>(make_system(file)), settings);
}

ReplayResult replay_record(const RecordFile& record,
                           const std::function<void(std::int64_t)>& progress) {
  const std::unique_ptr<Model> model = record_model(record.header);
  return replay(record, *model, progress);
}

}  // namespace rtmb
