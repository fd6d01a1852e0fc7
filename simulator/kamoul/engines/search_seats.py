"""The seats of a run with a searching Kamoul player (issue 63), as the numba engine takes them.

A searching seat plays each of its turn's actions on to the end of the hand, through the same turn loop, with its
base player at every seat. numba cannot compile a function that reaches itself, so the loop with the search and the
loop of the rollouts are two compilations told apart by the seats' type: a run with a ``search`` seat passes its
seats as :class:`SearchSeats` (the fields of :class:`~simulator.core.contract.user_table.KernelSeats`, another
class, with the search's workspace), whose turn goes to the search
(:func:`simulator.kamoul.engines.turn_loop.turn_answer`); the rollouts play ``KernelSeats``, whose turn is the
plain decision. A run without a searching seat compiles and plays exactly what it did before."""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np
from numba import types

from simulator.core.contract.seats import kernel_seats
from simulator.core.contract.user_table import NO_TABLE
from simulator.kamoul.engines.kernel_state import HAND_TABLE, MAX_CARDS, SCRATCH_TABLE
from simulator.kamoul.engines.worlds import CARD_CODES
from strategies.kamoul.policy import HEURISTIC, SEARCH

MAX_ACTIONS = 4
"""K4/K8/K9: KAMOUL, CONTRE, the stock, the discard."""


class SearchSeats(NamedTuple):
    """:class:`~simulator.core.contract.user_table.KernelSeats` of a run with a ``search`` seat (its first five
    fields), and the search's workspace, one row per thread (``T``: numba's most threads; a search uses the row of
    the thread it runs on, which plays one block at a time). The kernels run without numba's runtime and allocate
    nothing; numba's parallel loop passes arrays, not tuples of them: the fields are flat."""

    sids: np.ndarray
    prm: np.ndarray
    user: np.ndarray
    fault: np.ndarray
    snaps_on_belief: np.ndarray
    world: np.ndarray      # HAND_TABLE[T]         the world being searched
    roll: np.ndarray       # HAND_TABLE[T]         a rollout's table
    roll_work: np.ndarray  # SCRATCH_TABLE[T]      a rollout's scratch
    counts: np.ndarray     # int64[T, 52]          copies of each card code the searcher cannot place
    pool: np.ndarray       # int16[T, MAX_CARDS]   those cards, shuffled
    rng: np.ndarray        # uint64[T, 4]          a world's stream
    acts: np.ndarray       # int64[T, 4]           the legal actions
    totals: np.ndarray     # float64[T, 4]         each action's total, less the base action's, over the worlds
    squares: np.ndarray    # float64[T, 4]         and the sum of the squares of those differences
    values: np.ndarray     # float64[T, 4]         each action's result on the world at hand
    base_prm: np.ndarray   # float64[T, P, K]      the rollouts' parameters: the searcher's at every seat
    base_sids: np.ndarray  # int64[P]              the rollouts' players: the heuristic at every seat
    no_snaps: np.ndarray   # bool[P]               no seat of the rollouts is a file
    no_table: np.ndarray   # uint64[0]             nor has a function table (user_table.NO_TABLE)


def kamoul_seats(seats: list, kernel=None, hands: int = 0):
    """:func:`~simulator.core.contract.seats.kernel_seats`, as :class:`SearchSeats` when a seat searches."""
    plain = kernel_seats(seats, kernel, hands)
    if not any(s.sid == SEARCH for s in seats):
        return plain
    T = numba.config.NUMBA_NUM_THREADS
    P, K = plain.prm.shape
    return SearchSeats(*plain, np.zeros(T, dtype=HAND_TABLE), np.zeros(T, dtype=HAND_TABLE),
                       np.zeros(T, dtype=SCRATCH_TABLE), np.zeros((T, CARD_CODES), dtype=np.int64),
                       np.zeros((T, MAX_CARDS), dtype=np.int16), np.zeros((T, 4), dtype=np.uint64),
                       np.zeros((T, MAX_ACTIONS), dtype=np.int64), np.zeros((T, MAX_ACTIONS), dtype=np.float64),
                       np.zeros((T, MAX_ACTIONS), dtype=np.float64), np.zeros((T, MAX_ACTIONS), dtype=np.float64),
                       np.zeros((T, P, K), dtype=np.float64), np.full(P, HEURISTIC, dtype=np.int64),
                       np.zeros(P, dtype=np.bool_), NO_TABLE)


def is_seats(seats, cls) -> bool:
    """Whether the numba type ``seats`` is the ``NamedTuple`` class ``cls`` (at typing)."""
    return isinstance(seats, types.NamedTuple) and seats.instance_class is cls
