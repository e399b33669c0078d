// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// The simulation thread of rtmb::Server: SimDriver, the loop step around SimulationRunner, and
// what it shares with the network thread (the model bundle, the control and retire rings, the
// published snapshot). It needs no Asio; it stays in net/ rather than next to the runner because
// a bundle holds what the network layer defines (ModelFile, ServerSchema).

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>

#include "net/input_receiver.hpp"
#include "net/mouse_spring.hpp"
#include "net/state_sender.hpp"
#include "net/view_state_buffer.hpp"
#include "rtmb/models/model_file.hpp"
#include "rtmb/net/server.hpp"
#include "rtmb/outputs.hpp"
#include "rtmb/runtime.hpp"
#include "rtmb/runtime/device_loop.hpp"
#include "rtmb/runtime/input_channels.hpp"
#include "rtmb/runtime/readable_wait.hpp"
#include "rtmb/step.hpp"

namespace rtmb {

// Everything one model needs on the simulation thread, built on the network thread (setup,
// allocates) and handed over whole by pointer, so `load` swaps models between two ticks without
// the simulation thread allocating or freeing anything: the old bundle goes back to the network
// thread through the retire ring and is destroyed there.
struct SimBundle {
  ModelFile file;
  ServerSchema schema;
  std::unique_ptr<Model> model;
  std::unique_ptr<Workspace> ws;
  State state;
  State initial;
  std::unique_ptr<SnapshotSlot> inner = std::make_unique<SnapshotSlot>();
  std::unique_ptr<InputChannelBank> bank;
  std::unique_ptr<OutputEvaluator> outputs;  // the model's named output channels; null: q, v
  std::unique_ptr<SimulationRunner> runner;
  // false: n_q + n_v exceed the stream's kMaxStateChannels and the file names no output
  // channels; its state datagrams then carry no channels (Server::Impl::make_bundle)
  bool stream_state = true;
  // the planar body model `model` steps (under IndependentRowsSystem too), for the mouse
  // spring's point kinematics (net/mouse_spring.hpp); null: not a planar body model
  const PlanarMultibody* planar = nullptr;
};

// Requests from the network thread to the simulation thread.
enum class SimControlKind : std::uint32_t {
  kStart = 1,
  kPause,
  kStep,
  kReset,
  kLoad,
  kDrag,     // the live view's mouse spring: grab, or move the target (net/mouse_spring.hpp)
  kRelease,  // let go of the drag (its force ramps to zero)
};
struct SimControl {
  SimControlKind kind = SimControlKind::kStart;
  std::uint32_t count = 0;      // kStep: steps (ticks) to take
  SimBundle* bundle = nullptr;  // kLoad: the model to run from the next tick on
  DragSpec drag{};              // kDrag
};
static_assert(std::is_trivially_copyable_v<SimControl>);
using ControlRing = SpscRing<SimControl, 64>;
using RetireRing = SpscRing<SimBundle*, 64>;  // bundles the simulation thread let go of

// What the simulation thread publishes for the network thread.
struct ServerSnapshot {
  StateSnapshot state;
  std::uint64_t step = 0;          // engine steps since the last reset or load
  std::int64_t echo_step = -1;     // step (since reset) that first saw the last input; -1: none
  std::uint64_t epoch = 0;         // resets and loads so far
  std::uint32_t paused = 0;        // 1: paused
  std::uint32_t inputs_stale = 0;  // 1: the InputChannelBank found the whole stream stale
  std::int32_t n_inputs = 0;       // valid entries of inputs
  std::uint32_t reserved = 0;
  std::array<double, kMaxInputChannels> inputs{};  // each input channel's value this tick
  DragState drag;  // the mouse spring this tick; release_t NaN: not released
  // when the simulation thread handed this state's datagrams to the socket [ns, CLOCK_MONOTONIC,
  // the loop's clock]; 0: none went out (no subscriber due)
  std::int64_t sent_ns = 0;
};
static_assert(std::is_trivially_copyable_v<ServerSnapshot>);
using ServerSlot = LatestValue<ServerSnapshot>;

// The simulation thread's datagram counters, published for the network thread's stats whenever
// they change.
struct SimIoCounters {
  StateSendCounters out;
  InputReceiveCounters in;
  friend bool operator==(const SimIoCounters&, const SimIoCounters&) = default;
};
static_assert(std::is_trivially_copyable_v<SimIoCounters>);
using IoCounterSlot = LatestValue<SimIoCounters>;
// Samples of the `set` command, network thread -> simulation thread (which queues them for the
// runner like received ones: it is the InputRing's only producer).
using SetInputRing = SpscRing<QueuedInput, 64>;

// The loop step of the server: control requests, then (unless paused) the runner's tick, then
// the snapshot with reset bookkeeping. RT-safe: no allocation, lock, log or exception.
class SimDriver {
 public:
  SimDriver(SimBundle& bundle,
            ServerSlot& out,
            ControlRing& control,
            RetireRing& retired,
            int wake_fd,
            bool paused)
      : b_(&bundle),
        out_(&out),
        control_(&control),
        retired_(&retired),
        wake_fd_(wake_fd),
        paused_(paused) {
    start_model();
  }

