"""kamoul-before-layers: a Kamoul strategy, written by `cardsim new-strategy kamoul kamoul-before-layers`.

Every decision starts as the built-in `balanced` (the heuristic with its default parameters): change the bodies
you want to play differently, and the doc string below. Try it against `balanced` with

    cardsim tournament kamoul --strategy kamoul_before_layers.py:kamoul-before-layers --strategy balanced -n 20000 --out runs/kamoul-before-layers
    python -m pytest /tmp/before_layers/test_kamoul_before_layers.py

The rules are docs/rules/kamoul.md (K1-K16); the contract is docs/strategies.md. Each function gets `prm`
(float64[K], the parameters in PARAMS' order: prm[H.<name>] for the heuristic's, and your own after them) and,
except the three traits, `view`, what its player may know (read it, never write it):

    view.me      int           the deciding seat
    view.know    int16[P, S]   the card this player believes lies at each (player, position), -1 if unknown
    view.occ     int8[P, S]    1 where a position holds a card
    view.nslots  int64[P]      one past each player's highest position used
    view.faceup  int8[P, S]    1 for a card lying face up
                               (S: at least the cards in play; loop over range(view.nslots[p]))
    view.own     6 x int64     (turn, keep, take_slot only) the engine's summary of the own layout from this
                               player's beliefs, in views.OWN order: cards, unseen, known points, the first
                               highest known position and its value, the first unseen position (-1: none)

Draw randomness only from `rng` (simulator.core.rng.uniform(rng), below(rng, n)) so that every game replays
from its seed. The engine checks every answer: an illegal one stops the run with a line naming it. The functions
are numba functions (@njit), so the strategy runs in the compiled engine: each is compiled for its decision's
signature (a few seconds on the first run, then loaded from the cache until this file changes); one that does not
compile for it is named in one line. Without @njit it would run on the (slower) reference engine.
"""

from numba import njit

from simulator.core.params import Param  # noqa: F401  (declare your own parameters with it)
from simulator.core.rng import below, uniform  # noqa: F401
from simulator.core.user_strategies import strategy
from simulator.kamoul.codes import (  # noqa: F401
    ACT_CALL, ACT_CONTRE, ACT_STOCK, ACT_TAKE, POWER_KING, POWER_PEEK_OPP, POWER_PEEK_OWN, POWER_SWAP, SNAP_NONE,
    SNAP_OTHER, SNAP_OWN,
)
from strategies.kamoul import heuristic
from strategies.kamoul.heuristic import H
from strategies.kamoul.views import card_value, own_estimate  # noqa: F401  (more helpers in views)

# the heuristic's parameters, balanced's defaults; add your own with
# PARAMS = heuristic.PARAMS.extended(Param("call_at", "float", 2.0, "what it means", 0.0, 30.0)), read as
# prm[len(heuristic.PARAMS.params)]
PARAMS = heuristic.PARAMS


@njit
def peeks(prm, view, n, rng, out):
    """K2: how many own positions to look at (at most n), their positions written to out[:k]

    Legal: 0 <= k <= n, out[:k] own positions holding a card.
    """
    return heuristic.peeks(prm, view.me, n, view.occ, view.nslots, out)


@njit
def turn(prm, view, top, can_call, can_contre, can_take, cum_me, au_ge, rng):
    """K4/K8/K9: ACT_STOCK always; ACT_TAKE if can_take, ACT_CALL if can_call, ACT_CONTRE if can_contre

    Legal: ACT_STOCK; ACT_TAKE only if can_take, ACT_CALL only if can_call, ACT_CONTRE only if can_contre.
    """
    return heuristic.turn_on(prm, view.own, top, can_call, can_contre, can_take, cum_me, au_ge)


@njit
def take_slot(prm, view, rng):
    """K4(d): the own position (holding a card) the top discard replaces

    Legal: an own position holding a card.
    """
    return heuristic.summary_worst(view.own, prm[H.unknown_value])[0]


@njit
def keep(prm, view, drawn, rng):
    """K4(c): -1 to discard the drawn card, or the own position (holding a card) it replaces

    Legal: -1, or an own position holding a card.
    """
    return heuristic.keep_on(prm, drawn, view.own)


@njit
def power(prm, view, kind, locked, own_vs_opp, rng, tmp, out):
    """K5: False to pass; True with out = (p1, s1) for a peek, (p1, s1, p2, s2) for a swap or king

    Legal: False; or a look at a face-down card, own for a 7/8 (POWER_PEEK_OWN), an opponent's for a 9/10; or,
    for a J/Q swap or a king, two distinct face-down cards that are there, outside the locked (immune
    caller's) layout, one own and one opponent's when own_vs_opp.
    """
    return heuristic.power(prm, view.me, view.occ.shape[0], kind, view.know, view.occ, view.nslots, view.faceup,
                           locked, rng, out)


@njit
def king_swap(prm, view, pa, ca, pb, cb, rng):
    """K5 king: having seen card ca at player pa and cb at pb, True to swap them

    Legal: True or False.
    """
    return heuristic.king_swap(prm, view.me, pa, ca, pb, cb)


@njit
def snap(prm, view, top_rank, allow_others, locked, rng, tmp, out):
    """K6: SNAP_NONE; SNAP_OWN with out = (k, slot_1..slot_k); SNAP_OTHER with out = (player, slot, own slot given)

    Legal: SNAP_NONE; SNAP_OWN with 1 <= k and distinct own face-down positions; SNAP_OTHER (only if
    allow_others) with an opponent's face-down card outside the locked layout and an own position holding
    a card to give.
    """
    return heuristic.snap(prm, view.me, view.occ.shape[0], top_rank, view.know, view.occ, view.nslots,
                          view.faceup, allow_others, locked, rng, out)


@njit
def estimate(prm, view):
    """(float, int): the player's estimate of its own layout and how many own cards it has not seen

    Legal: any (it is reported in the rows, not played).
    """
    return own_estimate(view.me, view.know, view.occ, view.nslots, prm[H.unknown_value])


@njit
def forget(prm):
    """probability per own turn of forgetting each remembered card (K13)

    Legal: a probability in [0, 1].
    """
    return prm[H.forget]


@njit
def memory_noise(prm):
    """probability per own turn of misremembering each remembered card (K13)

    Legal: a probability in [0, 1].
    """
    return prm[H.memory_noise]


@njit
def speed(prm):
    """reaction rate in snap races (race_policy=speed_weighted), > 0

    Legal: a finite rate > 0.
    """
    return prm[H.speed]


KAMOUL_BEFORE_LAYERS = strategy(
    game="kamoul", name="kamoul-before-layers", params=PARAMS, doc="balanced, as written by cardsim new-strategy",
    peeks=peeks, turn=turn, take_slot=take_slot, keep=keep, power=power, king_swap=king_swap, snap=snap,
    estimate=estimate, forget=forget, memory_noise=memory_noise, speed=speed,
)
