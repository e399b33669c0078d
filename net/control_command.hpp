// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// Commands of the TCP control channel: one flat JSON object per line, e.g.
//   {"command":"step","count":10,"id":7}
// parsed into a Command, or into a CommandError that error_reply turns into the reply line
//   {"ok":false,"error":"...","command":"step","id":7}
// docs/protocol.md ("Control channel") lists every command, its keys and limits.
//
// Parsing is strict so that typos fail loudly instead of being ignored: unknown keys, wrong
// types, out-of-range integers and missing required keys are errors naming the key. Not on the
// real-time path (allocates); never throws except std::bad_alloc.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace rtmb {

/// Longest accepted command line, without its '\n' [bytes]. The transport should stop reading
/// a line at this size (and reply with error_reply(too_long_error())).
inline constexpr std::size_t kMaxCommandLineBytes = 4096;
/// Largest N of a step command.
inline constexpr std::uint32_t kMaxStepCount = 1'000'000;
/// Largest decimation of a subscription (send every N-th step).
inline constexpr std::uint32_t kMaxDecimation = 10'000;
/// Largest request id: the largest integer a double, and so any JSON reader, holds exactly.
inline constexpr std::uint64_t kMaxCommandId = (std::uint64_t{1} << 53) - 1;

/// hello: opens the session; the reply carries the protocol version and model schema.
struct HelloCommand {
  std::optional<std::string> token;      ///< shared secret, if the server requires one
  std::optional<std::uint16_t> version;  ///< wire version the client speaks, >= 1
  friend bool operator==(const HelloCommand&, const HelloCommand&) = default;
};
/// start: run the simulation in real time.
struct StartCommand {
  friend bool operator==(const StartCommand&, const StartCommand&) = default;
};
/// pause: stop stepping; state is held.
struct PauseCommand {
  friend bool operator==(const PauseCommand&, const PauseCommand&) = default;
};
/// step: take `count` steps, then stay paused.
struct StepCommand {
  std::uint32_t count = 1;  ///< 1..kMaxStepCount
  friend bool operator==(const StepCommand&, const StepCommand&) = default;
};
/// reset: back to the model's initial state, step 0.
struct ResetCommand {
  friend bool operator==(const ResetCommand&, const ResetCommand&) = default;
};
/// Value of a set command: JSON number (finite), boolean or string.
using ParamValue = std::variant<double, bool, std::string>;
/// set: change one named parameter; the server validates the name and value.
struct SetCommand {
  std::string param;  ///< non-empty
  ParamValue value;
  friend bool operator==(const SetCommand&, const SetCommand&) = default;
};
/// load: replace the model (built-in name or model file path, as the server allows).
struct LoadCommand {
  std::string model;  ///< non-empty
  friend bool operator==(const LoadCommand&, const LoadCommand&) = default;
};
/// subscribe: stream state datagrams to a UDP endpoint every `decimation`-th step.
struct SubscribeCommand {
  std::optional<std::string> address;  ///< non-empty; absent: the TCP peer's address
  std::uint16_t port = 0;              ///< 1..65535
  std::uint32_t decimation = 1;        ///< 1..kMaxDecimation
  friend bool operator==(const SubscribeCommand&, const SubscribeCommand&) = default;
};
/// unsubscribe: stop streaming to matching subscriptions of this client (all if no key given).
struct UnsubscribeCommand {
  std::optional<std::string> address;  ///< non-empty
  std::optional<std::uint16_t> port;   ///< 1..65535
  friend bool operator==(const UnsubscribeCommand&, const UnsubscribeCommand&) = default;
};
/// stats: counters (packets, overruns, latency) as one reply.
struct StatsCommand {
  friend bool operator==(const StatsCommand&, const StatsCommand&) = default;
};

/// The command itself, one alternative per command name.
/// drag (issue 20 point 4, the live view's mouse spring): with `body`, pull that body's point
/// (`px`, `py`, `pz`, body frame [m], default 0) towards the world target (`x`, `y`, `z` [m], z
/// default 0) until a drag without `body` releases it (the server ramps the force to zero).
struct DragCommand {
  std::optional<std::string> body;  ///< non-empty; absent: release
  double px = 0.0, py = 0.0, pz = 0.0;
  double x = 0.0, y = 0.0, z = 0.0;
  friend bool operator==(const DragCommand&, const DragCommand&) = default;
};

/// report (issue 20 point 5): a device client's input -> state round trip as it measures it from
/// the latency echo (docs/protocol.md "Latency echo"), for the live view's chart.
struct ReportCommand {
  double rtt_p50_us = 0.0;    ///< median round trip over the client's last interval [us], >= 0
  double rtt_p99_us = 0.0;    ///< its 99th percentile [us], >= rtt_p50_us
  std::uint64_t samples = 0;  ///< round trips measured in that interval
  friend bool operator==(const ReportCommand&, const ReportCommand&) = default;
};

using CommandBody = std::variant<HelloCommand,
                                 StartCommand,
                                 PauseCommand,
                                 StepCommand,
                                 ResetCommand,
                                 SetCommand,
                                 LoadCommand,
                                 SubscribeCommand,
                                 UnsubscribeCommand,
                                 StatsCommand,
                                 DragCommand,
                                 ReportCommand>;

/// A parsed command line.
struct Command {
  CommandBody body;
  std::optional<std::uint64_t> id;  ///< request id to echo in the reply, 0..kMaxCommandId
  friend bool operator==(const Command&, const Command&) = default;
};

/// Why a line was rejected, with what could still be read of it for the reply.
struct CommandError {
  std::string message;                 ///< human-readable, names the offending key or value
  std::optional<std::string> command;  ///< the "command" value if it was a string (clipped)
  std::optional<std::uint64_t> id;     ///< the request id if it was valid
};

/// Result of parse_command: the command, or why not.
using CommandParseResult = std::variant<Command, CommandError>;

/// The wire name of a command ("hello", "step", ...).
[[nodiscard]] std::string_view command_name(const CommandBody& body) noexcept;

/// Parses one line (without its '\n'; a trailing '\r' is whitespace). Never throws except
/// std::bad_alloc; any input, however malformed, gives a Command or a CommandError.
[[nodiscard]] CommandParseResult parse_command(std::string_view line);

/// The error for a line longer than kMaxCommandLineBytes, for transports that stop reading it.
[[nodiscard]] CommandError too_long_error(std::size_t line_bytes);

/// The reply line for an error: {"ok":false,"error":"...","command":"..."|null[,"id":N]},
/// without a trailing '\n'.
[[nodiscard]] std::string error_reply(const CommandError& error);

/// The request line for a command (what a client sends), without a trailing '\n'.
/// parse_command(to_json_line(c)) gives back c.
[[nodiscard]] std::string to_json_line(const Command& command);

}  // namespace rtmb
