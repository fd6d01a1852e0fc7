"""Helpers for the Kamoul rule tests: scripted positions for the reference engine.

* :func:`make_hand` builds a :class:`Hand` in the state ``Hand.play`` sets up before the first turn,
  so a test can call one method (``score``, ``snap_window``, ``power``, ``penalty`` …) on a position
  it lays out with :func:`lay`, :func:`piles` and :func:`knows`.
* :func:`rig` makes ``Hand.play`` deal a chosen deck (layouts, upcard, then the stock cards in draw
  order) instead of shuffling, for tests that play a whole scripted hand.
* :class:`Script` is a scripted player, an ordinary plain-Python strategy seated at every seat of a hand: it
  answers from its lists and records every call; the engine checks its answers like any strategy's.
* :func:`fake_hands` replaces ``Hand.play`` with scripted hand scores, for manche/partie/TOP tests.

Cards are written as in :func:`simulator.core.cards.parse_card`: ``"10H"``, ``"KS"``, ``"AD"``.
"""

from __future__ import annotations

from collections import Counter

import registry


from simulator.core.cards import parse_card
from simulator.core.contract.decisions import python_twin
from simulator.core.contract.seats import USER_KERNEL_BASE
from simulator.core.contract.user_strategies import UserStrategy
from simulator.core.kernels.rng import stream_state
from simulator.kamoul.engines import reference
from simulator.kamoul.engines.reference import Hand, HandResult, Seat
from simulator.kamoul.vocabulary.codes import ACT_STOCK, OUT_NO_CALL, SNAP_NONE, SNAP_OTHER, SNAP_OWN
from simulator.kamoul.vocabulary.contract import DECISIONS
from simulator.kamoul.vocabulary.rules import Rules
from strategies.kamoul import STRATEGIES, params_array, policy


def registry_seatings(table: int = 4, seed: int = 2024) -> dict[str, list[str]]:
    """Tables of ``table`` Kamoul seats from the registry (:func:`registry.registry_seatings`), the last completed
    with ``balanced``; ``search`` apart (tests/test_kamoul_search.py, at a few worlds)."""
    return registry.registry_seatings(STRATEGIES, "balanced", table, seed, apart=("search",))


def C(text: str) -> int:
    """Card id of ``"5H"``-style text."""
    return parse_card(text)


def seat(name: str = "balanced", **params) -> Seat:
    sdef = STRATEGIES[name]
    values = {p.name: p.default for p in sdef.params.params}
    values.update(params)
    return Seat(sdef.kernel_id, params_array(sdef, values))


def rules(**options) -> Rules:
    return Rules.from_options(options)


def make_hand(P: int = 4, strategy: str = "balanced", seed: int = 0, index: int = 0, log: list | None = None,
              seats: list[Seat] | None = None, **options) -> Hand:
    """A :class:`Hand` with empty layouts and piles, in the state ``play`` sets before the first turn."""
    h = Hand(rules(**options), seats or [seat(strategy) for _ in range(P)], stream_state(seed, index), log)
    h.penalties = h.snaps = h.wrong_snaps = 0
    h.ultime = -1
    h.caller = -1
    h.cum = [0] * h.P
    return h


def lay(h: Hand, p: int, cards: list) -> None:
    """Set player ``p``'s layout: a list of card texts, ``None`` for an empty position. Nobody knows them."""
    h.hand[p, :] = -1
    h.occ[p, :] = 0
    h.faceup[p, :] = 0
    h.know[:, p, :] = -1
    for s, c in enumerate(cards):
        if c is not None:
            h.hand[p, s] = C(c)
            h.occ[p, s] = 1
    h.nslots[p] = len(cards)


def piles(h: Hand, stock: list[str] = (), discard: list[str] = ()) -> None:
    """Set the piles, each listed bottom first (the last card is the top)."""
    h.stock = [C(c) for c in stock]
    h.discard = [C(c) for c in discard]


def knows(h: Hand, o: int, p: int, *slots: int) -> None:
    """Player ``o`` knows the true cards of ``p``'s ``slots``."""
    for s in slots:
        h.know[o, p, s] = h.hand[p, s]


def known_by(h: Hand, p: int, s: int) -> set[int]:
    """Players who know the true card at ``(p, s)``."""
    return {o for o in range(h.P) if h.know[o, p, s] >= 0 and h.know[o, p, s] == h.hand[p, s]}


def layout(h: Hand, p: int) -> list:
    return [int(h.hand[p, s]) if h.occ[p, s] else None for s in range(h.nslots[p])]


