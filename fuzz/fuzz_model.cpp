// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// libFuzzer target for the model-file loader (parse_model_file, engine/model_file/; what
// load_model_file runs on a file's text, and `rtmb serve FILE`, the control command `load` and
// `rtmb replay` on a recorded model). Each input is the YAML text of one model file. Besides
// crashes, sanitizer reports, hangs (-timeout) and huge allocations (-rss_limit_mb), it checks
// the loader's promise (include/rtmb/models/model_file.hpp): any problem is a ModelFileError
// naming the file, never another exception; a file that loads has a name and at least one input
// channel description per the schema. It reads through detail::parse_model_file_strict: the
// public parse_model_file turns a yaml-cpp exception that escapes a reader into a ModelFileError
// for the user, but each such exception is a reader that looked inside a node without checking
// its kind, which this target is here to find.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "engine/model_file/model_file_strict.hpp"
#include "rtmb/models/model_file.hpp"

namespace {

void require(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(data, data + size);
  try {
    const rtmb::ModelFile f = rtmb::detail::parse_model_file_strict(text, "fuzz.yaml");
    require(f.path == "fuzz.yaml");
    require(!rtmb::model_name(f).empty());
    require(f.settings.dt > 0.0);
  } catch (const rtmb::ModelFileError& e) {
    require(std::string(e.what()).rfind("fuzz.yaml", 0) == 0);
  }
  return 0;
}
