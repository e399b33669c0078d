#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: rtmb developers
"""Layout check: one name per concept, tests that mirror the sources, rooms of one concept.

1. Mirror. A unit test of a source file sits at the mirrored path: tests/engine/X/foo_test.cpp
   (or foo_ASPECT_test.cpp, for one aspect of foo) tests engine/X/foo.cpp or .hpp, or a header
   include/rtmb/**/foo.hpp whose implementation lives in engine/X; the same for tests/net/ (net/),
   tests/apps/ (apps/) and tests/examples/ (examples/). Tests that belong to no single file (seed
   reproductions, whole-model checks) live in tests/scenarios/; tests/alloc/ holds the
   allocation tests (one executable, its own malloc) and is not mirrored.
2. Size. No source file (C++, Python, JavaScript) above MAX_LINES lines; a file that grows past it
   usually holds two concepts. Data tables are not sources and are not counted.

Usage: scripts/check_layout.py [REPO_ROOT]; prints every problem and exits 1 if there is one.
"""
import sys
from pathlib import Path

from house_check import repo_root, report

MAX_LINES = 800
SOURCE_SUFFIXES = {".cpp", ".hpp", ".h", ".py", ".js", ".mjs"}
SOURCE_DIRS = ("engine", "net", "apps", "include", "tests", "bench", "fuzz", "scripts", "python",
               "examples", "web")
MIRRORED = ("engine", "net", "apps", "examples")

# Files allowed above MAX_LINES for now, each with its reason. Issue 13 asks for none.
SIZE_EXCEPTIONS = {
}


def mirror_problems(root: Path):
    problems = []
    headers = {p.stem for p in (root / "include" / "rtmb").rglob("*.hpp")}
    for top in MIRRORED:
        tdir = root / "tests" / top
        if not tdir.is_dir():
            continue
        for test in sorted(tdir.rglob("*_test.cpp")):
            rel = test.relative_to(root / "tests")
            folder = root / rel.parent
            stem = test.name[: -len("_test.cpp")]
            names = {p.stem for p in folder.glob("*") if p.suffix in SOURCE_SUFFIXES} \
                if folder.is_dir() else set()
            if top == "engine":
                names |= headers
            # foo_test.cpp or foo_ASPECT_test.cpp: the longest source name that stem starts with
            ok = any(stem == n or stem.startswith(n + "_") for n in names)
            if not ok:
                problems.append(f"tests/{rel.as_posix()}: no {rel.parent.as_posix()}/"
                                f"{stem}.cpp|.hpp (or a prefix of it) to mirror; a test of no "
                                f"single file belongs in tests/scenarios/")
    return problems


def size_problems(root: Path):
    problems = []
    seen = set()
    for d in SOURCE_DIRS:
        base = root / d
        if not base.is_dir():
            continue
        for p in sorted(base.rglob("*")):
            if p.suffix not in SOURCE_SUFFIXES or "node_modules" in p.parts or not p.is_file():
                continue
            rel = p.relative_to(root).as_posix()
            seen.add(rel)
            n = sum(1 for _ in p.open(encoding="utf-8", errors="replace"))
            if n > MAX_LINES and rel not in SIZE_EXCEPTIONS:
                problems.append(f"{rel}: {n} lines (at most {MAX_LINES}: split it by concept)")
    for rel in SIZE_EXCEPTIONS:
        p = root / rel
        if rel not in seen or sum(1 for _ in p.open()) <= MAX_LINES:
            problems.append(f"{rel}: size exception no longer needed, remove it")
    return problems


def main():
    root = repo_root()
    problems = mirror_problems(root) + size_problems(root)
    return report("check_layout", problems,
                  f"{len(problems)} problems, {len(SIZE_EXCEPTIONS)} size exceptions")


if __name__ == "__main__":
    sys.exit(main())
