// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// The glue between the deadline loop and the engine: the step callable that drains input
// samples, advances the state and publishes a snapshot, plus the two trivially copyable types
// that cross the real-time boundary (StateSnapshot out, QueuedInput in).
//
// Design notes. The simulation thread shares nothing with the network thread but two wait-free
// structures (include/rtmb/runtime/spsc_ring.hpp): a LatestValue<StateSnapshot> (only the newest
// state matters to a subscriber) and an SpscRing<QueuedInput> (inputs must not be lost
// silently: a full ring refuses and counts). Both carry fixed-size, trivially copyable values,
// so a hand-off is a memory copy: no allocation, no shared ownership, no destructor on the
// real-time thread. The price of fixed size is a compile-time bound on the coordinates a
// snapshot carries (kSnapshotMaxCoordinates); a larger model's snapshot is truncated and
// flagged, and the full state stays available to the simulation thread.
//
// Inputs are drained at the start of each tick, before its step, so a sample that arrived
// before tick k acts in tick k ("inputs take effect in the step after they arrive"). What a
// sample does is the input hook's business; without one, draining only records the latency
// echo (sequence number, sender time, step applied) that goes back in the snapshot. With an
// InputChannelBank attached (set_input_bank), the bank's per-channel values after its policies
// and watchdog become the external generalized force of the step (applied_force(ws), channel i
// on velocity coordinate i): the convention of the built-in mechanisms, whose input channel i is
// the generalized force on coordinate i. A System with named input channels (System::n_inputs()
// > 0, body models whose channels drive forces, motors and couplings) gets the values through
// the Workspace's input_values(ws) instead (set_inputs(ws, u)), channel i to its input i.
//
// Degrade level (OverrunPolicy::kDegrade): the runner copies Tick::degrade_level into the
// snapshot but does not act on it yet, because the engine has no cheaper step mode to switch to
// (issue 3 suggests fewer projection iterations as one). A caller that wants one can wrap
// on_tick in its own step callable.

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "rtmb/runtime/deadline_loop.hpp"
#include "rtmb/runtime/latest_value.hpp"
#include "rtmb/runtime/spsc_ring.hpp"
#include "rtmb/step.hpp"

