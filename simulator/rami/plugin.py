"""Rami "Kracouil" as the core sees it (see ``simulator.core.game.GamePlugin``)."""

from __future__ import annotations

import polars as pl

from simulator.core.errors import SpecError
from simulator.core.game import GamePlugin, replay_hooks, seats_of
from simulator.core.spec import RunSpec
from simulator.rami import records
from simulator.rami.engine import raw_kernel, to_frames
from simulator.rami.reference import LEVELS
from simulator.rami.rules import OPTIONS, Rules, check_players
from strategies.rami import DEFAULT_STRATEGY, STRATEGIES

_CHUNK = {"rounds": 20_000, "games": 200}


def check_spec(players: int, values: dict) -> None:
    """Spec-time checks: R1/R2 player count and deck size, and R7 options the engines do not implement."""
    check_players(players, values)
    if values.get("opening_cumulative"):
        raise SpecError("--option opening_cumulative", "true", "false (an opening spread over several turns "
                        "is not implemented yet)")


def rules_of(spec: RunSpec) -> Rules:
    return Rules.from_options(dict(spec.options))


def simulate_chunk(spec: RunSpec, start: int, stop: int, threads: int | None = None) -> dict[str, pl.DataFrame]:
    raw = raw_kernel(rules_of(spec), seats_of(spec), spec.seed, start, stop, spec.level, threads)
    return to_frames(raw, spec.players, [s.label() for s in spec.strategies], spec.level)


_replay, _trace_hashes = replay_hooks("rami")

PLUGIN = GamePlugin(
    name="rami",
    levels=LEVELS,
    default_level="rounds",
    options=OPTIONS,
    strategies=STRATEGIES,
    default_strategy=DEFAULT_STRATEGY,
    default_players=4,
    check_players=check_spec,
    tables=lambda level: records.TABLES[level],
    simulate_chunk=simulate_chunk,
    default_chunk_size=lambda level: _CHUNK[level],
    replay=_replay,
    trace_hashes=_trace_hashes,
)
