# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: rtmb developers
"""The Python package runs the engine, not a copy of it: the state after N steps equals the one
`rtmb run` prints, bit for bit (its JSON carries 17 significant digits, which read back to the
same double), for every configs/*.yaml."""
import json
import subprocess

import numpy as np
import pytest

import rtmb
from conftest import CONFIGS

STEPS = 50


@pytest.mark.parametrize("path", sorted(CONFIGS.glob("*.yaml")), ids=lambda p: p.name)
def test_state_after_n_steps_equals_rtmb_run(path, rtmb_bin):
    model = rtmb.load(str(path))
    t_end = STEPS * model.dt
    out = subprocess.run([rtmb_bin, "run", str(path), "--t-end", repr(t_end), "--quiet"],
                         check=True, capture_output=True, text=True).stdout
    cli = json.loads(out.strip().splitlines()[-1])
    assert cli["steps"] == STEPS
    sim = rtmb.Simulation(model)
    assert sim.step(STEPS) == STEPS
    assert np.array_equal(sim.q, np.array(cli["q"])), path.name
    assert np.array_equal(sim.v, np.array(cli["v"])), path.name
    assert sim.t == cli["t"]
