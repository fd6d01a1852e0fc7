"""Compile cost is guarded like speed is: a deterministic proxy of each kernel family's compile, the size of the
object code numba caches for its entry kernel (built-in strategies), must stay under a stated ceiling.

Compile time follows the code LLVM optimises: forced inlining, one copy of a helper per caller and every decision
path compiled into the hot kernel grow the object code and the compile together (docs/architecture.md, "Compile
times"). The sizes are those of this test suite's build (LLVM ``-O1``, ``scripts/dev.py``) with numba 0.68; a
change that makes a family much bigger fails here with the figure, without a timed test. ``bench/compile_times.py``
measures the times themselves."""

from __future__ import annotations

import os

import numba
import pytest

from simulator.core.storage.spec import build_spec
import simulator.games  # noqa: F401
from simulator.games import get_game

CEILING_KB = {"kamoul": 1325, "kamoul-rollouts": 1180, "rami": 1645, "kems": 875}
"""Each family's ceiling: 1.25 times its size at 9b95f9b (kamoul 1,059 KB, rollouts 943 KB, rami 1,315 KB, kems
699 KB), so that only a real growth fails: a second copy of the hand (``play_hand`` duplicated, called on odd hands)
made the Kamoul kernel 1,424 KB and failed here."""


def builtin_signatures(dispatcher) -> list:
    """The signatures of ``dispatcher`` loaded in this process for built-in strategies (not the table of a user's
    file, nor a kernel compiled for files)."""
    return [s for s in dispatcher.signatures
            if "InlinedStrategies" not in str(s) and "Array(uint64, 3" not in str(s)]


def object_code_kb(dispatcher, signature) -> float:
    """The size of the object code numba's cache holds for ``dispatcher`` at ``signature`` (KB)."""
    cache_file = dispatcher._cache._cache_file
    for key, name in cache_file._load_index().items():
        if key[0] == tuple(signature):
            return os.path.getsize(os.path.join(cache_file._cache_path, name)) / 1024
    raise AssertionError(f"{dispatcher.py_func.__qualname__}{signature} is not in numba's on-disk cache")


def loaded(family: str):
    """The family's entry kernel, compiled or loaded by one small call with the built-in strategies."""
    if family == "kamoul-rollouts":
        from simulator.kamoul.engines import counterfactual

        counterfactual.warm()
        return counterfactual._rollout_blocks
    plugin = get_game(family)
    plugin.simulate_chunk(build_spec(family, n=1, seed=0, level=plugin.levels[0]), 0, 1, 1)
    return __import__(f"simulator.{family}.engines.kernels", fromlist=["simulate"]).simulate


@pytest.mark.parametrize("family", list(CEILING_KB))
def test_each_kernel_family_compiles_to_no_more_than_its_ceiling(family):
    if numba.config.OPT != 1:
        pytest.fail(f"the ceilings are for the test suite's NUMBA_OPT=1 build (this is {numba.config.OPT}): "
                    "run the suite with python3 scripts/dev.py test")
    dispatcher = loaded(family)
    signatures = builtin_signatures(dispatcher)
    assert signatures, f"{family}: no built-in kernel loaded"
    size = max(object_code_kb(dispatcher, s) for s in signatures)
    assert size <= CEILING_KB[family], (
        f"{family}: the kernel's object code is {size:,.0f} KB, over its ceiling of {CEILING_KB[family]:,} KB: its "
        "compile grew with it (bench/compile_times.py measures by how much); cut it, or raise the ceiling with the "
        "measured compile time in docs/architecture.md")
