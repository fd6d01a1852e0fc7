"""Kem's as the core sees it (see ``simulator.core.game.GamePlugin``)."""

from __future__ import annotations

import polars as pl

from simulator.core.game import GamePlugin, replay_hooks, seats_of
from simulator.core.spec import RunSpec
from simulator.kems import records
from simulator.kems.engine import raw_kernel, to_frames
from simulator.kems.reference import LEVELS
from simulator.kems.rules import OPTIONS, Rules, check_players
from strategies.kems import DEFAULT_STRATEGY, STRATEGIES

_CHUNK = {"manches": 100_000, "games": 10_000}


def rules_of(spec: RunSpec) -> Rules:
    return Rules.from_options(dict(spec.options))


def simulate_chunk(spec: RunSpec, start: int, stop: int, threads: int | None = None) -> dict[str, pl.DataFrame]:
    raw = raw_kernel(rules_of(spec), seats_of(spec), spec.seed, start, stop, spec.level, threads)
    return to_frames(raw, spec.players, [s.label() for s in spec.strategies], spec.level)


_replay, _trace_hashes = replay_hooks("kems")

PLUGIN = GamePlugin(
    name="kems",
    levels=LEVELS,
    default_level="manches",
    options=OPTIONS,
    strategies=STRATEGIES,
    default_strategy=DEFAULT_STRATEGY,
    default_players=4,
    check_players=check_players,
    tables=lambda level: records.TABLES[level],
    simulate_chunk=simulate_chunk,
    default_chunk_size=lambda level: _CHUNK[level],
    replay=_replay,
    trace_hashes=_trace_hashes,
)
