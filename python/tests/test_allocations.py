# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: rtmb developers
"""Stepping from Python allocates nothing per step inside the engine.

The C++ allocation counter (tests/support/alloc_counter.cpp, the one tests/alloc uses) is
preloaded into a fresh interpreter (RTMB_ALLOC_PRELOAD, built as rtmb_alloc_preload), where it
replaces malloc, calloc, realloc, the aligned allocators and operator new/delete for every
library, the rtmb module included, and counts the calling thread's heap calls. The two windows
differ only in the number of steps (1000 more), so any per-step allocation shows up as >= 1000
extra calls in every trial; the interpreter's own calls (the same in both windows, save a rare
new arena of its small-object allocator) cancel out, hence the minimum over a few trials.
"""
import os
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = r"""
import ctypes, sys
import rtmb
lib = ctypes.CDLL(None)
lib.rtmb_alloc_scope_open.restype = ctypes.c_void_p
lib.rtmb_alloc_scope_counts.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint64),
                                        ctypes.POINTER(ctypes.c_uint64)]
lib.rtmb_alloc_scope_close.argtypes = [ctypes.c_void_p]
allocs, frees = ctypes.c_uint64(), ctypes.c_uint64()
a_ref, f_ref = ctypes.byref(allocs), ctypes.byref(frees)

def count(sim, n):
    scope = lib.rtmb_alloc_scope_open()
    sim.step(n)
    lib.rtmb_alloc_scope_counts(scope, a_ref, f_ref)
    lib.rtmb_alloc_scope_close(scope)
    return allocs.value

sim = rtmb.Simulation(rtmb.load(sys.argv[1]))
sim.step(1001)  # warm up: Adams histories, first-use buffers
diffs = [count(sim, 2001) - count(sim, 1001) for _ in range(5)]
print(min(diffs), max(diffs))
"""


@pytest.mark.parametrize("config", ["four_bar.yaml", "five_bar.yaml", "arm6.yaml"])
def test_steps_make_no_heap_calls(config, repo):
    preload = os.environ.get("RTMB_ALLOC_PRELOAD")
    if not preload or not Path(preload).is_file():
        pytest.fail("RTMB_ALLOC_PRELOAD must name the built rtmb_alloc_preload library "
                    "(ctest sets it; ninja rtmb_alloc_preload)")
    env = dict(os.environ, LD_PRELOAD=preload)
    out = subprocess.run([sys.executable, "-c", PROBE, str(repo / "configs" / config)],
                         env=env, check=True, capture_output=True, text=True).stdout
    smallest, largest = (int(x) for x in out.split())
    assert smallest == 0, f"1000 more steps made {smallest}..{largest} more heap calls"
