"""A fake game plugin for the core tests: tiny, seeded per game, two tables at level "manche".

Game ``i`` draws from the stream ``(spec.seed, i)`` inside a numba ``prange`` kernel (like a real
game) and writes two "hands" rows and one "manches" row. The environment variable
``FAKEGAME_DELAY_MS`` makes every chunk sleep (it does not change results, so it is not part of the
spec), so tests can interrupt a run between chunks. ``install()`` makes ``"fake"`` resolve to
this plugin (used by subprocess scripts; tests use the ``monkeypatch`` fixture via ``patch``).
"""

from __future__ import annotations

import os
import time

import numba
import numpy as np
import polars as pl

from simulator.core.contract import registry
from simulator.core.contract.game import GamePlugin
from simulator.core.contract.seats import StrategyDef
from simulator.core.errors import SpecError
from simulator.core.kernels.jit import njit
from simulator.core.kernels.rng import below, seed_state, uniform
from simulator.core.params import Param, ParamSet
from simulator.core.storage.spec import build_spec

THREADS_SEEN: list[int] = []


@njit(parallel=True)
def _play(seed, start, stop, bonus, values, draws, winners):
    for k in numba.prange(stop - start):
        s = np.empty(4, dtype=np.uint64)
        seed_state(seed, start + k, s)
        for h in range(2):
            values[2 * k + h] = below(s, 100) + bonus
            draws[2 * k + h] = uniform(s)
        winners[k] = below(s, 4)


def simulate_chunk(spec, start, stop, threads=None):
    THREADS_SEEN.append(numba.get_num_threads())
    count = stop - start
    values = np.empty(2 * count, dtype=np.int64)
    draws = np.empty(2 * count, dtype=np.float64)
    winners = np.empty(count, dtype=np.int64)
    _play(spec.seed, start, stop, spec.option("bonus"), values, draws, winners)
    games = np.arange(start, stop, dtype=np.int64)
    hands = pl.DataFrame({
        "game": np.repeat(games, 2),
        "hand": np.tile(np.arange(2, dtype=np.int64), count),
        "value": values,
        "draw": draws,
    })
    totals = values.reshape(count, 2).sum(axis=1)
    manches = pl.DataFrame({"game": games, "total": totals, "winner": winners})
    delay_ms = float(os.environ.get("FAKEGAME_DELAY_MS", "0"))
    if delay_ms:
        time.sleep(delay_ms / 1000)
    return {"hands": hands, "manches": manches}


def _check_players(players: int, options: dict) -> None:
    if not 2 <= players <= 6:
        raise SpecError("--players", players, "an integer in [2, 6]")


OPTIONS = ParamSet((
    Param("bonus", "int", 0, "points added to every hand", 0, 50, rule="F1"),
    Param("variant", "choice", "classic", "a choice option", choices=("classic", "fast")),
    Param("jokers", "bool", False, "a bool option", rule="F2"),
))

STRATEGIES = {
    "random": StrategyDef("random", 0, ParamSet((), "parameter"), "plays at random"),
    "greedy": StrategyDef("greedy", 1, ParamSet((
        Param("threshold", "int", 10, "stop below this", 0, 50),
        Param("p", "float", 0.5, "a probability", 0.0, 1.0),
    ), "parameter"), "takes the best card"),
}

PLUGIN = GamePlugin(
    name="fake", levels=("manche", "partie"), default_level="manche", default_players=4, home=__name__,
    options=OPTIONS, check_players=_check_players, strategies=STRATEGIES, default_strategy="random",
    level_tables={"manche": ("hands", "manches"), "partie": ("hands", "manches")},
    simulate_chunk=simulate_chunk, chunk_sizes={"manche": 7, "partie": 7},
)


def patch(monkeypatch) -> None:
    """Make ``"fake"`` a game for the duration of one test."""
    monkeypatch.setitem(registry._REGISTRY, "fake", PLUGIN)


def install() -> None:
    """Make ``"fake"`` a game for the rest of this process (subprocess scripts)."""
    registry.register_game(PLUGIN)


def fake_spec(n: int = 50, seed: int = 7, **options):
    """A validated spec of the fake game (``"fake"`` must resolve: call ``patch`` or ``install``)."""
    return build_spec("fake", n=n, seed=seed, options=options)
