// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// rtmb.Client: a Python client of a running `rtmb serve` (docs/protocol.md), on the C++ client
// library (include/rtmb/net/client.hpp), whose semantics it keeps: hello, subscribe, inputs by
// channel name or index, the state stream as rtmb.ServerState (values as a NumPy array, by name,
// the latency echo), raw control requests.
//
// Every call that can wait on the network (connect, request, hello, subscribe, receive_state)
// releases the GIL while it waits, so other Python threads run meanwhile. The C++ Client is for
// one thread at a time, so a Client refuses a second thread while one is inside a call
// (RuntimeError), as Simulation does. Transport failures and refusals by the server (hello,
// subscribe) are rtmb.ClientError with the C++ message: the transport's ("connect: Connection
// refused", "no reply: timed out") or the server's reply line.
//
// Latency. The state's echo carries the sender time of the last input the server applied, on
// this process's steady clock (CLOCK_MONOTONIC, as Python's time.monotonic_ns()); the time a
// state was received is taken on the same clock right after the datagram is admitted, so
// received_ns - echo sender time is the input -> state round trip of that input.
#include "rtmb/net/client.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "rtmb/net/wire.hpp"
#include "rtmb/status.hpp"

namespace py = pybind11;

namespace rtmb::python {

namespace {

using Clock = std::chrono::steady_clock;

[[nodiscard]] std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

// A timeout in seconds as a duration; ValueError unless finite and >= 0.
[[nodiscard]] std::chrono::nanoseconds seconds(double s, const char* what) {
  if (!std::isfinite(s) || s < 0.0) {
    throw py::value_error(std::string(what) + " must be a finite number of seconds >= 0");
  }
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(s));
}

// The C++ client's millisecond timeouts, rounded up so that a short timeout never becomes 0.
[[nodiscard]] Client::Timeout millis(std::chrono::nanoseconds d) {
  return std::chrono::ceil<Client::Timeout>(d);
}

[[nodiscard]] py::list channel_list(const std::vector<std::string>& names,
                                    const std::vector<std::string>& units) {
  py::list out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    out.append(py::make_tuple(names[i], i < units.size() ? units[i] : std::string()));
  }
  return out;
}

// hello's answer in the form of Model.schema: channels as [(name, unit)] in wire order.
[[nodiscard]] py::dict schema_dict(const ClientSchema& s) {
  py::dict d;
  d["version"] = s.version;
  d["model"] = s.model;
  d["rate_hz"] = s.rate_hz;
  d["dt"] = s.dt;
  d["udp_port"] = s.udp_port;
  d["outputs"] = channel_list(s.outputs, s.output_units);
  d["inputs"] = channel_list(s.inputs, s.input_units);
  return d;
}

// One state datagram as received: the message, when it came, and the output names of the
// schema it was received under (hello's; a `load` of another model needs a new hello).
struct ServerState {
  StateMessage m;
  std::int64_t received_ns = 0;
  std::shared_ptr<const ClientSchema> schema;
  py::array_t<double> values;  // a copy of the channel values, made once

  [[nodiscard]] std::size_t named_count() const {
    return std::min<std::size_t>(m.channel_count, schema ? schema->outputs.size() : 0);
  }
  [[nodiscard]] double by_name(const std::string& name) const {
    for (std::size_t i = 0; i < named_count(); ++i) {
      if (schema->outputs[i] == name) return m.channels[i];
    }
    std::string valid;
    for (std::size_t i = 0; i < named_count(); ++i) {
      valid += (valid.empty() ? "" : ", ") + schema->outputs[i];
    }
    throw py::key_error("no output channel '" + name + "' (valid: " + valid + ")");
  }
  [[nodiscard]] double by_index(long i) const {
    const long n = m.channel_count;
    if (i < -n || i >= n) {
      throw py::index_error("output channel index " + std::to_string(i) + " outside 0.." +
                            std::to_string(n - 1));
    }
    return m.channels[static_cast<std::size_t>(i < 0 ? i + n : i)];
  }
  [[nodiscard]] bool echo_valid() const { return has_flag(m.header.flags, WireFlag::kEchoValid); }
};

