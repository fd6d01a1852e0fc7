"""Counterfactual rollouts for Study 1 (when to call KAMOUL), in both engines.

A *sample* is one decision of one focal player, at the start of one of its own turns where it may call. From
that state the hand is played twice on the same future: both branches restart from the hand's random state,
so they share the deal, the stock order and every choice up to the decision (common random numbers):

* **call**: the focal player calls KAMOUL there (K8);
* **play on**: it does not call there (its strategy picks its other move), then plays on with its strategy,
  which may call on a later turn.

:func:`sample_kernel` / :func:`sample_reference` draw the states from real play: each game is one manche
(K15) played by the seats; at each hand a focal seat and one of its own turns at which a call is allowed are
drawn uniformly from a separate stream ``(seed ^ SAMPLER_SALT, game)``, so the game's own stream is untouched;
the manche then goes on with the hand as actually played. :func:`advise_kernel` / :func:`advise_reference`
build the states of one situation: each game is one hand in which the focal seat (drawn from the separate
stream) has the asked cumulative score (the others 0), never calls before the asked own turn, and at that
turn has its layout replaced by the asked known cards and unseen cards (``force_kernel.impose``). Games where
someone else calls first, or where the stock cannot supply the cards, give no row.

Rows: ``int64[n, len(COLUMNS)]`` in game order, then hand order; both engines give identical rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import prange

from simulator.core.cards import DECK_SIZE
from simulator.core.contract.game import seats_of
from simulator.core.kernels.block_kernel import block_games
from simulator.core.kernels.blocks import block_count, first_fault_in_game_order
from simulator.core.kernels.compiling import KernelFamily, code_of, compile_notice, estimate
from simulator.core.kernels.jit import njit
from simulator.core.kernels.rng import below, seed_state, stream_state
from simulator.core.records import gather_blocks
from simulator.core.storage.spec import build_spec
from simulator.kamoul.engines import kernels
from simulator.kamoul.engines.engine import rules_of
from simulator.kamoul.engines.hand import Hand
from simulator.kamoul.engines.turn_loop import play_hand
from simulator.kamoul.engines.kernel_state import ST, new_force, new_scratch, new_state, reset_force, scratch_of
from simulator.kamoul.engines.search_seats import SearchSeats, kamoul_seats
from simulator.kamoul.vocabulary.answers import raise_fault
from simulator.kamoul.vocabulary.codes import (
    FC_CARDS, FC_FIRST, FC_IMPOSE_FAILED, FC_KNOWN, FC_LAST, FC_MODE, FC_NATURAL_CALL, FC_N_KNOWN, FC_N_UNKNOWN,
    FC_PLAYER, FC_REACHED, FC_SPEC, FC_SUPPRESS, FC_TOTAL, FC_TURN, FC_UNKNOWN, MODE_CALL, MODE_NATURAL, MODE_PLAY_ON,
    RANK_CODES, ends_manche,
)
from simulator.kamoul.vocabulary.rules import Rules

COLUMNS = ("game", "hand", "dealer", "focal", "position", "turn", "cum", "known", "unknown", "cards", "total",
           "strategy_calls", "call_points", "call_won", "call_outcome", "call_others",
           "play_points", "play_won", "play_outcome", "play_others")
"""One row per sample: ``position`` 1 = the focal seat plays first in the hand; ``turn`` its own turn number;
``cum`` its cumulative score before the hand; ``known``/``unknown``/``cards`` its belief at the decision (points
of the own cards it knows, own cards it has not seen, own cards); ``total`` its true total; ``strategy_calls``
1 when its strategy would have called there; per branch its hand points, 1 if it won the hand, the outcome code
(``codes.OUTCOMES``) and the sum of the other seats' points."""
(C_GAME, C_HAND, C_DEALER, C_FOCAL, C_POSITION, C_TURN, C_CUM, C_KNOWN, C_UNKNOWN, C_CARDS, C_TOTAL, C_STRATEGY,
 C_CALL, C_PLAY) = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 16)
SAMPLER_SALT = 0x5A3EC0DECA11


