// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// rtmb.Simulation: state as NumPy views, step(), reset(), status, and the input and output
// channels by name. Conventions follow MuJoCo's Python bindings (MjData's qpos/qvel are arrays
// over the engine's own memory): sim.q and sim.v are views of the State, so a write through them
// is what the next step integrates, and no copy is made per access.
//
// Inputs. Offline there is no network, so the real-time input policies (late/lost samples, the
// watchdog; rtmb/runtime/input_channels.hpp) do not apply: a value set here is held from the next
// step on until it is set again (a zero-order hold, as the engine holds any input over a step).
// It goes where SimulationRunner puts a channel's value: a body model's named channels into the
// Workspace's input_values, otherwise the generalized force on coordinate i (applied_force).
#include "simulation.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "bindings.hpp"

namespace py = pybind11;

namespace rtmb::python {

PySimulation::PySimulation(std::shared_ptr<PyModel> m) : model(std::move(m)) {
  state = initial_state(*model->model);
  reset();
}

void PySimulation::reset() {
  const State initial = initial_state(*model->model);
  // element-wise copies into the existing storage: views of q and v stay valid
  state.t = initial.t;
  state.q = initial.q;
  state.v = initial.v;
  ws = std::make_unique<Workspace>(*model->model);
  evaluator =
      model->named_outputs ? make_output_evaluator(*model->file, model->model->system()) : nullptr;
  output_values.assign(static_cast<std::size_t>(evaluator ? evaluator->count() : 0), 0.0);
  if (evaluator) evaluator->evaluate(state, *ws, output_values);
  status = StepStatus{};
  measure(*model->model, state, *ws, status);
  flags_seen = 0;
  steps = 0;
  max_position_drift = status.position_drift;
  max_velocity_drift = status.velocity_drift;
}

long PySimulation::advance(long n) noexcept {
  long done = 0;
  for (; done < n; ++done) {
    status = step(*model->model, state, *ws);
    flags_seen |= status.flags;
    ++steps;
    max_position_drift = std::max(max_position_drift, status.position_drift);
    max_velocity_drift = std::max(max_velocity_drift, status.velocity_drift);
    if (evaluator) evaluator->evaluate(state, *ws, output_values);
    if (failed(status)) return done + 1;
  }
  return done;
}

double PySimulation::output(int i) const noexcept {
  if (evaluator) return output_values[static_cast<std::size_t>(i)];
  const int n_q = static_cast<int>(state.q.size());
  return i < n_q ? state.q[i] : state.v[i - n_q];
}

BusyGuard::BusyGuard(PySimulation& sim) : sim_(sim) {
  if (sim_.busy.exchange(true, std::memory_order_acquire)) {
    throw std::runtime_error("this Simulation is being stepped by another thread");
  }
}

namespace {

// The channel index of name in channels, or KeyError naming the valid ones.
int channel_index(const std::vector<Channel>& channels, const std::string& name, const char* what) {
  for (std::size_t i = 0; i < channels.size(); ++i) {
    if (channels[i].first == name) return static_cast<int>(i);
  }
  std::string valid;
  for (const Channel& c : channels) valid += (valid.empty() ? "" : ", ") + c.first;
  throw py::key_error("no " + std::string(what) + " channel '" + name + "' (valid: " + valid + ")");
}

// A NumPy array over n doubles at data, owned by (and keeping alive) owner: no copy.
py::array_t<double> view(double* data, Eigen::Index n, const py::object& owner) {
  return py::array_t<double>({static_cast<py::ssize_t>(n)},
                             {static_cast<py::ssize_t>(sizeof(double))}, data, owner);
}

void assign(VecRef target,
            const py::array_t<double, py::array::c_style | py::array::forcecast>& a,
            const char* what) {
  if (a.ndim() != 1 || a.shape(0) != target.size()) {
    throw py::value_error(std::string(what) + " needs " + std::to_string(target.size()) +
                          " values");
  }
  for (Eigen::Index i = 0; i < target.size(); ++i) target[i] = a.at(i);
}

// sim.inputs / sim.outputs: mappings by channel name over one Simulation.
struct Inputs {
  py::object owner;
  PySimulation* sim;
};
struct Outputs {
  py::object owner;
  PySimulation* sim;
};

double get_input(const PySimulation& sim, int i) {
  if (sim.model->named_inputs) return input_values(*sim.ws)[static_cast<std::size_t>(i)];
  return applied_force(*sim.ws)[i];
}

void set_input(PySimulation& sim, const std::string& name, double value) {
  const int i = channel_index(sim.model->inputs, name, "input");
  const InputChannelConfig& c = sim.model->file->inputs[static_cast<std::size_t>(i)].config;
  if (!std::isfinite(value) || value < c.min_value || value > c.max_value) {
    throw py::value_error("input '" + name + "' = " + std::to_string(value) +
                          " is outside its range [" + std::to_string(c.min_value) + ", " +
                          std::to_string(c.max_value) + "] or not finite");
  }
  if (sim.model->named_inputs) {
    input_values(*sim.ws)[static_cast<std::size_t>(i)] = value;
  } else {
    applied_force(*sim.ws)[i] = value;
  }
}

bool has_channel(const std::vector<Channel>& channels, const std::string& name) {
  return std::any_of(channels.begin(), channels.end(),
                     [&](const Channel& c) { return c.first == name; });
}

py::list names(const std::vector<Channel>& channels) {
  py::list out;
  for (const Channel& c : channels) out.append(c.first);
  return out;
}

py::dict status_dict(const PySimulation& s) {
  py::dict d;
  d["flags"] = s.status.flags;
  d["flag_names"] = step_flag_names(s.status.flags);
  d["ok"] = s.status.ok();
  d["position_drift"] = s.status.position_drift;
  d["velocity_drift"] = s.status.velocity_drift;
  d["energy"] = s.status.energy;
  d["rhs_evaluations"] = s.status.rhs_evaluations;
  d["newton_iterations"] = s.status.newton_iterations;
  d["flags_seen"] = s.flags_seen;
  d["max_position_drift"] = s.max_position_drift;
  d["max_velocity_drift"] = s.max_velocity_drift;
  d["steps"] = s.steps;
  return d;
}

}  // namespace

void bind_simulation(py::module_& m) {
  py::class_<Inputs>(m, "Inputs", "sim.inputs: input channel values by name (held until set)")
      .def("__getitem__",
           [](const Inputs& in, const std::string& name) {
             return get_input(*in.sim, channel_index(in.sim->model->inputs, name, "input"));
           })
      .def("__setitem__", [](Inputs& in, const std::string& name,
                             double value) { set_input(*in.sim, name, value); })
      .def("__len__", [](const Inputs& in) { return in.sim->model->inputs.size(); })
      .def("__contains__",
           [](const Inputs& in, const std::string& name) {
             return has_channel(in.sim->model->inputs, name);
           })
      .def("__iter__", [](const Inputs& in) { return py::iter(names(in.sim->model->inputs)); })
      .def("keys", [](const Inputs& in) { return names(in.sim->model->inputs); })
      .def("units", [](const Inputs& in) { return in.sim->model->inputs; });

  py::class_<Outputs>(m, "Outputs", "sim.outputs: output channel values by name (read-only)")
      .def("__getitem__",
           [](const Outputs& out, const std::string& name) {
             return out.sim->output(channel_index(out.sim->model->outputs, name, "output"));
           })
      .def("__len__", [](const Outputs& out) { return out.sim->model->outputs.size(); })
      .def("__contains__",
           [](const Outputs& out, const std::string& name) {
             return has_channel(out.sim->model->outputs, name);
           })
      .def("__iter__", [](const Outputs& out) { return py::iter(names(out.sim->model->outputs)); })
      .def("keys", [](const Outputs& out) { return names(out.sim->model->outputs); })
      .def("units", [](const Outputs& out) { return out.sim->model->outputs; });

  py::class_<PySimulation>(m, "Simulation", "One simulation of a Model: state, step(), run().")
      .def(py::init<std::shared_ptr<PyModel>>(), py::arg("model"))
      .def_property_readonly("model", [](const PySimulation& s) { return s.model; })
      .def_property(
          "q",
          [](py::object self) {
            auto& s = self.cast<PySimulation&>();
            return view(s.state.q.data(), s.state.q.size(), self);
          },
          [](PySimulation& s,
             const py::array_t<double, py::array::c_style | py::array::forcecast>& a) {
            assign(s.state.q, a, "q");
          },
          "generalized positions: a NumPy view of the engine's State (writes go through)")
      .def_property(
          "v",
          [](py::object self) {
            auto& s = self.cast<PySimulation&>();
            return view(s.state.v.data(), s.state.v.size(), self);
          },
          [](PySimulation& s,
             const py::array_t<double, py::array::c_style | py::array::forcecast>& a) {
            assign(s.state.v, a, "v");
          },
          "generalized velocities: a NumPy view of the engine's State (writes go through)")
      .def_property(
          "t", [](const PySimulation& s) { return s.state.t; },
          [](PySimulation& s, double t) { s.state.t = t; }, "simulation time [s]")
      .def_property_readonly("status", &status_dict,
                             "dict: the last step's flags, drift and energy, and since reset "
                             "flags_seen, max drift and steps")
      .def_property_readonly("inputs",
                             [](py::object self) {
                               return Inputs{self, &self.cast<PySimulation&>()};
                             })
      .def_property_readonly("outputs",
                             [](py::object self) {
                               return Outputs{self, &self.cast<PySimulation&>()};
                             })
      .def(
          "step",
          [](PySimulation& s, long n) {
            if (n < 0) throw py::value_error("n must be >= 0");
            const BusyGuard busy(s);
            long done = 0;
            {
              const py::gil_scoped_release release;
              done = s.advance(n);
            }
            return done;
          },
          py::arg("n") = 1,
          "Advances n fixed steps (GIL released); stops early after a failed step "
          "(status['flags']). Returns the number of steps taken.")
      .def(
          "reset",
          [](PySimulation& s) {
            const BusyGuard busy(s);
            s.reset();
          },
          "Back to the initial state, inputs at their initial values; views stay valid.")
      .def("__repr__", [](const PySimulation& s) {
        return "<rtmb.Simulation " + s.model->name +
               " t=" + py::repr(py::float_(s.state.t)).cast<std::string>() + ">";
      });
}

}  // namespace rtmb::python
