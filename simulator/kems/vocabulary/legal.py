"""The legal choices of each Kem's decision, listed by the engine (rules KM5, KM8, KM10, M-signal).

Each function fills an ``int64`` buffer ``out`` with the choices open to the deciding player now and returns how
many there are, always in the same order. The checks of :mod:`simulator.kems.vocabulary.answers`, which both engines apply
to a strategy's answer, accept exactly what these list (``tests/test_kems_contract.py`` compares them), and a
strategy may call them on a buffer of its own to choose among them:

* a move (KM5): up to :func:`max_exchanges` pairs among :func:`pair_choices` (``hand slot * 4 + centre slot``),
  no hand slot and no centre slot twice; none is a pass;
* a contre by inference (KM10): one of :func:`accuse_choices`, ``-1`` or an opponent's seat;
* a sign (M-signal), a Kem's call on the partner's sign (KM8): :func:`yes_no_choices`, ``0`` or ``1``;
* a contre on an opponent's sign (KM10): one of :func:`contre_choices`.

Arrays: ``seen``: ``int64[4]``, the centre as the player perceives it (``EMPTY`` for a free slot); ``out``:
``int64[>= 16]``.
"""

from __future__ import annotations

from simulator.core.kernels.jit import njit
from simulator.kems.vocabulary.codes import EMPTY

HAND_SLOTS = CENTRE_SLOTS = 4


@njit(refcount=False, inline="always")
def max_exchanges(multi):
    """KM5: one card for one per move; with ``multi_swap`` every card of the hand at once."""
    return HAND_SLOTS if multi else 1


@njit(refcount=False, inline="always")
def pair_choices(seen, out):
    """KM5: each exchange open now, ``hand_slot * 4 + centre_slot``, for every hand slot and every centre slot
    holding a card the player sees."""
    n = 0
    for hand_slot in range(HAND_SLOTS):
        for slot in range(CENTRE_SLOTS):
            if seen[slot] != EMPTY:
                out[n] = hand_slot * CENTRE_SLOTS + slot
                n += 1
    return n


@njit(refcount=False, inline="always")
def accuse_choices(me, players, out):
    """KM10: no contre (-1), or each opponent's seat (partners sit opposite: a seat of another team)."""
    out[0] = -1
    n = 1
    teams = players // 2
    for o in range(players):
        if o % teams != me % teams:
            out[n] = o
            n += 1
    return n


@njit(refcount=False, inline="always")
def yes_no_choices(out):
    """M-signal, KM8: no (0) or yes (1)."""
    out[0] = 0
    out[1] = 1
    return 2


@njit(refcount=False, inline="always")
def contre_choices(can_call, out):
    """KM10 on a sign seen: no (0) always; yes (1) when the player ``can_call`` (not banned, no contre
    pending)."""
    out[0] = 0
    if can_call:
        out[1] = 1
        return 2
    return 1
