// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// rtmb.load() and rtmb.Model. Overrides arrive as a dict {key path: value}; each value becomes
// YAML text for the engine's ModelOverride, so the loader validates it exactly as a value written
// in the file (include/rtmb/models/model_file.hpp).
#include "model.hpp"

#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "bindings.hpp"
#include "rtmb/models/mechanisms.hpp"
#include "rtmb/models/model_overrides.hpp"

namespace py = pybind11;

namespace rtmb::python {

namespace {

// A Python value as YAML text: bool -> true/false, numbers by repr (Python's repr of a float is
// the shortest text that reads back to the same double), lists and tuples as flow sequences,
// strings as they are (so "rk4" or "[0, -9.81]" work too).
std::string yaml_text(const py::handle& v) {
  if (py::isinstance<py::bool_>(v)) return v.cast<bool>() ? "true" : "false";
  if (py::isinstance<py::str>(v)) return v.cast<std::string>();
  if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
    std::string out = "[";
    bool first = true;
    for (const py::handle item : v) {
      if (!first) out += ", ";
      out += yaml_text(item);
      first = false;
    }
    return out + "]";
  }
  if (py::isinstance<py::int_>(v)) return py::str(v).cast<std::string>();
  // floats, NumPy scalars and anything else with __float__
  return py::repr(py::float_(py::reinterpret_borrow<py::object>(v))).cast<std::string>();
}

std::vector<ModelOverride> to_overrides(const py::dict& overrides) {
  std::vector<ModelOverride> out;
  for (const auto& [key, value] : overrides) {
    out.push_back({py::str(key).cast<std::string>(), yaml_text(value)});
  }
  return out;
}

std::shared_ptr<PyModel> load(const std::string& path, const py::dict& overrides) {
  const std::vector<ModelOverride> o = to_overrides(overrides);
  return make_py_model(load_model_file(path, o));
}

// The model file's text, for rtmb.sweep: its workers get the text over the network, not a path
// they may not be able to read. `path` only names the text in error messages.
std::shared_ptr<PyModel> loads(const std::string& text,
                               const std::string& path,
                               const py::dict& overrides) {
  const std::vector<ModelOverride> o = to_overrides(overrides);
  return make_py_model(parse_model_file(text, path, o));
}

std::shared_ptr<PyModel> builtin(const std::string& name, const py::dict& overrides) {
  if (overrides.empty()) return make_py_model(builtin_model_file(name));
  // a built-in with overrides is the one-line model file that names it
  const std::vector<ModelOverride> o = to_overrides(overrides);
  return make_py_model(parse_model_file("mechanism: " + name + "\n", "<builtin " + name + ">", o));
}

py::dict schema(const PyModel& m) {
  py::dict d;
  d["model"] = m.name;
  d["dt"] = m.model->settings().dt;
  d["n_q"] = m.model->system().n_q();
  d["n_v"] = m.model->system().n_v();
  d["n_lambda"] = m.model->system().n_lambda();
  d["inputs"] = m.inputs;
  d["outputs"] = m.outputs;
  return d;
}

}  // namespace

std::shared_ptr<PyModel> make_py_model(ModelFile file) {
  auto m = std::make_shared<PyModel>();
  std::shared_ptr<const System> system = make_system(file);
  m->model = std::make_shared<const Model>(system, file.settings);
  m->name = model_name(file);
  const System& sys = m->model->system();
  for (const auto& channel : model_output_channels(file)) m->outputs.push_back(channel);
  m->named_outputs = !m->outputs.empty();
  const bool units = !file.output_units.empty();
  for (int i = 0; !m->named_outputs && i < sys.n_q(); ++i) {
    m->outputs.emplace_back("q" + std::to_string(i),
                            units ? file.output_units[static_cast<std::size_t>(i)] : "m|rad");
  }
  for (int i = 0; !m->named_outputs && i < sys.n_v(); ++i) {
    m->outputs.emplace_back(
        "v" + std::to_string(i),
        units ? file.output_units[static_cast<std::size_t>(sys.n_q() + i)] : "m/s|rad/s");
  }
  for (const InputChannelSpec& in : file.inputs) m->inputs.emplace_back(in.name, in.unit);
  m->named_inputs = sys.n_inputs() > 0;
  m->file = std::make_shared<const ModelFile>(std::move(file));
  return m;
}

void bind_model(py::module_& m) {
  py::class_<PyModel, std::shared_ptr<PyModel>>(
      m, "Model", "An immutable loaded model; rtmb.Simulation(model) runs it.")
      .def_static("builtin", &builtin, py::arg("name"), py::arg("overrides") = py::dict(),
                  "A built-in mechanism by name (rtmb.mechanisms()), with overrides by key path.")
      .def_property_readonly("name", [](const PyModel& p) { return p.name; })
      .def_property_readonly("path", [](const PyModel& p) { return p.file->path; })
      .def_property_readonly("dt", [](const PyModel& p) { return p.model->settings().dt; })
      .def_property_readonly("n_q", [](const PyModel& p) { return p.model->system().n_q(); })
      .def_property_readonly("n_v", [](const PyModel& p) { return p.model->system().n_v(); })
      .def_property_readonly(
          "method",
          [](const PyModel& p) { return std::string(to_string(p.model->settings().method)); })
      .def_property_readonly(
          "stabilizer",
          [](const PyModel& p) { return std::string(to_string(p.model->settings().stabilizer)); })
      .def_property_readonly("schema", &schema,
                             "dict: model, dt, n_q, n_v, n_lambda, inputs and outputs as "
                             "[(name, unit)] in the order rtmb serve's hello announces them")
      .def("__repr__", [](const PyModel& p) {
        return "<rtmb.Model " + p.name + ": n_q=" + std::to_string(p.model->system().n_q()) +
               ", dt=" + py::repr(py::float_(p.model->settings().dt)).cast<std::string>() + ">";
      });
  m.def("load", &load, py::arg("path"), py::arg("overrides") = py::dict(),
        "Loads a model file (docs/model-format.md); overrides = {key path: value}, e.g. "
        "{'integration.dt': 5e-4, 'bodies[2].mass': 1.5}, validated as the file's own values.");
  m.def("loads", &loads, py::arg("text"), py::arg("path") = "<string>",
        py::arg("overrides") = py::dict(),
        "Loads a model from the text of a model file; path names it in error messages.");
  m.def("mechanisms", &mechanism_names, "The built-in mechanism names, comma-separated.");
}

}  // namespace rtmb::python
