# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: rtmb developers
"""rtmb.sweep: one offline simulation per parameter set, fanned out on Dask (issue 18).

A parameter set is a dict of model-file overrides by key path (python/README.md, "Overrides"):
``{"bodies[1].mass": 1.5, "integration.dt": 5e-4}``. The sweep sends the model file's *text* and
the parameter sets to the workers (never a path: a worker of a real cluster may not see this
machine's files), in batches; a worker runs each set of its batch from that text and returns one
row per set. docs/scale-out.md says how to go from this machine to a cluster.

Each row: the parameters, ``t`` and ``steps`` at the end, the state ``q0..``, ``v0..`` and the
named outputs at ``t_end``, ``max_position_drift`` and ``max_velocity_drift`` over every step,
``energy_error`` (the largest ``|E - E(0)|`` over the recorded rows: every step for runs of up to
``_ENERGY_ROWS`` steps, evenly spaced rows beyond), ``flags_seen`` and ``flag_names`` (the OR
of every step's flags; names comma-separated), ``ok``, ``wall_time`` [s] and ``error`` (empty
when the run worked). A run that cannot be built or run (a mass that is not positive, a joint
that cannot be assembled) is a row whose ``error`` is the engine's message: a sweep never loses a
row and never dies of one run.

``metrics`` selects columns by name and may also hold callables ``f(result) -> dict | number``,
evaluated on the worker right after the run with its ``RunResult`` (every step for runs of up to
``_ENERGY_ROWS`` steps, evenly spaced rows beyond, always the first and the last): a dict's keys
become columns, a number is a column named after the function. An exception in one (or a value
that is not a scalar, or a column that the row already has) is that row's ``error``; the row keeps
the columns that did work.
"""
from __future__ import annotations

import itertools
import math
import numbers
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

# Beyond this many steps energy_error is sampled at about this many evenly spaced rows, so that a
# long run does not record (and hold) every state only to take one maximum.
_ENERGY_ROWS = 10_000

# Columns every successful row has after the parameters (state and outputs come in between).
_HEAD = ("t", "steps", "ok")
_TAIL = (
    "max_position_drift",
    "max_velocity_drift",
    "energy_error",
    "flags_seen",
    "flag_names",
    "wall_time",
    "error",
)


