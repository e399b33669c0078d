# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: rtmb developers
"""rtmb.Client against a running `rtmb serve` (issue 18, acceptance 6): hello, subscribe, inputs
by name and index, the state stream, the latency echo, raw requests, errors.

The server serves configs/pendulum_body.yaml paused (--paused) on ports the OS chooses, and the
test advances it one step at a time with the control command `step`, sending one input datagram
before each: the server drains the input socket in the tick that takes the step
(net/sim_driver.hpp), so every step sees a fresh sample and applies exactly the value sent, with
no real-time policy or watchdog in between, however loaded the machine. That makes the expected
states independent of timing: the rod's angular acceleration from the torque and gravity, and
the same steps offline through rtmb.Simulation.
"""
import contextlib
import json
import math
import re
import signal
import subprocess
import time

import numpy as np
import pytest

import rtmb

MODEL = "pendulum_body.yaml"  # a 1 m, 1 kg rod on a pivot, released from rest at -30 degrees
STEPS = 20
TAU = 10.0  # [N m] on link.tz, against gravity's 4.25 N m about the pivot
WAIT = 30.0  # [s] for anything the server does: generous for a loaded 2-core machine


@contextlib.contextmanager
def served(rtmb_bin, repo, log, *args):
    """rtmb serve MODEL_OR_NAME ARGS on OS-chosen ports: its control port. Always killed."""
    with open(log, "w") as err:
        # --duration bounds it should the teardown itself be killed
        proc = subprocess.Popen(
            [rtmb_bin, "serve", *args, "--port", "0", "--duration", "600"],
            stdout=subprocess.DEVNULL,
            stderr=err,
            cwd=repo,
        )
    try:
        deadline = time.monotonic() + WAIT
        # the start line: "rtmb serve: MODEL (...) at 1000.0 Hz, clock wall, control tcp A:P, ..."
        while (m := re.search(r"control tcp [0-9.]+:(\d+)", log.read_text())) is None:
            if proc.poll() is not None:
                pytest.fail(f"rtmb serve exited with {proc.returncode}: {log.read_text()}")
            if time.monotonic() > deadline:
                pytest.fail(f"rtmb serve did not report its port in {WAIT} s: {log.read_text()}")
            time.sleep(0.05)
        yield int(m.group(1))
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=WAIT)


@pytest.fixture
def server(rtmb_bin, repo, tmp_path):
    """The pendulum rod served paused: the control port."""
    with served(rtmb_bin, repo, tmp_path / "serve.log", str(repo / "configs" / MODEL), "--paused") as port:
        yield port


def ok(c, command):
    reply = json.loads(c.request(json.dumps(command)))
    assert reply["ok"], reply
    return reply


def state_at(c, step, restarted=False):
    """The first state of step `step` (and with the restarted flag, if asked)."""
    deadline = time.monotonic() + WAIT
    while (left := deadline - time.monotonic()) > 0:
        s = c.receive_state(timeout=left)
        if s is not None and s.step == step and (s.restarted or not restarted):
            return s
    pytest.fail(f"no state of step {step} within {WAIT} s")


def offline(repo, steps, tau):
    """The same steps offline: the state (q, v) after each."""
    sim = rtmb.Simulation(rtmb.load(str(repo / "configs" / MODEL)))
    if tau is not None:
        sim.inputs["link.tz"] = tau
    out = []
    for _ in range(steps):
        sim.step()
        out.append(np.concatenate([sim.q, sim.v]))
    return out