// Marks a Client busy for its lifetime (the C++ Client is for one thread at a time).
class ClientGuard {
 public:
  explicit ClientGuard(std::atomic<bool>& busy) : busy_(busy) {
    if (busy_.exchange(true, std::memory_order_acquire)) {
      throw std::runtime_error("this Client is in use by another thread");
    }
  }
  ~ClientGuard() { busy_.store(false, std::memory_order_release); }
  ClientGuard(const ClientGuard&) = delete;
  ClientGuard& operator=(const ClientGuard&) = delete;

 private:
  std::atomic<bool>& busy_;
};

class PyClient {
 public:
  PyClient(const std::string& host, int port, double timeout)
      : host_(host), timeout_(seconds(timeout, "timeout")) {
    if (port < 1 || port > 65535) throw py::value_error("port must be from 1 to 65535");
    port_ = static_cast<std::uint16_t>(port);
    const ClientGuard guard(busy_);
    const py::gil_scoped_release release;
    client_.connect(host_, port_, millis(timeout_));
    open_ = true;
  }

  py::dict hello(const std::optional<std::string>& token) {
    const ClientGuard guard(busy_);
    check_open();
    ClientSchema s;
    {
      const py::gil_scoped_release release;
      s = client_.hello(token);
    }
    schema_ = std::make_shared<const ClientSchema>(std::move(s));
    return schema_dict(*schema_);
  }

  void subscribe(long decimation) {
    if (decimation < 1 || decimation > 10000) {
      throw py::value_error("decimation must be an integer from 1 to 10000");
    }
    const ClientGuard guard(busy_);
    check_open();
    const py::gil_scoped_release release;
    client_.subscribe(static_cast<std::uint32_t>(decimation));
  }

  std::uint64_t send_input(const py::dict& values) {
    const ClientGuard guard(busy_);
    check_open();
    if (!schema_) throw ClientError("send_input: say hello first (the channel names come from it)");
    if (values.empty() || values.size() > kMaxInputSamples) {
      throw py::value_error("send_input takes 1 to " + std::to_string(kMaxInputSamples) +
                            " channels, {name or index: value}");
    }
    std::vector<InputSample> samples;
    for (const auto& [key, value] : values) {
      const std::uint16_t channel = input_index(key);
      for (const InputSample& s : samples) {
        if (s.channel == channel) {
          throw py::value_error("input channel '" + schema_->inputs[channel] + "' is given twice");
        }
      }
      const double v = py::float_(py::reinterpret_borrow<py::object>(value)).cast<double>();
      if (!std::isfinite(v)) {
        throw py::value_error("input '" + schema_->inputs[channel] + "' is not finite");
      }
      samples.push_back(InputSample{channel, v});
    }
    MessageHeader sent;
    {
      const py::gil_scoped_release release;
      sent = client_.send_input(samples);
    }
    return sent.sequence;
  }

  std::optional<ServerState> receive_state(const std::optional<double>& timeout) {
    const ClientGuard guard(busy_);
    check_open();
    const auto wait = timeout ? seconds(*timeout, "timeout") : timeout_;
    ServerState s;
    bool got = false;
    {
      const py::gil_scoped_release release;
      got = client_.receive_state_until(s.m, Clock::now() + wait);
      s.received_ns = steady_ns();
    }
    if (!got) return std::nullopt;
    s.schema = schema_;
    s.values =
        py::array_t<double>(static_cast<py::ssize_t>(s.m.channel_count), s.m.channels.data());
    return s;
  }

  std::string request(const std::string& line, const std::optional<double>& timeout) {
    if (line.find('\n') != std::string::npos) {
      throw py::value_error("a request is one line: no '\\n' inside");
    }
    const ClientGuard guard(busy_);
    check_open();
    const auto wait = timeout ? seconds(*timeout, "timeout") : timeout_;
    const py::gil_scoped_release release;
    return client_.request(line, millis(wait));
  }

  void close() {
    const ClientGuard guard(busy_);
    client_.close();
    open_ = false;
  }

  [[nodiscard]] py::dict counters() const {
    const PacketCounters& c = client_.state_counters();
    py::dict d;
    d["received"] = c.received;
    d["accepted"] = c.accepted();
    d["rejected"] = c.rejected();
    for (std::size_t i = 1; i < kPacketStatusCount; ++i) {
      const auto s = static_cast<PacketStatus>(i);
      if (c.count(s) > 0) d[py::str(std::string(to_string(s)))] = c.count(s);
    }
    return d;
  }

