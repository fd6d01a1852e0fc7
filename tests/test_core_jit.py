"""The numba cache key follows each jitted module's own imports, so stale machine code is never loaded."""

from __future__ import annotations

from pathlib import Path

from simulator.core.kernels import jit

ROOT = Path(jit.__file__).resolve().parents[3]


def test_kernel_cache_key_covers_every_module_it_calls_or_reads_constants_from():
    closure = {p.relative_to(ROOT).as_posix() for p in jit.module_closure(ROOT / "simulator/kamoul/engines/kernels.py")}
    for needed in ("simulator/kamoul/engines/kernels.py", "simulator/core/kernels/rng.py", "simulator/kamoul/vocabulary/codes.py",
                   "simulator/kamoul/vocabulary/rules.py", "simulator/kamoul/vocabulary/records.py", "strategies/kamoul/policy.py",
                   "strategies/kamoul/heuristic.py", "strategies/kamoul/random_play.py", "simulator/kamoul/vocabulary/views.py"):
        assert needed in closure
    for unrelated in ("simulator/kamoul/engines/reference.py", "cardsim.py", "cli.py", "simulator/rami/vocabulary/melds.py"):
        assert unrelated not in closure


def test_cache_dir_changes_when_a_dependency_changes(tmp_path, monkeypatch):
    from simulator.kamoul.engines import kernels

    before = jit.cache_dir_for(kernels.simulate.py_func)
    heuristic = ROOT / "strategies/kamoul/heuristic.py"

    def edited(self):
        with open(self, "rb") as f:
            data = f.read()
        return data + b"# edited" if self == heuristic else data

    monkeypatch.setattr(Path, "read_bytes", edited)
    jit._closure_digest.cache_clear()
    try:
        assert jit.cache_dir_for(kernels.simulate.py_func) != before
    finally:
        monkeypatch.undo()
        jit._closure_digest.cache_clear()
    assert jit.cache_dir_for(kernels.simulate.py_func) == before
