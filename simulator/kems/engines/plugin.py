"""Kem's as the rest of cardsim sees it (see ``simulator.core.contract.game.GamePlugin``)."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from simulator.core.contract.game import (
    SKIP_ACROSS, SKIP_GUARD, SKIP_PHYSICAL, SKIP_TIME, TEAM_KEYS, BalanceHints, EnginePair, declare_game,
)
from simulator.core.i18n import N_
from simulator.kems.engines.engine import KERNEL_FAMILY, raw_kernel, raw_reference, to_frames
from simulator.kems.engines.reference import Game
from simulator.kems.vocabulary import records, rules
import strategies.kems as strategies
from strategies.kems.common import COMMON
from strategies.kems.policy import CONTRACT


def _reference_game():
    return Game


ENGINES = EnginePair(rules.Rules.from_options, raw_kernel, to_frames, _reference_game, raw_reference)


def teams(players: int) -> int:
    """KM1: two teams at 4 players, three at 6; seat ``p`` plays for team ``p mod (P/2)`` (partners opposite)."""
    return players // 2


def row_winner(players: int) -> pl.Expr:
    """The team with the strictly highest points of the manche (-1 when none or a tie)."""
    points = [pl.col(f"points_{TEAM_KEYS[t]}") for t in range(teams(players))]
    best = pl.max_horizontal(points)
    unique = pl.sum_horizontal([(p == best).cast(pl.Int64) for p in points]) == 1
    winner = pl.lit(-1, pl.Int64)
    for t in reversed(range(len(points))):
        winner = pl.when(unique & (points[t] == best)).then(pl.lit(t, pl.Int64)).otherwise(winner)
    return winner


def row_position(team: int, players: int) -> pl.Expr:
    """KM3: the deal starts at the dealer's left, so team ``t`` is at ``(t - dealer - 1) mod T`` (0 = the team of
    the dealer's left, dealt first; the last one is the dealer's team, which sweeps)."""
    return (team - pl.col("dealer").cast(pl.Int64) - 1) % teams(players)


PLUGIN = declare_game(
    __name__, rules=rules, records=records, strategies=strategies, engines=ENGINES, kernels=KERNEL_FAMILY,
    scored_level="games", default_level="manches", default_players=4, chunk_sizes={"manches": 100_000, "games": 10_000},
    replay_legend=lambda spec: (f"one tick = {ENGINES.rules_of(dict(spec.options)).tick:g} s; cards: rank + suit (C D H S); partners sit "
                                "opposite; every exchange is public, signs are seen only by those listed"),
    contract=CONTRACT,
    leading_params=tuple(p.name for p in COMMON),  # the model reads them by position (strategies.kems.common)
    strategy_template=str(Path(strategies.__file__).with_name("strategy_template.py.j2")),
    team_count=teams,
    lower_is_better=False,
    row_winner=row_winner,
    row_position=row_position,
    position_names=(N_("team of the dealer's left"), N_("team {k} from the dealer's left"), N_("dealer's team")),
    balance=BalanceHints(
        skill=("random", "balanced", "blocker", "discreet", "watcher", "sprinter"),
        skipped={"max_ticks": SKIP_GUARD, "target": SKIP_ACROSS, "signs_change_each_manche": SKIP_ACROSS, "race_policy": SKIP_PHYSICAL,
                 **{name: SKIP_TIME for name in ("tick", "lag_ticks", "turn_up_time", "sweep_time", "quiet_time",
                                            "sign_delay", "reaction_min", "reaction_max", "false_kems_rate",
                                            "false_contre_rate", "double_window", "rho")},
                 "kappa0": "swept with the sign's visibility (OUT/signs/)"},
        extras={"signs": ("visibility=0.2,0.5,0.8,1.0", "kappa0=0.05,0.1,0.3")},
    ),
    report_sections=("sign exposure",),
)
