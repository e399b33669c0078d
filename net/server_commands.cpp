// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// rtmb::Server's replies to control commands (net/server_impl.hpp): one JSON line per command
// line a ControlSession reads (docs/protocol.md, "Control channel").
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "net/control_session.hpp"
#include "net/flat_json.hpp"
#include "net/input_auth.hpp"
#include "net/load_permission.hpp"
#include "net/server_impl.hpp"
#include "rtmb/models/mechanisms.hpp"

namespace rtmb {

namespace {

// The error reply to command c.
[[nodiscard]] std::string error_for(const Command& c, std::string message) {
  return error_reply({std::move(message), std::string(command_name(c.body)), c.id});
}

[[nodiscard]] JsonObjectWriter ok_head(const Command& c) {
  JsonObjectWriter out;
  out.field("ok", true).field("command", command_name(c.body));
  if (c.id) out.field("id", std::uint64_t{*c.id});
  return out;
}

[[nodiscard]] std::string join_names(const std::vector<ChannelInfo>& channels, bool units) {
  std::string s;
  for (const ChannelInfo& c : channels) {
    if (!s.empty()) s += ',';
    s += units ? c.unit : c.name;
  }
  return s;
}

}  // namespace

std::string Server::Impl::handle_line(ControlSession& session, std::string_view line) {
  ++net_stats.commands;
  const double command_rate = config.max_command_rate_hz;
  if (!session.commands.take(command_rate, std::max(10.0, 0.25 * command_rate),
                             monotonic_now_ns())) {
    ++net_stats.command_errors;
    return error_reply({"rate limit: at most " + std::to_string(std::llround(command_rate)) +
                            " commands per second per connection",
                        std::nullopt, std::nullopt});
  }
  CommandParseResult parsed = parse_command(line);
  if (auto* error = std::get_if<CommandError>(&parsed)) {
    ++net_stats.command_errors;
    return error_reply(*error);
  }
  const Command& command = std::get<Command>(parsed);
  std::string reply = handle(session, command);
  if (reply.starts_with("{\"ok\":false")) ++net_stats.command_errors;
  return reply;
}

std::string Server::Impl::push_control(const Command& c, SimControl request) {
  if (!control->try_push(request)) {
    return error_for(c, "busy: too many control requests in flight, retry");
  }
  return ok_head(c).str();
}

std::string Server::Impl::handle(ControlSession& session, const Command& c) {
  const auto error = [&](std::string message) { return error_for(c, std::move(message)); };
  if (const auto* hello = std::get_if<HelloCommand>(&c.body))
    return hello_reply(session, c, *hello);
  if (!session.said_hello) return error("say hello first");
  if (std::holds_alternative<StartCommand>(c.body)) {
    return push_control(c, {SimControlKind::kStart, 0});
  }
  if (std::holds_alternative<PauseCommand>(c.body)) {
    return push_control(c, {SimControlKind::kPause, 0});
  }
  if (const auto* step = std::get_if<StepCommand>(&c.body)) {
    return push_control(c, {SimControlKind::kStep, step->count});
  }
  if (std::holds_alternative<ResetCommand>(c.body)) {
    return push_control(c, {SimControlKind::kReset, 0});
  }
  if (const auto* set = std::get_if<SetCommand>(&c.body)) return set_reply(c, *set);
  if (const auto* drag = std::get_if<DragCommand>(&c.body)) return drag_reply(c, *drag);
  if (const auto* report = std::get_if<ReportCommand>(&c.body)) {
    // a device's round trip as it measured it (the server sees only its own share): kept for the
    // live view's chart (net/view_server.cpp)
    net_stats.device_rtt_p50_us = report->rtt_p50_us;
    net_stats.device_rtt_p99_us = report->rtt_p99_us;
    net_stats.device_rtt_samples = report->samples;
    net_stats.device_rtt_reported_ns = monotonic_now_ns();
    ++net_stats.device_rtt_reports;
    return ok_head(c).str();
  }
  if (const auto* load = std::get_if<LoadCommand>(&c.body)) {
    if (recorder) return error_for(c, "load is not available while recording (--record)");
    return load_reply(c, *load, session.wire_version);
  }
  if (const auto* sub = std::get_if<SubscribeCommand>(&c.body)) {
    asio::ip::address address = session.peer().address();
    if (sub->address) {
      boost::system::error_code ec;
      const asio::ip::address wanted = asio::ip::make_address(*sub->address, ec);
      if (ec) return error("\"address\" is not an IP address: " + clip_utf8(*sub->address, 64));
      if (wanted != address) {
        return error("\"address\" must be this client's own address (" + address.to_string() + ")");
      }
    }
    const udp::endpoint ep(address, sub->port);
    for (Subscriber& s : subscribers) {
      if (s.endpoint == ep) {
        if (s.session_id != session.id()) return error("endpoint is subscribed by another client");
        s.decimation = sub->decimation;
        publish_subscribers();
        return ok_head(c).str();
      }
    }
    if (subscribers.size() >= config.max_subscribers) {
      return error("too many subscribers (at most " + std::to_string(config.max_subscribers) + ")");
    }
    Subscriber s;
    s.session_id = session.id();
    s.id = next_subscriber_id++;
    s.endpoint = ep;
    s.decimation = sub->decimation;
    subscribers.push_back(s);
    // the simulation thread sends a new subscriber the newest state at its next tick, even a
    // paused one, so it sees where the simulation is
    publish_subscribers();
    JsonObjectWriter out = ok_head(c);
    out.field("address", address.to_string());
    out.field("port", static_cast<std::uint64_t>(sub->port));
    out.field("decimation", static_cast<std::uint64_t>(sub->decimation));
    return out.str();
  }
  if (const auto* unsub = std::get_if<UnsubscribeCommand>(&c.body)) {
    const std::size_t before = subscribers.size();
    std::erase_if(subscribers, [&](const Subscriber& s) {
      if (s.session_id != session.id()) return false;
      if (unsub->port && s.endpoint.port() != *unsub->port) return false;
      if (unsub->address) {
        boost::system::error_code ec;
        const asio::ip::address a = asio::ip::make_address(*unsub->address, ec);
        if (ec || a != s.endpoint.address()) return false;
      }
      return true;
    });
    if (subscribers.size() != before) publish_subscribers();
    JsonObjectWriter out = ok_head(c);
    out.field("removed", static_cast<std::uint64_t>(before - subscribers.size()));
    return out.str();
  }
  return stats_reply(c);
}

std::string Server::Impl::hello_reply(ControlSession& session,
                                      const Command& c,
                                      const HelloCommand& hello) {
  const auto error = [&](std::string message) { return error_for(c, std::move(message)); };
  if (!config.token.empty() && hello.token.value_or("") != config.token) {
    return error(hello.token ? "wrong token" : "this server requires a \"token\"");
  }
  // no "version": version 1, the unauthenticated inputs of loopback (docs/protocol.md)
  const std::uint16_t version = hello.version.value_or(kWireVersion);
  if (version != kWireVersion && version != kWireVersionAuthenticated) {
    return error("protocol version " + std::to_string(version) +
                 " is not supported; this server speaks versions 1 and 2");
  }
  if (version == kWireVersion && require_authenticated) {
    return error("this server requires authenticated inputs: say hello with \"version\":2");
  }
  session.said_hello = true;
  session.wire_version = version;
  // every hello makes a new session (id and key): datagrams signed for an earlier one, or
  // recorded from it, are refused from now on
  session.wire_session = SessionEntry{};
  if (version == kWireVersionAuthenticated) {
    session.wire_session.id = random_session_id();
    session.wire_session.key = random_session_key();
  }
  // a client that says hello may have restarted its input numbering: the simulation thread
  // forgets every sender at its address when it sees the new hello number (and from then on
  // admits datagrams from that address)
  session.hello_number = ++hellos;
  publish_admission();
  JsonObjectWriter out = ok_head(c);
  schema_fields(out, version);
  if (version == kWireVersionAuthenticated) {
    // the key travels on the control connection: secret only as far as that connection is
    // (loopback, or TLS beyond it)
    out.field("session", session_to_hex(session.wire_session.id));
    out.field("key", to_hex(session.wire_session.key));
  }
  return out.str();
}

void Server::Impl::schema_fields(JsonObjectWriter& out, std::uint16_t version) const {
  out.field("version", static_cast<std::uint64_t>(version));
  out.field("model", schema.model);
  out.field("rate_hz", schema.rate_hz);
  out.field("dt", schema.dt);
  out.field("substeps", static_cast<std::int64_t>(schema.substeps));
  out.field("udp_port", static_cast<std::uint64_t>(bound_udp_port));
  out.field("outputs", join_names(schema.outputs, false));
  out.field("output_units", join_names(schema.outputs, true));
  out.field("inputs", join_names(schema.inputs, false));
  out.field("input_units", join_names(schema.inputs, true));
}

std::string Server::Impl::load_reply(const Command& c,
                                     const LoadCommand& load,
                                     std::uint16_t version) {
  const auto error = [&](std::string message) { return error_for(c, std::move(message)); };
  // a built-in mechanism by name, or a model file under the permitted folder (a network client
  // must not make the server read, or probe for, arbitrary files: net/load_permission.hpp)
  ModelFile file;
  try {
    if (find_mechanism(load.model) != nullptr) {
      file = builtin_model_file(load.model);
    } else {
      const std::optional<std::filesystem::path> path = permitted_model_path(load_root, load.model);
      if (!path) return error(std::string(kLoadNotPermitted));
      file = load_model_file(path->string());
    }
    auto bundle = make_bundle(file, 0.0, period_ns());
    SimBundle* raw = bundle.get();
    if (!control->try_push(SimControl{SimControlKind::kLoad, 0, raw})) {
      return error("busy: too many control requests in flight, retry");
    }
    bundles.push_back(std::move(bundle));
    schema = raw->schema;
  } catch (const std::exception& e) {
    return error(clip_utf8(e.what(), 1024));
  }
  ++net_stats.loads;
  net_stats.model_file = std::make_shared<const ModelFile>(file);  // for the live view
  // inputs numbered for the old model are not compared with the new model's senders' numbers:
  // the simulation thread forgets every sender's history when it swaps the model in
  spdlog::info("loaded '{}' ({}) at {:.1f} Hz", schema.model, file.path, schema.rate_hz);
  JsonObjectWriter out = ok_head(c);
  schema_fields(out, version);
  return out.str();
}

std::string Server::Impl::set_reply(const Command& c, const SetCommand& set) {
  const auto error = [&](std::string message) { return error_for(c, std::move(message)); };
  // PARAM is an input channel: VALUE becomes a sample of it, exactly as if it had come over UDP
  // (its policy and the watchdog apply, so a force set this way ramps to zero once stale)
  const auto it = std::find_if(schema.inputs.begin(), schema.inputs.end(),
                               [&](const ChannelInfo& ch) { return ch.name == set.param; });
  if (it == schema.inputs.end()) {
    return error("unknown parameter \"" + clip_utf8(set.param, 64) +
                 "\" (settable: the input channels " + join_names(schema.inputs, false) + ")");
  }
  const auto* value = std::get_if<double>(&set.value);
  if (value == nullptr) return error("\"value\" must be a number for input channel " + it->name);
  QueuedInput q;
  q.channel = static_cast<std::uint32_t>(it - schema.inputs.begin());
  q.value = *value;
  q.seq = 0;
  q.sender_time_ns = monotonic_now_ns();
  q.arrival_ns = q.sender_time_ns;
  // the simulation thread queues it for the runner (and counts it) at its next tick
  if (!set_inputs->try_push(q)) {
    ++set_dropped;
    return error("busy: the input queue is full, retry");
  }
  JsonObjectWriter out = ok_head(c);
  out.field("param", it->name);
  out.field("value", *value);
  return out.str();
}

// The live view's mouse spring (net/mouse_spring.hpp): resolved here against the current model
// (the latest bundle), sprung on the simulation thread, which gets it through the control ring
// so that it stays ordered with reset and load.
std::string Server::Impl::drag_reply(const Command& c, const DragCommand& drag) {
  if (!drag.body) return push_control(c, {SimControlKind::kRelease, 0});
  // a record holds the input channels a replay applies, not this force (record-format.md)
  if (recorder) return error_for(c, "drag is not available while recording (--record)");
  const ModelFile& file = bundles.back()->file;
  const DragResolution r = resolve_drag(file.bodies.get(), file.spatial.get(), *drag.body,
                                        {drag.px, drag.py, drag.pz}, {drag.x, drag.y, drag.z});
  if (!r.error.empty()) return error_for(c, r.error);
  SimControl request{SimControlKind::kDrag, 0};
  request.drag = r.spec;
  if (!control->try_push(request)) {
    return error_for(c, "busy: too many control requests in flight, retry");
  }
  // the spring the server chose for this body point (net/mouse_spring.hpp "Stiffness")
  JsonObjectWriter out = ok_head(c);
  out.field("stiffness", r.spec.stiffness);
  out.field("damping", r.spec.damping);
  out.field("max_force", r.spec.max_force);
  return out.str();
}

std::string Server::Impl::stats_reply(const Command& c) {
  publish_stats();
  const ServerStats& s = net_stats;
  JsonObjectWriter out = ok_head(c);
  out.field("step", static_cast<std::uint64_t>(s.step));
  out.field("sim_time", s.sim_time);
  out.field("paused", s.paused);
  out.field("udp_received", static_cast<std::uint64_t>(s.udp_in.received));
  for (std::size_t i = 0; i < kPacketStatusCount; ++i) {
    out.field("udp_" + std::string(to_string(static_cast<PacketStatus>(i))), s.udp_in.by_status[i]);
  }
  out.field("inputs_queued", static_cast<std::uint64_t>(s.inputs_queued));
  out.field("inputs_dropped", static_cast<std::uint64_t>(s.inputs_dropped));
  out.field("states_sent", static_cast<std::uint64_t>(s.states_sent));
  out.field("send_errors", static_cast<std::uint64_t>(s.send_errors));
  out.field("send_dropped_full", static_cast<std::uint64_t>(s.send_dropped_full));
  out.field("clients", static_cast<std::uint64_t>(s.clients));
  out.field("subscribers", static_cast<std::uint64_t>(s.subscribers));
  out.field("tls_failed", static_cast<std::uint64_t>(s.tls_failed));
  out.field("loads", static_cast<std::uint64_t>(s.loads));
  out.field("overruns", static_cast<std::int64_t>(s.loop.counters.overruns));
  out.field("missed_ticks", static_cast<std::int64_t>(s.loop.counters.missed_ticks));
  out.field("compute_p50_ns", static_cast<std::int64_t>(s.loop.compute.p50));
  out.field("compute_p99_ns", static_cast<std::int64_t>(s.loop.compute.p99));
  out.field("compute_max_ns", static_cast<std::int64_t>(s.loop.compute.max));
  out.field("lateness_p99_ns", static_cast<std::int64_t>(s.loop.lateness.p99));
  out.field("input_wait_p50_ns", static_cast<std::int64_t>(s.input_wait.p50));
  out.field("input_wait_p99_ns", static_cast<std::int64_t>(s.input_wait.p99));
  out.field("turnaround_p50_ns", static_cast<std::int64_t>(s.turnaround.p50));
  out.field("turnaround_p99_ns", static_cast<std::int64_t>(s.turnaround.p99));
  out.field("inputs_stale", s.inputs_stale);
  for (std::size_t i = 0; i < s.input_values.size() && i < schema.inputs.size(); ++i) {
    out.field("input_" + schema.inputs[i].name, s.input_values[i]);
  }
  return out.str();
}

}  // namespace rtmb
