"""Helpers for the Rami rule tests: scripted positions for the reference engine ``simulator.rami.reference``.

* :func:`make_round` builds a :class:`Round` with empty hands, table and piles; :func:`set_hand`,
  :func:`set_table`, :func:`set_piles` and :func:`opened` lay out a position;
* :class:`Script` replaces strategy decisions (``strategies.rami.policy.decide_*``, called by the engine
  through ``reference.policy``) with scripted answers and records every call.

Cards are written as in :func:`simulator.core.cards.parse_card`: ``"10H"``, ``"KS"``, ``"JK"``; melds
``"5H JK=6H 7H"``; piles bottom first.
"""

from __future__ import annotations

import numpy as np

from simulator.core.cards import parse_card
from simulator.core.rng import stream_state
from simulator.rami import reference
from simulator.rami.melds import encode_meld, parse_meld
from simulator.rami.reference import Round, Seat
from simulator.rami.rules import Rules
from simulator.rami.table import meld_text
from strategies.rami import STRATEGIES, default_params


def C(text: str) -> int:
    return parse_card(text)


def seat(name: str = "open-asap") -> Seat:
    return Seat(STRATEGIES[name].kernel_id, default_params(name))


def make_round(P: int = 2, strategy: str = "open-asap", seed: int = 0, log=None, **options) -> Round:
    return Round(Rules.from_options(options), [seat(strategy) for _ in range(P)], stream_state(seed, 0), log)


def set_hand(rd: Round, p: int, text: str) -> None:
    rd.hands[p, :] = 0
    for t in text.split():
        rd.hands[p, C(t)] += 1
    rd.sizes[p] = int(rd.hands[p].sum())


def hand(rd: Round, p: int) -> str:
    return rd.hand_text(p)


def set_table(rd: Round, melds: list[str], owner: int = 1) -> None:
    for text in melds:
        rd.table[rd.n_table] = encode_meld(parse_meld(text))
        rd.owner[rd.n_table] = owner
        rd.n_table += 1


def table(rd: Round) -> list[str]:
    return [meld_text(rd.table[t]) for t in range(rd.n_table)]


def set_piles(rd: Round, stock: str = "", discard: str = "") -> None:
    rd.stock = [C(t) for t in stock.split()]
    rd.discard = [C(t) for t in discard.split()]


def opened(rd: Round, *seats: int) -> None:
    for p in seats:
        rd.opened[p] = 1
        rd.laid[p] = 1


class Script:
    """Replace some decisions: ``Script(monkeypatch, draw=DRAW_STOCK, discard=lambda p, hand: C("2C"))``.

    A constant is returned as is (a forced lay-off takes the first move); a callable gets ``(me, hand_me)`` (plus
    the moves and their number for ``layoff``). Scripted answers are checked like a strategy's
    (``policy.checked``); the other decisions go to the seat's strategy. Every scripted call is recorded in
    ``calls`` as ``(decision, me)``."""

    def __init__(self, monkeypatch, **answers):
        self.calls = []
        real_ask = reference.policy.ask

        def ask(name, seat, me, *rest):
            if name not in answers:
                return real_ask(name, seat, me, *rest)
            self.calls.append((name, me))
            answer, hand_me, args = answers[name], rest[0], rest[3:]  # after hand_me, opened, sizes
            if name == "layoff" and args[2] and not callable(answer):
                chosen = 0  # a forced lay-off (taken or claimed card, reused joker): the first listed move
            elif not callable(answer):
                chosen = answer
            elif name == "layoff":
                chosen = answer(me, hand_me, args[0], args[1])
            else:
                chosen = answer(me, hand_me)
            return reference.policy.checked(name, seat, me, chosen, *rest)

        monkeypatch.setattr(reference.policy, "ask", ask)


def full_census(rd: Round) -> list[int]:
    return [rd.decks] * 52 + [2 * rd.decks]


def _counts(text: str) -> np.ndarray:
    counts = np.zeros(53, dtype=np.int8)
    for t in text.split():
        counts[C(t)] += 1
    return counts
