#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: rtmb developers
"""Sweep throughput (issue 18, acceptance 5): rtmb.sweep with 1 and 2 Dask workers against a plain
serial loop over the same runs, on this machine. Timing lives here, not in the tests.

For each configuration it prints the wall time of the runs on an already started cluster (the
steady-state throughput), the cluster's start-up separately, runs per second, the speed-up over
the serial loop and the per-run overhead ((workers * time - serial time) / runs: what Dask,
the transfer and the per-run model parse cost beyond the simulation itself).

Usage (from the repository root, after ninja -C build rtmb_python):
  PYTHONPATH=build/python /usr/bin/python3 scripts/sweep_bench.py [--runs 64] [--t-end 2]
"""
import argparse
import time
from pathlib import Path

import distributed

import rtmb
from rtmb.sweeps import run_one


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="configs/four_bar.yaml")
    parser.add_argument("--runs", type=int, default=64)
    parser.add_argument("--t-end", type=float, default=2.0)
    parser.add_argument("--repeat", type=int, default=2, help="best of this many")
    args = parser.parse_args()

    samples = [{"bodies[1].mass": 1.0 + i / args.runs} for i in range(args.runs)]
    text = Path(args.model).read_text()

    serial = float("inf")
    for _ in range(args.repeat):
        start = time.perf_counter()
        rows = [run_one(text, args.model, p, args.t_end) for p in samples]
        serial = min(serial, time.perf_counter() - start)
    assert all(r["error"] == "" for r in rows)
    steps = rows[0]["steps"]
    print(f"{args.runs} runs of {args.model} to t = {args.t_end} s ({steps} steps each)")
    print(f"serial loop      : {serial:7.3f} s  {args.runs / serial:8.1f} runs/s")

    for workers in (1, 2):
        start = time.perf_counter()
        cluster = distributed.LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0"
        )
        client = distributed.Client(cluster)
        client.run(lambda: __import__("rtmb"))  # import rtmb on every worker before timing
        startup = time.perf_counter() - start
        best = float("inf")
        for _ in range(args.repeat):
            start = time.perf_counter()
            frame = rtmb.sweep(
                args.model, samples=samples, t_end=args.t_end, client=client, progress=False
            )
            best = min(best, time.perf_counter() - start)
        assert (frame["error"] == "").all()
        client.close()
        cluster.close()
        overhead = (workers * best - serial) / args.runs
        print(
            f"sweep, {workers} worker{'s' if workers > 1 else ' '}: {best:7.3f} s  "
            f"{args.runs / best:8.1f} runs/s  speed-up {serial / best:4.2f}  "
            f"overhead {overhead * 1e3:6.2f} ms/run  (cluster start {startup:.2f} s)"
        )


if __name__ == "__main__":
    main()
