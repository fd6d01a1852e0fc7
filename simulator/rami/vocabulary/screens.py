"""Cheap tests that rule a hand out before the exact meld solver runs (issue 39): each is a necessary condition of
what the solver looks for, so a hand it rules out gets the very answer the solver would give, only sooner.

The melds are the solver's candidates (:mod:`simulator.rami.vocabulary.melds`): runs of 3–13 consecutive ranks of one suit,
ranks taken circularly, with at most one joker; sets of 3–4 distinct suits of one rank, or 2–3 suits and a joker.
Counts are the solver's ``int8[53]`` hands (card id ``suit * 13 + rank``, 52 the jokers).

The solver itself screens (:func:`franche_possible` in ``best_opening_nb``, :func:`meldless` in ``least_left_nb``),
so both engines do, and the solver's brute-force tests check those. The rami-sec plan's screens (:func:`dead_cards`)
are the kernel's only: the agreement tests compare it with the reference engine's plain search, game for game.
"""

from __future__ import annotations

import numpy as np

from simulator.core.cards import JOKER, N_RANKS
from simulator.core.kernels.jit import njit

N_SUITS = 4
NO_CARD = -1


@njit(refcount=False)
def franche_possible(counts) -> bool:
    """Whether ``counts`` holds three naturals in sequence in one suit: a tierce franche (R7, R12), without which
    the solver finds no opening (0 points, no melds) and no rami sec."""
    for suit in range(N_SUITS):
        base = suit * N_RANKS
        for rank in range(N_RANKS):
            if (counts[base + rank] > 0 and counts[base + (rank + 1) % N_RANKS] > 0
                    and counts[base + (rank + 2) % N_RANKS] > 0):
                return True
    return False


@njit(refcount=False)
def _live(counts, card, jokers) -> bool:
    """Whether natural ``card`` belongs to some meld the hand could form (the solver's "live" cards)."""
    suit, rank = card // N_RANKS, card % N_RANKS
    other_suits = 0
    for s in range(N_SUITS):
        if s != suit and counts[s * N_RANKS + rank] > 0:
            other_suits += 1
    if other_suits >= 2 or (other_suits >= 1 and jokers > 0):
        return True
    holes_allowed = 1 if jokers > 0 else 0  # one joker per meld: a 3-rank window with one hole
    for start in range(rank - 2, rank + 1):
        missing = 0
        for k in range(3):
            if counts[suit * N_RANKS + (start + k + N_RANKS) % N_RANKS] == 0:
                missing += 1
        if missing <= holes_allowed:
            return True
    return False


@njit(refcount=False)
def dead_cards(counts) -> tuple[int, int]:
    """``(how many cards of counts no meld can hold, the lowest such card id or NO_CARD)``. A rami sec (R12) lays
    every card but at most one, so two dead cards rule it out, and with one dead card only that card can be the
    one kept."""
    jokers = counts[JOKER]
    dead, first = 0, NO_CARD
    for card in range(JOKER):
        if counts[card] > 0 and not _live(counts, card, jokers):
            dead += np.int64(counts[card])
            if first == NO_CARD:
                first = card
    return dead, first


@njit(refcount=False)
def meldless(counts) -> bool:
    """Whether no meld can be formed from ``counts``: every natural card is dead (a joker needs two naturals of
    its meld), so every card stays in hand."""
    jokers = counts[JOKER]
    for card in range(JOKER):
        if counts[card] > 0 and _live(counts, card, jokers):
            return False
    return True
