"""One entry point per Rami decision: the built-in families' dispatch on the kernel id, and the contract that
sends a user's seat to its file (:mod:`simulator.core.contract.decisions`).

``builtin_<name>(sid, prm, *engine_args)`` answers for the built-in families; it is generated from
:data:`FAMILIES`, each family module's ``ANSWERS`` (one expression per decision, in the engine's arguments), and a
family that misses a decision is refused when this module is imported: a new family is one module, one line here
and its registry entries. ``decide_<name>(seats, me, *rest)`` is what
the numba engine calls, :func:`ask` what the reference engine calls: both go to the built-ins for a built-in id
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

from simulator.core.contract.decisions import Contract, ReferenceDispatch, builtin_dispatch, compiled_decision
from simulator.rami.vocabulary import answers
from simulator.rami.vocabulary.codes import DRAW_STOCK, LAY_NONE, OPEN_NONE
from simulator.rami.vocabulary.contract import ARG_TYPES, DECISIONS, PlayerView
from strategies.rami import opening, random_play

RANDOM, OPENING = 0, 1
FAMILIES = {RANDOM: random_play, OPENING: opening}
"""The built-in families by kernel id (the registry's ``StrategyDef.kernel_id``)."""
BUILTIN_IDS = tuple(FAMILIES)


# a call from the kernel, not inlined into it, as the hand-written dispatch it replaces was (the same code)
BUILTIN = builtin_dispatch("rami", FAMILIES, DECISIONS, inline="call")
CONTRACT = Contract(
    game="rami", decisions=DECISIONS, builtin=BUILTIN, builtin_ids=BUILTIN_IDS, describe=answers.describe,
    view=PlayerView, arg_types=ARG_TYPES,
    env={"PlayerView": PlayerView, "legal_draw": answers.legal_draw, "legal_open": answers.legal_open,
         "legal_lay": answers.legal_lay, "legal_open_with": answers.legal_open_with, "legal_layoff": answers.legal_layoff, "legal_discard": answers.legal_discard,
         "legal_rate": answers.legal_rate, "layoff_fallback": answers.layoff_fallback,
         "first_legal_discard": answers.first_legal_discard, "DRAW_STOCK": DRAW_STOCK, "OPEN_NONE": OPEN_NONE,
         "LAY_NONE": LAY_NONE},
    families=FAMILIES,
)

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
