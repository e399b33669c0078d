# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: rtmb developers
"""What the house checks (check_layers.py, check_layout.py) share: the repository root they are
given, and how they report (every problem on its own line, then a summary; exit status 1 if there
is a problem)."""
import sys
from pathlib import Path


def repo_root() -> Path:
    """The first argument, or the repository this script lives in."""
    return Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent)


def report(name: str, problems, summary: str) -> int:
    """Prints the problems and `name: summary`; returns the exit status."""
    for p in problems:
        print(p)
    print(f"{name}: {summary}")
    return 1 if problems else 0
