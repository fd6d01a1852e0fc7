"""The Rami kernel's per-block state, scratch and seats, as ``NamedTuple`` s read and written by field name.

numba compiles a field access to a constant offset, so ``state.hands`` costs what ``g[0]`` did. One block (one
``prange`` iteration) allocates a :class:`RoundState` and a :class:`Scratch` once and reuses them from round to
round and game to game: every field is reset where the reference engine creates it afresh.

Shapes: ``P`` players, ``S = 54 * decks`` cards (R1).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simulator.core.kernels.jit import njit
from simulator.core.kernels.named import indices
from simulator.rami.vocabulary.codes import DECK_CARDS, MAX_MELDS, MAX_MOVES, N_IDS
from simulator.rami.vocabulary.melds import MAX_OUT, Workspace, new_workspace

SCALAR = indices("RoundScalars", (
    "n_stock", "n_discard", "n_table", "turns", "claims", "reshuffles", "winner", "outcome", "jokers_laid",
    "jokers_swapped",
    "on_others_melds",  # Round.on_others_melds: this turn laid off / swapped on another player's meld (R12)
))
"""Positions of the round's integer scalars in ``RoundState.scalars`` (``state.scalars[SCALAR.turns]``)."""


class RoundState(NamedTuple):
    """What the reference's ``Round`` / ``Game`` hold as attributes, for one block."""

    hands: np.ndarray        # int8[P, 53]   count vectors (index 52 = jokers)
    sizes: np.ndarray        # int64[P]      cards in each hand
    opened: np.ndarray       # int8[P]       has opened (R7) or laid a rami sec (R12)
    laid: np.ndarray         # int8[P]       laid any card this round (R12 "laid nothing before")
    open_turn: np.ndarray    # int64[P]      own turn of the opening, -1 never
    own_turns: np.ndarray    # int64[P]      turns played this round
    open_points: np.ndarray  # int64[P]      R7 value of the opening / rami sec lay-down, -1 never
    table: np.ndarray        # int8[MAX_MELDS, 5] meld codes of simulator.rami.vocabulary.melds
    owner: np.ndarray        # int8[MAX_MELDS]    who laid each meld
    stock: np.ndarray        # int16[S]      top = last (size in scalars)
    discard: np.ndarray      # int16[S]      top = last (size in scalars)
    scalars: np.ndarray      # int64[len(SCALAR)]
    trace: np.ndarray        # uint64[1]     the round's event-trace hash
    rng: np.ndarray          # uint64[4]     the game's random stream
    points: np.ndarray       # int64[P]      the round's points (R12/R13)
    scores: np.ndarray       # int64[P]      cumulative totals (R15)


class Scratch(NamedTuple):
    """Buffers a step fills and reads back at once (their contents do not outlive the step)."""

    moves: np.ndarray        # int16[MAX_MOVES, 4] legal lay-offs / every lay-off (R8-R10)
    reuse_moves: np.ndarray  # int16[MAX_MOVES, 4] the R9 must_reuse test's lay-offs
    one_card: np.ndarray     # int16[MAX_MOVES, 4] lay-offs of one card
    single: np.ndarray       # int8[53]      a one-card count vector
    everything: np.ndarray   # int8[53]      every card once (R10 fits)
    counts: np.ndarray       # int8[53]      a hand being planned
    fits: np.ndarray         # int8[53]      card ids a table meld would take (R10)
    opening: np.ndarray      # int8[MAX_OUT, 5] the best opening's melds (R7)
    laydown: np.ndarray      # int8[MAX_OUT, 5] least-left / rami sec lay-down (R8, R12)
    claimants: np.ndarray    # int64[P]      R10 claimants in turn order
    styles: np.ndarray       # int64[4]      the openings offered (R7, OPENING_*)
    deck: np.ndarray         # int16[S]      the dealer draw's deck (R2)
    drawn: np.ndarray        # int64[P]      the dealer draw's ranks (R2)
    contenders: np.ndarray   # int64[P]      players still in the dealer draw (R2)
    ws: Workspace            # the meld solver's scratch


@njit
def new_state(players, decks):
    """One block's :class:`RoundState` (``play_round`` resets what a round starts from)."""
    cards = DECK_CARDS * decks
    return RoundState(
        np.zeros((players, N_IDS), dtype=np.int8), np.zeros(players, dtype=np.int64),
        np.zeros(players, dtype=np.int8), np.zeros(players, dtype=np.int8),
        np.zeros(players, dtype=np.int64), np.zeros(players, dtype=np.int64), np.zeros(players, dtype=np.int64),
        np.zeros((MAX_MELDS, 5), dtype=np.int8), np.zeros(MAX_MELDS, dtype=np.int8),
        np.zeros(cards, dtype=np.int16), np.zeros(cards, dtype=np.int16),
        np.zeros(len(SCALAR), dtype=np.int64), np.zeros(1, dtype=np.uint64), np.zeros(4, dtype=np.uint64),
        np.zeros(players, dtype=np.int64), np.zeros(players, dtype=np.int64),
    )


@njit
def new_scratch(players, decks):
    """One block's :class:`Scratch` (``everything`` holds every card id once, the rest zeros)."""
    return Scratch(
        np.zeros((MAX_MOVES, 4), dtype=np.int16), np.zeros((MAX_MOVES, 4), dtype=np.int16),
        np.zeros((MAX_MOVES, 4), dtype=np.int16),
        np.zeros(N_IDS, dtype=np.int8), np.ones(N_IDS, dtype=np.int8), np.zeros(N_IDS, dtype=np.int8),
        np.zeros(N_IDS, dtype=np.int8),
        np.zeros((MAX_OUT, 5), dtype=np.int8), np.zeros((MAX_OUT, 5), dtype=np.int8),
        np.zeros(players, dtype=np.int64), np.zeros(4, dtype=np.int64), np.zeros(DECK_CARDS * decks, dtype=np.int16),
        np.zeros(players, dtype=np.int64), np.zeros(players, dtype=np.int64),
        new_workspace(),
    )