  // The state stream's sender (net/state_sender.hpp) and where its counters go: from then on
  // each published state is sent from this thread. Setup only, before the loop runs.
  void attach_sender(StateSender* sender, IoCounterSlot* counters) noexcept {
    sender_ = sender;
    io_counters_ = counters;
  }

  // The input stream's receiver (net/input_receiver.hpp) and the `set` command's samples: from
  // then on every tick first drains the UDP socket. Setup only, before the loop runs.
  void attach_receiver(InputReceiver* receiver, SetInputRing* set_inputs) noexcept {
    receiver_ = receiver;
    set_inputs_ = set_inputs;
  }

  // The live view's full positions (net/view_state_buffer.hpp): from then on every published
  // state also goes there. Setup only, before the loop runs.
  void attach_view(ViewStateBuffer* view) noexcept { view_ = view; }

  // Clock mode device: the loop's waiter drains the socket (take_master_inputs), not the tick,
  // so that every input the master sends is counted as a tick of the device loop (an input
  // read by the tick itself would be applied without its own tick). Setup only.
  void set_device_clocked(bool on) noexcept { device_clocked_ = on; }

  // Clock mode device: drains the UDP socket (as a tick does in the other modes) and returns
  // how many input datagrams were admitted, each one a tick of the clock master. The master is
  // any client admitted to send inputs (docs/architecture.md "Clock modes"). RT-safe.
  int take_master_inputs() noexcept {
    if (receiver_ == nullptr) return 0;
    const std::uint64_t before = receiver_->counters().udp_in.accepted();
    receive_inputs();
    return static_cast<int>(receiver_->counters().udp_in.accepted() - before);
  }

  bool on_tick(const Tick& tick) noexcept {
    drain_control();
    // a new subscriber gets the current state at once, even when paused
    if (sender_ != nullptr && sender_->update_subscribers()) dirty_ = true;
    // inputs in: also while paused, so that they are counted and wait in the ring for the next
    // step (as they did when the network thread received them); in device mode the loop's
    // waiter did it just before
    if (!device_clocked_) receive_inputs();
    if (paused_ && steps_left_ == 0) {
      // the tick's input messages stay queued; the next step applies them with its own
      if (tick.input_messages > 0) held_messages_ += tick.input_messages;
      if (dirty_) publish();
      publish_io_counters();
      return true;
    }
    if (paused_) --steps_left_;
    Tick t = tick;
    if (t.input_messages > 0) t.input_messages += held_messages_;
    held_messages_ = 0;
    (void)b_->runner->on_tick(t);  // stop_on_non_finite is off: the state is restored instead
    (void)b_->inner->try_read(current_);
    if (paused_ && steps_left_ == 0) dirty_ = true;  // a `step` request's last tick: wake now
    publish();
    publish_io_counters();
    return true;
  }

  struct StepFn {
    SimDriver* driver;
    bool operator()(const Tick& tick) const noexcept { return driver->on_tick(tick); }
  };
  [[nodiscard]] StepFn step_fn() noexcept { return StepFn{this}; }

  // The runner's force hook: the mouse spring's force from the state the tick starts from
  // (net/mouse_spring.hpp), added to the tick's applied force. RT-safe.
  static void drag_force(void* context, const State& state, VecRef applied) noexcept {
    auto* self = static_cast<SimDriver*>(context);
    const double dt = static_cast<double>(self->b_->runner->period_ns()) * 1e-9;
    self->spring_.apply(state, applied, monotonic_now_ns(), dt, self->b_->planar);
  }

  // kHalt's safe state: no input force acts any more, and subscribers get a last, paused state
  static void safe_state(void* context, const LoopCounters& /*counters*/) noexcept {
    auto* self = static_cast<SimDriver*>(context);
    self->b_->runner->halt_inputs();  // applied force and named force/torque channels
    self->paused_ = true;
    self->publish();
    self->publish_io_counters();
  }

