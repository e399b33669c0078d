// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Control-channel command parser and line writers (net/control_command.hpp). The order of the
// checks decides which error a line gets: length, JSON syntax, "command", "id", then the keys of
// that command (unknown keys first, then each known key in the documented order).
#include "net/control_command.hpp"

#include <array>
#include <cmath>
#include <initializer_list>
#include <utility>
#include <variant>

#include "net/flat_json.hpp"
#include "net/json_writer.hpp"

namespace rtmb {

namespace {

// How much of a user-supplied command name is echoed back.
constexpr std::size_t kEchoBytes = 64;

constexpr std::array<std::string_view, std::variant_size_v<CommandBody>> kCommandNames = {
    "hello", "start",     "pause",       "step",  "reset", "set",
    "load",  "subscribe", "unsubscribe", "stats", "drag",  "report",
};

[[nodiscard]] std::string quoted(std::string_view s) {
  return '"' + clip_utf8(s, kEchoBytes) + '"';
}

[[nodiscard]] std::string valid_command_list() {
  std::string list;
  for (const std::string_view name : kCommandNames) {
    if (!list.empty()) list += ", ";
    list += name;
  }
  return list;
}

// The value type of a command field: T for T and for std::optional<T>.
template <class T>
struct FieldValue {
  using type = T;
};
template <class T>
struct FieldValue<std::optional<T>> {
  using type = T;
};

// Typed access to the keys of one command; the first failure is kept in error_.
class Fields {
 public:
  explicit Fields(const FlatJsonObject& object) : object_(object) {}

  // Every key must be "command", "id" or one of allowed.
  bool only(std::initializer_list<std::string_view> allowed) {
    for (const JsonMember& m : object_.members) {
      if (m.key == "command" || m.key == "id") continue;
      bool known = false;
      for (const std::string_view a : allowed) known = known || m.key == a;
      if (!known) return fail("unknown key " + quoted(m.key) + list_of(allowed));
    }
    return true;
  }

  bool string(std::string_view key, std::optional<std::string>& out) {
    const JsonValue* v = object_.find(key);
    if (v == nullptr) return true;
    if (v->type != JsonType::kString || v->text.empty()) {
      return fail(quoted(key) + " must be a non-empty string");
    }
    out = v->text;
    return true;
  }

  bool required_string(std::string_view key, std::string& out) {
    std::optional<std::string> s;
    if (!string(key, s)) return false;
    if (!s) return fail("missing key " + quoted(key));
    out = std::move(*s);
    return true;
  }

  // integral-valued JSON number in [lo, hi]; 1e3 counts as the integer 1000
  bool integer(std::string_view key,
               std::uint64_t lo,
               std::uint64_t hi,
               std::optional<std::uint64_t>& out) {
    const JsonValue* v = object_.find(key);
    if (v == nullptr) return true;
    const double x = v->type == JsonType::kNumber ? v->number : -1.0;
    if (v->type != JsonType::kNumber || std::trunc(x) != x || x < static_cast<double>(lo) ||
        x > static_cast<double>(hi)) {
      return fail(quoted(key) + " must be an integer from " + std::to_string(lo) + " to " +
                  std::to_string(hi));
    }
    out = static_cast<std::uint64_t>(x);
    return true;
  }

  bool required_integer(std::string_view key,
                        std::uint64_t lo,
                        std::uint64_t hi,
                        std::uint64_t& out) {
    std::optional<std::uint64_t> n;
    if (!integer(key, lo, hi, n)) return false;
    if (!n) return fail("missing key " + quoted(key));
    out = *n;
    return true;
  }

  // integer() into a command field of its own width, plain or optional: set only when present
  template <class Field>
  bool integer_field(std::string_view key, std::uint64_t lo, std::uint64_t hi, Field& out) {
    std::optional<std::uint64_t> n;
    if (!integer(key, lo, hi, n)) return false;
    if (n) out = static_cast<typename FieldValue<Field>::type>(*n);
    return true;
  }

  // a finite JSON number (flat_json refuses NaN and Infinity); left as it is when absent
  bool number(std::string_view key, double& out) {
    const JsonValue* v = object_.find(key);
    if (v == nullptr) return true;
    if (v->type != JsonType::kNumber || !std::isfinite(v->number)) {
      return fail(quoted(key) + " must be a number");
    }
    out = v->number;
    return true;
  }

  bool required_number(std::string_view key, double& out) {
    if (object_.find(key) == nullptr) return fail("missing key " + quoted(key));
    return number(key, out);
  }

