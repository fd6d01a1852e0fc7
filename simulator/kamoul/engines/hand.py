"""The Kamoul rulebook as plain Python, one hand (K2–K14): readable, slow, and the judge of the numba kernel.

Every rule of docs/rules/kamoul.md is implemented here (or, for the match structure K15–K16, in ``match.py``)
where its number is cited. The kernel (``turn_loop.py``, ``hand_kernel.py``, ``score_kernel.py``, ``force_kernel.py``) follows the
same steps in the same order and draws the same random numbers, so for a given (seed, game index) both produce
identical hand rows and an identical event trace hash.

The state a strategy may read is kept in numpy arrays (``know``, ``occ``, ``faceup``, ``nslots``)
because the strategies are numba functions shared by both engines; the hidden layout ``hand`` and the
piles are never passed to them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from simulator.core.cards import DECK_SIZE, IS_RED, card_name
from simulator.core.contract.seats import Seat  # noqa: F401  (re-exported)
from simulator.core.kernels.reference import Narrated, race
from simulator.core.kernels.rng import (  # noqa: F401  (stream_state re-exported)
    below, shuffle_py, stream_state, uniform,
)
from simulator.kamoul.engines.search_reference import search_turn
from simulator.kamoul.vocabulary.codes import (
    ACT_CALL, ACT_CONTRE, ACT_STOCK, AU_RESET_CUM, AU_SCORE_HIGH, AU_WIN_CUM, CALL_MAX, CARD_VALUE, CLS_AU, CLS_FALSE,
    CLS_NORMAL, DUTCH_FALSE_EXTRA, EV_CALL, EV_CONTRE, NORMAL_WIN_POINTS, STICK_MORE_PROB, ULTIME_POINTS,
    announcement_class, EV_DEAL, EV_DISCARD, EV_DRAW, EV_END, EV_FALSE_SHOWN, EV_FORGET, EV_KEEP, EV_MISREMEMBER,
    EV_PEEK, EV_PENALTY, EV_POWER, EV_REORDER, EV_RESHUFFLE, EV_SNAP_BAD, EV_SNAP_OK, EV_SWAP, EV_TAKE, EV_ULTIME,
    FC_CARDS, FC_FIRST, FC_IMPOSE_FAILED, FC_KNOWN, FC_LAST, FC_MODE, FC_NATURAL_CALL, FC_N_KNOWN, FC_N_UNKNOWN,
    FC_PLAYER, FC_REACHED, FC_SPEC, FC_SUPPRESS, FC_TOTAL, FC_TURN, FC_UNKNOWN, MODE_CALL, MODE_PLAY_ON, OUT_AU_M31,
    OUT_AU_RESET, OUT_BEATEN, OUT_CONTRE_LOST, OUT_CONTRE_WON, OUT_FALSE, OUT_NO_CALL, OUT_NORMAL, OUT_ULTIME,
    OUTCOMES, PENALTY_FALSE, PENALTY_OUT_OF_TURN, PENALTY_REORDER, PENALTY_SNAP, PENALTY_STUCK, POWER_KING,
    POWER_NAMES, POWER_NONE, POWER_PEEK_OPP, POWER_PEEK_OWN, POWER_SWAP, POWER_USES, RANK_CODES, RANK_POWER, SNAP_NONE,
    SNAP_OWN, TRACE_SEED, WRONG_RANKS, misremembered,
)
from simulator.kamoul.vocabulary.contract import Keep, KingSwap, Me, Peeks, Power, Snap, Table, TakeSlot, Turn
from simulator.kamoul.vocabulary.rules import Rules
from strategies.kamoul import policy


def value(card: int) -> int:
    return int(CARD_VALUE[card % 52])


def fits(card: int, code: int) -> bool:
    """Card ``card`` fits the rank code ``code`` of an imposed layout (``codes.RANK_CODES``)."""
    rank = card % 13
    if RANK_CODES[code] in ("RK", "BK"):
        return rank == 12 and bool(IS_RED[card % 52]) == (RANK_CODES[code] == "RK")
    return rank == code


def name(card: int) -> str:
    return card_name(card % 52) if card >= 0 else "--"


@dataclass
class HandResult:
    """One hand's outcome (one row of the ``hands`` table)."""

    dealer: int
    points: list[int]
    cum_after: list[int]
    outcome: int
    winner: int
    caller: int = -1
    call_turn: int = -1
    call_estimate: float = float("nan")
    call_true: int = -1
    call_unknown: int = -1
    contre_mask: int = 0
    turns: int = 0
    snaps: int = 0
    wrong_snaps: int = 0
    penalty_cards: int = 0
    peeks: int = 0
    jq_swaps: int = 0
    red_king_looks: int = 0
    black_king_looks: int = 0
    king_swaps: int = 0
    trace: int = 0


@dataclass
class TurnLoop:
    """Where a hand's turns stand (what :meth:`Hand.play_turns` carries from turn to turn): the result being
    filled, whose turn is next, the turns played (in all and each player's own), the contres called in turn order,
    the final round's turns left after a call, and the counterfactual ``force`` (``None`` for ordinary play)."""

    res: HandResult
    current: int
    own_turns: list[int]
    turns: int = 0
    contres: list[int] = field(default_factory=list)
    final_left: int = 0
    force: np.ndarray | None = None


