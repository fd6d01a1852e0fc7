"""Kamoul as the rest of cardsim sees it (see ``simulator.core.contract.game.GamePlugin``)."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from simulator.core.contract.game import SKIP_ACROSS, SKIP_GUARD, SKIP_PHYSICAL, BalanceHints, declare_game
from simulator.core.i18n import N_
from simulator.kamoul.engines import engine
from simulator.kamoul.engines.counterfactual import ROLLOUTS
from simulator.kamoul.vocabulary import records, rules
import strategies.kamoul as strategies
from strategies.kamoul.policy import CONTRACT


def row_position(seat: int, players: int) -> pl.Expr:
    """K3: the dealer's left plays first, so seat ``p`` plays ``(p - dealer - 1) mod P``-th in a hand."""
    return (seat - pl.col("dealer").cast(pl.Int64) - 1) % players


PLUGIN = declare_game(
    __name__, rules=rules, records=records, strategies=strategies, engines=engine,
    scored_level="manches", default_level="hands", default_players=4,
    chunk_sizes={"hands": 250_000, "manches": 10_000, "parties": 4_000, "tops": 1_500},
    replay_legend=lambda spec: "cards: rank + suit (C D H S); values A=1, 2-10 face, J=Q=1, KD/KH=0, KC/KS=15; positions count from 0",
    row_order={"hands": "hand"},
    contract=CONTRACT,
    strategy_template=str(Path(strategies.__file__).with_name("strategy_template.py.j2")),
    lower_is_better=True,
    row_position=row_position,
    warm_extra=(ROLLOUTS,),
    position_names=(N_("first to play (dealer's left)"), N_("plays {k}"), N_("plays {k} (the dealer)")),
    balance=BalanceHints(
        skill=("random", "balanced", "cautious", "aggressive"),
        skipped={"max_turns_per_hand": SKIP_GUARD, "max_hands_per_manche": SKIP_GUARD, "au_score_30": SKIP_ACROSS,
                 "p_stick": SKIP_PHYSICAL, "p_out_of_turn": SKIP_PHYSICAL, "p_reorder": SKIP_PHYSICAL,
                 "swap_observed_prob": SKIP_PHYSICAL, "race_policy": SKIP_PHYSICAL},
        values={"n_decks": (1, 2), "hand_size": (3, 4, 5, 6), "initial_peeks": (0, 1, 2, 3),
                "ultime_min_cards": (1, 2, 3), "min_turns_before_call": (0, 1, 2, 4)},
        # each card-power parameter of seat 0's player, with the hand columns that count the power's uses (K5)
        extras={"powers": {"peek_own": ("peeks",), "peek_opponent": ("peeks",), "swap": ("jq_swaps",),
                           "king": ("red_king_looks", "black_king_looks"), "jq_power": ("jq_swaps",),
                           "red_king_power": ("red_king_looks",)},
                "power_player": "heuristic:jq_power=1,red_king_power=1", "best_of_three": ()},
    ),
)
