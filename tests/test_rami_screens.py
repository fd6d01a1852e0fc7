"""The screens the kernel runs before the meld solver (``simulator.rami.vocabulary.screens``) never change an answer: on
seeded random hands (1–3 decks, jokers, many near a rami sec), a hand they rule out gets from the solver the very
answer the screen gives, R7 (no tierce franche: no opening, 0 points) and R12 (two dead cards: no rami sec; one:
only that card can be the one kept)."""

from __future__ import annotations

import numpy as np
import pytest

from simulator.core.cards import JOKER
from simulator.rami.vocabulary import melds as M
from simulator.rami.vocabulary.codes import KEPT_FOR_DISCARD, MAX_CARD_VALUE, MIN_MELD_CARDS
from simulator.rami.vocabulary.screens import NO_CARD, dead_cards, franche_possible
from test_rami_melds import random_hand

HANDS = 3_000


def rami_sec_by_search(counts, inside, ws, out) -> tuple[bool, int]:
    """R12 as the kernel searched it before the screens: every card laid (-1), else the first card whose removal
    lets the rest be laid, with a tierce franche; ``(possible, kept card or -1)``."""
    value, _, n = M.least_left_nb(counts, True, inside, ws, out)
    if value == 0 and n > 0:
        return True, -1
    if value > MAX_CARD_VALUE or counts.sum() < MIN_MELD_CARDS + KEPT_FOR_DISCARD:
        return False, -1
    for x in range(JOKER + 1):
        if counts[x]:
            counts[x] -= 1
            value, _, n = M.least_left_nb(counts, True, inside, ws, out)
            counts[x] += 1
            if value == 0 and n > 0:
                return True, x
    return False, -1


def near_sec_hand(rng: np.random.Generator, n_decks: int) -> list[int]:
    """A run or set lay-down of 9–14 cards plus 0–2 random cards: rami secs with and without a kept card."""
    hand = []
    while len(hand) < int(rng.integers(9, 15)):
        if rng.random() < 0.6:
            suit, start, length = int(rng.integers(4)), int(rng.integers(13)), int(rng.integers(3, 6))
            hand += [suit * 13 + (start + k) % 13 for k in range(length)]
        else:
            rank = int(rng.integers(13))
            hand += [int(s) * 13 + rank for s in rng.choice(4, size=int(rng.integers(3, 5)), replace=False)]
        if rng.random() < 0.2:
            hand[int(rng.integers(len(hand)))] = JOKER
    hand += [int(c) for c in rng.integers(0, JOKER + 1, size=int(rng.integers(0, 3)))]
    counts = np.bincount(hand, minlength=JOKER + 1)
    return [c for c in hand if counts[c] <= n_decks or c == JOKER]


@pytest.mark.parametrize("n_decks", [1, 2, 3])
def test_R7_R12_a_screened_hand_gets_the_solvers_own_answer(n_decks):
    rng = np.random.default_rng([39, n_decks])
    ws, out = M.new_workspace(), np.zeros((M.MAX_OUT, 5), np.int8)
    screened = {"no franche": 0, "two dead": 0, "one dead": 0, "sec": 0}
    for i in range(HANDS):
        hand = random_hand(rng, n_decks) if i % 2 else near_sec_hand(rng, n_decks)
        counts = M.hand_counts(hand)
        inside = bool(i % 3 == 0)
        possible, kept = rami_sec_by_search(counts.copy(), inside, ws, out)
        screened["sec"] += possible
        if not franche_possible(counts):
            screened["no franche"] += 1
            for represented in (False, True):
                can, points, n = M.best_opening_nb(counts, 51, represented, inside, 2, ws, out)
                assert (can, points, n) == (False, 0, 0), hand
            assert not possible, hand
            continue
        dead, first = dead_cards(counts)
        if dead >= 2:
            screened["two dead"] += 1
            assert not possible, hand
        elif dead == 1:
            screened["one dead"] += 1
            assert first != NO_CARD and counts[first] == 1
            rest = counts.copy()
            rest[first] -= 1
            value, _, n = M.least_left_nb(rest, True, inside, ws, out)
            shortcut = counts.sum() >= MIN_MELD_CARDS + KEPT_FOR_DISCARD and value == 0 and n > 0
            assert (shortcut, first if shortcut else -1) == (possible, kept), hand
        else:
            assert first == NO_CARD
    assert min(screened.values()) > HANDS // 50, screened  # every branch is exercised