class Hand(Narrated):
    """One hand of Kamoul (K2–K14), played from a shared random stream ``rng`` (``uint64[4]``)."""

    def __init__(self, rules: Rules, seats: list[Seat], rng: np.ndarray, log: list[str] | None = None):
        self.r = rules
        self.seats = seats
        self.P = len(seats)
        self.S = rules.n_cards
        self.rng = rng
        self.log = log
        P, S = self.P, self.S
        self.hand = np.full((P, S), -1, dtype=np.int16)  # hidden layout
        self.occ = np.zeros((P, S), dtype=np.int8)
        self.faceup = np.zeros((P, S), dtype=np.int8)
        self.know = np.full((P, P, S), -1, dtype=np.int16)  # know[o, p, s]: what o believes is at (p, s)
        self.nslots = np.zeros(P, dtype=np.int64)
        self.tmp = np.zeros(2 * P * S + 8, dtype=np.int64)
        self.out = np.zeros(S + 8, dtype=np.int64)
        self.stock: list[int] = []
        self.discard: list[int] = []
        self.h = TRACE_SEED
        self.caller = -1
        self.ultime = -1
        self.aborted = False  # K14: the turn cap or an empty stock ended the hand (a pending call is void)
        self.uses = dict.fromkeys(POWER_USES, 0)  # K5: how many times each card power was used in the hand

    # ------------------------------------------------------------------ helpers
    def count(self, p: int) -> int:
        return int(self.occ[p, : self.nslots[p]].sum())

    def own(self, p: int) -> tuple[int, int, int, int, int, int]:
        """What ``p`` believes of its own layout, in ``views.OWN`` order (the summary the built-in families' turn,
        keep and take decisions read): its cards, those it has not seen, the points of those it knows, the first
        position of the highest known card and that card's value (``-1``, ``-1``: none), the first unseen position."""
        mine = [(s, int(self.know[p, p, s])) for s in range(self.nslots[p]) if self.occ[p, s]]
        known = [(s, value(c)) for s, c in mine if c >= 0]
        unseen = [s for s, c in mine if c < 0]
        highest = max((v for _, v in known), default=-1)
        first_highest = next((s for s, v in known if v == highest), -1)
        return (len(mine), len(unseen), sum(v for _, v in known), first_highest, highest,
                unseen[0] if unseen else -1)

    def total(self, p: int) -> int:
        return sum(value(int(self.hand[p, s])) for s in range(self.nslots[p]) if self.occ[p, s])

    def layout(self, p: int) -> str:
        return " ".join(name(int(self.hand[p, s])) if self.occ[p, s] else "__" for s in range(self.nslots[p]))

    def shuffle(self, cards: list[int]) -> None:
        """Fisher–Yates from the end, one ``below`` per position (``core.rng.shuffle_py``)."""
        shuffle_py(cards, self.rng)

    def reshuffle(self) -> bool:
        """K14: the discard pile but its top card becomes the new stock."""
        if self.r.on_stock_empty != "reshuffle" or len(self.discard) < 2:
            return False
        top = self.discard.pop()
        cards = self.discard
        self.shuffle(cards)
        self.stock, self.discard = cards, [top]
        self.trace(EV_RESHUFFLE, len(self.stock))
        self.say(f"  stock empty: {len(self.stock)} discarded cards reshuffled into a new stock")
        return True

    def draw(self) -> int:
        if not self.stock and not self.reshuffle():
            return -1
        return self.stock.pop()

    def place(self, p: int, card: int) -> int:
        """Put ``card`` face down and unseen into the first free position of ``p``'s layout."""
        s = 0
        while self.occ[p, s]:
            s += 1
        self.hand[p, s] = card
        self.occ[p, s] = 1
        self.faceup[p, s] = 0
        self.know[:, p, s] = -1
        self.nslots[p] = max(self.nslots[p], s + 1)
        return s

    def penalty(self, p: int, reason: int) -> None:
        """K13: +1 face-down card, unseen by anyone (skipped when no card can be drawn)."""
        card = self.draw()
        if card < 0:
            return
        s = self.place(p, card)
        self.penalties += 1
        self.trace(EV_PENALTY, p, s, reason)
        self.say(f"  P{p} takes a penalty card into position {s} ({_PENALTY_NAMES[reason]})")

    def stuck_cards(self, p: int, pile: list[int]) -> None:
        """K13 physical layer: with ``p_stick``, 1 + Geom(0.8) extra cards come off ``pile`` and are kept."""
        if self.r.p_stick <= 0 or uniform(self.rng) >= self.r.p_stick:
            return
        extra = 1
        while uniform(self.rng) < STICK_MORE_PROB:
            extra += 1
        for _ in range(extra):
            if not pile:
                break
            s = self.place(p, pile.pop())
            self.penalties += 1
            self.trace(EV_PENALTY, p, s, PENALTY_STUCK)
            self.say(f"  P{p}: a card stuck to the draw, kept face down in position {s}")

    def classify(self, p: int, cum: int) -> int:
        """K10/K11: a valid normal KAMOUL (at most CALL_MAX), a valid au-score, or a false KAMOUL."""
        return int(announcement_class(self.total(p), cum, self.r.au_score_30 == "ge"))

    def show_false(self, p: int) -> None:
        """K12 ``false_call_mode=tamalou``: the layout is shown to all, +1 card, play goes on."""
        for s in range(self.nslots[p]):
            if self.occ[p, s]:
                self.know[:, p, s] = self.hand[p, s]
        self.trace(EV_FALSE_SHOWN, p)
        self.say(f"  false KAMOUL by P{p}: shows {self.layout(p)}")
        self.penalty(p, PENALTY_FALSE)

    # ------------------------------------------------------------------ the hand
    def play(self, dealer: int, cum: list[int], force: np.ndarray | None = None) -> HandResult:
        """Play the hand. ``force`` (``int64[codes.FC_LEN]``) makes its focal player call or play on at one own
        turn, possibly with an imposed layout, and receives what that player believed there (``counterfactual``)."""
        loop = self.begin(dealer, cum, force)
        self.play_turns(loop)
        return self.finish(loop)

    def begin(self, dealer: int, cum: list[int], force: np.ndarray | None = None) -> TurnLoop:
        """The hand dealt (K1, K2), its turns not begun: where :meth:`play_turns` starts."""
        P = self.P
        if force is not None:
            force[FC_REACHED:FC_IMPOSE_FAILED + 1] = 0
            force[FC_FIRST] = force[FC_LAST] = -1
        self.penalties = self.snaps = self.wrong_snaps = 0
        self.uses = dict.fromkeys(POWER_USES, 0)
        self.ultime = -1
        self.caller = -1
        self.aborted = False  # K14: the turn cap or an empty stock ended the hand (a pending call is void)
        self.cum = cum
        self.deal(dealer)
        res = HandResult(dealer=dealer, points=[0] * P, cum_after=list(cum), outcome=OUT_NO_CALL, winner=-1)
        return TurnLoop(res, current=(dealer + 1) % P, own_turns=[0] * P, force=force)  # K3: left of the dealer

    def play_turns(self, loop: TurnLoop, stop_before: int | None = None) -> bool:
        """Play turns from where ``loop`` stands to the hand's end (K4–K9, K14); returns ``False`` then. With
        ``stop_before``: stops before turn number ``stop_before`` begins and returns ``True`` (the hand, copied,
        can be played on from there: a searching player's rollouts)."""
        while not self.hand_over(loop):
            if stop_before is not None and loop.turns + 1 >= stop_before:
                return True
            p = loop.current
            if not self.turn_start(p):
                self.aborted = True
                break  # K14 on_stock_empty=end_hand (or nothing left to reshuffle)
            loop.turns += 1
            loop.own_turns[p] += 1
            in_final = self.caller >= 0
            can_call = not in_final and loop.own_turns[p] - 1 >= self.r.min_turns_before_call
            forced, can_call, failed = self.focal_turn(loop.force, p, loop.own_turns[p], can_call)
            if failed:
                self.aborted = True
                break
            act = self.choose(loop, p, loop.force if forced else None, can_call, in_final)
            if not self.act(loop, p, act, in_final):
                break
        return False

    def hand_over(self, loop: TurnLoop) -> bool:
        """Whether the hand ends before another turn: the final round is over (K8: reveal) or the turn cap is
        reached (K14 guard: a pending call is void)."""
        if self.caller >= 0 and loop.final_left == 0:
            return True
        if loop.turns >= self.r.max_turns_per_hand:
            self.say(f"turn cap of {self.r.max_turns_per_hand} reached: the hand ends without a winner")
            self.aborted = True
            return True
        return False

    def act(self, loop: TurnLoop, p: int, act: int, in_final: bool) -> bool:
        """Player ``p``'s turn after it chose ``act``; returns whether the hand goes on (K7: an ULTIME ends it)."""
        if act == ACT_CALL:
            self.call(p, loop.own_turns[p], loop.turns, loop.res)
            if self.caller >= 0:
                loop.final_left = self.P - 1
        elif act == ACT_CONTRE:
            self.contre(p, loop.turns, loop.contres)
        elif act == ACT_STOCK:
            self.turn_stock(p, loop.turns)
        else:
            self.turn_take(p, loop.turns)
        if self.ultime >= 0:
            return False  # K7: the hand ends at once
        if self.r.p_reorder > 0 and self.count(p) >= 2 and uniform(self.rng) < self.r.p_reorder:
            self.reorder(p)
        if in_final:
            loop.final_left -= 1
        loop.current = (p + 1) % self.P
        return True

    def finish(self, loop: TurnLoop) -> HandResult:
        """K10–K12: the reveal and the hand's result."""
        res, contres = loop.res, loop.contres
        res.turns, res.snaps, res.wrong_snaps, res.penalty_cards = loop.turns, self.snaps, self.wrong_snaps, \
            self.penalties
        for name, count in self.uses.items():
            setattr(res, name, count)
        res.contre_mask = sum(1 << q for q in contres)
        self.score(res, contres)
        self.trace(EV_END, res.outcome, res.winner)
        res.trace = self.h
        return res

    def deal(self, dealer: int) -> None:
        """K1/K2: shuffle, deal hand_size cards one at a time from the dealer's left, turn the top card; then each
        player peeks at initial_peeks own cards."""
        r, P = self.r, self.P
        self.stock = [c for _ in range(r.n_decks) for c in range(DECK_SIZE)]
        self.shuffle(self.stock)
        for row in range(r.hand_size):
            for k in range(1, P + 1):
                p = (dealer + k) % P
                self.hand[p, row] = self.stock.pop()
                self.occ[p, row] = 1
        self.nslots[:] = r.hand_size
        self.discard = [self.stock.pop()]
        self.trace(EV_DEAL, dealer, self.discard[-1])
        self.say(f"deal by P{dealer}; discard starts with {name(self.discard[-1])}")
        for p in range(P):
            self.say(f"  P{p} layout: {self.layout(p)}")
        for k in range(1, P + 1):
            p = (dealer + k) % P
            seat = self.seats[p]
            chosen = policy.ask("peeks", seat, Peeks(p, r.initial_peeks, self.know[p], self.occ, self.nslots,
                                                     self.faceup, self.rng, self.tmp, self.out))
            for i in range(chosen):
                s = int(self.out[i])
                self.know[p, p, s] = self.hand[p, s]
                self.trace(EV_PEEK, p, s, int(self.hand[p, s]))
                self.say(f"  P{p} peeks at own position {s}: {name(int(self.hand[p, s]))}")

    def turn_start(self, p: int) -> bool:
        """Before ``p`` acts: others may play out of turn (K13 physical layer), an empty stock is reshuffled (K14),
        ``p``'s memory lapses. False when the hand ends here (nothing left to draw)."""
        if self.r.p_out_of_turn > 0:
            for k in range(1, self.P):
                q = (p + k) % self.P
                if uniform(self.rng) < self.r.p_out_of_turn:
                    self.say(f"  P{q} plays out of turn")
                    self.penalty(q, PENALTY_OUT_OF_TURN)
        if not self.stock and not self.reshuffle():
            self.say("the stock is empty: the hand ends without a winner")
            return False
        self.memory_lapses(p)
        return True

    def focal_turn(self, force: np.ndarray | None, p: int, own_turn: int, can_call: bool) -> tuple[bool, bool, bool]:
        """The study hooks at the start of ``p``'s own turn ``own_turn``: ``(forced, can_call, failed)`` — this is the
        forced decision; whether ``p`` may call now (never before the studied turn with ``FC_SUPPRESS``); the
        imposed layout could not be dealt (the hand ends)."""
        if force is None or p != force[FC_PLAYER]:
            return False, can_call, False
        if can_call:
            force[FC_FIRST] = own_turn if force[FC_FIRST] < 0 else force[FC_FIRST]
            force[FC_LAST] = own_turn
        forced = can_call and own_turn == force[FC_TURN]
        if forced and force[FC_N_KNOWN] >= 0 and not self.impose(p, force):
            self.say(f"  P{p}: the imposed layout cannot be dealt from the stock")
            force[FC_IMPOSE_FAILED] = 1
            return forced, can_call, True
        if force[FC_SUPPRESS] and own_turn < force[FC_TURN]:
            can_call = False  # the focal player has not called before the studied turn
        return forced, can_call, False

    def choose(self, loop: TurnLoop, p: int, force: np.ndarray | None, can_call: bool, in_final: bool) -> int:
        """K4: the turn's action (``ACT_*``) from ``p``'s strategy (:meth:`turn_answer`); ``force`` (a forced
        decision) records the strategy's choice and overrides it."""
        seat = self.seats[p]
        can_take = bool(self.discard) and self.count(p) > 0
        top = self.discard[-1] if self.discard else -1
        au_ge = self.r.au_score_30 == "ge"
        own = self.own(p)
        act = self.turn_answer(loop, seat, Turn(p, self.know[p], self.occ, self.nslots, self.faceup, own, top, can_call,
                                                in_final, can_take, self.cum[p], au_ge, self.rng, self.tmp))
        if force is None:
            return act
        self.record_focal(p, force, act)
        if force[FC_MODE] == MODE_CALL:
            return ACT_CALL
        if force[FC_MODE] == MODE_PLAY_ON and act == ACT_CALL:
            return self.turn_answer(loop, seat, Turn(p, self.know[p], self.occ, self.nslots, self.faceup, own, top,
                                                     False, in_final, can_take, self.cum[p], au_ge, self.rng, self.tmp))
        return act

    def turn_answer(self, loop: TurnLoop, seat, c: Turn) -> int:
        """The turn's action of ``seat`` in context ``c``: searched over sampled worlds for a ``search`` seat
        (``search_reference``, issue 63), else its strategy's answer."""
        if seat.sid == policy.SEARCH and seat.user is None:
            return policy.checked("turn", seat, search_turn(self, loop, c), c)
        return policy.ask("turn", seat, c)

    def contre(self, p: int, turns: int, contres: list[int]) -> None:
        """K9: CONTRE KAMOUL at the start of one's final-round turn, instead of playing: an announcement."""
        self.trace(EV_CONTRE, p)
        self.say(f"T{turns} P{p}: CONTRE KAMOUL! (believes {self.estimate_text(p)}; true {self.total(p)})")
        if self.r.false_call_mode == "tamalou" and self.classify(p, self.cum[p]) == CLS_FALSE:
            self.show_false(p)  # K12 tamalou: caught at once, the contre is void
        else:
            contres.append(p)

    def impose(self, f: int, force: np.ndarray) -> bool:
        """Give ``f`` the layout of ``force``: its cards go back on the stock, each imposed known card is a stock
        card of that rank code chosen uniformly (known to ``f`` only), then ``FC_N_UNKNOWN`` unseen cards from the
        stock top; then the stock is shuffled. False when the stock lacks a card."""
        for s in range(self.nslots[f]):
            if self.occ[f, s]:
                self.stock.append(int(self.hand[f, s]))
            self.hand[f, s], self.occ[f, s], self.faceup[f, s] = -1, 0, 0
            self.know[:, f, s] = -1
        n_known, n_unknown = int(force[FC_N_KNOWN]), int(force[FC_N_UNKNOWN])
        for k in range(n_known):
            candidates = [i for i, c in enumerate(self.stock) if fits(c, int(force[FC_SPEC + k]))]
            if not candidates:
                return False
            card = self.stock.pop(candidates[below(self.rng, len(candidates))])
            self.hand[f, k], self.occ[f, k], self.know[f, f, k] = card, 1, card
        if len(self.stock) <= n_unknown:
            return False
        for u in range(n_unknown):
            self.hand[f, n_known + u], self.occ[f, n_known + u] = self.stock.pop(), 1
        self.nslots[f] = max(self.nslots[f], n_known + n_unknown)
        self.shuffle(self.stock)
        self.say(f"  P{f} is given {self.layout(f)} (knows {n_known} of them)")
        return True

    def record_focal(self, f: int, force: np.ndarray, natural_act: int) -> None:
        """What ``f`` believes of its layout at the forced decision, its true total, and its strategy's choice."""
        mine = [int(self.know[f, f, s]) for s in range(self.nslots[f]) if self.occ[f, s]]
        force[FC_REACHED] = 1
        force[FC_KNOWN] = sum(value(c) for c in mine if c >= 0)
        force[FC_UNKNOWN] = sum(c < 0 for c in mine)
        force[FC_CARDS] = len(mine)
        force[FC_TOTAL] = self.total(f)
        force[FC_NATURAL_CALL] = int(natural_act == ACT_CALL)

    def estimate_text(self, p: int) -> str:
        seat = self.seats[p]
        est, unknown = policy.ask("estimate", seat, Table(p, self.know[p], self.occ, self.nslots, self.faceup))
        return f"{est:.1f} with {unknown} unseen"

    def memory_lapses(self, p: int) -> None:
        """Imperfect memory, at the start of ``p``'s turn (docs/rules/kamoul.md, "Memory model"). Each remembered
        face-down card, in position order, is forgotten with the strategy's ``forget``; if not, its rank is
        misremembered with ``memory_noise`` (K13 "carte retournée", INTERPRETATION §4): ``p`` now believes it
        saw :func:`codes.misremembered` of it, one of the 12 other ranks drawn uniformly. Only ``know[p]``
        changes: the cards stay where they are."""
        seat = self.seats[p]
        f = policy.ask("forget", seat, Me(p))
        m = policy.ask("memory_noise", seat, Me(p))
        if f <= 0 and m <= 0:
            return
        for q in range(self.P):
            for s in range(self.nslots[q]):
                old = int(self.know[p, q, s])
                if old < 0 or self.faceup[q, s]:
                    continue
                if f > 0 and uniform(self.rng) < f:
                    self.know[p, q, s] = -1
                    self.trace(EV_FORGET, p, q, s)
                elif m > 0 and uniform(self.rng) < m:
                    wrong = int(misremembered(old, below(self.rng, WRONG_RANKS)))
                    self.know[p, q, s] = wrong
                    self.trace(EV_MISREMEMBER, p, q * 256 + s, old * 256 + wrong)
                    self.say(f"  P{p} misremembers P{q} position {s}: believes {name(wrong)}, not {name(old)}")

    def call(self, p: int, own_turn: int, turns: int, res: HandResult) -> None:
        """K8: KAMOUL at the start of one's turn; checked at once only with ``false_call_mode=tamalou``."""
        seat = self.seats[p]
        est, unknown = policy.ask("estimate", seat, Table(p, self.know[p], self.occ, self.nslots, self.faceup))
        self.trace(EV_CALL, p, own_turn)
        self.say(f"T{turns} P{p}: KAMOUL! (believes {est:.1f} with {unknown} unseen; true {self.total(p)})")
        if self.r.false_call_mode == "tamalou" and self.classify(p, self.cum[p]) == CLS_FALSE:
            self.show_false(p)
            return
        self.caller = p
        res.caller, res.call_turn = p, own_turn
        res.call_estimate, res.call_unknown, res.call_true = float(est), int(unknown), self.total(p)

    def turn_stock(self, p: int, turns: int) -> None:
        """K4(c): draw from the stock, then keep the card in a position or discard it (power optional)."""
        seat = self.seats[p]
        card = self.stock.pop()
        self.trace(EV_DRAW, p, card)
        self.stuck_cards(p, self.stock)
        slot = policy.ask("keep", seat, Keep(p, card, self.power_kind(card), self.know[p], self.occ, self.nslots,
                                             self.faceup, self.own(p), self.rng, self.tmp))
        if slot >= 0:
            old = int(self.hand[p, slot])
            self.hand[p, slot] = card
            self.faceup[p, slot] = 0
            self.know[:, p, slot] = -1
            self.know[p, p, slot] = card
            self.discard.append(old)
            self.trace(EV_KEEP, p, slot, old)
            self.say(f"T{turns} P{p} draws {name(card)}, keeps it in position {slot}, discards {name(old)}")
            self.snap_window(p, old)
            return
        self.discard.append(card)
        self.trace(EV_DISCARD, p, card)
        self.say(f"T{turns} P{p} draws {name(card)} and discards it")
        self.power(p, card)
        if self.ultime < 0:
            self.snap_window(p, card)

    def turn_take(self, p: int, turns: int) -> None:
        """K4(d): take the top discard and swap it into a position (compulsory); its identity stays public."""
        seat = self.seats[p]
        slot = policy.ask("take_slot", seat, TakeSlot(p, self.know[p], self.occ, self.nslots, self.faceup, self.own(p),
                                                      self.rng, self.tmp))
        card = self.discard.pop()
        self.stuck_cards(p, self.discard)
        old = int(self.hand[p, slot])
        self.hand[p, slot] = card
        self.faceup[p, slot] = 1 if self.r.discard_pick_face_up else 0
        self.know[:, p, slot] = card
        self.discard.append(old)
        self.trace(EV_TAKE, p, slot, card * 256 + old)
        self.say(f"T{turns} P{p} takes {name(card)} from the discard into position {slot}, discards {name(old)}")
        self.snap_window(p, old)

    def power_kind(self, card: int) -> int:
        """K5: the power of ``card`` if it is discarded straight from the stock (``POWER_NONE`` for a red king with
        ``king_power=black_only``)."""
        kind = int(RANK_POWER[card % 13])
        if kind == POWER_KING and self.r.king_power == "black_only" and IS_RED[card % 52]:
            return POWER_NONE
        return kind

    def power(self, p: int, card: int) -> None:
        """K5: the power of a stock card discarded directly (optional)."""
        r = self.r
        kind = self.power_kind(card)
        if kind == POWER_NONE:
            return
        seat = self.seats[p]
        locked = self.caller if (r.caller_immune and self.caller >= 0) else -1
        out = self.out
        used = policy.ask("power", seat, Power(p, kind, self.know[p], self.occ, self.nslots, self.faceup, locked,
                                               r.swap_scope == "own_vs_opponent", self.rng, self.tmp, out))
        if not used:
            return
        p1, s1 = int(out[0]), int(out[1])
        if kind == POWER_PEEK_OWN or kind == POWER_PEEK_OPP:
            self.know[p, p1, s1] = self.hand[p1, s1]
            self.uses["peeks"] += 1
            self.trace(EV_POWER, p, kind, p1 * 256 + s1)
            self.say(f"  P{p} uses {POWER_NAMES[kind]}: P{p1} position {s1} is {name(int(self.hand[p1, s1]))}")
            return
        p2, s2 = int(out[2]), int(out[3])
        if kind == POWER_SWAP:
            self.swap_cards(p1, s1, p2, s2)
            self.know[p, p1, s1], self.know[p, p2, s2] = self.know[p, p2, s2], self.know[p, p1, s1]
            seen = []
            for o in range(self.P):
                if o == p:
                    continue
                if r.swap_observed_prob >= 1.0 or uniform(self.rng) < r.swap_observed_prob:
                    self.know[o, p1, s1], self.know[o, p2, s2] = self.know[o, p2, s2], self.know[o, p1, s1]
                    seen.append(o)
            self.uses["jq_swaps"] += 1
            self.trace(EV_SWAP, p, p1 * 256 + s1, p2 * 256 + s2)
            self.say(f"  P{p} uses a blind swap: P{p1} pos {s1} <-> P{p2} pos {s2} (noticed by {seen or 'nobody'})")
            return
        # K5 king: look at both, then swap or not, announced to all
        c1, c2 = int(self.hand[p1, s1]), int(self.hand[p2, s2])
        self.know[p, p1, s1] = c1
        self.know[p, p2, s2] = c2
        swap = policy.ask("king_swap", seat, KingSwap(p, self.know[p], self.occ, self.nslots, self.faceup, p1, c1, p2,
                                                      c2, self.rng))
        self.trace(EV_POWER, p, kind, (p1 * 256 + s1) * 65536 + p2 * 256 + s2)
        self.uses["red_king_looks" if IS_RED[card % 52] else "black_king_looks"] += 1
        if swap:
            self.uses["king_swaps"] += 1
            self.swap_cards(p1, s1, p2, s2)
            for o in range(self.P):
                self.know[o, p1, s1], self.know[o, p2, s2] = self.know[o, p2, s2], self.know[o, p1, s1]
            self.trace(EV_SWAP, p, p1 * 256 + s1, p2 * 256 + s2)
        self.say(f"  P{p} uses a king on P{p1} pos {s1} ({name(c1)}) and P{p2} pos {s2} ({name(c2)}): "
                 f"{'swaps them' if swap else 'no swap'}")

    def swap_cards(self, p1: int, s1: int, p2: int, s2: int) -> None:
        self.hand[p1, s1], self.hand[p2, s2] = self.hand[p2, s2], self.hand[p1, s1]

    def reorder(self, p: int) -> None:
        """K13 physical layer: the player swaps two own positions; +1 card if another player had seen either."""
        n = self.count(p)
        occupied = [s for s in range(self.nslots[p]) if self.occ[p, s]]
        a = below(self.rng, n)
        b = below(self.rng, n - 1)
        if b >= a:
            b += 1
        sa, sb = occupied[a], occupied[b]
        spied = any(self.know[o, p, sa] >= 0 or self.know[o, p, sb] >= 0 for o in range(self.P) if o != p)
        self.swap_cards(p, sa, p, sb)
        self.know[p, p, sa], self.know[p, p, sb] = self.know[p, p, sb], self.know[p, p, sa]
        for o in range(self.P):
            if o != p:
                self.know[o, p, sa] = -1
                self.know[o, p, sb] = -1
        self.trace(EV_REORDER, p, sa, sb)
        self.say(f"  P{p} reorders positions {sa} and {sb}{' after they were seen' if spied else ''}")
        if spied:
            self.penalty(p, PENALTY_REORDER)

    # ------------------------------------------------------------------ K6 snaps
    def snap_window(self, p: int, card: int) -> None:
        """K6: after a card lands on the discard, other players (and ``p``) may flip matching cards."""
        r = self.r
        if self.caller >= 0 and not r.snap_in_final_round:
            return
        rank = card % 13
        locked = self.caller if (r.caller_immune and self.caller >= 0) else -1
        while True:
            claims = []
            for k in range(1, self.P + 1):
                q = (p + k) % self.P
                if q == self.caller:
                    continue  # the caller's layout is locked until the reveal
                seat = self.seats[q]
                if self.skips_snap(seat, q, rank):
                    continue
                kind = policy.ask("snap", seat, Snap(q, rank, self.know[q], self.occ, self.nslots, self.faceup,
                                                     r.snap_others, locked, self.rng, self.tmp, self.out))
                if kind != SNAP_NONE:
                    claims.append((q, kind, self.out.copy()))
            if not claims:
                return
            q, kind, out = self.race(claims)
            before = self.count(q)
            matched = self.flip_own(q, rank, out) if kind == SNAP_OWN else self.flip_other(q, rank, out, locked)
            if before >= r.ultime_min_cards and self.count(q) == 0:
                self.ultime = q  # K7: the whole layout cleared by one snap
                self.trace(EV_ULTIME, q)
                self.say(f"  KAMOUL ULTIME by P{q}!")
                return
            if not (r.snap_chain and matched):
                return

    def skips_snap(self, seat, q: int, rank: int) -> bool:
        """K6 with ``snap_others`` off: a strategy file that declares ``snaps_on_belief`` is not asked while its
        player believes no own card of ``rank`` (the kernel's snap index; the built-in families that declare it
        would answer "no" there, so asking them changes nothing)."""
        if self.r.snap_others or seat.user is None or not seat.user.snaps_on_belief:
            return False
        return not any(c >= 0 and c % 13 == rank for c in self.know[q][q])

    def race(self, claims: list) -> tuple:
        """0.2: several claimants; ``race_policy`` decides who acts (:func:`simulator.core.kernels.reference.race`)."""
        return claims[race(self.r.race_policy, len(claims),
                           lambda i: policy.ask("speed", self.seats[claims[i][0]], Me(claims[i][0])), self.rng)]

    def flip_own(self, q: int, rank: int, out: np.ndarray) -> bool:
        matched = False
        for i in range(int(out[0])):
            s = int(out[1 + i])
            card = int(self.hand[q, s])
            if card % 13 == rank:
                self.hand[q, s] = -1
                self.occ[q, s] = 0
                self.know[:, q, s] = -1
                self.discard.append(card)
                self.snaps += 1
                matched = True
                self.trace(EV_SNAP_OK, q, s, card)
                self.say(f"  P{q} snaps {name(card)} from position {s}")
            else:
                self.know[:, q, s] = card  # K6: the wrong card goes back face down, now public
                self.wrong_snaps += 1
                self.trace(EV_SNAP_BAD, q, s, card)
                self.say(f"  P{q} flips {name(card)} from position {s}: wrong snap")
                self.penalty(q, PENALTY_SNAP)
        return matched

    def flip_other(self, q: int, rank: int, out: np.ndarray, locked: int) -> bool:
        """K6 ``snap_others``: flip an opponent's card; if it matches, give them one of yours in its place."""
        tp, ts, give = int(out[0]), int(out[1]), int(out[2])
        card = int(self.hand[tp, ts])
        if card % 13 != rank:
            self.know[:, tp, ts] = card
            self.wrong_snaps += 1
            self.trace(EV_SNAP_BAD, q, tp * 256 + ts, card)
            self.say(f"  P{q} flips P{tp}'s {name(card)}: wrong snap")
            self.penalty(q, PENALTY_SNAP)
            return False
        self.discard.append(card)
        self.hand[tp, ts] = self.hand[q, give]
        self.faceup[tp, ts] = self.faceup[q, give]
        self.know[:, tp, ts] = self.know[:, q, give]
        self.hand[q, give] = -1
        self.occ[q, give] = 0
        self.faceup[q, give] = 0
        self.know[:, q, give] = -1
        self.snaps += 1
        self.trace(EV_SNAP_OK, q, tp * 256 + ts, card * 256 + give)
        self.say(f"  P{q} snaps P{tp}'s {name(card)} and gives them own position {give}")
        return True

    # ------------------------------------------------------------------ K7–K12 scoring
    def score(self, res: HandResult, contres: list[int]) -> None:
        """K7, K10–K12: the points of the hand into ``res`` (an au-score sets the cumulative instead of adding)."""
        r, P, cum = self.r, self.P, self.cum
        totals = [self.total(p) for p in range(P)]
        points = list(totals)
        new_cum: list[int | None] = [None] * P
        for p in range(P):
            self.say(f"  reveal P{p}: {self.layout(p)} = {totals[p]}")
        if self.ultime >= 0:  # K7
            u = self.ultime
            points = [0 if r.ultime_others_score == "zero" else t for t in totals]
            points[u] = ULTIME_POINTS
            res.outcome, res.winner = OUT_ULTIME, u
        elif self.caller < 0 or self.aborted:  # K14: no call, or the turn cap / empty stock voids it
            res.outcome = OUT_NO_CALL
        else:
            points = self.score_contest(res, [self.caller] + contres, totals, new_cum)
        for p in range(P):
            after = new_cum[p] if new_cum[p] is not None else cum[p] + points[p]
            res.points[p] = after - cum[p]
            res.cum_after[p] = after
        self.say(f"  {OUTCOMES[res.outcome]}" + (f", winner P{res.winner}" if res.winner >= 0 else "")
                 + "; points " + " ".join(f"P{p}:{res.points[p]:+d}" for p in range(P))
                 + "; cumulative " + " ".join(f"P{p}:{res.cum_after[p]}" for p in range(P)))

    def score_contest(self, res: HandResult, announcers: list[int], totals: list[int],
                      new_cum: list[int | None]) -> list[int]:
        """K10–K12: a call stands at the reveal; ``announcers`` = the caller, then the contres in order. Returns the
        points; sets ``res.outcome``/``winner`` and an au-score winner's ``new_cum``."""
        r, cum = self.r, self.cum
        classes = {a: self.classify(a, cum[a]) for a in announcers}
        if not r.contre_requires_valid:  # K9: an invalid contre just loses (it scores its hand)
            false = [a for a in announcers if classes[a] == CLS_FALSE and a == self.caller]
        else:
            false = [a for a in announcers if classes[a] == CLS_FALSE]
        if false and r.false_call_mode == "sum":  # K12 (seed): the false announcers pay for the table
            res.outcome = OUT_FALSE
            return [sum(totals) if q in false else 0 for q in range(self.P)]
        points = list(totals)
        for a in false:  # K12 dutch: DUTCH_FALSE_EXTRA on top of the hand (tamalou: caught late, just the hand)
            points[a] = totals[a] + (DUTCH_FALSE_EXTRA if r.false_call_mode == "dutch" else 0)
        order = self.contest_order(announcers, classes, totals)
        if not order:
            res.outcome = OUT_FALSE
            return points
        best_cls = max(classes[a] for a in order)
        finalists = [a for a in order if classes[a] == best_cls]
        low = min(totals[a] for a in finalists)
        tied = [a for a in finalists if totals[a] == low]
        winner = tied[0] if r.contre_strictly_lower else tied[-1]
        for a in announcers:
            if a != winner and a not in false and classes[a] != CLS_FALSE:
                points[a] = 0 if r.loser_announcer_scores == "zero" else totals[a]
        if best_cls == CLS_NORMAL:
            points[winner] = NORMAL_WIN_POINTS
        elif cum[winner] >= AU_SCORE_HIGH:
            new_cum[winner] = AU_RESET_CUM  # K11: a high au-score resets the cumulative
        else:
            new_cum[winner] = AU_WIN_CUM  # K11: a low au-score wins the manche
        res.winner = winner
        contres = announcers[1:]
        if false:
            res.outcome = OUT_FALSE
        elif best_cls == CLS_AU:
            res.outcome = OUT_AU_RESET if new_cum[winner] == AU_RESET_CUM else OUT_AU_M31
        elif winner == self.caller:
            res.outcome = OUT_CONTRE_LOST if contres else OUT_NORMAL
        elif winner in contres:
            res.outcome = OUT_CONTRE_WON
        else:
            res.outcome = OUT_BEATEN
        return points

    def contest_order(self, announcers: list[int], classes: dict, totals: list[int]) -> list[int]:
        """K10: the contenders in announcement order; implicit contenders (``implicit_contest``) lose every tie,
        so they stand first when ties go to the latest announcer and last when they go to the earliest."""
        order = [a for a in announcers if classes[a] != CLS_FALSE]
        if self.r.implicit_contest:
            silent = [q for q in range(self.P) if q not in announcers and totals[q] <= CALL_MAX]
            order = order + silent if self.r.contre_strictly_lower else silent + order
            for q in silent:
                classes[q] = CLS_NORMAL
        return order


_PENALTY_NAMES = {
    PENALTY_SNAP: "wrong snap", PENALTY_STUCK: "stuck cards", PENALTY_OUT_OF_TURN: "out of turn",
    PENALTY_REORDER: "reordered a seen card", PENALTY_FALSE: "false KAMOUL",
}