@dataclass(frozen=True)
class Situation:
    """One situation to advise on: the focal player's known cards (rank codes, ``codes.RANK_CODES``), how many
    own cards it has not seen, its own turn number (1 = its first turn of the hand) and its cumulative score."""

    known: tuple[int, ...]
    unknown: int
    turn: int
    cum: int = 0

    def force(self) -> np.ndarray:
        """``int64[FC_LEN]``: the force template (the focal seat is filled in per game)."""
        force = new_force()
        force[FC_TURN] = self.turn
        force[FC_SUPPRESS] = 1
        force[FC_N_KNOWN] = len(self.known)
        force[FC_N_UNKNOWN] = self.unknown
        force[FC_SPEC:FC_SPEC + len(self.known)] = self.known
        return force

    def text(self) -> str:
        known = " ".join(RANK_CODES[c] for c in self.known) or "none"
        return f"known {known}, {self.unknown} unseen, own turn {self.turn}, cumulative {self.cum}"


# ------------------------------------------------------------------------------------------- numba engine
class Rollout(NamedTuple):
    """A block's arrays for the rollouts, besides the hand's state and scratch. The functions below take ten or
    eleven arguments: the sample's facts, the variant, the seats and the block's named arrays."""

    aux: np.ndarray         # uint64[4]  the sampler's own stream (seed ^ SAMPLER_SALT, game)
    start_rng: np.ndarray   # uint64[4]  the game's stream at the start of the sampled hand
    after_rng: np.ndarray   # uint64[4]  and after it was played naturally
    cum_played: np.ndarray  # int64[P]   the cumulative scores after the natural hand


@njit(inline="always")
def _branch(row, col, mode, dealer, rules, seats, start_rng, state, work):
    """Play the hand from ``start_rng`` with the focal decision ``mode``; write points, won, outcome, others'
    points at ``row[col:col + 4]``. Returns True when the decision was reached (and an imposed layout dealt).
    Ten arguments: the branch's own five, then the hand engine's (variant, seats, table, scratch; see Rollout)."""
    scratch = scratch_of(work)
    force, points = scratch.force, scratch.points
    for k in range(4):
        scratch.rng[k] = start_rng[k]
    force[FC_MODE] = mode
    play_hand(dealer, rules, seats, state, work)
    f = force[FC_PLAYER]
    others = 0
    for q in range(points.shape[0]):
        others += points[q] if q != f else 0
    row[col] = points[f]
    row[col + 1] = 1 if state.scalars[ST.winner] == f else 0
    row[col + 2] = state.scalars[ST.outcome]
    row[col + 3] = others
    return force[FC_REACHED] == 1 and force[FC_IMPOSE_FAILED] == 0


@njit(inline="always")
def _both_branches(row, game, hand_no, dealer, rules, seats, start_rng, state, work):
    """Fill ``row`` with the sample's description and both branches; False when the decision was not reached.
    Ten arguments: the sample's facts, then the hand engine's (see Rollout)."""
    scratch = scratch_of(work)
    force = scratch.force
    f = force[FC_PLAYER]
    P = seats.sids.shape[0]
    if not _branch(row, C_CALL, MODE_CALL, dealer, rules, seats, start_rng, state, work):
        return False
    row[C_GAME] = game
    row[C_HAND] = hand_no
    row[C_DEALER] = dealer
    row[C_FOCAL] = f
    row[C_POSITION] = (f - dealer - 1 + P) % P + 1
    row[C_TURN] = force[FC_TURN]
    row[C_CUM] = scratch.cum[f]
    row[C_KNOWN] = force[FC_KNOWN]
    row[C_UNKNOWN] = force[FC_UNKNOWN]
    row[C_CARDS] = force[FC_CARDS]
    row[C_TOTAL] = force[FC_TOTAL]
    row[C_STRATEGY] = force[FC_NATURAL_CALL]
    return _branch(row, C_PLAY, MODE_PLAY_ON, dealer, rules, seats, start_rng, state, work)


