# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: rtmb developers
"""Physics through the Python API: each expected value comes from mechanics or a published
reference, never from the code under test."""
import math

import numpy as np
import pytest

import rtmb
from conftest import CONFIGS


def upward_crossings(times, x):
    """Times where x crosses zero upwards, by linear interpolation between samples."""
    out = []
    for i in range(1, len(x)):
        if x[i - 1] < 0.0 <= x[i]:
            out.append(times[i - 1] + (times[i] - times[i - 1]) * -x[i - 1] / (x[i] - x[i - 1]))
    return np.array(out)


def test_small_amplitude_pendulum_period():
    # the built-in point-mass pendulum (l = 1 m, g = 9.81 m/s^2) released at 0.05 rad: its period
    # is 2 pi sqrt(l/g) (1 + theta0^2/16 + ...), the first correction of the exact elliptic
    # integral; written through the q view, since the built-in starts at 60 degrees
    length, g, theta0 = 1.0, 9.81, 0.05
    sim = rtmb.Simulation(rtmb.Model.builtin("pendulum"))
    sim.q[:] = [length * math.sin(theta0), -length * math.cos(theta0)]
    sim.v[:] = 0.0
    result = sim.run(10.5)
    crossings = upward_crossings(result.times, result.q[:, 0])
    assert len(crossings) >= 4
    period = np.diff(crossings).mean()
    expected = 2 * math.pi * math.sqrt(length / g) * (1 + theta0**2 / 16)
    # the next term, 11 theta0^4 / 3072, is 2e-8; RK4 at dt = 1e-3 is far below 1e-6
    assert period == pytest.approx(expected, rel=1e-6)


def test_conservative_four_bar_keeps_its_energy_and_constraints():
    # configs/four_bar.yaml: gravity and an undamped spring only, so T + V is constant; RK4 at
    # dt = 1e-3 with Chin's post-stabilization keeps both the energy and the constraints to
    # round-off over 5 s (RK4's energy error at this step is O(dt^4) ~ 1e-12 relative per unit)
    sim = rtmb.Simulation(rtmb.load(str(CONFIGS / "four_bar.yaml")))
    result = sim.run(5.0, every=10)
    e0 = result.energy[0]
    assert np.abs(result.energy - e0).max() <= 1e-6 * abs(e0)
    assert result.drift.max() < 1e-10
    assert result.velocity_drift.max() < 1e-9
    assert sim.status["flags_seen"] == 0


def test_post_stabilization_bounds_drift_that_grows_without_it():
    # Chin's S-both2 keeps ||g|| at round-off; without a stabilizer the index-1 form drifts off
    # the constraint manifold (the reason stabilization exists, Chin 1995 ch. 3)
    stabilized = rtmb.Simulation(rtmb.load(str(CONFIGS / "slider_crank_body.yaml"))).run(5.0)
    unstabilized = rtmb.Simulation(rtmb.load(
        str(CONFIGS / "slider_crank_body.yaml"),
        overrides={"integration.stabilizer": "none"})).run(5.0)
    assert stabilized.drift.max() < 1e-10
    assert unstabilized.drift.max() > 100 * stabilized.drift.max()


def test_andrews_matches_the_test_set_reference_at_t_0_03():
    # q(0.03) of the problem "andrews" in the Test Set for IVP Solvers (Univ. Bari), the value
    # tests/engine/mechanisms/andrews_test.cpp checks the C++ engine against; RK4 at dt = 1e-5
    # lands within 1e-9 rad of it there, 1e-7 separates integrator error from a modelling error
    q_ref = np.array([0.1581077119629904e+2, -0.1575637105984298e+2, 0.4082224013073101e-1,
                      -0.5347301163226948, 0.5244099658805304, 0.5347301163226948,
                      0.1048080741042263e+1])
    sim = rtmb.Simulation(rtmb.Model.builtin("andrews", overrides={"integration.dt": 1e-5}))
    result = sim.run(0.03, every=1000)
    assert result.steps == 3000
    assert np.abs(sim.q - q_ref).max() <= 1e-7
