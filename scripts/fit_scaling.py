#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: rtmb developers
"""Fit the exponent of step time vs body count from bench/sparse_step_bench.cpp's JSON output.

    python3 scripts/fit_scaling.py scaling.json [--family planar_loop] [--min-n 10]

For every BM_ChainStep/<family>/<solver>/<monitor>/<N> series it prints the time per step and per
body (CPU and wall; the median aggregate when the run had --benchmark_repetitions, else the
single run), then fits log t = a + p log N by least squares over N >= --min-n and prints the
exponent p. The issue-4 acceptance (planar_loop, sparse, monitor on): p <= 1.15 and <= 0.5 us per
body at N = 1000; the issue-17 acceptance (particle_beam, sparse, monitor on, N = 25 .. 200
elements): p <= 1.15; the issue-19 acceptance (joint_space_loop, tree, monitor on, N = 10 .. 100
links of a pinned spatial chain in joint space): p <= 1.15. The exit code is 1 when one is missed.
Other families (spatial_loop) are reported with their exponent only. Python standard library only.
"""
import argparse
import json
import math
import sys
from collections import defaultdict

UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def load(path):
    with open(path) as f:
        data = json.load(f)
    series = defaultdict(dict)  # (family, solver, monitor) -> N -> (cpu_ns, wall_ns)
    have_median = any(b.get("aggregate_name") == "median" for b in data["benchmarks"])
    for b in data["benchmarks"]:
        name = b.get("run_name", b["name"])
        if not name.startswith("BM_ChainStep/"):
            continue
        if have_median and b.get("aggregate_name") != "median":
            continue
        if b.get("error_occurred"):
            continue
        _, family, solver, monitor, n = name.split("/")[:5]
        scale = UNIT_NS[b.get("time_unit", "ns")]
        series[(family, solver, monitor)][int(n)] = (b["cpu_time"] * scale,
                                                     b["real_time"] * scale)
    return series, have_median


def fit(points):
    """Least-squares slope and intercept of y = a + p x."""
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    sxy = sum((x - mx) * (y - my) for x, y in points)
    p = sxy / sxx
    return p, my - p * mx


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json")
    ap.add_argument("--family", default=None, help="only this system family")
    ap.add_argument("--min-n", type=int, default=10, help="smallest N in the fit")
    ap.add_argument("--max-exponent", type=float, default=1.15)
    ap.add_argument("--max-us-per-body", type=float, default=0.5)
    args = ap.parse_args()
    series, have_median = load(args.json)
    if not series:
        sys.exit("no BM_ChainStep results in " + args.json)
    print("times: %s" % ("median of repetitions" if have_median else "single run"))
    ok = True
    for (family, solver, monitor), by_n in sorted(series.items()):
        if args.family and family != args.family:
            continue
        print("\n%s / %s / %s" % (family, solver, monitor))
        print("  %6s %14s %14s %12s %12s" % ("N", "cpu us/step", "wall us/step",
                                             "cpu ns/body", "wall ns/body"))
        for n in sorted(by_n):
            cpu, wall = by_n[n]
            print("  %6d %14.2f %14.2f %12.1f %12.1f" % (n, cpu / 1e3, wall / 1e3, cpu / n,
                                                         wall / n))
        pts = [(n, t) for n, t in sorted(by_n.items()) if n >= args.min_n]
        if len(pts) < 2:
            continue
        p_cpu, _ = fit([(math.log(n), math.log(t[0])) for n, t in pts])
        p_wall, _ = fit([(math.log(n), math.log(t[1])) for n, t in pts])
        print("  exponent (N >= %d): cpu %.3f, wall %.3f" % (args.min_n, p_cpu, p_wall))
        # the acceptance is stated for the planar pinned chain; other families are reported
        if solver == "sparse" and monitor == "monitor" and family == "planar_loop":
            per_body = by_n.get(1000, (float("nan"),) * 2)[0] / 1000.0 / 1e3
            good = p_cpu <= args.max_exponent and per_body <= args.max_us_per_body
            print("  acceptance (exponent <= %.2f, <= %.2f us/body at N = 1000): %s "
                  "(cpu %.3f us/body)" % (args.max_exponent, args.max_us_per_body,
                                          "PASS" if good else "FAIL", per_body))
            ok = ok and good
        if solver == "sparse" and monitor == "monitor" and family == "particle_beam":
            good = p_cpu <= args.max_exponent
            print("  acceptance (issue 17: exponent <= %.2f): %s" %
                  (args.max_exponent, "PASS" if good else "FAIL"))
            ok = ok and good
        if solver == "tree" and monitor == "monitor" and family == "joint_space_loop":
            good = p_cpu <= args.max_exponent
            print("  acceptance (issue 19: exponent <= %.2f): %s" %
                  (args.max_exponent, "PASS" if good else "FAIL"))
            ok = ok and good
    # crossover: smallest N where the fast solver (sparse; tree for joint-space trees) beats dense
    # (monitor on)
    for (family, solver, monitor), by_n in sorted(series.items()):
        if solver != "dense" or monitor != "monitor":
            continue
        fast_name = "tree" if (family, "tree", monitor) in series else "sparse"
        fast = series.get((family, fast_name, monitor), {})
        common = sorted(set(by_n) & set(fast))
        faster = [n for n in common if fast[n][0] < by_n[n][0]]
        print("\n%s: %s faster than dense (cpu) at N = %s; dense/%s time ratio: %s" %
              (family, fast_name, faster, fast_name,
               ", ".join("N=%d %.2f" % (n, by_n[n][0] / fast[n][0]) for n in common)))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
