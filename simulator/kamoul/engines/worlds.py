"""Worlds a player cannot tell from the real table: the deals a searching player samples (issue 63).

A *world* of player ``p`` is a whole table (a :data:`~simulator.kamoul.engines.kernel_state.HAND_TABLE` record)
that agrees with everything ``p`` knows and fills the rest at random: what is public stays (the discard pile, the
occupied positions, the cards lying face up, the counters); each face-down card ``p`` believes it knows stays as
``p`` believes it (right or wrong: the player plays its memory); every other face-down card and the stock are dealt
uniformly from the cards ``p`` cannot place (the decks less the discard pile and what it placed). A card ``p``
believes it placed but that cannot be there any more (all its copies accounted for elsewhere) counts as unknown.

The other players' memories in a world: each remembers the world's card at every position where it remembers one in
the real table (which positions a player has looked at is seen at the table; what it saw is not): so the base
policy plays them with as many known cards as they really have. ``p``'s own memory is its own.

Nothing of the world depends on a card ``p`` does not know: permuting the cards it cannot place among their
positions and the stock leaves every world the same (``tests/test_kamoul_worlds.py``).
"""

from __future__ import annotations

from simulator.core.kernels.jit import njit
from simulator.core.kernels.rng import shuffle
from simulator.kamoul.engines.beliefs import believe
from simulator.kamoul.engines.kernel_state import ST

CARD_CODES = 52
"""Every deck holds the codes 0-51 (K1): ``n_decks`` copies of each."""


@njit(inline="llvm")
def _copy1(dst, src):
    for i in range(src.shape[0]):
        dst[i] = src[i]


@njit(inline="llvm")
def _copy2(dst, src):
    for i in range(src.shape[0]):
        for j in range(src.shape[1]):
            dst[i, j] = src[i, j]


@njit(refcount=False)
def copy_table(state, world):
    """``world`` := ``state``, field by field (two :data:`HAND_TABLE` records; element loops: a slice assignment
    would need numba's reference counting, which the kernels run without)."""
    world.players = state.players
    _copy1(world.scalars, state.scalars)
    _copy1(world.holders, state.holders)
    _copy1(world.nslots, state.nslots)
    _copy2(world.hand, state.hand)
    for o in range(state.know.shape[0]):
        _copy2(world.know[o], state.know[o])
    _copy2(world.held, state.held)
    _copy1(world.stock, state.stock)
    _copy1(world.discard, state.discard)
    _copy2(world.occ, state.occ)
    _copy2(world.faceup, state.faceup)
    world.current = state.current
    world.final_left = state.final_left


FREE = -2
"""In a world being made: a face-down position whose card is still to be dealt."""


@njit(refcount=False)
def _pin(state, p, n_decks, world, counts):
    """``counts`` (``int64[52]``) := the copies of each card code ``p`` cannot place, and ``world.hand`` := the cards
    it places (public, or face down and believed while a copy remains), :data:`FREE` elsewhere on the table."""
    for c in range(CARD_CODES):
        counts[c] = n_decks
    for i in range(state.scalars[ST.n_discard]):
        counts[state.discard[i]] -= 1
    P = state.players
    for q in range(P):
        for s in range(state.nslots[q]):
            if state.occ[q, s] and state.faceup[q, s]:
                counts[state.hand[q, s]] -= 1
    for q in range(P):
        for s in range(state.nslots[q]):
            if not state.occ[q, s] or state.faceup[q, s]:
                continue
            card = state.know[p, q, s]
            if card >= 0 and counts[card] > 0:
                counts[card] -= 1
                world.hand[q, s] = card
            else:
                world.hand[q, s] = FREE


@njit(refcount=False)
def sample_world(state, p, n_decks, rng, world, counts, pool):
    """Fill ``world`` (a :data:`HAND_TABLE` record) with one world of player ``p`` drawn from ``rng`` (see the module
    docstring). ``counts``: ``int64[52]`` scratch; ``pool``: ``int16[>= 52 * n_decks]`` scratch. Draws one
    :func:`~simulator.core.kernels.rng.shuffle` of the cards ``p`` cannot place."""
    copy_table(state, world)
    _pin(state, p, n_decks, world, counts)
    n = 0
    for c in range(CARD_CODES):
        for _ in range(counts[c]):
            pool[n] = c
            n += 1
    shuffle(pool, n, rng)
    k = 0
    for q in range(state.players):
        for s in range(state.nslots[q]):
            if world.hand[q, s] == FREE:
                world.hand[q, s] = pool[k]
                k += 1
    for i in range(state.scalars[ST.n_stock]):
        world.stock[i] = pool[k]
        k += 1
    _remember(state, p, world)


@njit(refcount=False)
def _remember(state, p, world):
    """The other players' memories in ``world``: each the world's card wherever it remembers one in ``state``
    (through :func:`~simulator.kamoul.engines.beliefs.believe`, which keeps the snap index copied with the table);
    ``p``'s memory stays its own."""
    for o in range(state.players):
        if o == p:
            continue
        for q in range(state.players):
            for s in range(state.nslots[q]):
                if state.know[o, q, s] >= 0 and state.occ[q, s]:
                    believe(world, o, q, s, world.hand[q, s])
