"""The reference engine's worlds of a player (issue 63): :mod:`simulator.kamoul.engines.worlds` in plain Python on a
:class:`~simulator.kamoul.engines.hand.Hand`, drawing the same numbers, so both engines sample the same worlds.

A world of player ``p`` keeps what is public (the discard pile, the occupied positions, the face-up cards) and
each face-down card ``p`` believes it knows (while a copy of it remains unaccounted for), and deals every other
face-down card and the stock, uniformly, from the cards ``p`` cannot place; the other players remember the
world's card wherever they remember one at the real table.
"""

from __future__ import annotations

import copy
from collections import Counter

import numpy as np

from simulator.core.kernels.rng import shuffle_py

CARD_CODES = 52


def sample_world(hand, p: int, rng: np.ndarray):
    """A copy of ``hand`` (a :class:`~simulator.kamoul.engines.hand.Hand`: hand.py asks the search, which samples
    here) redealt as one world of player ``p``, drawn from ``rng`` (one shuffle of the cards ``p``
    cannot place, as the kernel's :func:`~simulator.kamoul.engines.worlds.sample_world`)."""
    world = copy.copy(hand)
    world.hand, world.know = hand.hand.copy(), hand.know.copy()
    world.occ, world.faceup, world.nslots = hand.occ.copy(), hand.faceup.copy(), hand.nslots.copy()
    world.stock, world.discard = list(hand.stock), list(hand.discard)
    world.uses, world.log = dict(hand.uses), None  # the world's counts and narration are its own
    unplaced = Counter({c: hand.r.n_decks for c in range(CARD_CODES)})
    unplaced.subtract(hand.discard)
    face_down = []
    for q in range(hand.P):
        for s in range(hand.nslots[q]):
            if hand.occ[q, s] and hand.faceup[q, s]:
                unplaced[int(hand.hand[q, s])] -= 1
            elif hand.occ[q, s]:
                face_down.append((q, s))
    free = []
    for q, s in face_down:
        believed = int(hand.know[p, q, s])
        if believed >= 0 and unplaced[believed] > 0:
            unplaced[believed] -= 1
            world.hand[q, s] = believed
        else:
            free.append((q, s))
    pool = [c for c in range(CARD_CODES) for _ in range(unplaced[c])]
    shuffle_py(pool, rng)
    for (q, s), card in zip(free, pool):
        world.hand[q, s] = card
    world.stock = pool[len(free):]
    for o in range(hand.P):
        if o != p:
            remembered = (hand.know[o] >= 0) & (hand.occ == 1)
            world.know[o][remembered] = world.hand[remembered]
    return world
