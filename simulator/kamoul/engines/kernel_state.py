"""The Kamoul kernel's per-block state, by name: what the table holds, the scratch arrays, the match tally.

One set per ``prange`` block, allocated once by :func:`new_state` / :func:`new_scratch` / :func:`new_tally` and
reused from game to game (threads share nothing they write). The table and the scratch are one record each
(:data:`HAND_TABLE`, :data:`SCRATCH_TABLE`): numba passes a record as one pointer and compiles
``state.know[o, p, s]`` to a constant offset and constant strides. The tally and the rows are ``NamedTuple`` of
arrays. ``P`` = players, ``S`` = cards in play.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simulator.core.cards import DECK_SIZE, N_RANKS
from simulator.core.kernels.jit import njit
from simulator.core.kernels.named import indices
from simulator.kamoul.vocabulary.codes import FC_LEN, FC_N_KNOWN, FC_PLAYER
from simulator.kamoul.vocabulary.rules import MAX_PLAYERS_PER_DECKS

SCALARS = ("n_stock", "n_discard", "caller", "ultime", "penalties", "snaps", "wrong_snaps", "call_turn", "call_true",
           "call_unknown", "outcome", "winner", "turns", "contres", "aborted", "peeks", "jq_swaps", "red_king_looks",
           "black_king_looks", "king_swaps")
"""The scalar facts of a hand (``HAND_TABLE.scalars``): pile sizes, the caller (``-1``: none) and the ULTIME player,
counters, the call's facts for the row, the outcome (``codes.OUT_*``) and winner, whether the hand was aborted, and
how many times each card power was used (K5)."""
ST = indices("HandScalars", SCALARS)

COUNTERS = ("dealer", "hand", "manche", "partie")
"""A game's running numbers (``MatchTally.counters``): the next dealer and hand, manche and partie numbers."""
COUNTER = indices("MatchCounters", COUNTERS)


MAX_PLAYERS = max(MAX_PLAYERS_PER_DECKS.values())
"""The most players any variant seats (K1): the table's first dimension."""
MAX_CARDS = DECK_SIZE * max(MAX_PLAYERS_PER_DECKS)
"""The most cards any variant plays with (K1, two decks): the table's positions and pile sizes."""

HAND_TABLE = np.dtype([
    ("players", np.int64),                                     # P, the seats of this run
    ("scalars", np.int64, (len(SCALARS),)),                    # indexed by ST
    ("holders", np.int64, (N_RANKS,)),                         # bit o of holders[r] set while held[o, r] > 0
    ("nslots", np.int64, (MAX_PLAYERS,)),                      # one past the highest position used
    ("hand", np.int16, (MAX_PLAYERS, MAX_CARDS)),              # hidden layout, -1 = empty position
    ("know", np.int16, (MAX_PLAYERS, MAX_PLAYERS, MAX_CARDS)),  # know[o, p, s]: what o believes is at (p, s)
    ("held", np.int16, (MAX_PLAYERS, N_RANKS)),                # own positions o believes hold rank r (beliefs)
    ("stock", np.int16, (MAX_CARDS,)),                         # top = last; size scalars[ST.n_stock]
    ("discard", np.int16, (MAX_CARDS,)),                       # top = last; size scalars[ST.n_discard]
    ("occ", np.int8, (MAX_PLAYERS, MAX_CARDS)),                # 1 where a position holds a card (public)
    ("faceup", np.int8, (MAX_PLAYERS, MAX_CARDS)),             # 1 for a card lying face up
    ("current", np.int64),                                     # whose turn it is, and
    ("final_left", np.int64),                                  # the final round's turns left after a call
], align=True)
"""The table during a hand: one record, every array a field of fixed shape (the largest variant's), used for the
first ``players`` seats and ``nslots[p]`` positions. The kernel's functions take the record, which numba passes as
one pointer and indexes with constant strides; a table of separate arrays passed each array's nine or eleven
words to every call that is not inlined, and read its strides from memory at each access. A strategy only ever
sees :func:`player_view`; the engine reads ``held[p]`` and ``holders`` (made of ``know[p, p]``) to skip asking a
player who cannot snap. Where the turns stand (``scalars[ST.turns]``, ``scalars[ST.contres]``, ``current``,
``final_left``) is kept in registers by the turn loop and written here where a search may copy the table, to play
on from where it stands (``turn_loop.where_turns_stand``); the last two come last, leaving the other fields where
they were (their offsets move the kernel's speed)."""


