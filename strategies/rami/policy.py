"""One entry point per Rami decision: the built-in families' dispatch on the kernel id, and the contract that
sends a user's seat to its file (:mod:`simulator.core.contract.decisions`); ``c`` is the decision's context
(:mod:`simulator.rami.vocabulary.contract`).

The built-in families answer through :mod:`strategies.rami.dispatch` (one function per decision, by kernel id).
``decide_<name>(seats, c)`` is what the numba engine calls, :func:`ask` what the reference engine calls: both go to the built-ins for a built-in id
and to the user's file otherwise, and check the answer against the contract (:mod:`simulator.rami.vocabulary.contract`,
:mod:`simulator.rami.vocabulary.answers`). Each decision receives only the deciding player's information set
(:mod:`simulator.rami.vocabulary.views`); random strategies draw from the game's own stream ``rng``.

Decisions, in the order of a turn (R4):

* ``draw`` → ``DRAW_STOCK`` / ``DRAW_DISCARD`` (the latter only when ``can_take``);
* ``open`` (unopened) → ``OPEN_NONE`` / ``OPEN_OPEN`` (open) / ``OPEN_SEC`` (go out);
* ``open_with`` (once it opens) → one of the offered ``OPENING_*`` styles (``OPENING_BEST`` first);
* ``lay`` (opened) → ``LAY_NONE`` / ``LAY_ALL`` / ``LAY_KEEP_JOKERS`` (the least-left lay-down);
* ``hold`` (each meld of that lay-down) → True to keep it in hand this turn;
* ``layoff`` → an index into the legal ``moves`` or -1 to stop (never -1 when ``forced``);
* ``discard`` → a card id held in hand;
* ``claim`` (R10, out of turn) → whether to claim a playable discard;
* ``speed`` → the reaction rate in claim races.
"""

from __future__ import annotations

from simulator.core.contract.decisions import Contract, ReferenceDispatch, compiled_decision
from simulator.rami.vocabulary import answers
from simulator.rami.vocabulary.contract import ARG_TYPES, DECISIONS
from strategies.rami.dispatch import BUILTIN, FAMILIES, OPENING, RANDOM  # noqa: F401  (the ids, re-exported)

BUILTIN_IDS = tuple(FAMILIES)
# the dispatch is a call from the kernel, not inlined into it
CONTRACT = Contract(game="rami", decisions=DECISIONS, builtin=BUILTIN, builtin_ids=BUILTIN_IDS,
                    describe=answers.describe, arg_types=ARG_TYPES, inline="numba")

decide_draw = compiled_decision(CONTRACT, "draw")
decide_open = compiled_decision(CONTRACT, "open")
decide_open_with = compiled_decision(CONTRACT, "open_with")
decide_lay = compiled_decision(CONTRACT, "lay")
decide_hold = compiled_decision(CONTRACT, "hold")
decide_layoff = compiled_decision(CONTRACT, "layoff")
decide_discard = compiled_decision(CONTRACT, "discard")
decide_claim = compiled_decision(CONTRACT, "claim")
speed = compiled_decision(CONTRACT, "speed")

REFERENCE = ReferenceDispatch(CONTRACT)
ask = REFERENCE.ask
checked = REFERENCE.checked
