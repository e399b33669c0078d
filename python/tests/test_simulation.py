# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: rtmb developers
"""rtmb.Simulation: views of the engine state, step, reset, inputs and outputs, run(), the GIL."""
import math
import threading

import numpy as np
import pytest

import rtmb
from conftest import CONFIGS


def test_q_and_v_are_views_of_the_engine_state():
    sim = rtmb.Simulation(rtmb.Model.builtin("pendulum"))
    q = sim.q
    assert q.base is not None and not q.flags["OWNDATA"]
    # a second access sees the same memory: no copy per access
    assert np.shares_memory(q, sim.q)
    sim.step()
    assert np.array_equal(q, sim.q), "the old view follows the stepped state"
    # a write through the view is what the next step integrates: the bottom at rest stays put
    q[:] = [0.0, -1.0]
    sim.v[:] = 0.0
    sim.step(100)
    assert np.abs(sim.q - [0.0, -1.0]).max() < 1e-12
    assert np.abs(sim.v).max() < 1e-12


def test_view_outlives_the_python_name_of_the_simulation():
    q = rtmb.Simulation(rtmb.Model.builtin("pendulum")).q
    # the view keeps its Simulation alive: reading it is reading live memory, not freed memory
    assert math.hypot(q[0], q[1]) == pytest.approx(1.0, abs=1e-12)


def test_reset_restores_the_initial_state_in_the_same_memory():
    sim = rtmb.Simulation(rtmb.Model.builtin("pendulum"))
    q0 = sim.q.copy()
    view = sim.q
    sim.step(250)
    assert not np.array_equal(sim.q, q0)
    sim.inputs["f0"] = 3.0
    sim.reset()
    assert sim.t == 0.0 and np.array_equal(view, q0)
    assert sim.inputs["f0"] == 0.0
    assert sim.status["steps"] == 0


def test_inputs_by_name_act_as_generalized_forces():
    # f1 = m g on the point-mass pendulum (m = 1 kg, g = 9.81) cancels gravity: it stays at rest
    # at its 60 degree start, where without it the rod swings down
    held = rtmb.Simulation(rtmb.Model.builtin("pendulum"))
    held.inputs["f1"] = 9.81
    free = rtmb.Simulation(rtmb.Model.builtin("pendulum"))
    held.step(1000)
    free.step(1000)
    assert np.abs(held.v).max() < 1e-9
    assert np.abs(free.v).max() > 0.5
    assert held.inputs["f1"] == 9.81 and "f1" in held.inputs and list(held.inputs) == ["f0", "f1"]
    with pytest.raises(KeyError, match="valid: f0, f1"):
        held.inputs["tz"] = 1.0


def test_named_outputs_are_consistent_with_the_motion():
    # the handle's velocity channel is the time derivative of its position channel: a central
    # difference over two steps agrees to O(dt^2)
    model = rtmb.load(str(CONFIGS / "five_bar.yaml"))
    sim = rtmb.Simulation(model)
    sim.inputs["motor_l"] = 0.2  # [N m]: it rests in equilibrium without
    sim.step(200)
    dt = model.dt
    x_prev, y_prev = sim.outputs["handle.x"], sim.outputs["handle.y"]
    sim.step()
    vx, vy = sim.outputs["handle_velocity.vx"], sim.outputs["handle_velocity.vy"]
    sim.step()
    x_next, y_next = sim.outputs["handle.x"], sim.outputs["handle.y"]
    speed = math.hypot(vx, vy)
    assert speed > 1e-3, "the handle should be moving"
    assert abs((x_next - x_prev) / (2 * dt) - vx) < 1e-4 * max(speed, 1.0)
    assert abs((y_next - y_prev) / (2 * dt) - vy) < 1e-4 * max(speed, 1.0)
    with pytest.raises(KeyError):
        sim.outputs["nope"]


def test_builtin_outputs_are_q_then_v():
    sim = rtmb.Simulation(rtmb.Model.builtin("pendulum"))
    sim.step(10)
    assert [sim.outputs[n] for n in ("q0", "q1", "v0", "v1")] == [*sim.q, *sim.v]


def test_run_arrays_have_one_row_per_kth_step_at_k_dt():
    model = rtmb.Model.builtin("pendulum")
    sim = rtmb.Simulation(model)
    result = sim.run(0.1, every=10)  # 100 steps: rows at steps 0, 10, ..., 100
    assert result.steps == 100 and result.ok
    assert result.times.shape == (11,)
    assert result.q.shape == (11, 2) and result.v.shape == (11, 2)
    assert result.outputs.shape == (11, 4) and result.output_names == ["q0", "q1", "v0", "v1"]
    assert result.drift.shape == result.energy.shape == result.flags.shape == (11,)
    np.testing.assert_allclose(result.times, np.arange(11) * 10 * model.dt, rtol=0, atol=1e-12)
    assert np.array_equal(result.q[-1], sim.q) and sim.t == result.times[-1]
    # a step count not divisible by every still records the last step
    tail = sim.run(0.125, every=10)
    assert tail.steps == 25 and tail.times.shape == (4,)
    assert tail.times[-1] == pytest.approx(0.125, abs=1e-12)
    np.testing.assert_array_equal(tail.output("q0"), tail.q[:, 0])


def test_run_releases_the_gil():
    # while one thread runs a long simulation, another Python thread keeps counting: with the GIL
    # held during the run, the count could not move between the run's start and end
    sim = rtmb.Simulation(rtmb.Model.builtin("pendulum"))
    count = [0]
    seen = {}
    done = threading.Event()

    def worker():
        seen["start"] = count[0]
        sim.run(200.0, every=1000)
        seen["end"] = count[0]
        done.set()

    thread = threading.Thread(target=worker)
    thread.start()
    while not done.is_set():
        count[0] += 1
    thread.join()
    assert seen["end"] - seen["start"] > 1000


def test_stepping_one_simulation_from_two_threads_is_refused():
    # two threads stepping one State would race on it: whichever comes second gets RuntimeError
    sim = rtmb.Simulation(rtmb.Model.builtin("pendulum"))
    errors = []

    def long_run():
        try:
            sim.run(100.0, every=100000)
        except RuntimeError as e:
            errors.append(str(e))

    thread = threading.Thread(target=long_run)
    thread.start()
    while thread.is_alive() and not errors:
        try:
            sim.step()
        except RuntimeError as e:
            errors.append(str(e))
    thread.join()
    assert errors and all("another thread" in e for e in errors)
