"""The function table through which the compiled engine calls strategies from files: one kernel type for every
file (so the kernel is compiled and cached once), each file's functions compiled once per content and loaded from
the cache by the next process, an edit compiled anew, and a function that does not fit its decision refused in
one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest

from simulator.core.contract.game import seats_of
from simulator.core.contract.seats import kernel_seats
from simulator.core.contract.user_table import ADDRESSES, USER_SLOTS, decision_signature
from simulator.core.errors import SpecError
from simulator.core.storage.spec import build_spec
import simulator.games  # noqa: F401  (registers the games)
from strategies.kamoul.policy import CONTRACT

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"

CONSTANT = '''
from numba import njit

from simulator.core.contract.user_strategies import strategy
from strategies.kamoul.heuristic import PARAMS


@njit
def peeks(prm, view, n, rng, out):
    return 0


@njit
def turn(prm, view, top, can_call, can_contre, can_take, cum_me, au_ge, rng):
    return 2


@njit
def take_slot(prm, view, rng):
    return 0


@njit
def keep(prm, view, drawn, rng):
    return -1


@njit
def power(prm, view, kind, locked, own_vs_opp, rng, tmp, out):
    return False


@njit
def king_swap(prm, view, pa, ca, pb, cb, rng):
    return False


@njit
def snap(prm, view, top_rank, allow_others, locked, rng, tmp, out):
    return 0


@njit
def estimate(prm, view):
    return 0.0, 0


@njit
def forget(prm):
    return 0.0


@njit
def memory_noise(prm):
    return 0.0


@njit
def speed(prm):
    return SPEED


CONSTANT = strategy(game="kamoul", name="constant", params=PARAMS, doc="always the first legal answer",
                    peeks=peeks, turn=turn, take_slot=take_slot, keep=keep, power=power, king_swap=king_swap,
                    snap=snap, estimate=estimate, forget=forget, memory_noise=memory_noise, speed=speed)
'''

LOAD = '''
import json, sys
import numpy
import simulator.games
from simulator.core.contract.game import seats_of
from simulator.core.storage.spec import build_spec
from simulator.core.contract.user_table import compiled_function
from strategies.kamoul.policy import CONTRACT
spec = build_spec("kamoul", n=10, seed=1, players=2, strategies=[sys.argv[1] + ":constant", "balanced"])
strategy = seats_of(spec)[0].user
functions = [compiled_function(CONTRACT, strategy, n) for n in CONTRACT.decisions]
print(json.dumps({"speed": functions[-1](numpy.zeros(1)),
                  "hits": sum(sum(f.stats.cache_hits.values()) for f in functions),
                  "misses": sum(sum(f.stats.cache_misses.values()) for f in functions)}))
'''


def _spec(*strategies, players=4):
    return build_spec("kamoul", n=10, seed=1, players=players, strategies=list(strategies))


def test_every_strategy_file_gives_the_kernel_the_same_type_so_it_is_compiled_once():
    copy, never = f"{EXAMPLES}/kamoul_balanced_copy.py:balanced-copy", f"{EXAMPLES}/kamoul_never_contre.py:never-contre"
    one = kernel_seats(seats_of(_spec(copy, "balanced", "random", "balanced")))
    other = kernel_seats(seats_of(_spec(never, copy, "balanced", never)))
    assert numba.typeof(one) == numba.typeof(other)  # numba's cache key: no compile for a new or edited file
    assert one.user.shape == (len(CONTRACT.decisions), USER_SLOTS, ADDRESSES)
    assert (one.user[:, :1] != 0).all() and (one.user[:, 1:] == 0).all()  # one file, in the first slot
    assert (other.user[:, :2] != 0).all() and not np.array_equal(one.user[:, 0], other.user[:, 0])
    builtin = kernel_seats(seats_of(_spec("balanced"))).user
    assert builtin.ndim == 1 and builtin.size == 0  # built-ins only: the kernel compiles no call through a table


def test_the_signature_follows_what_the_contract_hands_a_file_s_function():
    signature = decision_signature(CONTRACT, "keep")
    assert str(signature.return_type) == "int64"
    names = [str(t) for t in signature.args]
    assert names[0].startswith("readonly array(float64, 1d, C)") and names[1].startswith("TurnView(int64")
    assert names[2:] == ["int64", "array(uint64, 1d, C)"]  # drawn, rng


def test_a_file_s_functions_are_cached_by_content_and_an_edit_compiles_anew(tmp_path):
    path = tmp_path / "constant.py"
    path.write_text(CONSTANT.replace("SPEED", "2.0"))
    env = dict(os.environ, CARDSIM_CACHE_DIR=str(tmp_path / "cache"))

    def load():
        done = subprocess.run([sys.executable, "-c", LOAD, str(path)], cwd=ROOT, env=env, capture_output=True,
                              text=True, check=True)
        return json.loads(done.stdout.strip().splitlines()[-1])

    decisions = len(CONTRACT.decisions)
    assert load() == {"speed": 2.0, "hits": 0, "misses": decisions}
    assert load() == {"speed": 2.0, "hits": decisions, "misses": 0}  # the next process loads them
    path.write_text(CONSTANT.replace("SPEED", "3.0"))
    assert load() == {"speed": 3.0, "hits": 0, "misses": decisions}  # an edit: compiled anew, the new code


def test_a_function_that_does_not_fit_its_decision_is_one_line(tmp_path):
    path = tmp_path / "constant.py"
    path.write_text(CONSTANT.replace("SPEED", "2.0").replace("    return -1", "    return view.nothing"))
    with pytest.raises(SpecError, match=r"constant\.py:constant: keep: \"Unknown attribute 'nothing' of type TurnView"
                       r".*\" does not compile \(line \d+ of constant\.py\); allowed: a numba function "
                       r"keep\(prm, view, drawn, rng\) returning int64") as caught:
        kernel_seats(seats_of(_spec(f"{path}:constant", "balanced", players=2)))
    assert "\n" not in str(caught.value)
