"""The reference engine's built-in decisions, compiled from generated files so that numba caches them
(``simulator.core.kernels.generated``): the same answers as the family's expressions, files keyed on what they are made of,
and a second process that loads instead of compiling."""

from __future__ import annotations

import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from simulator.core.contract.decisions import Decision
from simulator.core.kernels.generated import cached_builtins

ROOT = Path(__file__).resolve().parents[1]


def _family(tmp_path: Path, name: str, expression: str) -> types.ModuleType:
    """A family module ``name`` (registered in ``sys.modules``, its source a real file) answering ``double``."""
    source = tmp_path / f"{name}.py"
    source.write_text(f"OFFSET = 1.5\nANSWERS = {{'double': {expression!r}}}\n")
    module = types.ModuleType(name)
    module.__file__ = str(source)
    exec(source.read_text(), vars(module))
    sys.modules[name] = module
    return module


def test_the_generated_dispatch_answers_each_familys_expression_in_its_own_names(tmp_path, monkeypatch):
    monkeypatch.setenv("CARDSIM_CACHE_DIR", str(tmp_path / "cache"))
    first = _family(tmp_path, "cardsim_test_family_a", "2.0 * x + OFFSET")
    second = _family(tmp_path, "cardsim_test_family_b", "x - prm[0]")
    decisions = {"double": Decision(engine_args=("x",), user_call="x", answers="a number")}
    builtins = cached_builtins("toy", {0: first, 1: second}, decisions)
    prm = np.array([10.0])
    assert builtins["double"](0, prm, 3.0) == 7.5 and builtins["double"](1, prm, 3.0) == -7.0
    folders = list((tmp_path / "cache" / "generated").iterdir())
    assert len(folders) == 1 and folders[0].name.startswith("toy-")
    assert sorted(p.name for p in folders[0].iterdir() if p.suffix == ".py") == ["a0.py", "a1.py", "dispatch.py"]
    # an edit to a family's source writes new files under a new digest: a stale cache is never read
    (tmp_path / "cardsim_test_family_b.py").write_text("OFFSET = 2.5\nANSWERS = {'double': 'x - prm[0]'}\n")
    cached_builtins("toy", {0: first, 1: second}, decisions)
    assert len(list((tmp_path / "cache" / "generated").iterdir())) == 2


REPLAY = """
import sys
from simulator.core.storage.spec import build_spec
from simulator.games import get_game
from strategies.rami import policy
spec = build_spec("rami", n=1, seed=3, strategies=["open-asap"])
get_game("rami").reference_play(spec, 0, None)
used = [f for f in policy.REFERENCE._builtins.values() if f.signatures]
print(len(used), sum(sum(f.stats.cache_misses.values()) for f in used),
      sum(sum(f.stats.cache_hits.values()) for f in used))
"""


@pytest.mark.slow
def test_a_second_process_loads_the_reference_engines_strategies_instead_of_compiling(tmp_path):
    env = {"CARDSIM_CACHE_DIR": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}
    runs = [subprocess.run([sys.executable, "-c", REPLAY], cwd=ROOT, env=env, capture_output=True, text=True)
            for _ in range(2)]
    assert all(r.returncode == 0 for r in runs), [r.stderr for r in runs]
    assert "compiling the rami strategies for the reference engine" in runs[0].stderr
    assert "compiling" not in runs[1].stderr
    used, misses, hits = map(int, runs[1].stdout.split())
    assert used > 0 and misses == 0 and hits >= used  # every dispatch it called came from the on-disk cache
    assert int(runs[0].stdout.split()[1]) >= used  # the first process compiled them
