"""The Rami "Kracouil" numba engine: the game (R2 dealer, R15 end), its rows, and the chunk driver.

Contract: ``simulate(seed, start, stop, level_id, rules, seats, n_blocks, caps, n_cols)`` plays
games ``start <= i < stop`` (game ``i`` from the stream ``(seed, i)`` only) in ``n_blocks`` blocks run in
``prange`` and returns per-block raw rows in the layout of :mod:`simulator.rami.vocabulary.records` (written by column
name). It follows ``simulator/rami/engines/reference.py`` (and its mixin ``table.py``) step for step and draws the same
random numbers in the same order, so both engines produce identical rows and trace hashes.

Module map: :mod:`~simulator.rami.engines.kernel_state` (the block's named state and scratch),
:mod:`~simulator.rami.engines.table_kernel` (table and solver steps, ``TableOps``), :mod:`~simulator.rami.engines.round_kernel`
(a round, ``Round``), this module (``Game`` and the driver). The meld solver (:mod:`simulator.rami.vocabulary.melds`) is
shared with the reference.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from simulator.core.cards import JOKER, N_RANKS
from simulator.core.kernels.block_kernel import block_games, row_buffers
from simulator.core.kernels.jit import njit
from simulator.core.kernels.rng import seed_state, shuffle
from simulator.core.kernels.trace import fold
from simulator.rami.engines.kernel_state import SCALAR, new_scratch, new_state
from simulator.rami.engines.round_kernel import full_deck, play_round
from simulator.rami.vocabulary.codes import EV_DEALER, EV_DEALER_DRAW, MAX_ROUNDS, TRACE_SEED
from simulator.rami.vocabulary.records import GAME, GAME_FIXED, GAME_PER_SEAT, ROUND, ROUND_FIXED, ROUND_PER_SEAT

LEVEL_ROUNDS, LEVEL_GAMES = 0, 1
TABLE_ROUNDS, TABLE_GAMES = 0, 1  # columns of the per-block row counts
N_ROUND_FIXED = len(ROUND_FIXED)
N_GAME_FIXED = len(GAME_FIXED)


@njit(refcount=False)
def _draw_for_deal(q, n, rules, state, scratch):
    """One player's card of the dealer draw (R2): a joker is redrawn, an empty deck replaced by a fresh shuffled
    one. Returns the cards left in ``scratch.deck``; the rank (ace high) goes to ``scratch.drawn[q]``."""
    while True:
        if n == 0:
            n = full_deck(scratch.deck, rules.decks)
            shuffle(scratch.deck, n, state.rng)
        n -= 1
        c = np.int64(scratch.deck[n])
        fold(state.trace, EV_DEALER_DRAW, q, c, 0)
        if c != JOKER:
            break
    scratch.drawn[q] = (c % N_RANKS + N_RANKS - 1) % N_RANKS  # ace high: 2 -> 0 ... K -> 11, A -> 12
    return n


@njit(refcount=False)
def _choose_dealer(rules, state, scratch):
    """Game.choose_dealer (R2): highest card deals, ties draw again among themselves."""
    players = state.sizes.shape[0]
    drawn, contenders = scratch.drawn, scratch.contenders
    n = full_deck(scratch.deck, rules.decks)
    shuffle(scratch.deck, n, state.rng)
    nc = players
    for q in range(players):
        contenders[q] = q
    while True:
        for i in range(nc):
            n = _draw_for_deal(contenders[i], n, rules, state, scratch)
        top = -1
        for i in range(nc):
            if drawn[contenders[i]] > top:
                top = drawn[contenders[i]]
        k = 0
        for i in range(nc):
            q = contenders[i]
            if drawn[q] == top:
                contenders[k] = q
                k += 1
        nc = k
        if nc == 1:
            fold(state.trace, EV_DEALER, contenders[0], 0, 0)
            return contenders[0]


@njit(refcount=False)
def _write_round_row(row, game, rounds, dealer, first, state):
    """The ``rounds`` row of the round just played (layout of :mod:`simulator.rami.vocabulary.records`)."""
    scalars = state.scalars
    row[ROUND.game] = game
    row[ROUND.round] = rounds
    row[ROUND.dealer] = dealer
    row[ROUND.first] = first
    row[ROUND.winner] = scalars[SCALAR.winner]
    row[ROUND.outcome] = scalars[SCALAR.outcome]
    row[ROUND.turns] = scalars[SCALAR.turns]
    row[ROUND.claims] = scalars[SCALAR.claims]
    row[ROUND.reshuffles] = scalars[SCALAR.reshuffles]
    row[ROUND.melds] = scalars[SCALAR.n_table]
    row[ROUND.jokers_laid] = scalars[SCALAR.jokers_laid]
    row[ROUND.jokers_swapped] = scalars[SCALAR.jokers_swapped]
    players = state.sizes.shape[0]
    for q in range(players):
        row[N_ROUND_FIXED + ROUND_PER_SEAT.points * players + q] = state.points[q]
        row[N_ROUND_FIXED + ROUND_PER_SEAT.total * players + q] = state.scores[q]
        row[N_ROUND_FIXED + ROUND_PER_SEAT.open_turn * players + q] = state.open_turn[q]
        row[N_ROUND_FIXED + ROUND_PER_SEAT.cards_left * players + q] = state.sizes[q]
        row[N_ROUND_FIXED + ROUND_PER_SEAT.open_points * players + q] = state.open_points[q]


@njit(refcount=False)
def _write_game_row(row, game, rounds, first_dealer, scores):
    """The ``games`` row (R15: the lowest total wins, ties shared; ``winner`` -1 on a shared win)."""
    players = scores.shape[0]
    low = scores[0]
    for q in range(players):
        if scores[q] < low:
            low = scores[q]
    mask = 0
    n_low = 0
    single = -1
    for q in range(players):
        if scores[q] == low:
            mask |= 1 << q
            n_low += 1
            single = q
    row[GAME.game] = game
    row[GAME.rounds] = rounds
    row[GAME.first_dealer] = first_dealer
    row[GAME.winners] = mask
    row[GAME.winner] = single if n_low == 1 else -1
    for q in range(players):
        row[N_GAME_FIXED + GAME_PER_SEAT.total * players + q] = scores[q]


@njit(refcount=False)
def _game_over(scores, target):
    """R15: someone reached ``target``."""
    top = scores[0]
    for q in range(scores.shape[0]):
        if scores[q] > top:
            top = scores[q]
    return top >= target


@njit(refcount=False, inline="always")
def play_game(game, level, seed, rules, seats, state, scratch, out):
    """Game.play (R2 dealer, R15 end): appends rows to the block's output ``out = (counts, round_rows,
    trace_rows, game_rows)`` (``counts`` ``int64[2]``: rows made per table, also past the capacity)."""
    counts, round_rows, trace_rows, game_rows = out
    players = state.sizes.shape[0]
    trace, scores = state.trace, state.scores
    seed_state(seed, game, state.rng)
    trace[0] = np.uint64(TRACE_SEED)
    dealer = _choose_dealer(rules, state, scratch)
    first_dealer = dealer
    for q in range(players):
        scores[q] = 0
    rounds = 0
    while True:
        if rounds > 0:
            trace[0] = np.uint64(TRACE_SEED)  # the dealer draw is hashed into the first round's trace only
        first = play_round(dealer, rules, seats, state, scratch)
        for q in range(players):
            scores[q] += state.points[q]
        r = counts[TABLE_ROUNDS]
        if r < round_rows.shape[0]:
            _write_round_row(round_rows[r], game, rounds, dealer, first, state)
            trace_rows[r] = trace[0]
        counts[TABLE_ROUNDS] += 1
        rounds += 1
        dealer = (dealer + players - 1) % players  # R2: the next dealer sits on the previous dealer's right
        if level == LEVEL_ROUNDS or rounds >= MAX_ROUNDS or _game_over(scores, rules.target):
            break
    r = counts[TABLE_GAMES]
    if r < game_rows.shape[0]:
        _write_game_row(game_rows[r], game, rounds, first_dealer, scores)
    counts[TABLE_GAMES] += 1


@njit(refcount=False)
def play_block(first, end, level, seed, rules, seats, state, scratch, out):
    """Games ``[first, end)`` into the block's ``out``: the one call a ``prange`` block makes. Nine arguments:
    :func:`play_game`'s, with the block's range for its index. The loop is here, not in the parallel loop's body,
    so that :func:`play_game` (inlined) is not a call per game passing every array of the block, and counting each
    one with atomics: numba compiles the parallel body with reference counting."""
    for game in range(first, end):
        play_game(game, level, seed, rules, seats, state, scratch, out)


@njit(parallel=True)
def simulate(seed, start, stop, level, rules_table, seats, n_blocks, caps, n_cols):
    """Play games ``[start, stop)`` in ``n_blocks`` contiguous blocks (``prange``).

    Block ``b`` plays :func:`~simulator.core.kernels.block_kernel.block_games` (the split changes no result: one random
    stream per game). ``caps``, ``n_cols``: ``int64[2]`` row capacity per block and columns, for rounds and games.
    Returns :func:`~simulator.core.kernels.block_kernel.row_buffers` filled (``(rounds, traces, games, counts)``); a block
    whose count exceeds its capacity kept only the first rows (the caller retries with more room).

    Nine parameters: this is the compiled entry point ``engine.raw_kernel`` calls with one chunk's plain values
    and arrays (``rules_table``: :func:`~simulator.rami.vocabulary.rules.kernel_rules_of`, read as the record ``rules`` in
    each block; ``seats``: :class:`~simulator.core.contract.user_table.KernelSeats`, whose fault record a user
    strategy's illegal answer fills), and every function below takes the named ``rules`` / ``seats`` / ``state``
    / ``scratch`` instead.
    """
    players = seats.sids.shape[0]
    rounds, traces, games, counts = row_buffers(n_blocks, caps, n_cols)
    for b in prange(n_blocks):
        rules = rules_table[0]
        state = new_state(players, rules.decks)
        scratch = new_scratch(players, rules.decks)
        out = (counts[b], rounds[b], traces[b], games[b])
        first, end = block_games(start, stop, n_blocks, b)
        play_block(first, end, level, seed, rules, seats, state, scratch, out)
    return rounds, traces, games, counts
