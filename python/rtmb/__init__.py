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

The extension module is ``rtmb._rtmb`` (python/src); python/README.md says how to build, import
from the build tree and install.
"""
from ._rtmb import (  # noqa: F401  (re-exported API)
    Inputs,
    Model,
    ModelFileError,
    Outputs,
    RunResult,
    Simulation,
    flag_names,
    load,
    loads,
    mechanisms,
)
from .sweeps import parameter_sets, sweep  # noqa: F401  (Dask is imported when a sweep runs)

__all__ = [
    "Inputs",
    "Model",
    "ModelFileError",
    "Outputs",
    "RunResult",
    "Simulation",
    "flag_names",
    "load",
    "loads",
    "mechanisms",
    "parameter_sets",
    "sweep",
]
