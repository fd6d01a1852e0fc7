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
turn has its layout replaced by the asked known cards and unseen cards (``kernels._impose``). Games where
someone else calls first, or where the stock cannot supply the cards, give no row.

Rows: ``int64[n, len(COLUMNS)]`` in game order, then hand order; both engines give identical rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
from numba import prange

from simulator.core.game import seat_arrays
from simulator.core.jit import njit
from simulator.core.records import gather_blocks
from simulator.core.rng import below, seed_state, stream_state
from simulator.kamoul.codes import (
    FC_CARDS, FC_FIRST, FC_IMPOSE_FAILED, FC_KNOWN, FC_LAST, FC_MODE, FC_NATURAL_CALL, FC_N_KNOWN,
    FC_N_UNKNOWN, FC_PLAYER, FC_REACHED, FC_SPEC, FC_SUPPRESS, FC_TOTAL, FC_TURN, FC_UNKNOWN,
    MODE_CALL, MODE_NATURAL, MODE_PLAY_ON, RANK_CODES,
)
from simulator.kamoul.kernels import (
    ST_OUTCOME, ST_WINNER, new_buffers, new_force, new_state, play_hand, reset_force,
)
from simulator.kamoul.reference import Hand
from simulator.kamoul.rules import I_MAX_HANDS, I_N_DECKS, Rules, rules_arrays

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
@njit(refcount=False)
def _branch(row, col, mode, dealer, cum, P, ri, rf, sids, prm, rng, rng0, state, bufs, force):
    """Play the hand from ``rng0`` with the focal decision ``mode``; write points, won, outcome, others' points
    at ``row[col:col + 4]``. Returns True when the decision was reached (and an imposed layout dealt)."""
    _, work, h, tmp, out, claim_q, claim_kind, claim_out, points, _, cum_after, est, _, _, _ = bufs
    for k in range(4):
        rng[k] = rng0[k]
    force[FC_MODE] = mode
    play_hand(dealer, cum, P, ri, rf, sids, prm, rng, state, work, h, tmp, out, claim_q, claim_kind, claim_out,
              points, cum_after, est, force)
    f = force[FC_PLAYER]
    st = state[7]
    others = 0
    for q in range(P):
        others += points[q] if q != f else 0
    row[col] = points[f]
    row[col + 1] = 1 if st[ST_WINNER] == f else 0
    row[col + 2] = st[ST_OUTCOME]
    row[col + 3] = others
    return force[FC_REACHED] == 1 and force[FC_IMPOSE_FAILED] == 0


@njit(refcount=False)
def _both_branches(row, game, hand_no, dealer, cum, P, ri, rf, sids, prm, rng, rng0, state, bufs, force):
    """Fill ``row`` with the sample's description and both branches; False when the decision was not reached."""
    f = force[FC_PLAYER]
    if not _branch(row, C_CALL, MODE_CALL, dealer, cum, P, ri, rf, sids, prm, rng, rng0, state, bufs, force):
        return False
    row[C_GAME] = game
    row[C_HAND] = hand_no
    row[C_DEALER] = dealer
    row[C_FOCAL] = f
    row[C_POSITION] = (f - dealer - 1 + P) % P + 1
    row[C_TURN] = force[FC_TURN]
    row[C_CUM] = cum[f]
    row[C_KNOWN] = force[FC_KNOWN]
    row[C_UNKNOWN] = force[FC_UNKNOWN]
    row[C_CARDS] = force[FC_CARDS]
    row[C_TOTAL] = force[FC_TOTAL]
    row[C_STRATEGY] = force[FC_NATURAL_CALL]
    return _branch(row, C_PLAY, MODE_PLAY_ON, dealer, cum, P, ri, rf, sids, prm, rng, rng0, state, bufs, force)


@njit(refcount=False)
def _sample_manche(game, seed, P, ri, rf, sids, prm, state, bufs, aux, rng0, rng1, cum_played, force, rows, r):
    """Game ``game``: one manche in real play with one sample per hand; rows from ``r``. Returns the new count."""
    rng, work, h, tmp, out, claim_q, claim_kind, claim_out, points, cum, cum_after, est, _, _, _ = bufs
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
            rng0[k] = rng[k]
        play_hand(dealer, cum, P, ri, rf, sids, prm, rng, state, work, h, tmp, out, claim_q, claim_kind, claim_out,
                  points, cum_after, est, force)
        for q in range(P):
            cum_played[q] = cum_after[q]
        for k in range(4):
            rng1[k] = rng[k]
        if force[FC_FIRST] >= 0:
            force[FC_TURN] = force[FC_FIRST] + below(aux, force[FC_LAST] - force[FC_FIRST] + 1)
            if r < rows.shape[0]:
                _both_branches(rows[r], game, hand_no, dealer, cum, P, ri, rf, sids, prm, rng, rng0, state, bufs,
                               force)
            r += 1
        for k in range(4):
            rng[k] = rng1[k]
        ended = False
        for q in range(P):
            cum[q] = cum_played[q]
            ended = ended or cum[q] > 31 or cum[q] <= -31
        hand_no += 1
        dealer = (dealer + 1) % P
        if ended or hand_no >= ri[I_MAX_HANDS]:
            return r