 private:
  void drain_control() noexcept {
    SimControl c;
    while (control_->try_pop(c)) {
      dirty_ = true;
      switch (c.kind) {
        case SimControlKind::kStart:
          paused_ = false;
          steps_left_ = 0;
          break;
        case SimControlKind::kPause:
          paused_ = true;
          steps_left_ = 0;
          break;
        case SimControlKind::kStep:
          paused_ = true;
          steps_left_ += c.count;
          break;
        case SimControlKind::kReset:
          reset();
          break;
        case SimControlKind::kDrag:
          spring_.grab(c.drag, monotonic_now_ns());
          break;
        case SimControlKind::kRelease:
          spring_.release(current_.t);  // the next tick starts from current_
          break;
        case SimControlKind::kLoad:
          // the old bundle goes back to be freed; were the retire ring full (64 loads the network
          // thread has not collected), keeping the old model running is the safe choice
          if (c.bundle == nullptr) break;
          if (retired_->try_push(b_)) {
            b_ = c.bundle;
            ++epoch_;
            start_model();
            // inputs numbered for the old model are not compared with the new model's
            if (receiver_ != nullptr) receiver_->clear_sequences();
          } else {
            (void)retired_->try_push(c.bundle);
          }
          break;
      }
    }
  }

  static constexpr double kNotMeasured = std::numeric_limits<double>::quiet_NaN();

  // the current bundle's starting point: at construction, reset and load
  void start_model() noexcept {
    spring_.drop();  // reset and load: the drag is over
    b_->runner->set_force_hook(&SimDriver::drag_force, this);
    steps_at_reset_ = b_->runner->counters().steps;
    current_.t = b_->state.t;
    current_.step = steps_at_reset_;
    current_.position_drift = kNotMeasured;  // no step yet
    current_.velocity_drift = kNotMeasured;
    current_.energy = kNotMeasured;
    current_.step_flags = 0;
    current_.last_input_step = -1;
    copy_state();
  }

  void reset() noexcept {
    b_->state = b_->initial;     // same sizes: Eigen copies into the existing storage
    b_->runner->reset_inputs();  // no force from before the reset acts after it
    ++epoch_;
    start_model();
  }

  void copy_state() noexcept {
    const State& st = b_->state;
    const auto nq = std::min<Eigen::Index>(st.q.size(), kSnapshotMaxCoordinates);
    const auto nv = std::min<Eigen::Index>(st.v.size(), kSnapshotMaxCoordinates);
    current_.n_q = static_cast<std::int32_t>(nq);
    current_.n_v = static_cast<std::int32_t>(nv);
    std::fill(current_.q.begin(), current_.q.end(), 0.0);
    std::fill(current_.v.begin(), current_.v.end(), 0.0);
    std::copy_n(st.q.data(), nq, current_.q.begin());
    std::copy_n(st.v.data(), nv, current_.v.begin());
    b_->runner->evaluate_outputs(current_);
  }

  void publish() noexcept {
    ServerSnapshot& s = out_->back();
    s.state = current_;
    s.step = static_cast<std::uint64_t>(current_.step - steps_at_reset_);
    s.echo_step = current_.last_input_step > steps_at_reset_
                      ? current_.last_input_step - steps_at_reset_
                      : -1;
    s.epoch = epoch_;
    s.paused = paused_ ? 1u : 0u;
    const InputChannelBank& bank = *b_->bank;
    s.inputs_stale = bank.stale() ? 1u : 0u;
    s.n_inputs = bank.channel_count();
    for (int i = 0; i < s.n_inputs; ++i) s.inputs[static_cast<std::size_t>(i)] = bank.value(i);
    s.reserved = 0;
    s.drag = spring_.state();
    // every coordinate for the view (issue 20 point 6): copied into storage sized at setup
    if (view_ != nullptr) {
      const State& st = b_->state;
      view_->publish(current_.t, s.step, epoch_, s.drag, st.q.data(),
                     static_cast<std::size_t>(st.q.size()));
    }
    // the state goes out first: the snapshot and the wake-up below only serve the network
    // thread's stats, view and status line
    s.sent_ns = send_state(s);
    out_->commit();
    const bool urgent = dirty_;
    dirty_ = false;
    // wake the network thread: a non-blocking eventfd write, never waits (the counter would
    // have to reach 2^64 - 2 first); a failure only means the next poll takes the snapshot.
    // Only for a state that carries a change the network thread acts on (a control request's
    // reply, a subscriber, a pause, the end of a `step`); the network thread takes every other
    // snapshot on its own 1 ms poll. The write is a system call, and waking a thread that sleeps
    // on the other CPU an inter-processor interrupt, tens of microseconds on a VM: at 10 kHz a
    // wake once per millisecond doubled the tick's compute p99 (51 -> 27 us without it, issue 14
    // point 6; docs/architecture.md "The server").
    if (wake_fd_ >= 0 && urgent) {
      const std::uint64_t one = 1;
      (void)!::write(wake_fd_, &one, sizeof one);
    }
  }