  bool value(std::string_view key, ParamValue& out) {
    const JsonValue* v = object_.find(key);
    if (v == nullptr) return fail("missing key " + quoted(key));
    switch (v->type) {
      case JsonType::kNumber:
        out = v->number;
        return true;
      case JsonType::kBool:
        out = v->boolean;
        return true;
      case JsonType::kString:
        out = v->text;
        return true;
      case JsonType::kNull:
        break;
    }
    return fail(quoted(key) + " must be a number, a string or a boolean");
  }

  [[nodiscard]] const std::string& error() const noexcept { return error_; }

  bool fail(std::string message) {
    error_ = std::move(message);
    return false;
  }

 private:
  static std::string list_of(std::initializer_list<std::string_view> allowed) {
    if (allowed.size() == 0) return " (this command takes no keys besides \"command\" and \"id\")";
    std::string s = " (valid: ";
    for (const std::string_view a : allowed) {
      if (s.back() != ' ') s += ", ";
      s += a;
    }
    return s + ")";
  }

  const FlatJsonObject& object_;
  std::string error_;
};

// Keys of each command, in the order they are checked and written.
bool read(Fields& f, HelloCommand& c) {
  return f.only({"token", "version"}) && f.string("token", c.token) &&
         f.integer_field("version", 1, 65535, c.version);
}

bool read(Fields& f, StepCommand& c) {
  return f.only({"count"}) && f.integer_field("count", 1, kMaxStepCount, c.count);
}

bool read(Fields& f, SetCommand& c) {
  return f.only({"param", "value"}) && f.required_string("param", c.param) &&
         f.value("value", c.value);
}

bool read(Fields& f, LoadCommand& c) {
  return f.only({"model"}) && f.required_string("model", c.model);
}

bool read(Fields& f, SubscribeCommand& c) {
  std::uint64_t port = 0;
  if (!f.only({"address", "port", "decimation"}) || !f.string("address", c.address) ||
      !f.required_integer("port", 1, 65535, port) ||
      !f.integer_field("decimation", 1, kMaxDecimation, c.decimation)) {
    return false;
  }
  c.port = static_cast<std::uint16_t>(port);
  return true;
}

bool read(Fields& f, UnsubscribeCommand& c) {
  return f.only({"address", "port"}) && f.string("address", c.address) &&
         f.integer_field("port", 1, 65535, c.port);
}

// without "body" a release, which takes no other key
bool read(Fields& f, DragCommand& c) {
  if (!f.only({"body", "px", "py", "pz", "x", "y", "z"}) || !f.string("body", c.body)) return false;
  if (!c.body) {
    return f.only({}) || f.fail("a drag without \"body\" releases the drag and takes no other key");
  }
  return f.number("px", c.px) && f.number("py", c.py) && f.number("pz", c.pz) &&
         f.number("x", c.x) && f.number("y", c.y) && f.number("z", c.z);
}

bool read(Fields& f, ReportCommand& c) {
  std::uint64_t samples = 0;
  if (!f.only({"rtt_p50_us", "rtt_p99_us", "samples"}) ||
      !f.required_number("rtt_p50_us", c.rtt_p50_us) ||
      !f.required_number("rtt_p99_us", c.rtt_p99_us) ||
      !f.required_integer("samples", 1, kMaxCommandId, samples)) {
    return false;
  }
  c.samples = samples;
  if (c.rtt_p50_us < 0.0 || c.rtt_p99_us < c.rtt_p50_us) {
    return f.fail("\"rtt_p50_us\" must be >= 0 and \"rtt_p99_us\" >= \"rtt_p50_us\"");
  }
  return true;
}

// start, pause, reset, stats: no keys
template <class C>
bool read(Fields& f, C&) {
  return f.only({});
}

// Reads alternative I of CommandBody into out.
template <std::size_t I>
bool read_alternative(Fields& f, CommandBody& out) {
  std::variant_alternative_t<I, CommandBody> c;
  if (!read(f, c)) return false;
  out = std::move(c);
  return true;
}

template <std::size_t... I>
constexpr auto readers(std::index_sequence<I...>) {
  return std::array<bool (*)(Fields&, CommandBody&), sizeof...(I)>{&read_alternative<I>...};
}

// By command name (kCommandNames[i] names alternative i); a name not found reads as the last,
// stats (callers check is_command_name first).
bool read_body(std::string_view name, Fields& f, CommandBody& out) {
  constexpr auto kReaders = readers(std::make_index_sequence<std::variant_size_v<CommandBody>>{});
  std::size_t i = 0;
  while (i + 1 < kCommandNames.size() && kCommandNames[i] != name) ++i;
  return kReaders[i](f, out);
}

[[nodiscard]] bool is_command_name(std::string_view name) noexcept {
  for (const std::string_view n : kCommandNames) {
    if (n == name) return true;
  }
  return false;
}

// The keys of each command after "command", in the order read_body checks them.
struct BodyWriter {
  JsonObjectWriter& out;