@njit(refcount=False)
def _sample_manche(game, seed, rules, seats, state, work, rollout, rows, r):
    """Game ``game``: one manche in real play with one sample per hand; rows from ``r``. Returns the new count.
    Ten arguments: the game, the hand engine's (see Rollout), the rollout's arrays and where its rows go."""
    scratch = scratch_of(work)
    rng, cum, force = scratch.rng, scratch.cum, scratch.force
    aux, start_rng, after_rng, cum_played = rollout.aux, rollout.start_rng, rollout.after_rng, rollout.cum_played
    P = seats.sids.shape[0]
    seed_state(seed, game, rng)
    seed_state(seed ^ SAMPLER_SALT, game, aux)
    dealer = (game + P - 1) % P
    for q in range(P):
        cum[q] = 0
    hand_no = 0
    while True:
        reset_force(force)
        force[FC_PLAYER] = below(aux, P)
        force[FC_TURN] = -1
        force[FC_MODE] = MODE_NATURAL
        for k in range(4):
            start_rng[k] = rng[k]
        play_hand(dealer, rules, seats, state, work)
        for q in range(P):
            cum_played[q] = scratch.cum_after[q]
        for k in range(4):
            after_rng[k] = rng[k]
        if force[FC_FIRST] >= 0:
            force[FC_TURN] = force[FC_FIRST] + below(aux, force[FC_LAST] - force[FC_FIRST] + 1)
            if r < rows.shape[0]:
                _both_branches(rows[r], game, hand_no, dealer, rules, seats, start_rng, state, work)
            r += 1
        for k in range(4):
            rng[k] = after_rng[k]
        ended = False
        for q in range(P):
            cum[q] = cum_played[q]
            ended = ended or ends_manche(cum[q])
        hand_no += 1
        dealer = (dealer + 1) % P
        if ended or hand_no >= rules.max_hands_per_manche:
            return r


@njit(refcount=False)
def _advise_game(game, seed, rules, seats, template, cum_focal, state, work, rollout, row):
    """Game ``game``: one hand in the situation of ``template``, the focal seat at cumulative ``cum_focal``.
    True when it gave a sample (eleven arguments: the block's arrays and the situation, nothing to group)."""
    scratch = scratch_of(work)
    rng, cum, force = scratch.rng, scratch.cum, scratch.force
    P = seats.sids.shape[0]
    seed_state(seed, game, rng)
    seed_state(seed ^ SAMPLER_SALT, game, rollout.aux)
    for k in range(force.shape[0]):
        force[k] = template[k]
    force[FC_PLAYER] = below(rollout.aux, P)
    for q in range(P):
        cum[q] = cum_focal if q == force[FC_PLAYER] else 0
    for k in range(4):
        rollout.start_rng[k] = rng[k]
    return _both_branches(row, game, 0, (game + P - 1) % P, rules, seats, rollout.start_rng, state, work)


SAMPLE, ADVISE = 0, 1
ROLLOUT_LABEL = "Kamoul rollout"
ROLLOUT_COMPILE_SECONDS = {True: 28, False: 68}
"""The rollout kernels' compile (2026-12-07, bench/compile_times.py): 67.5 s alone (in a process of their own, as
:mod:`simulator.core.kernels.compile_apart` compiles them beside the Kamoul kernels); 28.1 s right after the Kamoul kernels in
the same process (their helpers are compiled already)."""


SEARCH_ROLLOUT_LABEL, SEARCH_ROLLOUT_COMPILE_SECONDS = "Kamoul search rollout", 230
"""The rollout kernels of a table with a searching seat: as long as the simulation kernel's (229.8 s, 2026-12-08)."""


def _rollout_notice(args: tuple):
    """The compile notice of the rollout kernels called with ``args``, its estimate for the case at hand (a
    searching seat is a kernel of its own: its compile is checked for the call's types)."""
    if isinstance(args[5], SearchSeats):
        return compile_notice(_rollout_blocks, SEARCH_ROLLOUT_LABEL, SEARCH_ROLLOUT_COMPILE_SECONDS, args=args)
    after = kernels.simulate.stats.cache_misses and any(kernels.simulate.stats.cache_misses.values())
    return compile_notice(_rollout_blocks, ROLLOUT_LABEL, ROLLOUT_COMPILE_SECONDS[bool(after)],
                          key=ROLLOUT_LABEL + (" after the Kamoul kernels" if after else ""))


