# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: rtmb developers
"""rtmb: a real-time engine for constrained multibody systems, from Python.

The conventions are MuJoCo's (MjModel/MjData): an immutable ``Model`` that many ``Simulation``s
share, NumPy arrays over the engine's own state, snake_case::

    import rtmb
    model = rtmb.load("configs/four_bar.yaml", overrides={"integration.dt": 5e-4})
    sim = rtmb.Simulation(model)
    sim.step(100)                 # GIL released while stepping
    sim.q[0] += 0.01              # a view: the next step integrates the changed state
    result = sim.run(2.0, every=10)
    result.times, result.q, result.energy

    with rtmb.Client("127.0.0.1", port) as c:   # a running `rtmb serve`
        schema = c.hello()
        c.subscribe()
        seq = c.send_input({"crank_torque": 0.5})
        state = c.receive_state(timeout=1.0)   # values, outputs by name, echo, latency

The extension module is ``rtmb._rtmb`` (python/src); python/README.md says how to build, import
from the build tree and install.
"""
from ._rtmb import (  # noqa: F401  (re-exported API)
    Client,
    ClientError,
    Inputs,
    Model,
    ModelFileError,
    Outputs,
    RunResult,
    ServerState,
    Simulation,
    flag_names,
    load,
    loads,
    mechanisms,
)
from .sweeps import parameter_sets, sweep  # noqa: F401  (Dask is imported when a sweep runs)

__all__ = [
    "Client",
    "ClientError",
    "Inputs",
    "Model",
    "ModelFileError",
    "Outputs",
    "RunResult",
    "ServerState",
    "Simulation",
    "flag_names",
    "load",
    "loads",
    "mechanisms",
    "parameter_sets",
    "sweep",
]
