// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The extension module rtmb._rtmb; the package rtmb (python/rtmb/__init__.py) re-exports it.
#include <pybind11/pybind11.h>

#include "bindings.hpp"

PYBIND11_MODULE(_rtmb, m) {
  m.doc() =
      "rtmb: a real-time engine for constrained multibody systems (Python bindings; "
      "python/README.md)";
  rtmb::python::bind_errors(m);
  rtmb::python::bind_model(m);
  rtmb::python::bind_simulation(m);
  rtmb::python::bind_run(m);
  rtmb::python::bind_client(m);
}