@njit(parallel=True)
def _rollout_blocks(mode, seed, start, stop, rules_table, seats, template, cum_focal, n_blocks, cap):
    """Games ``[start, stop)`` in ``n_blocks`` blocks: ``(rows int64[B, cap, C], counts int64[B])``. ``mode``
    ``SAMPLE``: one manche of real play per game (``template`` and ``cum_focal`` unused); ``ADVISE``: one hand per
    game in the situation of ``template`` with the focal seat's cumulative ``cum_focal``. One kernel for both
    modes: each compiled kernel carries its own copy of ``play_hand``. Eleven arguments: the compiled entry
    point takes what Python hands it (mode, run, variant, seats, situation, block plan)."""
    P = seats.sids.shape[0]
    S = DECK_SIZE * rules_table[0].n_decks
    rows = np.zeros((n_blocks, cap, len(COLUMNS)), dtype=np.int64)
    counts = np.zeros(n_blocks, dtype=np.int64)
    for b in prange(n_blocks):
        rules = rules_table[0]
        table = new_state(P)  # indexed at each call: the array must live as long as its record is used
        work = new_scratch(P, S)
        rollout = Rollout(np.zeros(4, dtype=np.uint64), np.zeros(4, dtype=np.uint64), np.zeros(4, dtype=np.uint64),
                          np.zeros(P, dtype=np.int64))
        r = 0
        first, end = block_games(start, stop, n_blocks, b)
        for g in range(first, end):
            if mode == SAMPLE:
                r = _sample_manche(g, seed, rules, seats, table[0], work[0], rollout, rows[b], r)
            elif _advise_game(g, seed, rules, seats, template, cum_focal, table[0], work[0], rollout, rows[b, r]):
                r += 1
        counts[b] = r
    return rows, counts


def _arrays(rules: Rules, seats) -> tuple:
    return rules.kernel(), kamoul_seats(seats)


def _labels(seats) -> list[str]:
    return [s.label or f"kernel id {s.sid}" for s in seats]


