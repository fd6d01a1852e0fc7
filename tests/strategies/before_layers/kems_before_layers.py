"""kems-before-layers: a Kem's strategy, written by `cardsim new-strategy kems kems-before-layers`.

Every decision starts as the built-in `balanced` (the heuristic family with its default parameters): change the
bodies you want to play differently, and the doc string below. Try it against `balanced` with

    cardsim tournament kems --strategy kems_before_layers.py:kems-before-layers --strategy balanced -n 2000 --out runs/kems-before-layers
    python -m pytest /tmp/before_layers/test_kems_before_layers.py

The rules are docs/rules/kems.md (KM1-KM13 and the model M-*); the contract is docs/strategies.md. The real-time
model decides when the player gets a chance (a move, a chance to sign, a sign seen) from the common parameters
every Kem's strategy declares first: grab speed, sigma, visibility, attention on the partner and the opponents,
contre_prob (strategies/kems/common.py); at each chance it asks the function below. Each function gets `prm`
(float64[K], the parameters in PARAMS' order: prm[P_CONTRE_PROB] and the heuristic family's, your own after
them) and `view`, what its player always knows (read it, never write it):

    view.me       int         the deciding seat; its partner sits opposite, (me + players // 2) % players
    view.players  int         4 or 6
    view.hand     int64[4]    its four card ids: suit * 13 + rank (rank 0 = ace)

What it perceives of the table (lag_ticks old) comes with the decisions that use it. Draw randomness only from
`rng` (simulator.core.rng.uniform(rng), below(rng, n)) so that every game replays from its seed. The engine
checks every answer: an illegal one stops the run with a line naming it. The functions are numba functions
(@njit), so the strategy runs in the compiled engine: each is compiled for its decision's signature (a few seconds
on the first run, then loaded from the cache until this file changes); one that does not compile for it is named
in one line. Without @njit it would run on the (slower) reference engine.
"""

from numba import njit

from simulator.core.params import Param  # noqa: F401  (declare your own parameters with it)
from simulator.core.rng import below, uniform  # noqa: F401
from simulator.core.user_strategies import strategy
from simulator.kems.codes import EMPTY, LOC_TABLE, LOC_UNKNOWN  # noqa: F401
from strategies.kems import heuristic
from strategies.kems.common import P_CONTRE_PROB  # noqa: F401
from strategies.kems.views import holds_four, team  # noqa: F401  (more helpers in views)

# the heuristic family's parameters, balanced's defaults; add your own with
# PARAMS = heuristic.PARAMS.extended(Param("patience", "int", 5, "what it means", 0, 100)), read as
# prm[len(heuristic.PARAMS.params)]
PARAMS = heuristic.PARAMS


@njit
def propose(prm, view, seen, loc, pub, multi, mem, work, out, rng):
    """KM5, at each of its moves: how many exchanges it writes into out (int64[4, 2]: hand slot, centre slot), 0 to
    pass; seen: int64[4], the centre as it perceives it (EMPTY = -1 for a free slot); loc: int8[52], public
    knowledge of each card; pub: int64[PUB_SIZE], its rank counts (strategies.kems.views); mem: int64[4], its
    own memory, -1 at each manche's start; work: int64[64], scratch space

    Legal: 0 to 4 pairs (at most 1 without multi_swap), each a hand slot 0-3 and a centre slot 0-3 holding a
    card it sees, no slot twice.
    """
    return heuristic.propose(prm, view.me, view.players, view.hand, seen, loc, pub, multi, mem, work, out)


@njit
def infer_contre(prm, view, loc, pub, silence, work):
    """KM10, at each of its moves while it may call contre: the opponent it accuses from what it perceives, or -1
    (loc, pub: as for propose; silence: int64[P], ticks of open exchange since each player's last exchange)

    Legal: -1, or the seat of an opponent.
    """
    return heuristic.infer_contre(prm, view.me, view.players, view.hand, loc, pub, silence, work)


@njit
def sign(prm, view, rng):
    """M-signal, holding four of a kind, when the model gives it a chance to sign (each tick with probability
    sigma): True to make the team sign

    Legal: True or False.
    """
    return True


@njit
def call(prm, view, signer, rng):
    """KM8, when it sees its partner signer's sign and has no Kem's call pending: True to call Kem's (after the
    reaction delay)

    Legal: True or False.
    """
    return True


@njit
def contre(prm, view, signer, can_call, rng):
    """KM10, when it sees opponent signer's sign: True to call contre on it (can_call: not banned by a wrong contre
    and no contre pending)

    Legal: True only if can_call.
    """
    return uniform(rng) < prm[P_CONTRE_PROB] and can_call


KEMS_BEFORE_LAYERS = strategy(
    game="kems", name="kems-before-layers", params=PARAMS, doc="balanced, as written by cardsim new-strategy",
    propose=propose, infer_contre=infer_contre, sign=sign, call=call, contre=contre,
)