# ---------------------------------------------------------------------------------------- card accounting
def deck(n_decks: int = 1) -> Counter:
    return Counter({c: n_decks for c in range(52)})


def table_cards(h: Hand) -> Counter:
    """Multiset of the cards in all layouts, the stock and the discard pile (card ids modulo 52)."""
    cards = [int(h.hand[p, s]) for p in range(h.P) for s in range(h.nslots[p]) if h.occ[p, s]]
    return Counter(c % 52 for c in cards + list(h.stock) + list(h.discard))


def check_slots(h: Hand) -> None:
    """An occupied position holds a card, an empty one holds -1, nothing lies beyond ``nslots``."""
    for p in range(h.P):
        n = int(h.nslots[p])
        assert (h.occ[p, n:] == 0).all() and (h.hand[p, n:] == -1).all(), f"P{p}: card beyond nslots"
        for s in range(n):
            assert (h.hand[p, s] >= 0) == bool(h.occ[p, s]), f"P{p} position {s}: occ and card disagree"


# ---------------------------------------------------------------------------------------- rigged deal
def deal_order(P: int, dealer: int, hand_size: int) -> list[tuple[int, int]]:
    """``(player, position)`` in the order ``Hand.play`` deals: one card at a time from the dealer's left."""
    return [((dealer + k) % P, row) for row in range(hand_size) for k in range(1, P + 1)]


def rig(h: Hand, dealer: int, layouts: dict[int, list[str]], upcard: str, draws: list[str] = ()) -> None:
    """Make ``h.play(dealer, …)`` deal ``layouts`` (player → cards by position), turn ``upcard``, and have
    the stock yield ``draws`` first (then the remaining cards of the deck)."""
    P, hs = h.P, h.r.hand_size
    pops = [C(layouts[p][s]) for p, s in deal_order(P, dealer, hs)] + [C(upcard)] + [C(c) for c in draws]
    rest = deck(h.r.n_decks)
    rest.subtract(Counter(pops))
    assert min(rest.values()) >= 0, "a card is used more often than the deck holds"
    stock = sorted(rest.elements()) + pops[::-1]
    original = h.shuffle
    first = [True]

    def shuffle(cards):
        if first[0]:
            first[0] = False
            assert Counter(cards) == Counter(stock)
            cards[:] = stock
        else:
            original(cards)

    h.shuffle = shuffle


