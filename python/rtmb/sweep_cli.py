# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: rtmb developers
"""`rtmb sweep` (and ``python3 -m rtmb.sweep_cli``): rtmb.sweep for users who do not write Python.

The C++ program's `sweep` subcommand (apps/rtmb/sweep_command.cpp) replaces itself with this
module, so both take the same arguments and give the same exit codes: 0 when every run worked,
1 when some row has an error (the CSV still has every row), 2 for bad arguments.
"""
from __future__ import annotations

import argparse
import sys

DESCRIPTION = """\
Runs MODEL once per parameter set on a Dask cluster and writes one CSV row per set (the
parameters, state and outputs at --t-end, max drift, energy error, flags, wall time, error).

Each --set KEY=VALUES sweeps one model-file key path (docs/model-format.md, "Overrides");
several --set sweep every combination (the first varies slowest). VALUES is
  A:B:N     N evenly spaced values from A to B, both included (0.5:2.0:16)
  X,Y,...   the listed values (numbers or words: rk4,dopri5)
  X         one value ([X, Y] is one sequence value, as in the model file)
Without --scheduler the runs go to a LocalCluster of this machine (--workers processes);
with --scheduler tcp://HOST:8786 to a running Dask cluster (docs/scale-out.md)."""

EXAMPLE = """\
example:
  rtmb sweep configs/four_bar.yaml --set "bodies[1].mass=0.5:2.0:16" --t-end 5 --out sweep.csv"""


def _value(text: str):
    """A number when the text is one (int before float), else the text itself."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def parse_values(spec: str) -> list:
    """The values of one --set: A:B:N, X,Y,... or X (see DESCRIPTION)."""
    if spec.startswith("["):
        # one YAML sequence, e.g. forces[0].vector=[0, -1.62]: its commas are not a list of values
        return [spec]
    parts = spec.split(":")
    if len(parts) == 3:
        try:
            a, b, n = float(parts[0]), float(parts[1]), int(parts[2])
        except ValueError:
            raise ValueError(f"'{spec}' is not A:B:N (numbers A and B, a count N)") from None
        if n < 1:
            raise ValueError(f"'{spec}': the count N must be >= 1")
        if n == 1:
            return [a]
        # a + i (b - a) / (n - 1), with the end point exactly b (as numpy.linspace does)
        return [a + i * (b - a) / (n - 1) for i in range(n - 1)] + [b]
    return [_value(v.strip()) for v in spec.split(",")]


def parse_set(text: str) -> tuple[str, list]:
    key, sep, spec = text.partition("=")
    if not sep or not key.strip() or not spec.strip():
        raise ValueError(f"--set '{text}' is not KEY=VALUES")
    return key.strip(), parse_values(spec.strip())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="rtmb sweep",
        description=DESCRIPTION,
        epilog=EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("model", help="model file (configs/*.yaml)")
    parser.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="KEY=VALUES",
        help="a key path and its values (repeatable)",
    )
    parser.add_argument("--t-end", type=float, required=True, help="end time of every run [s]")
    parser.add_argument("--out", default="-", help="CSV file to write (default: - for stdout)")
    parser.add_argument("--scheduler", help="Dask scheduler address, e.g. tcp://HOST:8786")
    parser.add_argument(
        "--workers", type=int, default=2, help="LocalCluster processes (default 2)"
    )
    parser.add_argument("--batch-size", type=int, help="runs per Dask task (default: automatic)")
    parser.add_argument(
        "--metrics", help="comma-separated columns to keep (default: all)"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress line on stderr")
    args = parser.parse_args(argv)

    try:
        grid = dict(parse_set(s) for s in args.sets)
        if args.workers < 1:
            raise ValueError("--workers must be >= 1")
        if args.batch_size is not None and args.batch_size < 1:
            raise ValueError("--batch-size must be >= 1")
        with open(args.model):
            pass
    except (ValueError, OSError) as e:
        print(f"rtmb sweep: {e}", file=sys.stderr)
        return 2

    from .sweeps import sweep

    try:
        frame = sweep(
            args.model,
            grid=grid if grid else None,
            samples=None if grid else [{}],
            t_end=args.t_end,
            metrics=args.metrics.split(",") if args.metrics else None,
            scheduler=args.scheduler,
            progress=not args.no_progress,
            n_workers=args.workers,
            batch_size=args.batch_size,
        )
    except ValueError as e:
        print(f"rtmb sweep: {e}", file=sys.stderr)
        return 2
    frame.to_csv(sys.stdout if args.out == "-" else args.out, index=False)
    failed = int((frame["error"].fillna("") != "").sum())
    print(
        f"rtmb sweep: {len(frame)} runs, {failed} failed"
        + ("" if args.out == "-" else f", written to {args.out}"),
        file=sys.stderr,
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
