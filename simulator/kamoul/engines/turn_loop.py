"""A Kamoul hand played in numba (K2–K14): the turn loop, and the searching player who replays it (issue 63).

:func:`play_hand` follows ``simulator.kamoul.engines.hand.Hand.play`` step for step and draws the same random
numbers in the same order, so both engines give identical rows and trace hashes: the deal, then :func:`play_turns`
(each turn: :mod:`~simulator.kamoul.engines.hand_kernel`'s steps, the choice :func:`_choose`, the rest of the turn
:func:`act_turn`), then the reveal :func:`finish_hand`. It reads the variant from ``rules`` (a record of
:data:`simulator.kamoul.vocabulary.rules.KERNEL_RULES`), the seats from ``seats`` (``KernelSeats``, or
:class:`~simulator.kamoul.engines.search_seats.SearchSeats` when a seat searches) and plays on one block's table
(``state``, a :data:`~simulator.kamoul.engines.kernel_state.HAND_TABLE` record) and scratch (``work``).

The search lives here because it plays this loop on: at a turn of a ``search`` seat
(:mod:`strategies.kamoul.search`) with more than one legal action, the seat draws one number from the game's
stream, the key of its worlds; world ``w`` is sampled from the stream ``(key, w)``
(:func:`~simulator.kamoul.engines.worlds.sample_world`), and each action is played on a copy of it, from the same
point of that stream (common random numbers), to the end of the hand, with the seat's base player at every seat
(:func:`rollout`). The action with the lowest total over the worlds is taken, the first listed on a tie
(``legal.turn_actions`` order). :mod:`~simulator.kamoul.engines.search_reference` does the same in Python, number
for number. The loop with the search and the rollouts' loop are two compilations told apart by the seats' type
(:func:`turn_answer`), the rollouts' a copy (``jit.second_copy``): docs/architecture.md, "Search".
"""

from __future__ import annotations

import numpy as np
from numba import get_thread_id
from numba.extending import overload

from simulator.core.contract.user_table import KernelSeats
from simulator.core.kernels.jit import njit, second_copy
from simulator.core.kernels.rng import next_u64, seed_state, uniform
from simulator.core.kernels.trace import fold as _trace
from simulator.kamoul.engines.beliefs import always_asked
from simulator.kamoul.engines.force_kernel import focal_turn, record_focal
from simulator.kamoul.engines.hand_kernel import (
    call_contre, call_kamoul, clear_hand, count_cards, deal, reorder, snap_window, turn_start, turn_stock, turn_take,
)
from simulator.kamoul.engines.kernel_state import ST, player_view, reset_force, scratch_of
from simulator.kamoul.engines.score_kernel import score
from simulator.kamoul.engines.search_seats import SearchSeats, is_seats
from simulator.kamoul.engines.worlds import copy_table, sample_world
from simulator.kamoul.vocabulary.codes import (
    ACT_CALL, ACT_CONTRE, ACT_STOCK, EV_END, FC_MODE, MODE_CALL, MODE_PLAY_ON,
)
from simulator.kamoul.vocabulary.contract import Turn
from simulator.kamoul.vocabulary.legal import turn_actions
from simulator.kamoul.vocabulary.rules import AU_SCORE_30
from simulator.kamoul.vocabulary.views import OWN, own_summary
from strategies.kamoul.policy import SEARCH, decide_turn
from strategies.kamoul.search import S, preferred


def turn_answer(rules, seats, state, work, c):
    """The turn's action (``codes.ACT_*``) of seat ``c.me`` in context ``c`` (a ``Turn``): searched
    (:func:`search_turn`) for a ``search`` seat of :class:`~simulator.kamoul.engines.search_seats.SearchSeats`, else
    ``decide_turn``. Compiled only (an ``overload``)."""
    raise NotImplementedError("compiled engine only")


@overload(turn_answer, jit_options={"_nrt": False, "forceinline": True})
def _turn_answer(rules, seats, state, work, c):
    if is_seats(seats, SearchSeats):
        def searching(rules, seats, state, work, c):
            if seats.sids[c.me] == SEARCH:
                return search_turn(rules, seats, state, work, c)
            return decide_turn(seats, c)

        return searching

    def deciding(rules, seats, state, work, c):
        return decide_turn(seats, c)

    return deciding