namespace rtmb {

/// One input sample from a device or client, queued by the network thread for the simulation
/// thread: the sample (cf. InputSample in rtmb/net/wire.hpp) plus the sequence number and sender
/// timestamp of the datagram it came in, for the latency echo, and when it arrived. Trivially
/// copyable, 40 bytes, no implicit padding.
struct QueuedInput {
  std::uint32_t channel = 0;        ///< input channel index (the model schema defines them)
  std::uint32_t flags = 0;          ///< QueuedInputFlag bits
  double value = 0.0;               ///< value in the channel's unit
  std::uint64_t seq = 0;            ///< sender's sequence number, echoed back in StateSnapshot
  std::int64_t sender_time_ns = 0;  ///< sender's timestamp [ns, sender's clock], echoed back
  /// When the receiver got it [ns, CLOCK_MONOTONIC, the loop clock of MonotonicClock]; 0: not
  /// known. The runner reports how long it waited for its tick (StateSnapshot::last_input_wait_ns).
  std::int64_t arrival_ns = 0;
};
static_assert(std::is_trivially_copyable_v<QueuedInput>);

/// QueuedInput::flags bits.
enum class QueuedInputFlag : std::uint32_t {
  /// The last sample of its input message (one datagram): a tick told to apply n messages
  /// (Tick::input_messages) stops after the n-th such sample. Samples that come from no message
  /// (the `set` command) go with the next message's tick.
  kEndOfMessage = 1u << 0,
};
static_assert(sizeof(QueuedInput) == 40);

/// Most coordinates a StateSnapshot carries, each of q and v.
inline constexpr int kSnapshotMaxCoordinates = 64;

/// StateSnapshot::flags bits.
enum class SnapshotFlag : std::uint32_t {
  kNone = 0,
  /// n_q or n_v of the model exceeds kSnapshotMaxCoordinates: only the first
  /// kSnapshotMaxCoordinates entries are in q / v.
  kTruncated = 1u << 0,
};

/// Most named output channels a StateSnapshot carries (as many as a state datagram).
inline constexpr int kSnapshotMaxOutputs = 64;

/// The state after a tick, as published to the network thread. Trivially copyable, fixed size:
/// 120 bytes of header fields, then q, v and the output channels (64 doubles each), 1656 bytes
/// in all, no implicit padding.
struct StateSnapshot {
  double t = 0.0;                    ///< simulation time after the tick [s]
  std::int64_t step = 0;             ///< engine steps done since the runner started (1-based count)
  std::int64_t tick = 0;             ///< loop grid index of the tick (Tick::index)
  double position_drift = 0.0;       ///< ||g||inf after the last step [m | rad]
  double velocity_drift = 0.0;       ///< ||G v + g_t||inf after the last step [m/s | rad/s]
  double energy = 0.0;               ///< T + V after the last step [J]; NaN where undefined
  std::uint64_t last_input_seq = 0;  ///< seq of the last input sample drained
  std::int64_t last_input_sender_time_ns = 0;  ///< its sender_time_ns
  std::int64_t last_input_step = -1;           ///< first `step` that saw it; -1: none yet
  /// How long the last input waited between arrival and the release of the tick that applied
  /// it [ns]: Tick::release_ns (the loop's wake-up, when the inputs are drained), else D(k) (the
  /// fixed-rate loop's sampling delay); -1: not known (no arrival time, or a clock other than
  /// CLOCK_MONOTONIC).
  std::int64_t last_input_wait_ns = -1;
  std::int64_t tick_deadline_ns = 0;  ///< D(k) of the tick (Tick::deadline_ns) [ns, loop clock]
  std::uint32_t step_flags = 0;       ///< OR of StepFlag over the tick's steps
  std::uint32_t flags = 0;            ///< OR of SnapshotFlag
  std::int32_t n_q = 0;               ///< valid entries of q (<= kSnapshotMaxCoordinates)
  std::int32_t n_v = 0;               ///< valid entries of v (<= kSnapshotMaxCoordinates)
  std::int32_t degrade_level = 0;     ///< Tick::degrade_level of the tick
  std::uint32_t reserved = 0;         ///< zero; makes the padding explicit
  /// Valid entries of outputs: the model's named output channels (0: it defines none, and the
  /// stream carries q then v).
  std::int32_t n_outputs = 0;
  std::uint32_t reserved2 = 0;                        ///< zero; makes the padding explicit
  std::array<double, kSnapshotMaxCoordinates> q{};    ///< positions [m | rad]; zero past n_q
  std::array<double, kSnapshotMaxCoordinates> v{};    ///< velocities [m/s | rad/s]; zero past n_v
  std::array<double, kSnapshotMaxOutputs> outputs{};  ///< output channels in schema order
};
static_assert(std::is_trivially_copyable_v<StateSnapshot>);
static_assert(sizeof(StateSnapshot) ==
              120 + 2 * 8 * kSnapshotMaxCoordinates + 8 * kSnapshotMaxOutputs);

/// Capacity of the input ring between the network and simulation threads.
inline constexpr std::size_t kInputRingCapacity = 1024;
using InputRing = SpscRing<QueuedInput, kInputRingCapacity>;
using SnapshotSlot = LatestValue<StateSnapshot>;

/// Applies one input sample; called on the simulation thread, before the tick's step, in
/// arrival order. Must be RT-safe (no allocation, lock, log or exception).
using InputHook = void (*)(void* context, const QueuedInput& sample) noexcept;
/// Adds a force of its own to the generalized applied force `applied` (n_v) of the tick's steps,
/// evaluated at the state the tick starts from (SimulationRunner::set_force_hook). RT-safe.
using ForceHook = void (*)(void* context, const State& state, VecRef applied) noexcept;

/// Settings of a SimulationRunner.
struct RunnerConfig {
  int substeps = 1;                ///< engine steps per loop tick, >= 1
  bool stop_on_non_finite = true;  ///< end the loop after a step flagged kNonFinite
  int max_inputs_per_tick = static_cast<int>(kInputRingCapacity);  ///< drain bound, >= 1
};

/// Counters of a SimulationRunner. Trivially copyable.
struct RunnerCounters {
  std::int64_t ticks = 0;           ///< on_tick calls
  std::int64_t steps = 0;           ///< engine steps (ticks * substeps, unless stopped early)
  std::int64_t inputs_applied = 0;  ///< input samples drained
  std::int64_t flagged_steps = 0;   ///< steps whose StepStatus had any flag
  std::uint32_t flags_seen = 0;     ///< OR of every step's StepFlag
};

class InputChannelBank;
class Recorder;
class OutputEvaluator;

/// The simulation thread's step: per tick, drains input samples (through the input hook),
/// advances the state by `substeps` engine steps and publishes a StateSnapshot. Holds
/// references only: model, state, workspace, ring and slot must outlive it. Use with
/// DeadlineLoop through step_fn(), with LoopConfig::period_ns = period_ns().
class SimulationRunner {
 public:
  /// Setup-only; throws std::invalid_argument for an invalid config.
  SimulationRunner(const Model& model,
                   State& state,
                   Workspace& ws,
                   InputRing& inputs,
                   SnapshotSlot& snapshots,
                   const RunnerConfig& config = {});

  /// Sets the hook that applies input samples (nullptr: samples are only echoed). Setup-only:
  /// not while the loop runs.
  void set_input_hook(InputHook hook, void* context) noexcept {
    hook_ = hook;
    hook_context_ = context;
  }