def test_hello_subscribe_input_echo(server, repo):
    with rtmb.Client("127.0.0.1", server, timeout=WAIT) as c:
        schema = c.hello()
        assert schema["model"] == "pendulum_body"
        assert schema["version"] == 2  # the C++ client asks for wire v2: signed inputs
        assert schema["dt"] == 0.001 and schema["rate_hz"] == 1000
        assert schema["inputs"] == [("link.fx", "N"), ("link.fy", "N"), ("link.tz", "N*m")]
        names = [n for n, _ in schema["outputs"]]
        assert names == ["q0", "q1", "q2", "v0", "v1", "v2"]
        assert c.schema == schema

        c.subscribe(decimation=1)
        assert c.udp_port > 0
        # a new subscriber gets the current state at once, even when paused
        first = state_at(c, 0)
        assert first.paused and first.echo is None and first.latency is None
        assert first.names == names and len(first) == 6
        # released from rest at theta = -pi/6 (configs/pendulum_body.yaml)
        assert first["q2"] == -0.5235987755982988 and first["v2"] == 0.0
        assert first.outputs == dict(zip(names, first.values.tolist()))
        assert first[2] == first["q2"] and first[-1] == first["v2"]

        # free: gravity alone, 20 steps
        for k in range(1, STEPS + 1):
            ok(c, {"command": "step"})
            free = state_at(c, k)
        assert free.echo is None  # no input yet
        assert free.t == pytest.approx(STEPS * 1e-3, abs=1e-12)

        # forced: back to the start, then one input before each step, by name and by index
        ok(c, {"command": "reset"})
        assert state_at(c, 0, restarted=True).echo is None  # reset clears the echo
        sent = []
        for k in range(1, STEPS + 1):
            seq = c.send_input({"link.tz": TAU} if k % 2 else {2: TAU})
            assert not sent or seq == sent[-1] + 1
            sent.append(seq)
            ok(c, {"command": "step"})
            forced = state_at(c, k)
            # the echo: this step applied the input just sent, first in this step
            assert forced.echo is not None
            assert forced.echo["sequence"] == seq
            assert forced.echo["applied_step"] == k
            assert 0.0 < forced.latency < WAIT
            assert forced.echo["sender_time_ns"] <= forced.received_ns <= time.monotonic_ns()

    # physics: the pivot's angular momentum balance, I_O theta'' = tau - m g (l/2) cos(theta),
    # I_O = m l^2 / 3; over 20 ms theta moves < 0.01 rad, so theta' = theta'' t within 1 %
    t = STEPS * 1e-3
    gravity_moment = 1.0 * 9.81 * 0.5 * math.cos(-math.pi / 6)
    inertia = 1.0 / 3.0
    assert free["v2"] == pytest.approx(-gravity_moment / inertia * t, rel=0.01)
    assert forced["v2"] == pytest.approx((TAU - gravity_moment) / inertia * t, rel=0.01)
    assert forced["v2"] > 0.0 > free["v2"]  # the torque turned the swing around

    # the server's steps are the engine's steps: the same doubles as offline
    assert free.values.tolist() == offline(repo, STEPS, None)[-1].tolist()
    assert forced.values.tolist() == offline(repo, STEPS, TAU)[-1].tolist()


def test_requests_and_errors(server):
    with pytest.raises(rtmb.ClientError, match="Connection refused"):
        # a closed port: the transport's message (port 1 needs root to listen on)
        rtmb.Client("127.0.0.1", 1, timeout=WAIT)
    with pytest.raises(rtmb.ClientError, match="not an IPv4|address"):
        rtmb.Client("localhost:1", server)

    c = rtmb.Client("127.0.0.1", server, timeout=WAIT)
    assert c.schema is None
    with pytest.raises(rtmb.ClientError, match="say hello first"):
        c.subscribe()
    with pytest.raises(rtmb.ClientError, match="hello"):
        c.send_input({"link.tz": 1.0})
    # a raw request before hello: the server's refusal is a reply, not an exception
    reply = json.loads(c.request('{"command":"stats"}'))
    assert reply["ok"] is False and "say hello first" in reply["error"]
    c.hello()
    assert json.loads(c.request('{"command":"stats","id":7}'))["id"] == 7
    with pytest.raises(ValueError, match="one line"):
        c.request('{"command":"stats"}\n{"command":"stats"}')

    with pytest.raises(KeyError, match="link.tz"):
        c.send_input({"link.tq": 1.0})  # names the valid channels
    with pytest.raises(KeyError, match="outside"):
        c.send_input({3: 1.0})
    with pytest.raises(ValueError, match="twice"):
        c.send_input({"link.tz": 1.0, 2: 2.0})
    with pytest.raises(ValueError, match="finite"):
        c.send_input({"link.tz": math.nan})
    with pytest.raises(ValueError):
        c.send_input({})
    with pytest.raises(TypeError):
        c.send_input({1.5: 1.0})
    with pytest.raises(ValueError, match="decimation"):
        c.subscribe(decimation=0)

    c.subscribe()
    assert c.receive_state(timeout=WAIT) is not None
    # paused and no command: nothing new comes, and the wait ends at its timeout
    start = time.monotonic()
    assert c.receive_state(timeout=0.2) is None
    assert time.monotonic() - start >= 0.19
    assert c.counters["accepted"] >= 1 and c.counters["rejected"] == 0

    c.close()
    c.close()  # idempotent
    assert c.closed
    with pytest.raises(rtmb.ClientError, match="closed"):
        c.request('{"command":"stats"}')


def test_hello_refused_with_a_wrong_token(rtmb_bin, repo, tmp_path):
    args = ("pendulum", "--paused", "--token", "s3cret")
    with served(rtmb_bin, repo, tmp_path / "serve.log", *args) as port:
        with rtmb.Client("127.0.0.1", port, timeout=WAIT) as c:
            # the server's reply line is the message
            with pytest.raises(rtmb.ClientError, match='"ok":false'):
                c.hello(token="wrong")
            assert c.hello(token="s3cret")["model"] == "pendulum"