# ------------------------------------------------------------------------------ the turn
@njit(inline="llvm")
def _choose(p, own, forced, can_call, in_final, rules, seats, state, work):
    """The turn's action (``ACT_*``); a forced decision (study hooks) records the natural choice and may ask a
    second time. One call site: the decision is inlined. Nine arguments: the turn's flags and the block's arrays
    (inlined into :func:`play_turns`)."""
    scratch = scratch_of(work)
    force = scratch.force
    nd = state.scalars[ST.n_discard]
    can_take = nd > 0 and own[OWN.cards] > 0
    top = np.int64(state.discard[nd - 1]) if nd > 0 else np.int64(-1)
    while True:
        know_me, occ, nslots, faceup = player_view(state, p)
        act = turn_answer(rules, seats, state, work,
                          Turn(p, know_me, occ, nslots, faceup, own, top, can_call, in_final, can_take, scratch.cum[p],
                               rules.au_score_30 == AU_SCORE_30.ge, scratch.rng, scratch.tmp))
        if not forced:
            return act
        forced = False
        record_focal(force, p, state, act)
        if force[FC_MODE] == MODE_CALL:
            return ACT_CALL
        if force[FC_MODE] == MODE_PLAY_ON and act == ACT_CALL:
            can_call = False
            continue
        return act


@njit(inline="llvm")
def act_turn(p, act, own, in_final, final_left, n_contres, always, rules, seats, state, work):
    """Player ``p``'s turn after it chose ``act`` (K4, K8, K9), the snaps it opens (K6, K7) and the physical
    layer's reordering (K13). ``final_left``: the final round's turns left after a call, ``n_contres``: the contres
    called. Returns ``(goes_on, final_left, n_contres)`` after the turn; ``goes_on`` is False when the hand ends at
    once (K7: ULTIME). ``own``: ``p``'s summary (``views.own_summary``); ``always``: ``beliefs.always_asked(seats)``.
    Eleven arguments: the turn's choice and counters, and the block's arrays (inlined by LLVM: nothing is passed)."""
    scratch = scratch_of(work)
    scalars = state.scalars
    snap_card = np.int64(-1)
    if act == ACT_CALL:  # K8
        if call_kamoul(p, scratch.own_turns[p], rules, seats, state, work):
            final_left = state.players - 1
    elif act == ACT_CONTRE:  # K9
        if call_contre(p, rules, state, work):
            scratch.announcers[1 + n_contres] = p
            n_contres += 1
    elif act == ACT_STOCK:  # K4(c)
        snap_card = turn_stock(p, own, rules, seats, state, work)
    else:  # K4(d)
        snap_card = turn_take(p, own, rules, seats, state, scratch)
    # one call site for the three ways a card lands on the discard, so that the window is inlined once
    if snap_card >= 0 and scalars[ST.ultime] < 0:
        snap_window(p, snap_card, always, rules, seats, state, scratch)
    if scalars[ST.ultime] >= 0:
        return False, final_left, n_contres  # K7
    if rules.p_reorder > 0 and count_cards(p, state) >= 2 and uniform(scratch.rng) < rules.p_reorder:
        reorder(p, rules, state, scratch.rng, scratch.trace)
    if in_final:
        final_left -= 1
    return True, final_left, n_contres


def where_turns_stand(seats, state, p, turns, n_contres, final_left):
    """Write into the table where its turns stand (``p`` to play, ``turns`` played, the contres called,
    the final round's turns left) before ``p`` chooses, for a search to play on from a copy of the table: with
    :class:`~simulator.kamoul.engines.search_seats.SearchSeats` only (the loop keeps them in registers, which
    a plain run does not pay to store). Compiled only (an ``overload``)."""
    raise NotImplementedError("compiled engine only")


@overload(where_turns_stand, jit_options={"_nrt": False, "forceinline": True})
def _where_turns_stand(seats, state, p, turns, n_contres, final_left):
    if is_seats(seats, SearchSeats):
        def store(seats, state, p, turns, n_contres, final_left):
            state.current = p
            state.scalars[ST.turns] = turns
            state.scalars[ST.contres] = n_contres
            state.final_left = final_left

        return store
    return lambda seats, state, p, turns, n_contres, final_left: None


