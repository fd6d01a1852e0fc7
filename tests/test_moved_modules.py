"""Files written before the layered layout still run: the old module names import the new modules, and the
strategy files ``cardsim new-strategy`` wrote then (``tests/strategies/before_layers/``, kept as written) play."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import cardsim
from simulator.core.moved import MOVED

BEFORE = Path(__file__).parent / "strategies" / "before_layers"


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_module_name_is_the_new_module(old):
    assert importlib.import_module(old) is importlib.import_module(MOVED[old])


def test_every_move_points_to_a_module_that_exists():
    missing = [new for new in MOVED.values() if importlib.util.find_spec(new) is None]
    assert not missing, missing


def test_an_unknown_name_is_still_refused():
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("simulator.kamoul.no_such_module")


@pytest.mark.parametrize("old", ["analysis.kamoul_call", "reports.balance_report", "strategies.kamoul.views",
                                 "simulator.kamoul.codes"])
def test_an_old_name_imports_first_thing_in_a_fresh_interpreter(old):
    """A notebook's first line may be an old name: each top package makes the old names resolve."""
    subprocess.run([sys.executable, "-c", f"import {old}"], check=True, cwd=Path(__file__).parents[1])


def test_a_test_file_written_before_imports_the_library_by_its_old_name():
    """``from simulator import api`` (the generated test files of 0.1) in a fresh interpreter."""
    code = "from simulator import api; import cardsim; assert api is cardsim and callable(api.check_strategy)"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parents[1])


@pytest.mark.parametrize("game", ["kamoul", "rami", "kems"])
def test_a_strategy_file_written_before_plays(game):
    path = BEFORE / f"{game}_before_layers.py"
    assert f"from simulator.{game}.codes import" in path.read_text()
    checked = cardsim.check_strategy(game, f"{path}:{game}-before-layers", n=6, seed=3,
                                     engines=("reference",))
    assert checked.games == 6 and checked.rows >= 6


def test_a_file_importing_an_old_name_has_the_new_module_in_its_cache_key(tmp_path):
    """A strategy file's compiled cache is keyed on the modules it imports: by an old name too, so that a change to
    the module it became compiles the file again."""
    from simulator.core.kernels import jit

    importlib.import_module("strategies.kamoul.views")
    user = tmp_path / "old_style.py"
    user.write_text("from strategies.kamoul.views import card_value\n")
    closure = {p.resolve() for p in jit.module_closure(user)}
    assert Path(importlib.import_module(MOVED["strategies.kamoul.views"]).__file__).resolve() in closure
