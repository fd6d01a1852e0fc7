"""Kamoul variant options (docs/rules/kamoul.md): each one declared with its default and rule number.

``OPTIONS`` validates user input; :class:`Rules` is the frozen options object the reference engine
reads; :func:`rules_arrays` packs the same values into the ``int64``/``float64`` arrays the kernel reads
(indexes ``I_*`` and ``F_*``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simulator.core.errors import SpecError
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

# int64 slots of the kernel's rules array
(I_N_DECKS, I_HAND_SIZE, I_PEEKS, I_ALLOW_REORDER, I_PICK_FACE_UP, I_SWAP_SCOPE, I_KING_POWER, I_SNAP_CHAIN,
 I_SNAP_OTHERS, I_SNAP_FINAL, I_ULTIME_MIN, I_ULTIME_OTHERS, I_CALLER_IMMUNE, I_MIN_TURNS, I_CONTRE_VALID,
 I_CONTRE_LOWER, I_IMPLICIT, I_AU30, I_LOSER, I_FALSE_MODE, I_RACE, I_STOCK_EMPTY, I_MAX_TURNS,
 I_MAX_HANDS, N_INT) = range(25)
# float64 slots
F_SWAP_OBSERVED, F_P_STICK, F_P_OUT_OF_TURN, F_P_REORDER, N_FLOAT = range(5)

_INT_FIELDS = (
    ("n_decks", I_N_DECKS), ("hand_size", I_HAND_SIZE), ("initial_peeks", I_PEEKS), ("allow_reorder", I_ALLOW_REORDER),
    ("discard_pick_face_up", I_PICK_FACE_UP), ("swap_scope", I_SWAP_SCOPE), ("king_power", I_KING_POWER),
    ("snap_chain", I_SNAP_CHAIN), ("snap_others", I_SNAP_OTHERS), ("snap_in_final_round", I_SNAP_FINAL),
    ("ultime_min_cards", I_ULTIME_MIN), ("ultime_others_score", I_ULTIME_OTHERS), ("caller_immune", I_CALLER_IMMUNE),
    ("min_turns_before_call", I_MIN_TURNS), ("contre_requires_valid", I_CONTRE_VALID),
    ("contre_strictly_lower", I_CONTRE_LOWER), ("implicit_contest", I_IMPLICIT), ("au_score_30", I_AU30),
    ("loser_announcer_scores", I_LOSER), ("false_call_mode", I_FALSE_MODE), ("race_policy", I_RACE),
    ("on_stock_empty", I_STOCK_EMPTY), ("max_turns_per_hand", I_MAX_TURNS), ("max_hands_per_manche", I_MAX_HANDS),
)
_FLOAT_FIELDS = (
    ("swap_observed_prob", F_SWAP_OBSERVED), ("p_stick", F_P_STICK), ("p_out_of_turn", F_P_OUT_OF_TURN),
    ("p_reorder", F_P_REORDER),
)


@dataclass(frozen=True)
class Rules:
    """A validated Kamoul variant; attribute names are the option names of :data:`OPTIONS`."""

    n_decks: int = 1
    hand_size: int = 4
    initial_peeks: int = 2
    allow_reorder: bool = False
    discard_pick_face_up: bool = False
    swap_scope: str = "any"
    king_power: str = "both"
    swap_observed_prob: float = 1.0
    snap_chain: bool = False
    snap_others: bool = False
    snap_in_final_round: bool = True
    ultime_min_cards: int = 2
    ultime_others_score: str = "hand"
    caller_immune: bool = True
    min_turns_before_call: int = 0
    contre_requires_valid: bool = True
    contre_strictly_lower: bool = False
    implicit_contest: bool = False
    au_score_30: str = "eq"
    loser_announcer_scores: str = "zero"
    false_call_mode: str = "sum"
    p_stick: float = 0.0
    p_out_of_turn: float = 0.0
    p_reorder: float = 0.0
    race_policy: str = "speed_weighted"
    on_stock_empty: str = "reshuffle"
    max_turns_per_hand: int = 300
    max_hands_per_manche: int = 500

    @classmethod
    def from_options(cls, options: dict) -> "Rules":
        values = OPTIONS.resolve(dict(options), field_prefix="--option ")
        check_consistency(values)
        return cls(**values)

    @property
    def n_cards(self) -> int:
        return 52 * self.n_decks


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


def rules_arrays(rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """``(int64[N_INT], float64[N_FLOAT])``: the variant as the kernel reads it (choices as their index)."""
    ints = np.zeros(N_INT, dtype=np.int64)
    for name, slot in _INT_FIELDS:
        value = getattr(rules, name)
        ints[slot] = CHOICES[name].index(value) if name in CHOICES else int(value)
    floats = np.zeros(N_FLOAT, dtype=np.float64)
    for name, slot in _FLOAT_FIELDS:
        floats[slot] = float(getattr(rules, name))
    return ints, floats