# ---------------------------------------------------------------------------------------- scripted policy
class Script:
    """A scripted player, as an ordinary plain-Python strategy: :meth:`install` seats it at every seat of a
    :class:`Hand` (a :class:`~simulator.core.contract.user_strategies.UserStrategy`, as a user's file would give), and the
    engine asks it, and checks it, like any other strategy.

    * ``turns``: player → list of actions (``ACT_*``) for its successive turns; then ``ACT_STOCK``.
    * ``keeps``: player → list of positions for successive stock draws (``-1`` = discard); then ``-1``.
    * ``takes``: player → list of positions for successive discard takes; then the first occupied one.
    * ``power(me, kind, locked, own_vs_opp)`` → ``None`` (not used) or ``(p1, s1)`` / ``(p1, s1, p2, s2)``.
    * ``king_swap``: bool, or ``f(me, pa, ca, pb, cb)`` → bool.
    * ``snap(me, rank, allow_others, locked)`` → ``None``, ``("own", [slots])`` or ``("other", p, s, give)``.

    The traits (estimate, memory, speed) stay each seat's own family's. ``calls`` records ``(decision, me,
    details)`` for every decision the engine asked for.
    """

    SCRIPTED = ("peeks", "turn", "keep", "take_slot", "power", "king_swap", "snap")

    def __init__(self, turns=None, keeps=None, takes=None, power=None, king_swap=False, snap=None):
        self.turns = {p: list(v) for p, v in (turns or {}).items()}
        self.keeps = {p: list(v) for p, v in (keeps or {}).items()}
        self.takes = {p: list(v) for p, v in (takes or {}).items()}
        self.power_fn = power
        self.king = king_swap
        self.snap_fn = snap
        self.calls: list[tuple[str, int, dict]] = []

    def asked(self, decision: str) -> list[tuple[int, dict]]:
        return [(me, d) for name, me, d in self.calls if name == decision]

    def turn_order(self) -> list[int]:
        return [me for me, _ in self.asked("turn")]

    def install(self, h: Hand) -> "Script":
        """Seat this script at every seat of ``h``, each keeping its own family's traits."""
        h.seats = [self.seat(s) for s in h.seats]
        return self

    def seat(self, original: Seat) -> Seat:
        """A seat that plays this script, with ``original``'s parameters and traits."""
        sid = original.sid

        def trait(name):  # the seat's own family answers (policy.BUILTIN, through the view's fields)
            builtin, context = python_twin(policy.BUILTIN[name]), DECISIONS[name].context
            if name == "estimate":
                return lambda prm, view: builtin(sid, prm, context(view.me, view.know, view.occ, view.nslots,
                                                                   view.faceup))
            return lambda prm: builtin(sid, prm, context(0))

        functions = {name: getattr(self, f"_{name}") for name in self.SCRIPTED}
        functions.update({name: trait(name) for name in DECISIONS if name not in self.SCRIPTED})
        user = UserStrategy("script", "kamoul", STRATEGIES["heuristic"].params, "scripted test player", functions,
                            "tests/kamoul_helpers.py", "", compiled=False)
        return Seat(USER_KERNEL_BASE, original.prm, user, "script")

    # each takes the user call of simulator.kamoul.vocabulary.contract.DECISIONS (a strategy file's arguments)
    def _peeks(self, prm, view, n, rng, out):
        me, k = view.me, 0
        for s in range(view.nslots[me]):
            if k < n and view.occ[me, s]:
                out[k] = s
                k += 1
        self.calls.append(("peeks", me, {"n": n}))
        return k

    def _turn(self, prm, view, top, can_call, can_contre, can_take, cum_me, au_ge, rng):
        return self.turn(view.me, top, can_call, can_contre, can_take)

    def turn(self, me, top, can_call, can_contre, can_take):
        """The scripted turn (a test may wrap it to look at the table first)."""
        self.calls.append(("turn", me, {"can_call": can_call, "can_contre": can_contre, "can_take": can_take,
                                         "top": int(top)}))
        queue = self.turns.get(me, [])
        return queue.pop(0) if queue else ACT_STOCK

    def _keep(self, prm, view, drawn, rng):
        self.calls.append(("keep", view.me, {"drawn": int(drawn)}))
        queue = self.keeps.get(view.me, [])
        return queue.pop(0) if queue else -1

    def _take_slot(self, prm, view, rng):
        me = view.me
        self.calls.append(("take", me, {}))
        queue = self.takes.get(me, [])
        if queue:
            return queue.pop(0)
        return next(s for s in range(view.nslots[me]) if view.occ[me, s])

    def _power(self, prm, view, kind, locked, own_vs_opp, rng, tmp, out):
        me = view.me
        self.calls.append(("power", me, {"kind": int(kind), "locked": int(locked), "own_vs_opp": bool(own_vs_opp)}))
        target = self.power_fn(me, kind, locked, own_vs_opp) if self.power_fn else None
        if target is None:
            return False
        out[: len(target)] = target
        return True

    def _king_swap(self, prm, view, pa, ca, pb, cb, rng):
        me = view.me
        self.calls.append(("king_swap", me, {"seen": (int(ca), int(cb))}))
        return self.king(me, pa, ca, pb, cb) if callable(self.king) else bool(self.king)

    def _snap(self, prm, view, top_rank, allow_others, locked, rng, tmp, out):
        me = view.me
        self.calls.append(("snap", me, {"rank": int(top_rank), "locked": int(locked)}))
        claim = self.snap_fn(me, top_rank, allow_others, locked) if self.snap_fn else None
        if claim is None:
            return SNAP_NONE
        if claim[0] == "own":
            out[0] = len(claim[1])
            out[1: 1 + len(claim[1])] = claim[1]
            return SNAP_OWN
        out[0], out[1], out[2] = claim[1], claim[2], claim[3]
        return SNAP_OTHER


# ---------------------------------------------------------------------------------------- scripted hands
def fake_hands(monkeypatch, points: list[list[int]]) -> list[tuple[int, list[int]]]:
    """Replace ``Hand.play``: the n-th hand played scores ``points[n]``. Returns the ``(dealer, cum)`` seen."""
    queue = [list(p) for p in points]
    seen: list[tuple[int, list[int]]] = []

    def play(self, dealer, cum):
        seen.append((dealer, list(cum)))
        pts = queue.pop(0)
        return HandResult(dealer=dealer, points=pts, cum_after=[c + x for c, x in zip(cum, pts)],
                          outcome=OUT_NO_CALL, winner=-1)

    monkeypatch.setattr(Hand, "play", play)
    return seen


def hand_values(cards: list[str]) -> int:
    return sum(reference.value(C(c)) for c in cards)
