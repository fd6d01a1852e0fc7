"""Kamoul variant options (docs/rules/kamoul.md): each one declared once, with its default and rule number.

``OPTIONS`` validates user input; from that one declaration come :class:`Rules`, the frozen options object the
reference engine reads (an attribute per option), :data:`KERNEL_RULES`, the structured dtype of the one-row table
the kernel reads as a record (a field per option, a choice as its index: compare it with the option's choice
codes, ``rules.false_call_mode == FALSE_CALL.tamalou``), and those choice codes.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from simulator.core.cards import DECK_SIZE
from simulator.core.errors import SpecError
from simulator.core.kernels.named import choice_codes, kernel_rules, rules_class, rules_dtype
from simulator.core.params import Param, ParamSet

MIN_PLAYERS = 2
MAX_PLAYERS_PER_DECKS = {1: 6, 2: 8}

OPTIONS = ParamSet((
    Param("n_decks", "int", 1, "52-card decks in play (2 advised for large tables)", 1, 2, rule="K1"),
    Param("hand_size", "int", 4, "cards dealt face down to each player", 1, 8, rule="K2"),
    Param("initial_peeks", "int", 2, "own cards each player looks at before the first turn", 0, 8, rule="K2"),
    Param("allow_reorder", "bool", False, "players may reorder their layout (costs +1 card if a spied position moves)", rule="K2"),
    Param("discard_pick_face_up", "bool", False, "a card taken from the discard stays face up in the layout", rule="K4"),
    Param("swap_scope", "choice", "any", "J/Q/K swaps: any two face-down cards, or one own and one opponent's", choices=("any", "own_vs_opponent"), rule="K5"),
    Param("king_power", "choice", "both", "which kings have the look-and-swap power", choices=("both", "black_only"), rule="K5"),
    Param("swap_observed_prob", "float", 1.0, "probability that another player notices a J/Q blind swap", 0.0, 1.0, rule="K5"),
    Param("snap_chain", "bool", False, "a snapped card opens a new snap window", rule="K6"),
    Param("snap_others", "bool", False, "snap an opponent's matching card and give them one of yours (Kaboo)", rule="K6"),
    Param("snap_in_final_round", "bool", True, "snaps are allowed after a KAMOUL call", rule="K6"),
    Param("ultime_min_cards", "int", 2, "cards that one snap must clear at once for a KAMOUL ULTIME", 1, 8, rule="K7"),
    Param("ultime_others_score", "choice", "hand", "what the others score on an ULTIME", choices=("hand", "zero"), rule="K7"),
    Param("caller_immune", "bool", True, "the caller's cards cannot be swapped during the final round", rule="K8"),
    Param("min_turns_before_call", "int", 0, "own turns a player must have played before calling", 0, 50, rule="K8"),
    Param("contre_requires_valid", "bool", True, "a CONTRE without a valid hand is a false KAMOUL", rule="K9"),
    Param("contre_strictly_lower", "bool", False, "a CONTRE must be strictly lower than the caller to win (JapJap)", rule="K9"),
    Param("implicit_contest", "bool", False, "any player with a lower valid total beats the caller (Dutch)", rule="K10"),
    Param("au_score_30", "choice", "eq", "at <= -15 cumulative, the 30-point au-score needs exactly 30 or at least 30", choices=("eq", "ge"), rule="K11"),
    Param("loser_announcer_scores", "choice", "zero", "what an announcer who loses the contest scores", choices=("zero", "hand"), rule="K11"),
    Param("false_call_mode", "choice", "sum", "false KAMOUL: sum of all hands, tamalou (+1 card, play on) or dutch (+10)", choices=("sum", "tamalou", "dutch"), rule="K12"),
    Param("p_stick", "float", 0.0, "physical layer: probability that 2+ cards come off a pile together", 0.0, 1.0, rule="K13"),
    Param("p_out_of_turn", "float", 0.0, "physical layer: per turn and per other player, probability of playing out of turn", 0.0, 1.0, rule="K13"),
    Param("p_reorder", "float", 0.0, "physical layer: per turn, probability that the player reorders two cards (needs allow_reorder)", 0.0, 1.0, rule="K13"),
    Param("race_policy", "choice", "speed_weighted", "who wins when several players snap the same card", choices=("speed_weighted", "uniform", "turn_order"), rule="K6"),
    Param("on_stock_empty", "choice", "reshuffle", "when the stock runs out: reshuffle the discard (top card stays) or end the hand", choices=("reshuffle", "end_hand"), rule="K14"),
    Param("max_turns_per_hand", "int", 300, "guard: the hand ends with no winner after this many turns", 10, 100000, rule="K14"),
    Param("max_hands_per_manche", "int", 500, "guard: a manche ends on the lowest score after this many hands", 1, 100000, rule="K15"),
), what="")

CHOICES = {p.name: p.choices for p in OPTIONS.params if p.kind == "choice"}

# the index of each declared choice, by name (the kernel compares the option's field with these)
SWAP_SCOPE = choice_codes(OPTIONS.by_name["swap_scope"])  # K5
KING_POWER = choice_codes(OPTIONS.by_name["king_power"])  # K5
ULTIME_OTHERS = choice_codes(OPTIONS.by_name["ultime_others_score"])  # K7
AU_SCORE_30 = choice_codes(OPTIONS.by_name["au_score_30"])  # K11
LOSER_SCORES = choice_codes(OPTIONS.by_name["loser_announcer_scores"])  # K11
FALSE_CALL = choice_codes(OPTIONS.by_name["false_call_mode"])  # K12
RACE = choice_codes(OPTIONS.by_name["race_policy"])  # K6, the race policy (rule 0.2)
STOCK_EMPTY = choice_codes(OPTIONS.by_name["on_stock_empty"])  # K14


class RulesMethods:
    """What the reference engine asks of a variant beyond its options (base of :class:`Rules`)."""

    @property
    def n_cards(self) -> int:
        return DECK_SIZE * self.n_decks

    def kernel(self) -> np.ndarray:
        """The same variant as the kernel reads it: a one-row table of :data:`KERNEL_RULES`."""
        return kernel_rules(KERNEL_RULES, OPTIONS, dataclasses.asdict(self))


Rules = rules_class("Rules", OPTIONS, RulesMethods, check=lambda values: check_consistency(values))  # defined below
"""A validated Kamoul variant (frozen dataclass); attribute names are the option names of :data:`OPTIONS`."""
Rules.__module__ = __name__  # so that pickle finds it here
KERNEL_RULES = rules_dtype(OPTIONS)
"""The variant as the kernel receives it: a structured dtype, a field per option (choices as their index)."""


def check_consistency(values: dict) -> None:
    """Cross-option checks that a single option's range cannot express."""
    if values["initial_peeks"] > values["hand_size"]:
        raise SpecError("--option initial_peeks", values["initial_peeks"], f"at most hand_size ({values['hand_size']})")
    if values["p_reorder"] > 0 and not values["allow_reorder"]:
        raise SpecError("--option p_reorder", values["p_reorder"], "0 unless allow_reorder=true")


def check_players(players: int, values: dict) -> None:
    """K1: 2–6 players with one deck, up to 8 with two."""
    decks = values.get("n_decks", 1)
    high = MAX_PLAYERS_PER_DECKS[decks]
    if not MIN_PLAYERS <= players <= high:
        raise SpecError("--players", players, f"{MIN_PLAYERS} to {high} with n_decks={decks}")
    check_consistency(values)
