"""Rami "Kracouil" variant options (docs/rules/rami.md): each declared with its default and rule number.

``OPTIONS`` validates user input; :class:`Rules` is the frozen options object the reference engine reads;
:func:`rules_arrays` packs the same values into the ``int64``/``float64`` arrays the kernel reads.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simulator.core.errors import SpecError
from simulator.core.params import Param, ParamSet

MIN_PLAYERS, MAX_PLAYERS = 2, 8
DECK_CARDS = 54  # 52 + 2 jokers (R1)


def decks_for(players: int) -> int:
    """R1 (seed): one deck for 2–3 players, two for 4–5, three for 6 and more."""
    return 1 if players <= 3 else 2 if players <= 5 else 3


OPTIONS = ParamSet((
    Param("n_decks", "int", 0, "54-card decks; 0 = by player count as the seed says (1 for 2-3, 2 for 4-5, 3 for 6+)", 0, 3, rule="R1"),
    Param("hand_cards", "int", 13, "cards dealt to each player (the dealer's right-hand neighbour gets one more)", 7, 15, rule="R2"),
    Param("first_player_draws", "bool", False, "the 14-card player draws on the first turn too", rule="R3"),
    Param("discard_in_tierce", "bool", True, "a card taken from the discard may be part of the opening's pure run", rule="R5"),
    Param("a_carte_claims", "bool", False, "a player holding one card (a carte) may still claim a playable discard under R10 and go out (the seed: never)", rule="R5"),
    Param("opening_points", "int", 51, "points the first lay-down must total", 0, 200, rule="R7"),
    Param("opening_cumulative", "bool", False, "the opening may be spread over several turns", rule="R7"),
    Param("joker_opening_value", "choice", "zero", "what a joker is worth toward the opening", choices=("zero", "represented"), rule="R7"),
    Param("franche_inside_longer_run", "bool", False, "a pure run of three inside a longer run counts as the tierce franche", rule="R7"),
    Param("opening_single_meld", "bool", False, "the opening may be one meld alone (a long tierce franche worth the points); the seed: the tierce franche + one or more combinations", rule="R7"),
    Param("joker_swap", "choice", "must_reuse", "taking a table joker back: must be laid again the same turn, free, or forbidden", choices=("must_reuse", "free", "forbidden"), rule="R9"),
    Param("playable_discard", "choice", "snap", "a discard that fits a table meld: first to notice claims it, forbidden to discard, or ignored", choices=("snap", "forbidden", "ignored"), rule="R10"),
    Param("claim_eligibility", "choice", "opened", "who may claim a playable discard", choices=("opened", "anyone"), rule="R10"),
    Param("notice_prob", "float", 1.0, "probability that an eligible player notices a playable discard", 0.0, 1.0, rule="R10"),
    Param("race_policy", "choice", "speed_weighted", "who wins when several players claim the same discard", choices=("speed_weighted", "uniform", "turn_order"), rule="R10"),
    Param("final_discard_required", "bool", False, "going out needs a last discard (else melding everything also ends the round)", rule="R11"),
    Param("rami_sec_bonus", "int", 0, "what the rami sec winner scores (negative = a bonus)", -200, 0, rule="R12"),
    Param("rami_sec_unopened", "int", 200, "what each player who had not opened scores after a rami sec", 0, 1000, rule="R12"),
    Param("rami_sec_layoffs", "bool", False, "an opening turn that goes out through lay-offs on other players' melds also counts as a rami sec (the reading before issue 18)", rule="R12"),
    Param("unopened_penalty", "int", 0, "a fixed score for a player who had not opened at a normal end (0 = their hand value)", 0, 500, rule="R13"),
    Param("target", "int", 1000, "the game ends when someone reaches this many points", 50, 100000, rule="R15"),
    Param("max_turns_per_round", "int", 2000, "guard: a round ends with no winner after this many turns (hands scored)", 50, 100000, rule="R15"),
), what="")

CHOICES = {p.name: p.choices for p in OPTIONS.params if p.kind == "choice"}


@dataclass(frozen=True)
class Rules:
    """A validated Rami variant; attribute names are the option names of :data:`OPTIONS`."""

    n_decks: int = 0
    hand_cards: int = 13
    first_player_draws: bool = False
    discard_in_tierce: bool = True
    a_carte_claims: bool = False
    opening_points: int = 51
    opening_cumulative: bool = False
    joker_opening_value: str = "zero"
    franche_inside_longer_run: bool = False
    opening_single_meld: bool = False
    joker_swap: str = "must_reuse"
    playable_discard: str = "snap"
    claim_eligibility: str = "opened"
    notice_prob: float = 1.0
    race_policy: str = "speed_weighted"
    final_discard_required: bool = False
    rami_sec_bonus: int = 0
    rami_sec_unopened: int = 200
    rami_sec_layoffs: bool = False
    unopened_penalty: int = 0
    target: int = 1000
    max_turns_per_round: int = 2000

    @classmethod
    def from_options(cls, options: dict) -> "Rules":
        return cls(**OPTIONS.resolve(dict(options), field_prefix="--option "))

    def decks(self, players: int) -> int:
        return self.n_decks or decks_for(players)


def check_players(players: int, values: dict) -> None:
    """R1/R2: 2 to 8 players, and enough cards to deal ``hand_cards`` each, one more and a discard."""
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise SpecError("--players", players, f"{MIN_PLAYERS} to {MAX_PLAYERS}")
    decks = values.get("n_decks", 0) or decks_for(players)
    needed = players * values.get("hand_cards", 13) + 2
    if needed > decks * DECK_CARDS:
        raise SpecError("--players", players, f"at most {(decks * DECK_CARDS - 2) // values.get('hand_cards', 13)} "
                        f"with {decks} deck(s) of 54 and hand_cards={values.get('hand_cards', 13)}")


def rules_arrays(rules: Rules, players: int) -> tuple[np.ndarray, np.ndarray]:
    """``(int64[N], float64[M])``: the variant as the kernel reads it (choices as their index, decks resolved)."""
    ints = []
    floats = []
    for p in OPTIONS.params:
        value = getattr(rules, p.name)
        if p.name == "n_decks":
            value = rules.decks(players)
        if p.kind == "float":
            floats.append(float(value))
        else:
            ints.append(CHOICES[p.name].index(value) if p.name in CHOICES else int(value))
    return np.array(ints, dtype=np.int64), np.array(floats, dtype=np.float64)


INT_INDEX = {p.name: i for i, p in enumerate(q for q in OPTIONS.params if q.kind != "float")}
FLOAT_INDEX = {p.name: i for i, p in enumerate(q for q in OPTIONS.params if q.kind == "float")}