  [[nodiscard]] py::object schema() const {
    return schema_ ? py::object(schema_dict(*schema_)) : py::object(py::none());
  }
  [[nodiscard]] bool closed() const noexcept { return !open_; }
  [[nodiscard]] std::uint16_t udp_port() const noexcept { return client_.udp_port(); }
  [[nodiscard]] std::string repr() const {
    return "<rtmb.Client " + host_ + ":" + std::to_string(port_) +
           (open_ ? (schema_ ? " " + schema_->model : std::string()) : " closed") + ">";
  }

 private:
  void check_open() const {
    if (!open_) throw ClientError("the client is closed");
  }

  // An input channel by name (hello's inputs) or index; KeyError naming the valid ones.
  [[nodiscard]] std::uint16_t input_index(const py::handle& key) const {
    const std::vector<std::string>& names = schema_->inputs;
    if (py::isinstance<py::str>(key)) {
      const auto name = key.cast<std::string>();
      const auto it = std::find(names.begin(), names.end(), name);
      if (it != names.end()) return static_cast<std::uint16_t>(it - names.begin());
      std::string valid;
      for (const std::string& n : names) valid += (valid.empty() ? "" : ", ") + n;
      throw py::key_error("no input channel '" + name + "' (valid: " + valid + ")");
    }
    if (py::isinstance<py::int_>(key) && !py::isinstance<py::bool_>(key)) {
      const auto i = key.cast<long long>();
      if (i < 0 || i >= static_cast<long long>(names.size())) {
        throw py::key_error("input channel index " + std::to_string(i) + " outside 0.." +
                            std::to_string(static_cast<long long>(names.size()) - 1));
      }
      return static_cast<std::uint16_t>(i);
    }
    throw py::type_error("an input channel is a name (str) or an index (int)");
  }

  std::string host_;
  std::uint16_t port_ = 0;
  std::chrono::nanoseconds timeout_;
  Client client_;
  std::shared_ptr<const ClientSchema> schema_;  // null before hello
  std::atomic<bool> busy_{false};
  bool open_ = false;
};

py::object echo_dict(const ServerState& s) {
  if (!s.echo_valid()) return py::none();
  py::dict d;
  d["sequence"] = s.m.echo.sequence;
  d["sender_time_ns"] = s.m.echo.sender_time_ns;
  d["applied_step"] = s.m.echo.applied_step;
  return d;
}

}  // namespace

