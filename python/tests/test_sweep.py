# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: rtmb developers
"""rtmb.sweep on Dask and `rtmb sweep` (issue 18, acceptance 3 and 4).

The expected values come from a plain serial loop over the public API (rtmb.load, Simulation,
run), not from the sweep's own row function, and are compared exactly: a distributed run must
give the very doubles a local run gives.
"""
import csv
import os
import signal
import subprocess

import numpy as np
import pytest

import rtmb

distributed = pytest.importorskip("distributed")

T_END = 0.05  # 50 steps of four_bar at dt = 1 ms: the runs are short, the sweep machinery is not


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    )
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def serial(path, params, t_end):
    """The expected row of one run: a loop a user would write, without Dask."""
    sim = rtmb.Simulation(rtmb.load(str(path), overrides=params))
    result = sim.run(t_end)
    return {
        "q": np.array(sim.q),
        "v": np.array(sim.v),
        "t": sim.t,
        "steps": result.steps,
        "flags_seen": result.flags_seen,
        "max_position_drift": sim.status["max_position_drift"],
        "energy_error": float(np.max(np.abs(result.energy - result.energy[0]))),
    }


def check_rows(frame, path, params, t_end):
    assert len(frame) == len(params)
    for i, p in enumerate(params):
        row = frame.iloc[i]
        for key, value in p.items():
            assert row[key] == value, (i, key)
        assert row["error"] == "", (i, row["error"])
        want = serial(path, p, t_end)
        n_q, n_v = len(want["q"]), len(want["v"])
        # exact equality: bit for bit, not approximately
        assert [row[f"q{k}"] for k in range(n_q)] == want["q"].tolist(), i
        assert [row[f"v{k}"] for k in range(n_v)] == want["v"].tolist(), i
        assert row["t"] == want["t"]
        assert row["steps"] == want["steps"]
        assert row["flags_seen"] == want["flags_seen"]
        assert row["max_position_drift"] == want["max_position_drift"]
        assert row["energy_error"] == want["energy_error"]


def test_sweep_of_100_runs_equals_a_serial_loop(repo, client):
    path = repo / "configs" / "four_bar.yaml"
    grid = {
        "bodies[1].mass": [0.5 + 0.25 * i for i in range(10)],
        "forces[1].stiffness": [5.0 * (i + 1) for i in range(10)],
    }
    params = rtmb.parameter_sets(grid=grid)
    assert len(params) == 100
    # the first key varies slowest
    assert params[1] == {"bodies[1].mass": 0.5, "forces[1].stiffness": 10.0}
    frame = rtmb.sweep(path, grid=grid, t_end=T_END, client=client, progress=False)
    check_rows(frame, path, params, T_END)
    # the runs did move the mechanism, and differently for different parameters
    assert frame["q2"].nunique() == 100


def test_a_failing_run_is_a_row_with_its_error(repo, client):
    path = repo / "configs" / "four_bar.yaml"
    samples = [
        {"bodies[1].mass": 1.5},
        {"bodies[1].mass": -1.0},  # rejected by the loader
        {"joints[3].point_i": [30.0, 0.0]},  # ground pivot D 30 m away: the loop cannot close
        {"bodies[1].mass": 2.5},
    ]
    frame = rtmb.sweep(path, samples=samples, t_end=T_END, client=client, progress=False)
    assert len(frame) == 4
    assert frame["error"].tolist()[0] == ""
    assert frame["error"].tolist()[3] == ""
    assert "bodies[1].mass" in frame["error"][1], frame["error"][1]
    assert "assembly failed" in frame["error"][2], frame["error"][2]
    assert frame["bodies[1].mass"][3] == 2.5
    check_rows(frame.iloc[[0, 3]], path, [samples[0], samples[3]], T_END)


def test_killing_a_worker_mid_sweep_loses_no_row(repo):
    path = repo / "configs" / "four_bar.yaml"
    t_end = 5.0  # long enough runs that the kill lands while most tasks are still to do
    samples = [{"bodies[1].mass": 1.0 + 0.05 * i} for i in range(24)]
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    )
    with distributed.Client(cluster) as c:
        pids = sorted(c.run(os.getpid).values())
        assert len(pids) == 2
        killed = []

        def kill_after_first(done, total):
            if not killed:
                os.kill(pids[0], signal.SIGKILL)
                killed.append((done, total))

        frame = rtmb.sweep(
            path, samples=samples, t_end=t_end, client=c, progress=kill_after_first, batch_size=1
        )
        assert killed and killed[0][0] < killed[0][1], "the kill came before the sweep ended"
        assert pids[0] not in c.run(os.getpid).values()
    cluster.close()
    check_rows(frame, path, samples, t_end)