def parameter_sets(
    grid: Mapping[str, Iterable[Any]] | None = None,
    samples: Sequence[Mapping[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """The parameter sets of a sweep: the Cartesian product of ``grid`` (the first key varies
    slowest, as in nested loops written in key order) or the given ``samples``, in order."""
    if (grid is None) == (samples is None):
        raise ValueError("give exactly one of grid={key: values} or samples=[{key: value}, ...]")
    if samples is not None:
        return [dict(s) for s in samples]
    keys = list(grid)
    values = [list(grid[k]) for k in keys]
    return [dict(zip(keys, combo)) for combo in itertools.product(*values)]


# Where run_one notes which columns each metric callable gave (a list per callable, in the order
# of the callables); _frame takes it out of the row again.
_METRIC_COLUMNS = "__metric_columns__"

MetricFunction = Callable[[Any], "Mapping[str, Any] | float"]


def _scalar(value: Any) -> Any:
    """A metric's value as a plain Python scalar (NumPy scalars and 0-d arrays by .item())."""
    import numpy as np

    if isinstance(value, (np.generic, np.ndarray)):
        if np.ndim(value) != 0:
            raise TypeError(f"not a scalar: an array of shape {np.shape(value)}")
        return value.item()
    if value is None or isinstance(value, (bool, numbers.Number, str)):
        return value
    raise TypeError(f"not a scalar: {type(value).__name__}")


def _function_name(f: MetricFunction) -> str:
    return getattr(f, "__name__", None) or type(f).__name__


def _apply_metrics(functions: Sequence[MetricFunction], result: Any, row: dict) -> list[str]:
    """Adds the columns of each metric callable applied to result to row; returns the errors."""
    errors = []
    given: list[list[str]] = []
    for f in functions:
        name = _function_name(f)
        columns: list[str] = []
        given.append(columns)
        try:
            value = f(result)
            if isinstance(value, Mapping):
                items = [(str(k), _scalar(v)) for k, v in value.items()]
            elif isinstance(value, numbers.Number) or (
                hasattr(value, "ndim") and getattr(value, "ndim") == 0
            ):
                if name == "<lambda>":
                    raise TypeError(
                        "a lambda that returns a number has no column name: "
                        "return {column: value} or def a named function"
                    )
                items = [(name, _scalar(value))]
            else:
                raise TypeError(
                    f"returned {type(value).__name__}: a number or a dict {{column: value}}"
                )
            taken = [k for k, _ in items if k in row or k in _TAIL or k == _METRIC_COLUMNS]
            if taken:
                raise ValueError(f"column {taken[0]!r} is already a column of the row")
        except Exception as e:  # noqa: BLE001  (a failing metric is that row's error)
            errors.append(f"metric {name}: {type(e).__name__}: {e}")
            continue
        for k, v in items:
            row[k] = v
            columns.append(k)
    row[_METRIC_COLUMNS] = given
    return errors


def run_one(
    model_text: str,
    path: str,
    params: Mapping[str, Any],
    t_end: float,
    metrics: Sequence[MetricFunction] = (),
) -> dict:
    """One run of the model file text with params as overrides: its row (module docstring), with
    the columns of the metric callables ``metrics`` applied to its RunResult. Never raises for a
    bad parameter set or a failing metric; the row carries the error instead."""
    import numpy as np

    from . import _rtmb  # the workers import the package by name; rtmb must be importable there

    start = time.perf_counter()
    row: dict[str, Any] = dict(params)
    try:
        model = _rtmb.loads(model_text, path, overrides=dict(params))
        sim = _rtmb.Simulation(model)
        steps = max(0, math.ceil(t_end / model.dt - 1e-9))
        every = max(1, math.ceil(steps / _ENERGY_ROWS))
        result = sim.run(t_end, every=every)
        status = sim.status
        row["t"] = sim.t
        row["steps"] = result.steps
        row["ok"] = bool(result.ok)
        for i, x in enumerate(sim.q):
            row[f"q{i}"] = float(x)
        for i, x in enumerate(sim.v):
            row[f"v{i}"] = float(x)
        for name in sim.outputs:
            # a model without named outputs announces q0.., v0..: the same values, kept once
            if name not in row:
                row[name] = float(sim.outputs[name])
        # NaN where the engine has no energy for a step (python/src/run.cpp): left out, and
        # NaN altogether when E(0) itself is undefined
        energy = result.energy
        finite = energy[np.isfinite(energy)]
        row["max_position_drift"] = status["max_position_drift"]
        row["max_velocity_drift"] = status["max_velocity_drift"]
        row["energy_error"] = (
            float(np.max(np.abs(finite - energy[0])))
            if math.isfinite(energy[0])
            else math.nan
        )
        row["flags_seen"] = int(result.flags_seen)
        row["flag_names"] = _rtmb.flag_names(int(result.flags_seen))
        row["error"] = "; ".join(_apply_metrics(metrics, result, row)) if metrics else ""
    except Exception as e:  # noqa: BLE001  (any failure of one run is that run's row)
        row["error"] = f"{type(e).__name__}: {e}"
    row["wall_time"] = time.perf_counter() - start
    return row


def run_batch(
    model_text: str,
    path: str,
    batch: Sequence[Mapping[str, Any]],
    t_end: float,
    metrics: Sequence[MetricFunction] = (),
):
    """The rows of one batch, in order (what a Dask task runs)."""
    return [run_one(model_text, path, params, t_end, metrics) for params in batch]


def _split_metrics(
    metrics: Sequence[str | MetricFunction] | None,
) -> list[MetricFunction]:
    """The callables among metrics (checked: each item a column name or a callable)."""
    if metrics is None:
        return []
    if isinstance(metrics, str) or callable(metrics):
        raise TypeError("metrics is a list: [column name or callable, ...]")
    for m in metrics:
        if not isinstance(m, str) and not callable(m):
            raise TypeError(f"a metric is a column name or a callable f(result), not {m!r}")
    return [m for m in metrics if not isinstance(m, str)]


def _frame(
    rows: list[dict], params: list[dict], metrics: Sequence[str | MetricFunction] | None
):
    import pandas as pd

    # each metric callable's columns, in the order they first appear
    functions = [m for m in metrics or () if not isinstance(m, str)]
    given: list[list[str]] = [[] for _ in functions]
    for r in rows:
        for i, columns in enumerate(r.pop(_METRIC_COLUMNS, ())):
            given[i].extend(c for c in columns if c not in given[i])
    custom = {c for columns in given for c in columns}

    keys = list(dict.fromkeys(k for p in params for k in p))
    fixed = set(keys) | set(_HEAD) | set(_TAIL) | custom
    middle = list(dict.fromkeys(k for r in rows for k in r if k not in fixed))
    columns = keys + list(_HEAD) + middle + list(_TAIL)
    if metrics is not None:
        names = [m for m in metrics if isinstance(m, str)]
        unknown = [m for m in names if m not in columns]
        if unknown and any(not r["error"] for r in rows):
            raise ValueError(f"unknown metrics {unknown}; the columns are {columns}")
        selected: list[str] = []
        functions_seen = 0
        for m in metrics:
            if isinstance(m, str):
                selected.append(m)
            else:
                selected.extend(given[functions_seen])
                functions_seen += 1
        columns = keys + [c for c in selected if c not in keys] + ["error"]
    return pd.DataFrame(rows, columns=list(dict.fromkeys(columns)))


class _Progress:
    """A one-line count on stderr, or the caller's callable(done, total), or nothing."""

    def __init__(self, progress: bool | Callable[[int, int], None], total: int):
        self.callback = progress if callable(progress) else None
        self.show = progress is True
        self.total = total
        self.done = 0
        self.start = time.monotonic()

    def add(self, n: int) -> None:
        self.done += n
        if self.callback is not None:
            self.callback(self.done, self.total)
        if self.show:
            elapsed = time.monotonic() - self.start
            sys.stderr.write(f"\rsweep: {self.done}/{self.total} runs, {elapsed:.1f} s")
            if self.done == self.total:
                sys.stderr.write("\n")
            sys.stderr.flush()


def sweep(
    model_file: str | Path,
    grid: Mapping[str, Iterable[Any]] | None = None,
    samples: Sequence[Mapping[str, Any]] | None = None,
    t_end: float = 1.0,
    metrics: Sequence[str | MetricFunction] | None = None,
    client=None,
    scheduler: str | None = None,
    progress: bool | Callable[[int, int], None] = True,
    n_workers: int = 2,
    batch_size: int | None = None,
):
    """Runs model_file once per parameter set on Dask; returns a pandas DataFrame, one row per set
    in the order of the sets (``to_csv`` it to keep it).

    grid={key path: values} sweeps the Cartesian product, samples=[{key path: value}, ...] the
    given sets. metrics selects columns (default: all; the parameters and ``error`` always stay):
    built-in column names, and callables f(result) -> dict | number evaluated on the workers on
    each run's RunResult, whose values become columns (module docstring; an exception in one is
    that row's error). A callable travels to the workers pickled by value if it is defined in
    ``__main__`` or inside a function, else by reference to its module, which the workers must
    then be able to import (docs/scale-out.md).
    The cluster is ``client`` (a dask.distributed Client), else the scheduler at ``scheduler``
    ("tcp://HOST:8786"), else a LocalCluster of this machine: n_workers processes of one thread
    each, closed again at the end. batch_size is the runs per task (default: about four tasks
    per worker). progress: True a count on stderr, False nothing, or a callable(done, total).
    """
    from distributed import Client, LocalCluster, as_completed

    if not t_end > 0 or not math.isfinite(t_end):
        raise ValueError("t_end must be finite and > 0")
    params = parameter_sets(grid, samples)
    functions = _split_metrics(metrics)
    path = str(model_file)
    model_text = Path(model_file).read_text()

    own_cluster = None
    own_client = None
    if client is None:
        if scheduler is not None:
            client = own_client = Client(scheduler)
        else:
            own_cluster = LocalCluster(
                n_workers=n_workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",
            )
            client = own_client = Client(own_cluster)
    try:
        workers = max(1, len(client.scheduler_info().get("workers", {})) or n_workers)
        size = batch_size or max(1, math.ceil(len(params) / (4 * workers)))
        batches = [params[i : i + size] for i in range(0, len(params), size)]
        futures = [
            # pure=False: two equal batches are two tasks (their wall times differ)
            client.submit(run_batch, model_text, path, batch, t_end, functions, pure=False)
            for batch in batches
        ]
        index = {f.key: i for i, f in enumerate(futures)}
        results: list[list[dict] | None] = [None] * len(batches)
        bar = _Progress(progress, len(params))
        for future in as_completed(futures):
            i = index[future.key]
            try:
                results[i] = future.result()
            except Exception as e:  # noqa: BLE001  (a task Dask gave up on: its runs' rows)
                # e.g. KilledWorker after the batch crashed its worker more than
                # distributed.scheduler.allowed-failures times
                results[i] = [
                    dict(p, error=f"{type(e).__name__}: {e}") for p in batches[i]
                ]
            bar.add(len(batches[i]))
        rows = [row for batch_rows in results for row in batch_rows]
    finally:
        if own_client is not None:
            own_client.close()
        if own_cluster is not None:
            own_cluster.close()
    return _frame(rows, params, metrics)