void bind_client(py::module_& m) {
  // SocketError and its subclass ClientError: a failed socket call, a bad address, a transport
  // failure or a refusal by the server, with the C++ message
  py::register_exception<SocketError>(m, "ClientError", PyExc_RuntimeError);

  py::class_<ServerState>(m, "ServerState",
                          "One state datagram of rtmb serve's stream (Client.receive_state)")
      .def_property_readonly(
          "step", [](const ServerState& s) { return s.m.header.step; },
          "index of the step just taken (0 after a reset or load)")
      .def_property_readonly(
          "t", [](const ServerState& s) { return s.m.header.sim_time_s; },
          "simulation time after the step [s], the engine's own bit for bit")
      .def_property_readonly(
          "sequence", [](const ServerState& s) { return s.m.header.sequence; },
          "the stream's datagram number (to this subscriber)")
      .def_readonly("values", &ServerState::values,
                    "NumPy array of the output channel values, in hello's output order")
      .def_property_readonly(
          "names",
          [](const ServerState& s) {
            return s.schema ? s.schema->outputs : std::vector<std::string>{};
          },
          "the output channel names (hello's)")
      .def_property_readonly(
          "outputs",
          [](const ServerState& s) {
            py::dict d;
            for (std::size_t i = 0; i < s.named_count(); ++i) {
              d[py::str(s.schema->outputs[i])] = s.m.channels[i];
            }
            return d;
          },
          "dict {output name: value}")
      .def("__getitem__", &ServerState::by_name, py::arg("name"), "An output channel by name.")
      .def("__getitem__", &ServerState::by_index, py::arg("index"), "An output channel by index.")
      .def("__len__", [](const ServerState& s) { return s.m.channel_count; })
      .def_property_readonly(
          "flags", [](const ServerState& s) { return s.m.header.flags; },
          "header flags: 1 echo valid, 2 paused, 4 restarted (docs/protocol.md)")
      .def_property_readonly(
          "paused",
          [](const ServerState& s) { return has_flag(s.m.header.flags, WireFlag::kPaused); })
      .def_property_readonly(
          "restarted",
          [](const ServerState& s) { return has_flag(s.m.header.flags, WireFlag::kRestarted); },
          "first state after a reset or load")
      .def_property_readonly(
          "step_flags", [](const ServerState& s) { return s.m.step_flags; },
          "the step's flags (rtmb.flag_names)")
      .def_property_readonly("position_drift",
                             [](const ServerState& s) { return s.m.position_drift; })
      .def_property_readonly("velocity_drift",
                             [](const ServerState& s) { return s.m.velocity_drift; })
      .def_property_readonly("energy", [](const ServerState& s) { return s.m.energy; })
      .def_property_readonly("echo", &echo_dict,
                             "the last input the server applied from this client: dict "
                             "sequence, sender_time_ns, applied_step; None before the first")
      .def_readonly("received_ns", &ServerState::received_ns,
                    "when the state was received [ns, steady clock = time.monotonic_ns()]")
      .def_property_readonly(
          "latency",
          [](const ServerState& s) -> py::object {
            if (!s.echo_valid()) return py::none();
            return py::float_(static_cast<double>(s.received_ns - s.m.echo.sender_time_ns) * 1e-9);
          },
          "received_ns - echo sender time [s]: the round trip of the echoed input (None "
          "without an echo)")
      .def("__repr__", [](const ServerState& s) {
        return "<rtmb.ServerState step=" + std::to_string(s.m.header.step) +
               " t=" + py::repr(py::float_(s.m.header.sim_time_s)).cast<std::string>() +
               " channels=" + std::to_string(s.m.channel_count) + ">";
      });

  py::class_<PyClient>(m, "Client",
                       "A client of a running rtmb serve: Client(host, port, timeout=2.0) "
                       "connects to its TCP control port (docs/protocol.md)")
      .def(py::init<const std::string&, int, double>(), py::arg("host"), py::arg("port"),
           py::arg("timeout") = 2.0,
           "Connects to the control port of rtmb serve at host (IPv4 dotted quad); timeout [s] "
           "bounds the connect and is the default of request() and receive_state()")
      .def("hello", &PyClient::hello, py::arg("token") = py::none(),
           "Opens the session; returns the schema: version, model, rate_hz, dt, udp_port, "
           "outputs and inputs as [(name, unit)]. ClientError with the reply if refused.")
      .def("subscribe", &PyClient::subscribe, py::arg("decimation") = 1,
           "Subscribes to the state stream, every decimation-th step. Needs hello first.")
      .def("send_input", &PyClient::send_input, py::arg("values"),
           "Sends one input datagram, {channel name or index: value}, applied together at the "
           "next step. Returns its sequence number, which later states echo.")
      .def("receive_state", &PyClient::receive_state, py::arg("timeout") = py::none(),
           "The next state of the stream (a ServerState), or None if none came within timeout "
           "[s] (default: the client's).")
      .def("request", &PyClient::request, py::arg("line"), py::arg("timeout") = py::none(),
           "Sends one raw control request (a JSON object, docs/protocol.md) and returns the "
           "reply line; a refusal is a reply with \"ok\":false, not an exception.")
      .def("close", &PyClient::close, "Closes both sockets. Idempotent.")
      .def_property_readonly("closed", &PyClient::closed)
      .def_property_readonly("schema", &PyClient::schema, "hello's schema, None before hello")
      .def_property_readonly("udp_port", &PyClient::udp_port,
                             "local UDP port of the stream (0 before subscribe)")
      .def_property_readonly("counters", &PyClient::counters,
                             "state datagrams received, accepted, rejected and by reason")
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__",
           [](PyClient& c, const py::object&, const py::object&, const py::object&) {
             c.close();
             return false;
           })
      .def("__repr__", &PyClient::repr);
}

}  // namespace rtmb::python
