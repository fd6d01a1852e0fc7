"""Deux cartes as the rest of cardsim sees it: the whole contract a new game fills in."""

from __future__ import annotations

import polars as pl

from simulator.core.contract.game import BalanceHints, GamePlugin
from tests.toygame.engine import reference_play, simulate_chunk
from tests.toygame.rules import OPTIONS, check_players
from tests.toygame.strategies import STRATEGIES


def row_position(seat: int, players: int) -> pl.Expr:
    """T2: the dealer's left plays first."""
    return (seat - pl.col("dealer").cast(pl.Int64) - 1) % players


PLUGIN = GamePlugin(
    name="toy",
    levels=("hands", "matches"),
    default_level="hands",
    options=OPTIONS,
    strategies=STRATEGIES,
    default_strategy="threshold",
    default_players=3,
    check_players=check_players,
    level_tables={"hands": ("hands",), "matches": ("hands", "matches")},
    simulate_chunk=simulate_chunk,
    chunk_sizes={"hands": 500, "matches": 200},
    home=__name__,
    reference_play=reference_play,
    replay_legend=lambda spec: "cards are values 1 to 10; a player's points are its total (higher is better)",
    row_order={"hands": "hand"},
    lower_is_better=False,
    row_position=row_position,
    position_names=("first to play (dealer's left)", "plays {k}", "plays {k} (the dealer)"),
    balance=BalanceHints(skill=("random", "threshold", "greedy"), values={"draws": (0, 1, 2)},
                         skipped={"match_wins": "acts only across hands (the sweeps play one)"}),
)