@njit(inline="llvm")
def play_turns(rules, seats, state, work):
    """The hand's turns from where the table stands to its end (K4–K9, K14): whose turn is next, how many were
    played, the contres called and the final round's turns left are the table's (``state.current``,
    ``scalars[ST.turns]``, ``scalars[ST.contres]``, ``state.final_left``) on entry, and the two counts on return (each
    player's own turns: ``scratch.own_turns``, ``int64[P]``); a copied table and scratch play on alike (the
    searching player's rollouts, :func:`rollout`)."""
    scratch = scratch_of(work)
    scalars, own_turns = state.scalars, scratch.own_turns
    P = state.players
    current, turns = state.current, scalars[ST.turns]
    n_contres, final_left = scalars[ST.contres], state.final_left
    always = always_asked(seats)
    while True:
        if scalars[ST.caller] >= 0 and final_left == 0:
            break  # K8: reveal
        p = current
        if turns >= rules.max_turns_per_hand or not turn_start(p, rules, seats, state, scratch):
            scalars[ST.aborted] = 1
            break  # K14: the turn cap or an empty stock; a pending call is void
        turns += 1
        own_turns[p] += 1
        in_final = scalars[ST.caller] >= 0
        can_call = (not in_final) and own_turns[p] - 1 >= rules.min_turns_before_call
        forced, can_call, failed = focal_turn(scratch.force, p, own_turns[p], can_call, state, scratch.rng)
        if failed:
            scalars[ST.aborted] = 1
            break
        own = own_summary(p, state.know[p], state.occ, state.nslots)  # once per turn, for the decisions
        where_turns_stand(seats, state, p, turns, n_contres, final_left)
        act = _choose(p, own, forced, can_call, in_final, rules, seats, state, work)
        goes_on, final_left, n_contres = act_turn(p, act, own, in_final, final_left, n_contres, always, rules, seats,
                                                  state, work)
        if not goes_on:
            break
        current = p + 1 if p + 1 < P else 0
    scalars[ST.turns] = turns
    scalars[ST.contres] = n_contres


@njit(inline="llvm")
def finish_hand(rules, state, work):
    """K10–K12: the reveal, the hand's points (``scratch.points``, ``cum_after``) and the trace's last event."""
    scratch = scratch_of(work)
    scratch.announcers[0] = state.scalars[ST.caller]
    score(rules, state, work)
    _trace(scratch.trace, EV_END, state.scalars[ST.outcome], state.scalars[ST.winner], 0)


@njit(refcount=False)
def play_hand(dealer, rules, seats, state, work):
    """One hand (K2–K14) from the cumulative scores ``scratch.cum``: fills ``scratch.points``/``cum_after``
    (``int64[P]``) and the facts in ``state.scalars``. ``state``: the table (``kernel_state.HAND_TABLE``),
    ``work``: the scratch record (``kernel_state.SCRATCH_TABLE``, read through ``scratch_of``).

    ``scratch.force`` (``new_force()`` for ordinary play) can make the focal player call or play on at one own
    turn and impose its layout there (``simulator.kamoul.engines.counterfactual``)."""
    P = state.players
    scratch = scratch_of(work)
    clear_hand(state, scratch.estimate, scratch.force, scratch.trace)
    deal(dealer, rules, seats, state, work)
    for p in range(P):
        scratch.own_turns[p] = 0
    state.current = dealer + 1 if dealer + 1 < P else 0  # K3
    state.final_left = 0
    play_turns(rules, seats, state, work)
    finish_hand(rules, state, work)


# ------------------------------------------------------------------------------ the search (issue 63)
@njit(refcount=False)
def _base_seats(p, seats, t):
    """The seats of ``p``'s rollouts on thread ``t`` (``KernelSeats``: their loop is the plain one): the heuristic at
    every seat with ``p``'s parameters (its base player: the search's own come after the heuristic's)."""
    prm = seats.base_prm[t]
    for q in range(prm.shape[0]):
        for k in range(prm.shape[1]):
            prm[q, k] = seats.prm[p, k]
    return KernelSeats(seats.base_sids, prm, seats.no_table, seats.fault, seats.no_snaps)