def sample_kernel(rules: Rules, seats, seed: int, start: int, stop: int, threads: int | None = None) -> np.ndarray:
    """Samples of games ``[start, stop)`` (one manche each) with the numba engine; see the module docstring."""
    seat_objects = seats
    kernel_rules, seats = _arrays(rules, seats)
    n_blocks = block_count(stop - start, threads)
    cap = 16 * -(-(stop - start) // n_blocks)
    while True:
        args = (SAMPLE, seed, start, stop, kernel_rules, seats, new_force(), 0, n_blocks, cap)
        with _rollout_notice(args):
            rows, counts = _rollout_blocks(*args)
        first_fault_in_game_order(seats.fault, lambda: _rollout_blocks(
            SAMPLE, seed, start, stop, kernel_rules, seats, new_force(), 0, n_blocks, cap))
        raise_fault(seats.fault, _labels(seat_objects))
        if (counts <= cap).all():
            return gather_blocks(rows, counts)
        cap = int(counts.max())


def advise_kernel(rules: Rules, seats, situation: Situation, seed: int, start: int, stop: int,
                  threads: int | None = None) -> np.ndarray:
    """Samples of ``situation``, one hand per game of ``[start, stop)``, with the numba engine."""
    seat_objects = seats
    kernel_rules, seats = _arrays(rules, seats)
    n_blocks = block_count(stop - start, threads)
    cap = -(-(stop - start) // n_blocks)
    args = (ADVISE, seed, start, stop, kernel_rules, seats, situation.force(), situation.cum, n_blocks, cap)
    with _rollout_notice(args):
        rows, counts = _rollout_blocks(*args)
    first_fault_in_game_order(seats.fault, lambda: _rollout_blocks(
        ADVISE, seed, start, stop, kernel_rules, seats, situation.force(), situation.cum, n_blocks, cap))
    raise_fault(seats.fault, _labels(seat_objects))
    return gather_blocks(rows, counts)


# -------------------------------------------------------------------------------------- reference engine
def _reference_branches(rules: Rules, seats, game: int, hand_no: int, dealer: int, cum: list[int],
                        rng: np.ndarray, force: np.ndarray) -> list[int] | None:
    """The sample's row from both branches, each a fresh :class:`Hand` from a copy of ``rng``; ``None`` when the
    decision is not reached."""
    f, P = int(force[FC_PLAYER]), len(seats)
    row = [0] * len(COLUMNS)
    for col, mode in ((C_CALL, MODE_CALL), (C_PLAY, MODE_PLAY_ON)):
        force[FC_MODE] = mode
        res = Hand(rules, seats, rng.copy()).play(dealer, list(cum), force)
        if not force[FC_REACHED] or force[FC_IMPOSE_FAILED]:
            return None
        row[col:col + 4] = [res.points[f], int(res.winner == f), res.outcome, sum(res.points) - res.points[f]]
    row[:C_CALL] = [game, hand_no, dealer, f, (f - dealer - 1) % P + 1, int(force[FC_TURN]), cum[f],
                    *(int(force[k]) for k in (FC_KNOWN, FC_UNKNOWN, FC_CARDS, FC_TOTAL, FC_NATURAL_CALL))]
    return row


def sample_reference(rules: Rules, seats, seed: int, start: int, stop: int) -> np.ndarray:
    """:func:`sample_kernel` in plain Python (the judge of the kernel)."""
    P, rows = len(seats), []
    for game in range(start, stop):
        rng, aux = stream_state(seed, game), stream_state(seed ^ SAMPLER_SALT, game)
        dealer, cum, hand_no = (game + P - 1) % P, [0] * P, 0
        while True:
            force = new_force()
            force[FC_PLAYER], force[FC_TURN], force[FC_MODE] = below(aux, P), -1, MODE_NATURAL
            start_state = rng.copy()
            played = Hand(rules, seats, rng).play(dealer, cum, force)
            if force[FC_FIRST] >= 0:
                force[FC_TURN] = force[FC_FIRST] + below(aux, int(force[FC_LAST] - force[FC_FIRST] + 1))
                row = _reference_branches(rules, seats, game, hand_no, dealer, cum, start_state, force)
                assert row is not None, "a sampled decision was not reached on replay"
                rows.append(row)
            cum, hand_no, dealer = played.cum_after, hand_no + 1, (dealer + 1) % P
            if any(ends_manche(c) for c in cum) or hand_no >= rules.max_hands_per_manche:
                break
    return np.array(rows, dtype=np.int64).reshape(-1, len(COLUMNS))


def advise_reference(rules: Rules, seats, situation: Situation, seed: int, start: int, stop: int) -> np.ndarray:
    """:func:`advise_kernel` in plain Python (the judge of the kernel)."""
    P, rows = len(seats), []
    for game in range(start, stop):
        rng, aux = stream_state(seed, game), stream_state(seed ^ SAMPLER_SALT, game)
        force = situation.force()
        force[FC_PLAYER] = below(aux, P)
        cum = [situation.cum if q == force[FC_PLAYER] else 0 for q in range(P)]
        row = _reference_branches(rules, seats, game, 0, (game + P - 1) % P, cum, rng, force)
        if row is not None:
            rows.append(row)
    return np.array(rows, dtype=np.int64).reshape(-1, len(COLUMNS))


def warm() -> None:
    """Compile (or load) the rollout kernels of ``study kamoul-call`` and ``advise``: one game of each mode."""
    spec = build_spec("kamoul", n=1, seed=0, players=2)
    rules, seats = rules_of(spec), seats_of(spec)
    sample_kernel(rules, seats, 0, 0, 1)
    advise_kernel(rules, seats, Situation((1,), 1, 1), 0, 0, 1)


def _rollout_seconds() -> int:
    """What compiling the rollout kernels alone takes (in a process that has not compiled the Kamoul kernels)."""
    return estimate(ROLLOUT_LABEL, ROLLOUT_COMPILE_SECONDS[False], code_of(_rollout_blocks))


ROLLOUTS = KernelFamily("kamoul", "kamoul rollouts", ROLLOUT_LABEL, lambda: _rollout_blocks, _rollout_seconds, warm)
"""The rollout kernels as a family of their own: ``cardsim warm`` and the kamoul-call study compile them beside the
Kamoul kernels (the plugin's ``warm_extra``); simulating does not need them."""