  /// Calls hook every tick after the input channels are applied and before the steps, with the
  /// tick's start state and the applied generalized force to add to (the live view's mouse
  /// spring, net/mouse_spring.hpp): on top of the bank's generalized forces, or of zero when the
  /// channels are the System's named inputs (or there is no bank). nullptr detaches. RT-safe
  /// (a pointer store; the simulation thread installs it on each model it swaps in).
  void set_force_hook(ForceHook hook, void* context) noexcept {
    force_hook_ = hook;
    force_hook_context_ = context;
  }

  /// Routes input samples into bank (its hook replaces any set_input_hook) and advances the bank
  /// to each tick's grid time (tick.index * period_ns(), deterministic and independent of wake
  /// jitter) after draining and before stepping, so hold/extrapolate/decay/safe-state and the
  /// staleness watchdog act every tick. nullptr detaches. Setup-only; bank must outlive the loop.
  void set_input_bank(InputChannelBank* bank) noexcept;

  /// Evaluates the model's named output channels into every published snapshot (outputs,
  /// n_outputs), after the tick's steps; nullptr (the default): none. At most
  /// kSnapshotMaxOutputs channels (more throws std::invalid_argument). Setup-only; evaluator
  /// must outlive the loop.
  void set_output_evaluator(OutputEvaluator* evaluator);

  /// The output channels at the current state into s.outputs and s.n_outputs (0 without an
  /// evaluator). For a snapshot taken outside a tick (start, reset). RT-safe.
  void evaluate_outputs(StateSnapshot& s) noexcept;

  /// Reports every drained input's arrival (QueuedInput::arrival_ns, when known) and the tick's
  /// release to lock (clock mode phase-lock; the same PhaseLock as LoopConfig::phase_lock, which
  /// turns the arrivals into phase corrections after the step); nullptr (the default): none.
  /// Setup-only; lock must outlive the loop.
  void set_phase_lock(PhaseLock* lock) noexcept { phase_lock_ = lock; }

  /// Records every input vector the steps see, every step's state and every reset into recorder
  /// (include/rtmb/runtime/record.hpp; `rtmb serve --record`); nullptr (the default): no recording.
  /// Setup-only; recorder must outlive the loop.
  void set_recorder(Recorder* recorder) noexcept { recorder_ = recorder; }

  /// Puts the inputs back to their start: the bank (if any) is reset and the applied force
  /// zeroed; the latency echo is cleared. For a simulation reset. RT-safe.
  void reset_inputs() noexcept;

  /// A halt's safe state: no input force acts any more. Zeroes the applied force and, for a
  /// System with named channels, every force or torque channel's value (motors included);
  /// position and command channels (coupling targets) keep theirs. Until the next tick that
  /// applies the bank again. RT-safe.
  void halt_inputs() noexcept;

  /// One tick: drain inputs, step, publish. Returns false when the loop should stop
  /// (kNonFinite with stop_on_non_finite). RT-safe: no allocation, lock, log or exception.
  bool on_tick(const Tick& tick) noexcept;

  /// The loop step: a small callable forwarding to on_tick.
  struct StepFn {
    SimulationRunner* runner;
    bool operator()(const Tick& tick) const noexcept { return runner->on_tick(tick); }
  };
  [[nodiscard]] StepFn step_fn() noexcept { return StepFn{this}; }

  /// Tick period matching real time: substeps * dt, rounded to whole ns.
  [[nodiscard]] std::int64_t period_ns() const noexcept;

  /// Read on the simulation thread, or after the loop stopped.
  [[nodiscard]] const RunnerCounters& counters() const noexcept { return counters_; }
  [[nodiscard]] const StepStatus& last_status() const noexcept { return last_status_; }

 private:
  void drain_inputs(const Tick& tick) noexcept;
  void publish(const Tick& tick, std::uint32_t step_flags) noexcept;

  const Model* model_;
  State* state_;
  Workspace* ws_;
  InputRing* inputs_;
  SnapshotSlot* snapshots_;
  RunnerConfig config_;
  void apply_bank_values() noexcept;

  InputChannelBank* bank_ = nullptr;
  OutputEvaluator* outputs_ = nullptr;
  Recorder* recorder_ = nullptr;     // set_recorder
  PhaseLock* phase_lock_ = nullptr;  // set_phase_lock
  InputHook hook_ = nullptr;
  ForceHook force_hook_ = nullptr;
  void* force_hook_context_ = nullptr;
  void* hook_context_ = nullptr;
  RunnerCounters counters_;
  StepStatus last_status_;
  QueuedInput last_input_;
  std::int64_t last_input_step_ = -1;
  std::int64_t last_input_wait_ns_ = -1;
};

}  // namespace rtmb
