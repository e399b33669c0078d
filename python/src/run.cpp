// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Simulation.run(t_end, every=k): steps to t_end with the GIL released and returns a RunResult
// of NumPy arrays, one row per k-th step (plus the first and the last). The arrays are allocated
// before the loop and written through raw pointers, so the loop touches no Python object and
// other Python threads run meanwhile. The number of steps is the one `rtmb run` takes
// (fixed_step_count, rtmb/step.hpp).
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cmath>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "simulation.hpp"

namespace py = pybind11;

namespace rtmb::python {

namespace {

struct RunResult {
  py::array_t<double> times;           // (rows,) [s]
  py::array_t<double> q;               // (rows, n_q)
  py::array_t<double> v;               // (rows, n_v)
  py::array_t<double> outputs;         // (rows, n_outputs), schema order
  py::array_t<double> drift;           // (rows,) ||g||inf after the row's step
  py::array_t<double> velocity_drift;  // (rows,) ||G v + g_t||inf
  py::array_t<double> energy;          // (rows,) T + V; NaN where undefined
  py::array_t<std::uint32_t> flags;    // (rows,) the row's step flags
  std::vector<std::string> output_names;
  long steps = 0;  // steps taken
  bool ok = true;  // false: a step failed and the run stopped (the last row is that step)
  std::uint32_t flags_seen = 0;  // OR of every step's flags in the run
};

// Raw row writer over the result arrays (valid while the arrays live; no Python calls).
struct Rows {
  double* times;
  double* q;
  double* v;
  double* outputs;
  double* drift;
  double* velocity_drift;
  double* energy;
  std::uint32_t* flags;
  long count = 0;

  void write(const PySimulation& s, int n_out) noexcept {
    const long r = count++;
    times[r] = s.state.t;
    const auto n_q = s.state.q.size();
    const auto n_v = s.state.v.size();
    for (Eigen::Index i = 0; i < n_q; ++i) q[r * n_q + i] = s.state.q[i];
    for (Eigen::Index i = 0; i < n_v; ++i) v[r * n_v + i] = s.state.v[i];
    for (int i = 0; i < n_out; ++i) outputs[r * n_out + i] = s.output(i);
    drift[r] = s.status.position_drift;
    velocity_drift[r] = s.status.velocity_drift;
    energy[r] = s.status.energy;
    flags[r] = s.status.flags;
  }
};

// The first `rows` rows of a (rows_allocated, ...) array.
template <typename T>
py::array_t<T> head(const py::array_t<T>& a, long rows) {
  return a[py::slice(0, rows, 1)].template cast<py::array_t<T>>();
}

RunResult run(PySimulation& s, double t_end, long every) {
  if (every < 1) throw py::value_error("every must be >= 1");
  if (!std::isfinite(t_end)) throw py::value_error("t_end must be finite");
  const BusyGuard busy(s);
  const double dt = s.model->model->settings().dt;
  const long n = fixed_step_count(s.state.t, t_end, dt);
  const long rows = 1 + n / every + (n % every != 0 ? 1 : 0);
  const auto n_q = static_cast<py::ssize_t>(s.state.q.size());
  const auto n_v = static_cast<py::ssize_t>(s.state.v.size());
  const int n_out = static_cast<int>(s.model->outputs.size());

  RunResult r;
  r.times = py::array_t<double>(rows);
  r.q = py::array_t<double>({static_cast<py::ssize_t>(rows), n_q});
  r.v = py::array_t<double>({static_cast<py::ssize_t>(rows), n_v});
  r.outputs =
      py::array_t<double>({static_cast<py::ssize_t>(rows), static_cast<py::ssize_t>(n_out)});
  r.drift = py::array_t<double>(rows);
  r.velocity_drift = py::array_t<double>(rows);
  r.energy = py::array_t<double>(rows);
  r.flags = py::array_t<std::uint32_t>(rows);
  for (const Channel& c : s.model->outputs) r.output_names.push_back(c.first);
  Rows w{r.times.mutable_data(),   r.q.mutable_data(),     r.v.mutable_data(),
         r.outputs.mutable_data(), r.drift.mutable_data(), r.velocity_drift.mutable_data(),
         r.energy.mutable_data(),  r.flags.mutable_data()};

  {
    const py::gil_scoped_release release;
    w.write(s, n_out);
    for (long i = 1; i <= n; ++i) {
      const long done = s.advance(1);
      r.steps += done;
      r.flags_seen |= s.status.flags;
      if (PySimulation::failed(s.status)) {
        r.ok = false;
        w.write(s, n_out);
        break;
      }
      if (i % every == 0 || i == n) w.write(s, n_out);
    }
  }
  if (w.count < rows) {
    r.times = head(r.times, w.count);
    r.q = head(r.q, w.count);
    r.v = head(r.v, w.count);
    r.outputs = head(r.outputs, w.count);
    r.drift = head(r.drift, w.count);
    r.velocity_drift = head(r.velocity_drift, w.count);
    r.energy = head(r.energy, w.count);
    r.flags = head(r.flags, w.count);
  }
  return r;
}

}  // namespace

void bind_run(py::module_& m) {
  py::class_<RunResult>(m, "RunResult",
                        "Simulation.run()'s record: arrays with one row per recorded step")
      .def_readonly("times", &RunResult::times, "(rows,) simulation time [s]")
      .def_readonly("q", &RunResult::q, "(rows, n_q) positions")
      .def_readonly("v", &RunResult::v, "(rows, n_v) velocities")
      .def_readonly("outputs", &RunResult::outputs, "(rows, n_outputs), columns output_names")
      .def_readonly("output_names", &RunResult::output_names)
      .def_readonly("drift", &RunResult::drift, "(rows,) position drift ||g||inf")
      .def_readonly("velocity_drift", &RunResult::velocity_drift, "(rows,) ||G v + g_t||inf")
      .def_readonly("energy", &RunResult::energy, "(rows,) T + V [J]")
      .def_readonly("flags", &RunResult::flags, "(rows,) step flags (rtmb.flag_names)")
      .def_readonly("steps", &RunResult::steps, "steps taken")
      .def_readonly("ok", &RunResult::ok, "False if a step failed and the run stopped there")
      .def_readonly("flags_seen", &RunResult::flags_seen, "OR of every step's flags")
      .def(
          "output",
          [](const RunResult& r, const std::string& name) -> py::object {
            for (std::size_t i = 0; i < r.output_names.size(); ++i) {
              if (r.output_names[i] == name) {
                return r.outputs[py::make_tuple(py::slice(py::none(), py::none(), py::none()),
                                                static_cast<py::ssize_t>(i))];
              }
            }
            throw py::key_error("no output channel '" + name + "'");
          },
          py::arg("name"), "One output channel's column.")
      .def("__len__", [](const RunResult& r) { return r.times.size(); });

  // Simulation is bound in simulation.cpp (bind_simulation runs first); run() is added here
  auto simulation = py::reinterpret_borrow<py::class_<PySimulation>>(m.attr("Simulation"));
  simulation.def(
      "run", &run, py::arg("t_end"), py::arg("every") = 1,
      "Steps to t_end (GIL released) and returns a RunResult of every k-th step, with the "
      "first and the last.");
  m.def(
      "flag_names", [](std::uint32_t flags) { return step_flag_names(flags); }, py::arg("flags"),
      "Names of the step flags set in flags, comma-separated.");
}

}  // namespace rtmb::python