  void operator()(const HelloCommand& c) const {
    if (c.token) out.field("token", *c.token);
    if (c.version) out.field("version", std::uint64_t{*c.version});
  }
  void operator()(const StepCommand& c) const { out.field("count", std::uint64_t{c.count}); }
  void operator()(const SetCommand& c) const {
    out.field("param", c.param);
    std::visit([&](const auto& v) { out.field("value", v); }, c.value);
  }
  void operator()(const LoadCommand& c) const { out.field("model", c.model); }
  void operator()(const SubscribeCommand& c) const {
    if (c.address) out.field("address", *c.address);
    out.field("port", std::uint64_t{c.port});
    out.field("decimation", std::uint64_t{c.decimation});
  }
  void operator()(const UnsubscribeCommand& c) const {
    if (c.address) out.field("address", *c.address);
    if (c.port) out.field("port", std::uint64_t{*c.port});
  }
  void operator()(const DragCommand& c) const {
    if (!c.body) return;
    out.field("body", *c.body);
    out.field("px", c.px).field("py", c.py).field("pz", c.pz);
    out.field("x", c.x).field("y", c.y).field("z", c.z);
  }
  void operator()(const ReportCommand& c) const {
    out.field("rtt_p50_us", c.rtt_p50_us).field("rtt_p99_us", c.rtt_p99_us);
    out.field("samples", c.samples);
  }
  void operator()(const StartCommand&) const {}
  void operator()(const PauseCommand&) const {}
  void operator()(const ResetCommand&) const {}
  void operator()(const StatsCommand&) const {}
};

}  // namespace

std::string_view command_name(const CommandBody& body) noexcept {
  return kCommandNames[body.index()];
}

CommandError too_long_error(std::size_t line_bytes) {
  return CommandError{"line too long: " + std::to_string(line_bytes) + " bytes (at most " +
                          std::to_string(kMaxCommandLineBytes) + ")",
                      std::nullopt, std::nullopt};
}

CommandParseResult parse_command(std::string_view line) {
  // size first: nothing of an oversized line is looked at
  if (line.size() > kMaxCommandLineBytes) return too_long_error(line.size());

  FlatJsonObject object;
  std::string json_error;
  if (!parse_flat_json(line, object, json_error)) {
    return CommandError{"invalid JSON: " + json_error, std::nullopt, std::nullopt};
  }

  // "command" and "id" are read before anything else so the reply can echo them
  CommandError error;
  const JsonValue* name = object.find("command");
  if (name != nullptr && name->type == JsonType::kString) {
    error.command = clip_utf8(name->text, kEchoBytes);
  }
  Fields fields(object);
  std::optional<std::uint64_t> id;
  if (!fields.integer("id", 0, kMaxCommandId, id)) {
    error.message = fields.error();
    return error;
  }
  error.id = id;
  if (name == nullptr) {
    error.message = "missing key \"command\" (valid commands: " + valid_command_list() + ")";
    return error;
  }
  if (name->type != JsonType::kString) {
    error.message = "\"command\" must be a string";
    return error;
  }
  if (!is_command_name(name->text)) {
    error.message =
        "unknown command " + quoted(name->text) + " (valid commands: " + valid_command_list() + ")";
    return error;
  }

  // the command's own keys
  Command command;
  command.id = id;
  if (!read_body(name->text, fields, command.body)) {
    error.message = fields.error();
    return error;
  }
  return command;
}

std::string error_reply(const CommandError& error) {
  JsonObjectWriter out;
  out.field("ok", false).field("error", error.message);
  if (error.command) {
    out.field("command", *error.command);
  } else {
    out.null_field("command");
  }
  if (error.id) out.field("id", std::uint64_t{*error.id});
  return out.str();
}

std::string to_json_line(const Command& command) {
  JsonObjectWriter out;
  out.field("command", command_name(command.body));
  std::visit(BodyWriter{out}, command.body);
  if (command.id) out.field("id", std::uint64_t{*command.id});
  return out.str();
}

}  // namespace rtmb
