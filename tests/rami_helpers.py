"""Helpers for the Rami rule tests: scripted positions for the reference engine ``simulator.rami.engines.reference``.

* :func:`make_round` builds a :class:`Round` with empty hands, table and piles; :func:`set_hand`,
  :func:`set_table`, :func:`set_piles` and :func:`opened` lay out a position;
* :class:`Script` is a scripted player, an ordinary plain-Python strategy seated at every seat of a round: it
  answers the decisions it scripts, the seats' own families the rest, and records every scripted call.

Cards are written as in :func:`simulator.core.cards.parse_card`: ``"10H"``, ``"KS"``, ``"JK"``; melds
``"5H JK=6H 7H"``; piles bottom first.
"""

from __future__ import annotations

import numpy as np

from simulator.core.cards import parse_card
from simulator.core.contract.decisions import python_twin
from simulator.core.contract.seats import USER_KERNEL_BASE
from simulator.core.contract.user_strategies import UserStrategy
from simulator.core.kernels.rng import stream_state
from simulator.rami.engines.reference import Round, Seat
from simulator.rami.engines.table import meld_text
from simulator.rami.vocabulary.contract import DECISIONS
from simulator.rami.vocabulary.melds import encode_meld, parse_meld
from simulator.rami.vocabulary.rules import Rules
from strategies.rami import STRATEGIES, default_params, policy


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
    """A scripted player, as an ordinary plain-Python strategy: ``Script(draw=DRAW_STOCK, discard=lambda p, hand:
    C("2C")).install(rd)`` seats it at every seat of the round ``rd`` (a
    :class:`~simulator.core.contract.user_strategies.UserStrategy`, as a user's file would give), and the engine asks it,
    and checks its answers, like any other strategy's.

    A constant is returned as is (a forced lay-off takes the first move); a callable gets ``(me, hand_me)`` (plus
    the moves and their number for ``layoff``; only the meld and the cards left for ``hold``). The decisions not scripted are each seat's own family's
    (``policy.BUILTIN``, with the seat's parameters). Every scripted call is recorded in ``calls`` as
    ``(decision, me)``."""

    def __init__(self, **answers):
        unknown = set(answers) - set(DECISIONS)
        assert not unknown, f"no such Rami decision: {unknown}"
        self.answers = answers
        self.calls = []

    def install(self, rd: Round) -> "Script":
        """Seat this script at every seat of ``rd``, each keeping its own family's answers to the rest."""
        rd.seats = [self.seat(s) for s in rd.seats]
        return self

    def seat(self, original: Seat) -> Seat:
        """A seat that plays this script, with ``original``'s parameters and family for the decisions not
        scripted."""
        functions = {name: self._scripted(name) if name in self.answers else self._family(name, original.sid)
                     for name in DECISIONS}
        user = UserStrategy("script", "rami", STRATEGIES["opening"].params, "scripted test player", functions,
                            "tests/rami_helpers.py", "", compiled=False)
        return Seat(USER_KERNEL_BASE, original.prm, user, "script")

    @staticmethod
    def _family(name: str, sid: int):
        """The seat's own family's answer to decision ``name``, from the user call's arguments."""
        builtin, context = python_twin(policy.BUILTIN[name]), DECISIONS[name].context
        if name == "speed":
            return lambda prm: builtin(sid, prm, context(0))
        return lambda prm, view, *rest: builtin(sid, prm, context(view.me, view.hand, view.opened, view.sizes, *rest))

    def _scripted(self, name: str):
        answer = self.answers[name]

        def scripted(prm, view, *rest):
            self.calls.append((name, view.me))
            if name == "layoff":
                moves, n_moves, forced = rest[:3]
                if forced and not callable(answer):
                    return 0  # a forced lay-off (taken or claimed card, reused joker): the first listed move
                return answer(view.me, view.hand, moves, n_moves) if callable(answer) else answer
            if name == "hold" and callable(answer):
                meld, left = rest[:2]
                return answer(meld, left)
            return answer(view.me, view.hand) if callable(answer) else answer

        return scripted


def full_census(rd: Round) -> list[int]:
    return [rd.decks] * 52 + [2 * rd.decks]


def _counts(text: str) -> np.ndarray:
    counts = np.zeros(53, dtype=np.int8)
    for t in text.split():
        counts[C(t)] += 1
    return counts
