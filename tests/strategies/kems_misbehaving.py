"""A Kem's strategy file that plays ``balanced`` except for one decision, chosen by its ``bad`` parameter, which it
answers illegally: the contract tests run it to see each decision's check stop the run in both engines.

``bad`` is the 1-based position in :data:`simulator.kems.vocabulary.answers.DECISION_ORDER` (0: every answer legal); one file
for every decision keeps it to one compiled kernel. It watches the opponents closely, so it sees many signs.
"""

from numba import njit

from simulator.core.contract.user_strategies import strategy
from simulator.core.params import Param
from simulator.kems.vocabulary.answers import D_CONTRE, D_INFER_CONTRE, D_PROPOSE
from strategies.kems import heuristic
from strategies.kems.common import contre_on_sign

RAISES = 99  # bad=99: its first decision of a turn raises ZeroDivisionError (the file's own fault)
PARAMS = heuristic.PARAMS.with_defaults(attention_opponents=0.35, attention_partner=0.3).extended(
    Param("bad", "int", 0, "the decision answered illegally (1-based in DECISION_ORDER; 0: none; RAISES: raises)", 0, RAISES),
)
BAD = len(heuristic.PARAMS.params)


@njit
def propose(prm, view, seen, loc, pub, multi, mem, work, out, rng):
    if prm[BAD] == D_PROPOSE:
        return 5  # more exchanges than a hand has cards
    if prm[BAD] == RAISES:
        return 1 // int(prm[BAD] - prm[BAD])  # ZeroDivisionError
    return heuristic.propose(prm, view.me, view.players, view.hand, seen, loc, pub, multi, mem, work, out)


@njit
def infer_contre(prm, view, loc, pub, silence, work):
    if prm[BAD] == D_INFER_CONTRE:
        return view.me  # accuses itself
    return heuristic.infer_contre(prm, view.me, view.players, view.hand, loc, pub, silence, work)


@njit
def sign(prm, view, rng):
    return True  # a bool: every answer is legal


@njit
def call(prm, view, signer, rng):
    return True


@njit
def contre(prm, view, signer, can_call, rng):
    if prm[BAD] == D_CONTRE:
        return True  # also when banned or with a contre pending
    return contre_on_sign(prm, can_call, rng)


MISBEHAVING = strategy(
    game="kems", name="misbehaving", params=PARAMS, doc="balanced, but answers decision number `bad` illegally",
    propose=propose, infer_contre=infer_contre, sign=sign, call=call, contre=contre,
)
