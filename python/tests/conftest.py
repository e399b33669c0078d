# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: rtmb developers
"""Shared paths for the rtmb package tests (run by ctest as Python.pytest, python/CMakeLists.txt).

The package is imported from the build tree (PYTHONPATH=build/python); RTMB_BIN names the rtmb
command-line program of the same build, for the bit-for-bit comparison with `rtmb run`.
"""
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CONFIGS = REPO / "configs"


@pytest.fixture
def repo():
    return REPO


@pytest.fixture
def rtmb_bin():
    path = os.environ.get("RTMB_BIN", str(REPO / "build" / "bin" / "rtmb"))
    if not Path(path).is_file():
        pytest.fail(f"the rtmb program is not at {path}; build it (ninja rtmb) or set RTMB_BIN")
    return path
