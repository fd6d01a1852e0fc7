"""Kamoul as the core sees it (see ``simulator.core.game.GamePlugin``)."""

from __future__ import annotations

from simulator.core.game import GamePlugin, replay_hooks
from simulator.kamoul import records
from simulator.kamoul.engine import simulate_chunk
from simulator.kamoul.reference import LEVELS
from simulator.kamoul.rules import OPTIONS, check_players
from strategies.kamoul import DEFAULT_STRATEGY, STRATEGIES

_CHUNK = {"hands": 250_000, "manches": 10_000, "parties": 4_000, "tops": 1_500}


_replay, _trace_hashes = replay_hooks("kamoul")

PLUGIN = GamePlugin(
    name="kamoul",
    levels=LEVELS,
    default_level="hands",
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
