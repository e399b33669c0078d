// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Engine errors as Python exceptions. A bad model file is rtmb.ModelFileError, a ValueError whose
// message is the engine's own ("FILE:LINE:COLUMN: key 'a.b': reason"), so Python users see
// exactly what `rtmb run` prints. Other std::invalid_argument (bad settings, unknown names) are
// ValueError and std::runtime_error RuntimeError, by pybind11's standard translation.
#include "bindings.hpp"
#include "rtmb/models/model_file.hpp"

namespace rtmb::python {

void bind_errors(pybind11::module_& m) {
  pybind11::register_exception<ModelFileError>(m, "ModelFileError", PyExc_ValueError);
}

}  // namespace rtmb::python
