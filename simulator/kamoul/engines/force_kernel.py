"""The study hooks of the Kamoul kernel: the ``force`` array of a hand (counterfactual rollouts, Study 1).

``force`` (``int64[codes.FC_LEN]``, layout in :mod:`simulator.kamoul.vocabulary.codes`) can make one focal player call or
play on at one own turn and impose its layout there; the hand records what that player believed at the
decision. Ordinary play passes ``new_force()`` (no focal player): the hand engine then only pays one compare
per turn. ``simulator.kamoul.engines.hand.Hand.impose`` / ``record_focal`` are the reference's statement of the same.
"""

from __future__ import annotations


from simulator.core.cards import IS_RED, N_RANKS
from simulator.core.kernels.jit import njit
from simulator.core.kernels.rng import below, shuffle
from simulator.kamoul.engines.beliefs import believe, everyone_believes
from simulator.kamoul.engines.kernel_state import ST, new_force, reset_force  # noqa: F401  (re-exported)
from simulator.kamoul.vocabulary.codes import (
    ACT_CALL, CARD_VALUE, FC_CARDS, FC_FIRST, FC_IMPOSE_FAILED, FC_KNOWN, FC_LAST, FC_NATURAL_CALL, FC_N_KNOWN,
    FC_N_UNKNOWN, FC_PLAYER, FC_REACHED, FC_SPEC, FC_SUPPRESS, FC_TOTAL, FC_TURN, FC_UNKNOWN, KING_RANK,
    RANK_CODE_RED_KING,
)


@njit(refcount=False)
def clear_outputs(force):
    """Before a hand: nothing recorded yet (the inputs of ``force`` stay)."""
    for i in range(FC_REACHED, FC_IMPOSE_FAILED + 1):
        force[i] = 0
    force[FC_FIRST] = -1
    force[FC_LAST] = -1


@njit(refcount=False)
def _matches(card, code):
    """Card ``card`` fits the rank code ``code`` (``codes.RANK_CODES``: a rank, or a red or black king)."""
    c = card % 52
    if code < KING_RANK:
        return c % N_RANKS == code
    return c % N_RANKS == KING_RANK and IS_RED[c] == (code == RANK_CODE_RED_KING)


@njit(refcount=False)
def _take_matching(stock, n, code, rng):
    """Remove from ``stock[:n]`` a uniformly chosen card fitting ``code`` and return it (``-1``: none fits)."""
    m = 0
    for i in range(n):
        m += _matches(stock[i], code)
    if m == 0:
        return -1
    j = below(rng, m)
    i = 0
    while True:
        if _matches(stock[i], code):
            if j == 0:
                break
            j -= 1
        i += 1
    card = stock[i]
    for q in range(i, n - 1):
        stock[q] = stock[q + 1]
    return card


@njit(refcount=False)
def impose(force, f, state, rng):
    """Give player ``f`` the layout of ``force``: its cards go back on the stock; each imposed known card is a
    uniformly chosen stock card of that rank code, known to ``f`` only; then ``FC_N_UNKNOWN`` cards from the stock
    top, seen by nobody; then the stock is shuffled. Returns False (nothing shuffled) when the stock lacks a card."""
    hand, occ, faceup, nslots, stock = state.hand, state.occ, state.faceup, state.nslots, state.stock
    scalars = state.scalars
    n = scalars[ST.n_stock]
    for s in range(nslots[f]):
        if occ[f, s]:
            stock[n] = hand[f, s]
            n += 1
        hand[f, s] = -1
        occ[f, s] = 0
        faceup[f, s] = 0
        everyone_believes(state, f, s, -1)
    n_known = force[FC_N_KNOWN]
    for k in range(n_known):
        card = _take_matching(stock, n, force[FC_SPEC + k], rng)
        if card < 0:
            scalars[ST.n_stock] = n
            return False
        n -= 1
        hand[f, k] = card
        occ[f, k] = 1
        believe(state, f, f, k, card)
    if n <= force[FC_N_UNKNOWN]:
        scalars[ST.n_stock] = n
        return False
    for u in range(force[FC_N_UNKNOWN]):
        n -= 1
        hand[f, n_known + u] = stock[n]
        occ[f, n_known + u] = 1
    if nslots[f] < n_known + force[FC_N_UNKNOWN]:
        nslots[f] = n_known + force[FC_N_UNKNOWN]
    shuffle(stock, n, rng)
    scalars[ST.n_stock] = n
    return True


@njit(refcount=False)
def record_focal(force, f, state, natural_act):
    """The focal player's belief and true total at the forced decision (outputs of ``force``)."""
    hand, occ, know, nslots = state.hand, state.occ, state.know, state.nslots
    known = 0
    unknown = 0
    cards = 0
    total = 0
    for s in range(nslots[f]):
        if occ[f, s]:
            cards += 1
            total += CARD_VALUE[hand[f, s]]  # card codes are 0–51 (views.card_value)
            if know[f, f, s] >= 0:
                known += CARD_VALUE[know[f, f, s]]
            else:
                unknown += 1
    force[FC_REACHED] = 1
    force[FC_KNOWN] = known
    force[FC_UNKNOWN] = unknown
    force[FC_CARDS] = cards
    force[FC_TOTAL] = total
    force[FC_NATURAL_CALL] = 1 if natural_act == ACT_CALL else 0


@njit(inline="llvm")
def focal_turn(force, p, own_turn, can_call, state, rng):
    """At the start of ``p``'s own turn ``own_turn``: note the turns at which the focal player could call.
    Returns ``(forced, can_call, failed)``: the decision is the forced one; the focal player may call now (it
    never calls before the studied turn when ``FC_SUPPRESS``); the imposed layout could not be dealt (the hand
    ends)."""
    if p != force[FC_PLAYER]:
        return False, can_call, False
    if can_call:
        if force[FC_FIRST] < 0:
            force[FC_FIRST] = own_turn
        force[FC_LAST] = own_turn
    forced = can_call and own_turn == force[FC_TURN]
    if forced and force[FC_N_KNOWN] >= 0 and not impose(force, p, state, rng):
        force[FC_IMPOSE_FAILED] = 1
        return forced, can_call, True
    if force[FC_SUPPRESS] != 0 and own_turn < force[FC_TURN]:
        can_call = False
    return forced, can_call, False
