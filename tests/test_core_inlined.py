"""A kernel compiled for a run's strategy files (``simulator.core.contract.inlined``): its numba type names the files' content,
so an edit is a new kernel and the same files find the cached one; which kernel a run takes; and a file whose
functions need numba's reference counting stays behind the table. (Its rows against the built-in's and the
reference engine's, its checks and its faults: tests/test_user_strategies.py, in both kernels.)"""

from __future__ import annotations

import shutil
from pathlib import Path

import numba
import numpy as np
import pytest

from simulator.core.contract.game import seats_of
from simulator.core.contract.inlined import ENV, INLINE_FROM_HANDS, InlinedStrategies, InlinedType, inlinable
from simulator.core.contract.seats import kernel_seats
from simulator.core.errors import SpecError
from simulator.core.storage.spec import build_spec
import simulator.games  # noqa: F401  (registers the games)
from simulator.kamoul.engines.counterfactual import _rollout_blocks as ROLLOUT
from simulator.kamoul.engines.kernels import simulate as KERNEL
from strategies.kamoul.policy import CONTRACT

ROOT = Path(__file__).resolve().parents[1]
COPY = ROOT / "examples" / "kamoul_balanced_copy.py"
NEVER_CONTRE = ROOT / "examples" / "kamoul_never_contre.py"


def _files(*references):
    strategies = [*references, *["balanced"] * (4 - len(references))]
    spec = build_spec("kamoul", n=10, seed=1, players=4, strategies=strategies)
    return seats_of(spec), [s.user for s in seats_of(spec) if s.user is not None]


def test_the_type_names_the_files_content_so_equal_files_share_a_kernel_and_an_edit_does_not(tmp_path):
    _, copy = _files(f"{COPY}:balanced-copy")
    _, same = _files(f"{COPY}:balanced-copy")
    _, two = _files(f"{COPY}:balanced-copy", f"{NEVER_CONTRE}:never-contre")
    edited_path = tmp_path / "copy.py"
    shutil.copy(COPY, edited_path)
    _, before = _files(f"{edited_path}:balanced-copy")
    edited_path.write_text(COPY.read_text() + "\n# edited\n")
    _, edited = _files(f"{edited_path}:balanced-copy")
    types = {name: numba.typeof(InlinedStrategies(CONTRACT, s))
             for name, s in (("copy", copy), ("same", same), ("two", two), ("before", before), ("edited", edited))}
    assert all(isinstance(t, InlinedType) for t in types.values())
    assert types["copy"] == types["same"]  # numba's cache key: the next process finds the compiled kernel
    assert types["copy"] != types["two"] and types["before"] != types["edited"]  # new files or an edit: a compile


def test_a_run_takes_the_table_unless_a_kernel_is_compiled_for_its_files_asked_or_worth_it(monkeypatch, tmp_path):
    monkeypatch.setenv("CARDSIM_CACHE_DIR", str(tmp_path / "cache"))
    seats, strategies = _files(f"{COPY}:balanced-copy")
    table, inlined = np.ndarray, InlinedStrategies

    def user(kernel=KERNEL, hands=1000):
        return kernel_seats(seats, kernel, hands).user

    monkeypatch.delenv(ENV, raising=False)
    assert isinstance(user(), table)  # auto, a short run: the table, no compile
    assert isinstance(user(hands=INLINE_FROM_HANDS), inlined)  # auto, a long run: the compile pays
    assert isinstance(user(kernel=None, hands=INLINE_FROM_HANDS), table)  # a kernel that always takes the table
    InlinedStrategies(CONTRACT, strategies).mark_compiled(KERNEL)
    assert isinstance(user(), inlined)  # compiled on this machine before: taken for any run
    assert isinstance(user(kernel=ROLLOUT), table)  # another kernel: not compiled for the files
    marker = InlinedStrategies(CONTRACT, strategies).compiled_marker(KERNEL)
    stamp = marker.read_text()
    marker.write_text(stamp.replace("numba", "numba 0.0"))  # another numba, or the kernel's file touched since
    assert isinstance(user(), table)  # numba's cache would not hold it any more: no surprise compile
    marker.write_text(stamp)
    monkeypatch.setenv(ENV, "table")
    assert isinstance(user(hands=INLINE_FROM_HANDS), table)
    monkeypatch.setenv(ENV, "inlined")
    InlinedStrategies(CONTRACT, strategies).compiled_marker(KERNEL).unlink()
    assert isinstance(user(), inlined)  # asked for
    monkeypatch.setenv(ENV, "fast")
    with pytest.raises(SpecError, match=f"{ENV}.*fast.*auto, table, inlined"):
        user()


ALLOCATES = '''
import numpy as np
from numba import njit

from examples_copy import *  # noqa: F401,F403


@njit
def estimate(prm, view):
    seen = np.zeros(view.occ.shape[1], dtype=np.int64)  # an allocation: needs numba's reference counting
    return float(seen.sum()), 0


ALLOCATING = strategy(
    game="kamoul", name="allocating", params=PARAMS, doc="balanced, but its estimate allocates",
    peeks=peeks, turn=turn, take_slot=take_slot, keep=keep, power=power, king_swap=king_swap, snap=snap,
    estimate=estimate, forget=forget, memory_noise=memory_noise, speed=speed,
)
'''


def test_a_file_whose_function_allocates_stays_behind_the_table(monkeypatch, tmp_path):
    shutil.copy(COPY, tmp_path / "examples_copy.py")
    (tmp_path / "allocating.py").write_text(ALLOCATES)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv(ENV, "inlined")
    seats, strategies = _files(f"{tmp_path / 'allocating.py'}:allocating")
    assert not inlinable(CONTRACT, strategies)
    assert isinstance(kernel_seats(seats, KERNEL, 10).user, np.ndarray)
    _, copy = _files(f"{COPY}:balanced-copy")
    assert inlinable(CONTRACT, copy)
