// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// The pieces of the rtmb Python module (python/README.md), one concept per file; module.cpp
// calls each bind_* once. Only the public headers (include/rtmb) are used.

#include <pybind11/pybind11.h>

namespace rtmb::python {

void bind_errors(pybind11::module_& m);      // errors.cpp: ModelFileError
void bind_model(pybind11::module_& m);       // model.cpp: Model, load()
void bind_simulation(pybind11::module_& m);  // simulation.cpp: Simulation, Status, channels
void bind_run(pybind11::module_& m);         // run.cpp: Simulation.run(), RunResult
void bind_client(pybind11::module_& m);      // client.cpp: Client, ServerState, ClientError

}  // namespace rtmb::python