def test_cli_writes_one_csv_row_per_parameter_set(repo, rtmb_bin, tmp_path):
    out = tmp_path / "sweep.csv"
    proc = subprocess.run(
        [
            rtmb_bin,
            "sweep",
            "configs/four_bar.yaml",
            "--set",
            "bodies[1].mass=0.5:2.0:16",
            "--t-end",
            str(T_END),
            "--out",
            str(out),
        ],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "sweep: 16/16 runs" in proc.stderr  # the progress line
    with open(out, newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 16
    masses = [float(r["bodies[1].mass"]) for r in rows]
    assert masses == pytest.approx([0.5 + 0.1 * i for i in range(16)], abs=1e-12)
    assert masses[0] == 0.5 and masses[-1] == 2.0  # the ends exactly
    assert all(r["error"] == "" for r in rows)
    want = serial(repo / "configs" / "four_bar.yaml", {"bodies[1].mass": masses[7]}, T_END)
    # CSV keeps the shortest text that reads back to the same double (pandas' repr)
    assert [float(rows[7][f"q{k}"]) for k in range(len(want["q"]))] == want["q"].tolist()


def test_cli_help_and_bad_arguments(rtmb_bin):
    help_ = subprocess.run([rtmb_bin, "sweep", "--help"], capture_output=True, text=True)
    assert help_.returncode == 0
    assert "A:B:N" in help_.stdout and "--scheduler" in help_.stdout
    bad = subprocess.run(
        [rtmb_bin, "sweep", "configs/four_bar.yaml", "--set", "mass", "--t-end", "1"],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2
    assert "KEY=VALUES" in bad.stderr


def test_cli_value_forms():
    from rtmb.sweep_cli import parse_set, parse_values

    assert parse_values("1:2:3") == [1.0, 1.5, 2.0]
    assert parse_values("7:7:1") == [7.0]
    assert parse_values("rk4, dopri5") == ["rk4", "dopri5"]
    assert parse_values("3") == [3] and isinstance(parse_values("3")[0], int)
    assert parse_values("2.5e-4") == [2.5e-4]
    assert parse_values("[0, -1.62]") == ["[0, -1.62]"]  # one sequence, not two values
    assert parse_set("bodies[1].mass=0.5,1") == ("bodies[1].mass", [0.5, 1])
    for bad in ("mass", "=1", "k="):
        with pytest.raises(ValueError):
            parse_set(bad)
    with pytest.raises(ValueError):
        parse_values("1:2:0")


def test_metric_callables_are_columns_equal_to_a_serial_loop(repo, client):
    path = repo / "configs" / "four_bar.yaml"
    samples = [{"bodies[1].mass": 0.5 + 0.25 * i} for i in range(8)]
    # E(0) grows with the coupler's mass: its median splits the runs in two
    e0 = [rtmb.Simulation(rtmb.load(str(path), overrides=p)).status["energy"] for p in samples]
    split = float(np.median(e0))
    assert min(e0) < split < max(e0)

    # defined in the test, so Dask sends them to the workers by value (cloudpickle)
    def swing(result):  # a dict: one column per key
        crank = result.q[:, 2]
        return {"swing_min": crank.min(), "swing_max": float(crank.max()), "rows": len(result)}

    def final_energy(result):  # a number: one column named after the function
        return result.energy[-1]

    def light_only(result):  # raises for the heavier half of the runs
        if result.energy[0] > split:
            raise ValueError("too heavy")
        return {"light_e0": result.energy[0]}

    runs = samples + [{"bodies[1].mass": -1.0}]  # and a run that cannot start
    frame = rtmb.sweep(
        path,
        samples=runs,
        t_end=T_END,
        metrics=["q2", swing, final_energy, light_only],
        client=client,
        progress=False,
    )
    assert list(frame.columns) == [
        "bodies[1].mass", "q2", "swing_min", "swing_max", "rows", "final_energy", "light_e0",
        "error",
    ]
    assert len(frame) == len(runs)
    raised = 0
    for i, p in enumerate(samples):
        # the serial loop: the same callables on the RunResult of a plain run
        sim = rtmb.Simulation(rtmb.load(str(path), overrides=p))
        result = sim.run(T_END)
        row = frame.iloc[i]
        assert row["q2"] == sim.q[2]
        for key, value in swing(result).items():
            assert row[key] == value, (i, key)  # bit for bit
        assert row["final_energy"] == final_energy(result)
        try:
            want = light_only(result)
        except ValueError:
            raised += 1
            # the failing metric is the row's error; the other columns are kept
            assert row["error"] == "metric light_only: ValueError: too heavy", row["error"]
            assert np.isnan(row["light_e0"])
        else:
            assert row["error"] == "", row["error"]
            assert row["light_e0"] == want["light_e0"]
    assert 0 < raised < len(samples)
    bad = frame.iloc[-1]
    assert "bodies[1].mass" in bad["error"]
    assert np.isnan(bad["swing_min"]) and np.isnan(bad["final_energy"])


def test_metric_callables_that_misbehave_are_row_errors(repo):
    from rtmb.sweeps import run_one

    path = repo / "configs" / "four_bar.yaml"
    text = path.read_text()

    def run(*metrics):
        return run_one(text, str(path), {"bodies[1].mass": 1.5}, T_END, metrics)

    assert run(lambda r: {"n": len(r)})["n"] == 51  # 50 steps and the start
    assert "return {column: value}" in run(lambda r: 1.0)["error"]  # a number without a name

    def vector(result):
        return result.q[-1]

    assert "a number or a dict" in run(vector)["error"]

    def nested(result):
        return {"q_end": result.q[-1]}

    assert "not a scalar" in run(nested)["error"]

    def clash(result):
        return {"t": 0.0}

    row = run(clash)
    assert "column 't' is already a column" in row["error"]
    assert row["t"] == pytest.approx(T_END)  # the built-in column is not overwritten

    def boom(result):
        raise ZeroDivisionError("x")

    def fine(result):
        return 2.5

    row = run(boom, fine)  # one failing metric does not stop the next
    assert row["error"] == "metric boom: ZeroDivisionError: x"
    assert row["fine"] == 2.5

    with pytest.raises(TypeError):
        rtmb.sweep(path, samples=[{}], metrics="q2")
    with pytest.raises(TypeError):
        rtmb.sweep(path, samples=[{}], metrics=[3])
