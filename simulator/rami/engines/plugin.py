"""Rami "Kracouil" as the rest of cardsim sees it (see ``simulator.core.contract.game.GamePlugin``)."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from simulator.core.contract.game import SKIP_ACROSS, SKIP_GUARD, SKIP_PHYSICAL, BalanceHints, EnginePair, declare_game
from simulator.core.errors import SpecError
from simulator.core.i18n import N_
from simulator.rami.engines.engine import KERNEL_FAMILY, raw_kernel, raw_reference, to_frames
from simulator.rami.engines.reference import Game
from simulator.rami.vocabulary import records, rules
import strategies.rami as strategies
from strategies.rami.policy import CONTRACT


def check_spec(players: int, values: dict) -> None:
    """Spec-time checks: R1/R2 player count and deck size, and R7 options the engines do not implement."""
    rules.check_players(players, values)
    if values.get("opening_cumulative"):
        raise SpecError("--option opening_cumulative", "true", "false (an opening spread over several turns "
                        "is not implemented yet)")


def _reference_game():
    return Game


ENGINES = EnginePair(rules.Rules.from_options, raw_kernel, to_frames, _reference_game, raw_reference)


def row_position(seat: int, players: int) -> pl.Expr:
    """R2/R3: play runs counter-clockwise from ``first`` (the dealer's right-hand neighbour, 14 cards), so seat
    ``p`` plays ``(first - p) mod P``-th in a round."""
    return (pl.col("first").cast(pl.Int64) - seat) % players


PLUGIN = declare_game(
    __name__, rules=rules, records=records, strategies=strategies, engines=ENGINES, kernels=KERNEL_FAMILY, check_players=check_spec,
    scored_level="games", default_level="rounds", default_players=4, chunk_sizes={"rounds": 20_000, "games": 200},
    replay_legend=lambda spec: "cards: rank + suit (C D H S), JK = joker (JK=7H: a joker standing for 7H); "
                  "end values A=11, J/Q/K=10, joker 20; lower totals are better",
    row_order={"rounds": "round"},
    contract=CONTRACT,
    strategy_template=str(Path(strategies.__file__).with_name("strategy_template.py.j2")),
    lower_is_better=True,
    row_position=row_position,
    position_names=(N_("first to play (14 cards, dealer's right)"), N_("plays {k}"), N_("plays {k} (the dealer)")),
    balance=BalanceHints(
        skill=("random", "open-asap", "open-big", "rami-sec-hunter", "joker-keeper"),
        skipped={"max_turns_per_round": SKIP_GUARD, "target": SKIP_ACROSS, "notice_prob": SKIP_PHYSICAL, "race_policy": SKIP_PHYSICAL},
        values={"n_decks": (0, 1, 2, 3), "hand_cards": (11, 13, 15), "opening_points": (40, 51, 61, 71),
                "rami_sec_bonus": (-100, -50, 0), "rami_sec_unopened": (100, 200, 300),
                "unopened_penalty": (0, 50, 100)},
    ),
)