  void receive_inputs() noexcept {
    if (receiver_ == nullptr) return;
    receiver_->update_admission();
    QueuedInput q;
    while (set_inputs_ != nullptr && set_inputs_->try_pop(q)) receiver_->queue(q);
    (void)receiver_->receive(static_cast<std::uint16_t>(b_->schema.inputs.size()));
  }

  // Encodes s once and sends it to the due subscribers (StateSender::send); returns when the
  // socket took the datagrams, 0 if none went out.
  std::int64_t send_state(const ServerSnapshot& s) noexcept {
    if (sender_ == nullptr) return 0;
    const StateSnapshot& st = s.state;
    StateMessage& m = message_;
    std::uint16_t flags = 0;
    if (s.echo_step >= 0) flags |= static_cast<std::uint16_t>(WireFlag::kEchoValid);
    if (s.paused != 0) flags |= static_cast<std::uint16_t>(WireFlag::kPaused);
    m.header.flags = flags;
    m.header.step = s.step;
    m.header.sim_time_s = st.t;
    m.step_flags = st.step_flags;
    m.position_drift = st.position_drift;
    m.velocity_drift = st.velocity_drift;
    m.energy = st.energy;
    m.echo = LatencyEcho{};
    if (s.echo_step >= 0) {
      m.echo.sequence = st.last_input_seq;
      m.echo.sender_time_ns = st.last_input_sender_time_ns;
      m.echo.applied_step = static_cast<std::uint64_t>(s.echo_step);
    }
    // named output channels replace q and v (docs/protocol.md, "State payload")
    std::uint16_t n = 0;
    if (st.n_outputs > 0) {
      for (int i = 0; i < st.n_outputs && n < kMaxStateChannels; ++i)
        m.channels[n++] = st.outputs[i];
    } else if (b_->stream_state) {
      for (int i = 0; i < st.n_q && n < kMaxStateChannels; ++i) m.channels[n++] = st.q[i];
      for (int i = 0; i < st.n_v && n < kMaxStateChannels; ++i) m.channels[n++] = st.v[i];
    }
    m.channel_count = n;
    if (sender_->send(m, s.epoch, monotonic_now_ns()) == 0) return 0;
    return monotonic_now_ns();
  }

  void publish_io_counters() noexcept {
    if (io_counters_ == nullptr) return;
    SimIoCounters now = io_last_;
    if (sender_ != nullptr) now.out = sender_->counters();
    if (receiver_ != nullptr) now.in = receiver_->counters();
    if (now == io_last_) return;
    io_last_ = now;
    io_counters_->publish(io_last_);
  }

  SimBundle* b_;
  ServerSlot* out_;
  ControlRing* control_;
  RetireRing* retired_;
  int wake_fd_;
  StateSnapshot current_{};
  std::int64_t steps_at_reset_ = 0;
  std::uint64_t epoch_ = 0;
  std::uint64_t steps_left_ = 0;
  bool paused_ = false;
  bool dirty_ = true;
  bool device_clocked_ = false;
  int held_messages_ = 0;  // input messages of ticks not stepped (paused), applied with the next
  StateSender* sender_ = nullptr;
  InputReceiver* receiver_ = nullptr;
  SetInputRing* set_inputs_ = nullptr;
  IoCounterSlot* io_counters_ = nullptr;
  ViewStateBuffer* view_ = nullptr;
  SimIoCounters io_last_{};  // as last published
  StateMessage message_{};   // send_state's message, reused
  MouseSpring spring_;       // the live view's drag (`drag` command)
};

using SimLoop = DeadlineLoop<SimDriver::StepFn, MonotonicClock>;

// Clock mode device: the device loop's waiter (rtmb/runtime/device_loop.hpp) on the server's
// UDP socket: ppoll(2) until the lockstep's deadline (with the clock's spin_ns: spinning around
// the master's next input, PeriodicInputWait), then the driver drains the socket and counts the
// master's inputs. RT-safe.
struct SocketInputWaiter {
  PeriodicInputWait wait;
  MonotonicClock* clock = nullptr;
  SimDriver* driver = nullptr;
  [[nodiscard]] std::int64_t now() noexcept { return clock->now(); }
  [[nodiscard]] bool wait_input_until(std::int64_t deadline_ns) noexcept {
    return wait.wait_until(deadline_ns, [this] { return clock->now(); });
  }
  [[nodiscard]] int take_inputs() noexcept { return driver->take_master_inputs(); }
};
using DeviceSimLoop = DeviceLoop<SimDriver::StepFn, SocketInputWaiter>;

}  // namespace rtmb
