"""Rami "Kracouil" variant options (docs/rules/rami.md): each declared once, with its default and rule number.

``OPTIONS`` validates user input; from it are generated :class:`Rules`, the frozen options object the reference
engine reads (attributes named as the options), and :data:`KERNEL_RULES`, the structured dtype of the one-row
table the kernel receives and reads as a record (:func:`kernel_rules_of`: one field per option, a choice as its
index, plus ``decks`` resolved by R1). A kernel
compares a choice against its name in the ``*_CHOICE`` records (``SWAP.must_reuse``), whose values come from the
option's declared ``choices``.
"""

from __future__ import annotations

import numpy as np

from simulator.core.errors import SpecError
from simulator.core.kernels.named import choice_codes, kernel_rules, rules_class, rules_dtype
from simulator.core.params import Param, ParamSet
from simulator.rami.vocabulary.codes import (
    DEALT_BEYOND_HANDS, DECK_CARDS, HAND_CARDS, MAX_DECKS, MAX_TURNS_PER_ROUND, OPENING_POINTS, RAMI_SEC_UNOPENED,
    TARGET,
)

MIN_PLAYERS, MAX_PLAYERS = 2, 8


def decks_for(players: int) -> int:
    """R1 (seed): one deck for 2–3 players, two for 4–5, three for 6 and more."""
    return 1 if players <= 3 else 2 if players <= 5 else MAX_DECKS


OPTIONS = ParamSet((
    Param("n_decks", "int", 0, "54-card decks; 0 = by player count as the seed says (1 for 2-3, 2 for 4-5, 3 for 6+)", 0, MAX_DECKS, rule="R1"),
    Param("hand_cards", "int", HAND_CARDS, "cards dealt to each player (the dealer's right-hand neighbour gets one more)", 7, 15, rule="R2"),
    Param("first_player_draws", "bool", False, "the 14-card player draws on the first turn too", rule="R3"),
    Param("discard_in_tierce", "bool", True, "a card taken from the discard may be part of the opening's pure run", rule="R5"),
    Param("a_carte_claims", "bool", False, "a player holding one card (a carte) may still claim a playable discard under R10 and go out (the seed: never)", rule="R5"),
    Param("opening_points", "int", OPENING_POINTS, "points the first lay-down must total", 0, 200, rule="R7"),
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
    Param("rami_sec_unopened", "int", RAMI_SEC_UNOPENED, "what each player who had not opened scores after a rami sec", 0, 1000, rule="R12"),
    Param("rami_sec_layoffs", "bool", False, "an opening turn that goes out through lay-offs on other players' melds also counts as a rami sec (the reading before issue 18)", rule="R12"),
    Param("unopened_penalty", "int", 0, "a fixed score for a player who had not opened at a normal end (0 = their hand value)", 0, 500, rule="R13"),
    Param("target", "int", TARGET, "the game ends when someone reaches this many points", 50, 100000, rule="R15"),
    Param("max_turns_per_round", "int", MAX_TURNS_PER_ROUND, "guard: a round ends with no winner after this many turns (hands scored)", 50, 100000, rule="R15"),
), what="")

# the kernel's names of each choice (values: the index of the choice in its declaration)
JOKER_VALUE = choice_codes(OPTIONS.by_name["joker_opening_value"])   # R7: .zero, .represented
SWAP = choice_codes(OPTIONS.by_name["joker_swap"])                   # R9: .must_reuse, .free, .forbidden
PLAYABLE = choice_codes(OPTIONS.by_name["playable_discard"])         # R10: .snap, .forbidden, .ignored
ELIGIBLE = choice_codes(OPTIONS.by_name["claim_eligibility"])        # R10: .opened, .anyone
RACE = choice_codes(OPTIONS.by_name["race_policy"])                  # R10: .speed_weighted, .uniform, .turn_order


class RulesMethods:
    """What the reference asks of a variant beyond its options (the base of the generated :class:`Rules`)."""

    def decks(self, players: int) -> int:
        """R1: ``n_decks``, or by player count when it is 0."""
        return self.n_decks or decks_for(players)


Rules = rules_class("Rules", OPTIONS, RulesMethods)
Rules.__module__ = __name__
Rules.__doc__ = "A validated Rami variant; attribute names are the option names of :data:`OPTIONS`."

KERNEL_RULES = rules_dtype(OPTIONS, derived=(("decks", int),))


def kernel_rules_of(rules: Rules, players: int) -> np.ndarray:
    """The variant as the kernel reads it: every option (choices as their index) and ``decks`` resolved (R1)."""
    values = {p.name: getattr(rules, p.name) for p in OPTIONS.params}
    return kernel_rules(KERNEL_RULES, OPTIONS, values, decks=rules.decks(players))


def check_players(players: int, values: dict) -> None:
    """R1/R2: 2 to 8 players, and enough cards to deal ``hand_cards`` each, one more and a discard."""
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise SpecError("--players", players, f"{MIN_PLAYERS} to {MAX_PLAYERS}")
    decks = values.get("n_decks", 0) or decks_for(players)
    hand_cards = values.get("hand_cards", HAND_CARDS)
    if players * hand_cards + DEALT_BEYOND_HANDS > decks * DECK_CARDS:
        raise SpecError("--players", players, f"at most {(decks * DECK_CARDS - DEALT_BEYOND_HANDS) // hand_cards} "
                        f"with {decks} deck(s) of {DECK_CARDS} and hand_cards={hand_cards}")