@njit(inline="llvm")
def player_view(state, p):
    """What player ``p`` may look at (``simulator.kamoul.vocabulary.views``), cut to the run's ``P`` seats: ``know_me``
    ``int16[P, MAX_CARDS]``, ``occ`` ``int8[P, MAX_CARDS]``, ``nslots`` ``int64[P]``, ``faceup`` ``int8[P,
    MAX_CARDS]`` (C-contiguous views of the record, nothing copied)."""
    P = state.players
    return state.know[p, :P], state.occ[:P], state.nslots[:P], state.faceup[:P]


class Scratch(NamedTuple):
    """Working arrays of one block: the random stream, the trace, the strategies' answers, the scoring's seats. The
    views :func:`scratch_of` makes of the block's :data:`SCRATCH_TABLE` record, which is what calls pass."""

    rng: np.ndarray         # uint64[4]       the game's xoshiro256** state
    trace: np.ndarray       # uint64[1]       the hand's event-trace hash
    tmp: np.ndarray         # int64[2PS+8]    strategy scratch
    out: np.ndarray         # int64[S+8]      a strategy's answer (slots, targets)
    claim_seat: np.ndarray  # int64[P]        K6: the players claiming a snap, in turn order
    claim_kind: np.ndarray  # int64[P]        their SNAP_* choice
    claim_out: np.ndarray   # int64[P, S+8]   their answers
    own_turns: np.ndarray   # int64[P]        own turns played in the hand
    announcers: np.ndarray  # int64[P+1]      K10: the caller, then the contres in order
    totals: np.ndarray      # int64[P]        hand totals at the reveal
    classes: np.ndarray     # int64[P]        K10: CLS_* of each announcer (-1: none)
    is_false: np.ndarray    # int64[P]        1 for a false announcer (K12)
    order: np.ndarray       # int64[P]        K10: the contenders in tie order
    points: np.ndarray      # int64[P]        points of the hand
    cum: np.ndarray         # int64[P]        cumulative scores before the hand
    cum_after: np.ndarray   # int64[P]        and after it
    estimate: np.ndarray    # float64[1]      the caller's own estimate (NaN without a call)
    force: np.ndarray       # int64[FC_LEN]   the study hooks (simulator.kamoul.engines.force_kernel)


SCRATCH_TABLE = np.dtype([
    ("players", np.int64),                                 # P
    ("cards", np.int64),                                   # S
    ("rng", np.uint64, (4,)),
    ("trace", np.uint64, (1,)),
    ("estimate", np.float64, (1,)),
    ("force", np.int64, (FC_LEN,)),
    ("claim_seat", np.int64, (MAX_PLAYERS,)),
    ("claim_kind", np.int64, (MAX_PLAYERS,)),
    ("own_turns", np.int64, (MAX_PLAYERS,)),
    ("announcers", np.int64, (MAX_PLAYERS + 1,)),
    ("totals", np.int64, (MAX_PLAYERS,)),
    ("classes", np.int64, (MAX_PLAYERS,)),
    ("is_false", np.int64, (MAX_PLAYERS,)),
    ("order", np.int64, (MAX_PLAYERS,)),
    ("points", np.int64, (MAX_PLAYERS,)),
    ("cum", np.int64, (MAX_PLAYERS,)),
    ("cum_after", np.int64, (MAX_PLAYERS,)),
    ("out", np.int64, (MAX_CARDS + 8,)),
    ("claim_out", np.int64, (MAX_PLAYERS, MAX_CARDS + 8)),
    ("tmp", np.int64, (2 * MAX_PLAYERS * MAX_CARDS + 8,)),
], align=True)
"""A block's :class:`Scratch` as one record (``work``), each array sized for the largest variant: what a call that
is not inlined passes (one pointer, where the scratch's eighteen arrays were about 130 words).
:func:`scratch_of` gives the :class:`Scratch` the code reads, cut to the run's ``P`` and ``S``."""