_rollout_choose = second_copy(_choose)
rollout_turns = second_copy(play_turns, _choose=_rollout_choose)
"""The rollouts' turn loop: a copy, compiled inside the searching loop's compilation (``jit.second_copy``)."""


@njit(refcount=False)
def _copy_scratch(work, roll, rng):
    """``roll`` := what of ``work`` a hand carries from turn to turn (the cumulative scores, own turns, announcers,
    the call's estimate, the trace), its stream ``rng``, and no study intervention."""
    P = work.players
    roll.players = P
    roll.cards = work.cards
    for k in range(4):
        roll.rng[k] = rng[k]
    roll.trace[0] = work.trace[0]
    roll.estimate[0] = work.estimate[0]
    for q in range(P):
        roll.cum[q] = work.cum[q]
        roll.own_turns[q] = work.own_turns[q]
    for i in range(P + 1):
        roll.announcers[i] = work.announcers[i]
    reset_force(roll.force)


@njit(refcount=False)
def rollout(p, act, own, in_final, margin, rules, seats, state, work):
    """Play ``act`` for ``p`` on the table ``state`` and the hand on to its end with ``seats``; returns ``float64``:
    ``p``'s points of the hand, less the others' mean with ``margin``. Nine arguments: the searched turn's four
    facts, the objective, and the rollout's variant, seats, table and scratch."""
    scalars = state.scalars
    goes_on, final_left, n_contres = act_turn(p, act, own, in_final, state.final_left, scalars[ST.contres],
                                              always_asked(seats), rules, seats, state, work)
    scalars[ST.contres] = n_contres
    if goes_on:
        state.final_left = final_left
        state.current = p + 1 if p + 1 < state.players else 0
        rollout_turns(rules, seats, state, work)
    finish_hand(rules, state, work)
    points = scratch_of(work).points
    value = np.float64(points[p])
    if margin:
        others = 0
        for q in range(points.shape[0]):
            if q != p:
                others += points[q]
        value -= others / (points.shape[0] - 1)
    return value


@njit(refcount=False)
def search_turn(rules, seats, state, work, c):
    """``int64``: the action (``codes.ACT_*``) seat ``c.me`` takes, searched (see the module docstring and
    :func:`preferred`). ``seats``: :class:`~simulator.kamoul.engines.search_seats.SearchSeats`; ``c``: the seat's
    ``Turn`` context; ``state``/``work``: the real table and scratch records, read only but for one draw from the
    stream."""
    t = get_thread_id()
    acts, totals, squares, values = seats.acts[t], seats.totals[t], seats.squares[t], seats.values[t]
    rng, counts, pool = seats.rng[t], seats.counts[t], seats.pool[t]
    n = turn_actions(c.can_call, c.can_contre, c.can_take, acts)
    if n == 1:
        return acts[0]
    p = c.me
    key = next_u64(scratch_of(work).rng)
    worlds = np.int64(seats.prm[p, S.worlds])
    margin = seats.prm[p, S.margin] > 0
    base_seats = _base_seats(p, seats, t)
    natural = decide_turn(base_seats, c)  # the base player's answer (the heuristic's turn draws nothing)
    base = 0
    while acts[base] != natural:
        base += 1
    world, roll, roll_work = seats.world[t], seats.roll[t], seats.roll_work[t]
    for i in range(n):
        totals[i] = 0.0
        squares[i] = 0.0
    for w in range(worlds):
        seed_state(key, w, rng)
        sample_world(state, p, rules.n_decks, rng, world, counts, pool)
        for i in range(n):
            copy_table(world, roll)
            _copy_scratch(work, roll_work, rng)
            values[i] = rollout(p, acts[i], c.own, c.can_contre, margin, rules, base_seats, roll, roll_work)
        for i in range(n):
            gap = values[i] - values[base]
            totals[i] += gap
            squares[i] += gap * gap
    return acts[preferred(acts, n, base, totals, squares, worlds, seats.prm[p, S.min_z])]