SAMPLE, ADVISE = 0, 1


@njit(parallel=True)
def _rollout_blocks(mode, seed, start, stop, ri, rf, sids, prm, template, cum_focal, n_blocks, cap):
    """Games ``[start, stop)`` in ``n_blocks`` blocks: ``(rows int64[B, cap, C], counts int64[B])``. ``mode``
    ``SAMPLE``: one manche of real play per game (``template`` and ``cum_focal`` unused); ``ADVISE``: one hand per
    game in the situation of ``template`` with the focal seat's cumulative ``cum_focal``. One kernel for both
    modes: each compiled kernel carries its own copy of ``play_hand``."""
    P = sids.shape[0]
    S = 52 * ri[I_N_DECKS]
    rows = np.zeros((n_blocks, cap, len(COLUMNS)), dtype=np.int64)
    counts = np.zeros(n_blocks, dtype=np.int64)
    per = (stop - start + n_blocks - 1) // n_blocks
    for b in prange(n_blocks):
        state = new_state(P, S)
        bufs = new_buffers(P, S)
        rng = bufs[0]
        cum = bufs[9]
        aux = np.zeros(4, dtype=np.uint64)
        rng0 = np.zeros(4, dtype=np.uint64)
        rng1 = np.zeros(4, dtype=np.uint64)
        cum_played = np.zeros(P, dtype=np.int64)
        force = new_force()
        r = 0
        for g in range(min(start + per * b, stop), min(start + per * (b + 1), stop)):
            if mode == SAMPLE:
                r = _sample_manche(g, seed, P, ri, rf, sids, prm, state, bufs, aux, rng0, rng1, cum_played, force,
                                   rows[b], r)
                continue
            seed_state(seed, g, rng)
            seed_state(seed ^ SAMPLER_SALT, g, aux)
            force[:] = template
            force[FC_PLAYER] = below(aux, P)
            for q in range(P):
                cum[q] = cum_focal if q == force[FC_PLAYER] else 0
            for k in range(4):
                rng0[k] = rng[k]
            if _both_branches(rows[b, r], g, 0, (g + P - 1) % P, cum, P, ri, rf, sids, prm, rng, rng0, state, bufs,
                              force):
                r += 1
        counts[b] = r
    return rows, counts


def _arrays(rules: Rules, seats) -> tuple:
    return (*rules_arrays(rules), *seat_arrays(seats))


def _blocks(n: int, threads: int | None) -> int:
    return max(1, min(n, 4 * (threads or numba.get_num_threads())))


def sample_kernel(rules: Rules, seats, seed: int, start: int, stop: int, threads: int | None = None) -> np.ndarray:
    """Samples of games ``[start, stop)`` (one manche each) with the numba engine; see the module docstring."""
    ri, rf, sids, prm = _arrays(rules, seats)
    n_blocks = _blocks(stop - start, threads)
    cap = 16 * -(-(stop - start) // n_blocks)
    while True:
        rows, counts = _rollout_blocks(SAMPLE, seed, start, stop, ri, rf, sids, prm, new_force(), 0, n_blocks, cap)
        if (counts <= cap).all():
            return gather_blocks(rows, counts)
        cap = int(counts.max())


def advise_kernel(rules: Rules, seats, situation: Situation, seed: int, start: int, stop: int,
                  threads: int | None = None) -> np.ndarray:
    """Samples of ``situation``, one hand per game of ``[start, stop)``, with the numba engine."""
    ri, rf, sids, prm = _arrays(rules, seats)
    n_blocks = _blocks(stop - start, threads)
    rows, counts = _rollout_blocks(ADVISE, seed, start, stop, ri, rf, sids, prm, situation.force(), situation.cum,
                                   n_blocks, -(-(stop - start) // n_blocks))
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
            if any(c > 31 or c <= -31 for c in cum) or hand_no >= rules.max_hands_per_manche:
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