@njit(inline="llvm")
def scratch_of(work):
    """The :class:`Scratch` of the record ``work`` (:data:`SCRATCH_TABLE`): C-contiguous views with the shapes
    listed there (``P = work.players``, ``S = work.cards``), nothing copied."""
    P, S = work.players, work.cards
    return Scratch(work.rng[:4], work.trace[:1], work.tmp[:2 * P * S + 8], work.out[:S + 8], work.claim_seat[:P],
                   work.claim_kind[:P], work.claim_out[:P], work.own_turns[:P], work.announcers[:P + 1],
                   work.totals[:P], work.classes[:P], work.is_false[:P], work.order[:P], work.points[:P],
                   work.cum[:P], work.cum_after[:P], work.estimate[:1], work.force[:FC_LEN])


class MatchTally(NamedTuple):
    """K15–K16 bookkeeping of one game."""

    counters: np.ndarray       # int64[len(COUNTERS)], indexed by COUNTER
    top_wins: np.ndarray       # int64[P]  parties won in the TOP
    top_totals: np.ndarray     # int64[P]  goal average over the TOP
    partie_wins: np.ndarray    # int64[P]  manches won in the partie (credits)
    partie_totals: np.ndarray  # int64[P]  goal average over the partie


class BlockRows(NamedTuple):
    """One block's output: its rows of each table (layouts of :mod:`simulator.kamoul.vocabulary.records`) and their counts.
    A table's count may pass its capacity: only the first rows are kept and the block is played again bigger."""

    hands: np.ndarray      # int64[cap_hands, hand columns]
    estimates: np.ndarray  # float64[cap_hands]   the caller's estimate (NaN without a call)
    traces: np.ndarray     # uint64[cap_hands]    the hand's event-trace hash
    manches: np.ndarray    # int64[cap_manches, manche columns]
    parties: np.ndarray    # int64[cap_parties, partie columns]
    tops: np.ndarray       # int64[cap_tops, top columns]
    counts: np.ndarray     # int64[4]  rows made per table, in records.LEVELS order (index with records.LEVEL)


@njit(inline="llvm")
def block_rows(rows, b):
    """Block ``b``'s :class:`BlockRows` out of the run's: ``rows`` holds the same fields with a leading axis of
    blocks (``hands`` ``int64[B, cap_hands, hand columns]``, ..., ``counts`` ``int64[B, 4]``)."""
    return BlockRows(rows.hands[b], rows.estimates[b], rows.traces[b], rows.manches[b], rows.parties[b], rows.tops[b],
                     rows.counts[b])


class Block(NamedTuple):
    """Everything one ``prange`` block plays on and writes to."""

    table: np.ndarray  # HAND_TABLE[1]: the block's table (new_state)
    work: np.ndarray   # SCRATCH_TABLE[1]: its scratch (new_scratch; scratch_of)
    tally: MatchTally
    rows: BlockRows


@njit
def new_state(P):
    """One block's table: an array of one :data:`HAND_TABLE` record for ``P`` players (take ``[0]`` in a function
    that keeps the array alive: the record points into it). Every position empty, every belief unknown."""
    table = np.zeros(1, dtype=HAND_TABLE)
    state = table[0]
    state.players = P
    state.hand.fill(-1)
    state.know.fill(-1)  # nobody believes anything: the snap index (held, holders) is empty too
    return table


@njit
def new_scratch(P, S):
    """One block's scratch: an array of one :data:`SCRATCH_TABLE` record for ``P`` players and ``S`` cards (take
    ``[0]`` where the array stays alive, as for :func:`new_state`). Its ``force`` asks for no intervention."""
    work = np.zeros(1, dtype=SCRATCH_TABLE)
    record = work[0]
    record.players = P
    record.cards = S
    reset_force(record.force[:FC_LEN])
    return work


@njit
def new_tally(P):
    """One block's :class:`MatchTally`."""
    return MatchTally(np.zeros(len(COUNTERS), dtype=np.int64), np.zeros(P, dtype=np.int64),
                      np.zeros(P, dtype=np.int64), np.zeros(P, dtype=np.int64), np.zeros(P, dtype=np.int64))


@njit
def new_force():
    """``int64[FC_LEN]``: the ``force`` array of a hand played without intervention (see ``codes.FC_*``)."""
    force = np.zeros(FC_LEN, dtype=np.int64)
    reset_force(force)
    return force


@njit(refcount=False)
def reset_force(force):
    """Make ``force`` ask for no intervention."""
    for i in range(FC_LEN):
        force[i] = 0
    force[FC_PLAYER] = -1
    force[FC_N_KNOWN] = -1
