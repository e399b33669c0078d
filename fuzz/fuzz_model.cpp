// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// libFuzzer target for the model-file loader (parse_model_file, engine/model_file/; what
// load_model_file runs on a file's text, and `rtmb serve FILE`, the control command `load` and
// `rtmb replay` on a recorded model). Each input is the YAML text of one model file. Besides
// crashes, sanitizer reports, hangs (-timeout) and huge allocations (-rss_limit_mb), it checks
// the loader's promise (include/rtmb/models/model_file.hpp): any problem is a ModelFileError
// naming the file, never another exception, and never one made from a yaml-cpp exception that
// escaped a reader (key detail::kYamlErrorKey: parse_model_file turns those into errors for the
// user, but each is a reader that looked inside a node without checking its kind); a file that
// loads has a name and at least one input channel description per the schema.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "engine/model_file/yaml_reader.hpp"
#include "rtmb/models/model_file.hpp"

namespace {

void require(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(data, data + size);
  try {
    const rtmb::ModelFile f = rtmb::parse_model_file(text, "fuzz.yaml");
    require(f.path == "fuzz.yaml");
    require(!rtmb::model_name(f).empty());
    require(f.settings.dt > 0.0);
  } catch (const rtmb::ModelFileError& e) {
    require(std::string(e.what()).rfind("fuzz.yaml", 0) == 0);
    require(e.key() != rtmb::detail::kYamlErrorKey);
  }
  return 0;
}
