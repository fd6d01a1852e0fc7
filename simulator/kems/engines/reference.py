"""The Kem's rulebook and discrete-time model as plain Python: readable, slow, and the judge of the kernel.

Every rule of docs/rules/kems.md (KM1–KM13, and the model steps M-*) is implemented here where its number is
cited. The numba kernel follows the same steps in the same order and draws the same random numbers (all from
the game's stream ``stream_state(seed, index)``), so that for a given (seed, game index) both produce identical
rows and an identical event-trace hash per manche.

State is per-seat parallel arrays: ``hands`` (``int64[P, 4]`` card ids), the centre ``table`` (``int64[4]``),
public knowledge ``loc`` (``int8[52]``, see :mod:`simulator.kems.vocabulary.codes`), and per seat the time of its next
move, sign and false alarm and its pending calls. Time is in ticks; a player's moves are the arrivals of a
Poisson process of rate λᵢΔ per tick, so in each tick it moves with probability 1 − e^(−λᵢΔ) at an Exp(λᵢ)
time inside the tick (§3.2), and the engines jump from one event to the next.

Order within a tick (fixed, for the kernel): phase change (turn-up, "Top"); moves of the players whose move
falls in this tick (seat order: inference contre, proposal, race time), then the exchanges in time order;
the movers' next move times; four-of-a-kind changes; the sweep; signs (seat order: partner, then opponents in
seat order); false alarms (seat order: Kem's, then contre); then the calls due this tick in time order.

M-perception (§3.2 step 1): a strategy never sees the live state. Every public change (deal and re-deals,
turn-up, reshuffle, exchange, sweep, shown hands) is *published* with the first tick from which it can be
seen, ``record`` keeping one :class:`Public` state per such tick; at tick ``t`` a player sees the newest state
visible by ``t - lag_ticks`` (:meth:`Manche.view`): the centre, ``loc`` and its rank counts, and every
player's silence, all from that one state, with only its own exchanges since then added (it knows where its
own cards went).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from simulator.core.cards import card_name
from simulator.core.contract.seats import Seat  # noqa: F401  (re-exported)
from simulator.core.kernels.reference import ReferenceGame
from simulator.core.kernels.rng import NEVER, below, exponential, geometric, next_u64, stream_state, uniform
from simulator.core.records import stack_rows
from simulator.kems.engines.kernel_view import add_own_exchange
from simulator.kems.vocabulary.codes import (
    CALL_CONTRE, CALL_KEMS, EMPTY, EV_CALL, EV_DEAL, EV_END, EV_FOUR, EV_REDEAL, EV_RESHUFFLE, EV_SIGN, EV_SWAP,
    EV_SWEEP, EV_TOP, EV_TURN_UP, LOC_DEAD, LOC_TABLE, LOC_UNKNOWN, OUT_CAP, OUT_CONTRE, OUT_DOUBLE, OUT_KEMS,
    OUT_WRONG_KEMS, OUTCOMES, PH_OPEN, PH_SWEEP, PH_TURN_UP, TRACE_SEED, VISIBLE_BEFORE_DEAL, WHY_FALSE, WHY_INFERENCE,
    WHY_SIGN, trace_py,
)
from simulator.kems.vocabulary.contract import Call, Contre, InferContre, Propose, Sign
from simulator.kems.vocabulary.records import n_cols
from simulator.kems.vocabulary.rules import ATTENTION_REF, HAND, TABLE, Rules, partner_of, team_of
from simulator.kems.vocabulary.views import PUB_SIZE, summarise
from strategies.kems import policy
from strategies.kems.common import P_ATT_OPP, P_ATT_PARTNER, P_CONTRE_PROB, P_SIGMA, P_SPEED, P_VISIBILITY

LEVELS = ("manches", "games")
MAX_MANCHES = 1000      # KM1 guard: a game stops after this many manches (only with scoreless variants)
S_RATE, S_SIGMA, S_VIS, S_ATT_P, S_ATT_O, S_CONTRE = range(6)


def seat_model(seats: list[Seat], rules: Rules) -> np.ndarray:
    """``float64[P, 6]``: per seat its move rate per tick, σ, v, a_p, a_o and c (§3.2).

    Attention is a budget: a_p + (teams − 1)·a_o is scaled down to 1 if it exceeds it; the rest watches the
    centre, and the grab rate is λᵢ = speed · a_table / ATTENTION_REF (per tick: λᵢΔ)."""
    P = len(seats)
    rivals = P // 2 - 1
    out = np.zeros((P, 6), dtype=np.float64)
    for p, s in enumerate(seats):
        a_p, a_o = float(s.prm[P_ATT_PARTNER]), float(s.prm[P_ATT_OPP])
        spent = a_p + rivals * a_o
        if spent > 1.0:
            a_p, a_o = a_p / spent, a_o / spent
            spent = 1.0
        a_table = max(0.0, 1.0 - spent)
        out[p] = (float(s.prm[P_SPEED]) * a_table / ATTENTION_REF * rules.tick, s.prm[P_SIGMA], s.prm[P_VISIBILITY],
                  a_p, a_o, s.prm[P_CONTRE_PROB])
    return out


class Public(NamedTuple):
    """M-perception: the public state that every player can see from tick ``visible`` on (lag 0)."""

    visible: int
    loc: np.ndarray         # int8[52], see simulator.kems.vocabulary.codes
    table: np.ndarray       # int64[4], the centre
    last_swap: np.ndarray   # int64[P], open-exchange tick count at each player's last exchange


class View(NamedTuple):
    """What player ``p`` perceives at a tick: every field from the same :class:`Public` state, ``lag_ticks`` old,
    plus ``p``'s own exchanges since then (the only public events it sees at once)."""

    seen: np.ndarray        # int64[4], the centre
    loc: np.ndarray         # int8[52]
    pub: np.ndarray         # int64[PUB_SIZE], rank counts of ``loc`` (simulator.kems.vocabulary.views.summarise)
    silence: np.ndarray     # int64[P], ticks of open exchange since each player's last exchange, as of then


@dataclass
class MancheResult:
    """One manche's outcome (one row of the ``manches`` table)."""

    dealer: int
    outcome: int = OUT_CAP
    caller: int = -1
    why: int = -1
    ticks: int = 0
    sweeps: int = 0
    exchanges: int = 0
    reshuffles: int = 0
    redeals: int = 0
    calls: int = 0
    wrong_contres: int = 0
    points: list[int] = field(default_factory=list)       # per team
    signs: list[int] = field(default_factory=list)        # per team: signs made
    seen_partner: list[int] = field(default_factory=list)  # per team: its signs the partner saw
    seen_opp: list[int] = field(default_factory=list)      # per team: sightings of its signs by opponents
    seat_exchanges: list[int] = field(default_factory=list)
    four_tick: list[int] = field(default_factory=list)    # per seat: first tick holding four of a kind, -1 never
    trace: int = 0


class Manche:
    """One manche of Kem's (KM3–KM12 on the §3.2 clock), played from a shared random stream ``rng``.

    ``sightings`` (``int64[P, teams]``) counts the signs each player has seen of each team in this game
    (κ learning); the manche updates it in place."""

    def __init__(self, rules: Rules, seats: list[Seat], rng: np.ndarray, dealer: int, sightings: np.ndarray,
                 log: list[str] | None = None):
        self.r, self.seats, self.rng, self.dealer, self.log = rules, seats, rng, dealer, log
        self.P = P = len(seats)
        self.T = P // 2
        self.model = seat_model(seats, rules)
        self.sightings = sightings
        self.hands = np.zeros((P, HAND), dtype=np.int64)
        self.table = np.full(TABLE, EMPTY, dtype=np.int64)
        self.loc = np.full(52, LOC_UNKNOWN, dtype=np.int8)
        self.stock: list[int] = []      # next card at the end
        self.discard: list[int] = []    # the hidden discard, face down
        self.mem = np.full((P, 4), -1, dtype=np.int64)
        self.work = np.zeros(64, dtype=np.int64)
        self.out = np.zeros((4, 2), dtype=np.int64)
        self.next_move = np.full(P, np.inf)           # continuous time (ticks) of each player's next move
        # each player's own stream for its move times and uniform race times, seeded from one draw of the game's
        # stream: a move that changes nothing then leaves every other draw where it was, which lets the kernel
        # skip such moves and still draw the same numbers
        base = int(next_u64(rng))
        self.move_rng = [stream_state(base, p) for p in range(P)]
        self.last_swap = np.zeros(P, dtype=np.int64)  # open-exchange tick count at each player's last exchange
        self.open_ticks = 0                             # ticks of open exchange so far (the current one excluded)
        # M-perception: the public states by the tick they become visible (before the deal nothing is known)
        self.record = [Public(VISIBLE_BEFORE_DEAL, self.loc.copy(), self.table.copy(), self.last_swap.copy())]
        self.own: list[list[tuple[int, int, int, int]]] = [[] for _ in range(P)]  # (visible, slot, taken, given)
        self.open_periods: list[list[int]] = []        # [first tick, end tick, open ticks before it] of each OPEN phase
        self.passed = [False] * P
        self.holding = [False] * P
        self.next_sign = [NEVER] * P
        self.next_false_kems = [NEVER] * P
        self.next_false_contre = [NEVER] * P
        self.pending = [[None, None] for _ in range(P)]  # per seat, per call kind: (tick, time, target, why)
        self.banned = [False] * P
        self.res = MancheResult(dealer, points=[0] * self.T, signs=[0] * self.T, seen_partner=[0] * self.T,
                                seen_opp=[0] * self.T, seat_exchanges=[0] * P, four_tick=[-1] * P)
        self.h = TRACE_SEED
        self.ended = False

    # ------------------------------------------------------------------ helpers
    def say(self, tick: int, text: str) -> None:
        if self.log is not None:
            self.log.append(f"t{tick:>5} {tick * self.r.tick:7.1f}s  {text}")

    def trace(self, ev: int, a: int = 0, b: int = 0, c: int = 0) -> None:
        self.h = trace_py(self.h, ev, a, b, c)

    def trace_hand(self, p: int) -> None:
        """One EV_DEAL event per card of ``p``'s hand (dealt, or drawn after a KM3 re-deal): (seat, slot, card)."""
        for k in range(HAND):
            self.trace(EV_DEAL, p, k, int(self.hands[p, k]))

    def hand_text(self, p: int) -> str:
        return " ".join(card_name(int(c)) for c in self.hands[p])

    def table_text(self) -> str:
        return " ".join(card_name(int(c)) if c != EMPTY else "--" for c in self.table)

    def holds_four(self, p: int) -> bool:
        ranks = self.hands[p] % 13
        return bool((ranks == ranks[0]).all())

    def shuffle(self, cards: list[int]) -> None:
        """Fisher–Yates from the end, one ``below`` per position (as in every cardsim engine)."""
        for i in range(len(cards) - 1, 0, -1):
            j = below(self.rng, i + 1)
            cards[i], cards[j] = cards[j], cards[i]

    def draw(self, tick: int) -> int:
        """The stock's next card; KM7: an empty stock is replaced by the shuffled hidden discard."""
        if not self.stock:
            self.reshuffle(tick)
        return self.stock.pop()

    def reshuffle(self, tick: int) -> None:
        """KM7: the hidden discard, shuffled, becomes the stock; where its cards are is no longer known."""
        cards = self.discard
        self.discard = []
        self.shuffle(cards)
        self.stock = cards
        for c in cards:
            self.loc[c] = LOC_UNKNOWN
        self.res.reshuffles += 1
        self.trace(EV_RESHUFFLE, len(cards))
        self.say(tick, f"KM7 stock empty: the hidden discard ({len(cards)} cards) is shuffled into a new stock")

    # ------------------------------------------------------------------ M-perception
    def publish(self, visible: int) -> None:
        """M-perception: the public state as it is now is what everyone can see from tick ``visible`` on: a
        change made before the moves of tick t (deal, turn-up, reshuffle) from t, one made in or after them
        (exchange, sweep, shown hands) from t + 1. A later change visible from the same tick replaces it."""
        assert visible >= self.record[-1].visible, (visible, self.record[-1].visible)
        state = Public(visible, self.loc.copy(), self.table.copy(), self.last_swap.copy())
        if self.record[-1].visible == visible:
            self.record[-1] = state
        else:
            self.record.append(state)

    def open_before(self, tick: int) -> int:
        """Ticks of open exchange before ``tick`` (the count ``last_swap`` and silence are measured on)."""
        for first, end, before in reversed(self.open_periods):
            if first < tick:
                return before + min(end, tick) - first
        return 0

    def view(self, tick: int, p: int) -> View:
        """M-perception: what player ``p`` perceives at ``tick``: the newest public state visible by
        ``tick - lag_ticks`` (the centre, ``loc``, its rank counts and the silences, all of that same moment),
        and ``p``'s own exchanges made since (a player knows at once which card it gave and where it went)."""
        limit = tick - self.r.lag_ticks
        state = next(s for s in reversed(self.record) if s.visible <= limit)
        seen, loc = state.table.copy(), state.loc.copy()
        mine = []
        for visible, slot, taken, given in reversed(self.own[p]):
            if visible <= state.visible:
                break
            mine.append((slot, taken, given))
        for slot, taken, given in reversed(mine):
            add_own_exchange(seen, loc, p, slot, taken, given)
        pub = np.zeros(PUB_SIZE, dtype=np.int64)
        summarise(loc, self.P, pub)
        return View(seen, loc, pub, self.open_before(limit) - state.last_swap)

    def perceived(self, tick: int, p: int) -> np.ndarray:
        """The centre as player ``p`` perceives it at ``tick`` (``int64[4]``; :meth:`view`)."""
        return self.view(tick, p).seen

    # ------------------------------------------------------------------ KM3, KM4
    def deal(self) -> None:
        """KM3: shuffle; 4 cards each, one at a time, clockwise from the dealer's left; then every player
        (from the dealer's left) dealt three or four of a rank shows them, discards all four face down and
        draws four new ones, again until no player holds three of a rank."""
        P, d = self.P, self.dealer
        cards = self.r.cards()
        self.shuffle(cards)
        self.stock = cards
        for k in range(HAND):
            for i in range(1, P + 1):
                self.hands[(d + i) % P, k] = self.draw(0)
        for p in range(P):
            self.trace_hand(p)
        for i in range(1, P + 1):
            p = (d + i) % P
            while True:
                ranks = self.hands[p] % 13
                counts = np.bincount(ranks, minlength=13)
                shown = np.flatnonzero(counts >= 3)
                if len(shown) == 0:
                    break
                self.say(0, f"KM3 P{p} was dealt {self.hand_text(p)}: shows them, discards and draws four")
                for k in range(HAND):
                    c = int(self.hands[p, k])
                    if counts[c % 13] >= 3:
                        self.loc[c] = LOC_DEAD
                    self.discard.append(c)
                for k in range(HAND):
                    self.hands[p, k] = self.draw(0)
                self.res.redeals += 1
                self.trace(EV_REDEAL, p, int(shown[0]))
                self.trace_hand(p)
        for p in range(P):
            self.say(0, f"P{p} (team {'ABC'[team_of(p, P)]}) holds {self.hand_text(p)}")

    def turn_up(self, tick: int) -> None:
        """KM4/KM7: the dealer fills the centre from the stock (reshuffling when it runs out)."""
        for s in range(TABLE):
            if self.table[s] == EMPTY:
                c = self.draw(tick)
                self.table[s] = c
                self.loc[c] = LOC_TABLE
                self.trace(EV_TURN_UP, s, c)
        self.publish(tick)
        self.say(tick, f"KM4 P{self.dealer} turns up the centre: {self.table_text()}")

    def top(self, tick: int) -> None:
        """KM4 "Top": exchanges open; every player's first move time is drawn (seat order)."""
        for p in range(self.P):
            self.next_move[p] = tick + exponential(self.move_rng[p], self.model[p, S_RATE])
            self.passed[p] = False
        self.open_periods.append([tick, NEVER, self.open_ticks])
        self.trace(EV_TOP, tick)
        self.say(tick, "Top!")

    def sweep(self, tick: int) -> None:
        """KM6: the centre goes face down into the hidden discard (everyone saw which cards)."""
        for s in range(TABLE):
            c = int(self.table[s])
            if c != EMPTY:
                self.discard.append(c)
                self.loc[c] = LOC_DEAD
            self.table[s] = EMPTY
        self.res.sweeps += 1
        if self.open_periods:
            self.open_periods[-1][1] = tick + 1
        self.publish(tick + 1)
        self.trace(EV_SWEEP, tick)
        self.say(tick, "KM6 no exchange for a while: the dealer sweeps the centre")

    # ------------------------------------------------------------------ KM5 and M-exchange
    def moves(self, tick: int) -> bool:
        """One OPEN tick's moves; returns whether any exchange succeeded."""
        P, r = self.P, self.r
        movers = []
        for p in range(P):
            if not tick <= self.next_move[p] < tick + 1:
                continue
            view = self.view(tick, p)  # M-perception: every public input lag_ticks old
            if not self.banned[p] and self.pending[p][CALL_CONTRE] is None:  # KM10 inference contre
                j = policy.ask("infer_contre", self.seats[p],
                               InferContre(p, P, self.hands[p], view.loc, view.pub, view.silence, self.work))
                if j >= 0:
                    self.schedule(tick, p, CALL_CONTRE, j, WHY_INFERENCE)
            seen = view.seen
            n = policy.ask("propose", self.seats[p], Propose(p, P, self.hands[p], seen, view.loc, view.pub,
                                                               bool(r.multi_swap), self.mem[p], self.work, self.out,
                                                               self.rng))
            if r.race_policy == "speed_weighted":
                when = self.next_move[p] - tick
            elif r.race_policy == "uniform":
                when = uniform(self.move_rng[p])
            else:
                when = float((p - self.dealer - 1) % P)
            if not r.multi_swap:  # KM5: one card for one, one exchange per move
                n = min(n, 1)
            self.passed[p] = n == 0
            pairs = [(int(self.out[i, 0]), int(self.out[i, 1]), int(seen[self.out[i, 1]])) for i in range(n)]
            movers.append((when, p, pairs))
        success = False
        changed = []
        for when, p, pairs in sorted(movers, key=lambda m: (m[0], m[1])):
            for hand_slot, slot, expected in pairs:
                if self.table[slot] != expected:  # another player was faster, or it was never there (lag)
                    self.say(tick, f"P{p} reaches for {card_name(expected)}: gone")
                    continue
                given, taken = int(self.hands[p, hand_slot]), int(self.table[slot])
                self.hands[p, hand_slot] = taken
                self.table[slot] = given
                self.own[p].append((tick + 1, slot, taken, given))
                self.loc[taken] = p
                self.loc[given] = LOC_TABLE
                self.last_swap[p] = self.open_ticks
                self.res.exchanges += 1
                self.res.seat_exchanges[p] += 1
                success = True
                if p not in changed:
                    changed.append(p)
                self.trace(EV_SWAP, p, taken, given)
                self.say(tick, f"P{p} takes {card_name(taken)}, gives {card_name(given)}  -> centre {self.table_text()}")
        if success:
            self.publish(tick + 1)
        for _, p, _ in movers:
            self.next_move[p] = tick + 1 + exponential(self.move_rng[p], self.model[p, S_RATE])
        for p in sorted(changed):
            self.update_four(tick, p)
        return success

    def update_four(self, tick: int, p: int) -> None:
        """M-signal: a new holder starts signalling after d_s ~ Geom (then every tick with probability σ)."""
        four = self.holds_four(p)
        if four and not self.holding[p]:
            self.holding[p] = True
            if self.res.four_tick[p] < 0:
                self.res.four_tick[p] = tick
            self.trace(EV_FOUR, p, int(self.hands[p, 0] % 13))
            self.say(tick, f"P{p} holds four of a kind: {self.hand_text(p)}")
            delay = geometric(self.rng, self.r.sign_delay_p)
            self.next_sign[p] = tick + delay + geometric(self.rng, self.model[p, S_SIGMA]) - 1
            if self.next_sign[p] >= NEVER:
                self.next_sign[p] = NEVER
        elif not four and self.holding[p]:
            self.holding[p] = False
            self.next_sign[p] = NEVER

    # ------------------------------------------------------------------ M-signal
    def signs(self, tick: int) -> None:
        P, r = self.P, self.r
        for h in range(P):
            if self.next_sign[h] != tick:
                continue
            if not policy.ask("sign", self.seats[h], Sign(h, P, self.hands[h], self.rng)):
                self.next_sign[h] = self.after(tick, self.model[h, S_SIGMA])  # the chance passes
                continue
            tm = team_of(h, P)
            q = partner_of(h, P)
            v = self.model[h, S_VIS]
            self.res.signs[tm] += 1
            seen_mask = 0
            if uniform(self.rng) < self.model[q, S_ATT_P] * v:
                seen_mask |= 1 << q
                self.res.seen_partner[tm] += 1
                if self.pending[q][CALL_KEMS] is None and policy.ask("call", self.seats[q],
                                                                     Call(q, P, self.hands[q], h, self.rng)):
                    self.schedule(tick, q, CALL_KEMS, h, WHY_SIGN)
            for o in range(P):
                if team_of(o, P) == tm:
                    continue
                kappa = 1.0 - (1.0 - r.kappa0) * (1.0 - r.rho) ** int(self.sightings[o, tm])
                if uniform(self.rng) < self.model[o, S_ATT_O] * v * kappa:
                    seen_mask |= 1 << o
                    self.sightings[o, tm] += 1
                    self.res.seen_opp[tm] += 1
                    can_call = not self.banned[o] and self.pending[o][CALL_CONTRE] is None
                    if policy.ask("contre", self.seats[o], Contre(o, P, self.hands[o], h, can_call, self.rng)):
                        self.schedule(tick, o, CALL_CONTRE, h, WHY_SIGN)
            self.trace(EV_SIGN, h, seen_mask)
            who = ", ".join(f"P{x}" for x in range(P) if seen_mask >> x & 1) or "nobody"
            self.say(tick, f"P{h} makes the team sign (seen by {who})")
            self.next_sign[h] = self.after(tick, self.model[h, S_SIGMA])

    # ------------------------------------------------------------------ M-calls
    def schedule(self, tick: int, p: int, kind: int, target: int, why: int) -> None:
        """A call after the reaction delay R ~ uniform integer in [reaction_min, reaction_max], at a uniform
        time inside that tick. ``target``: the partner (Kem's) or the accused opponent (contre)."""
        r = self.r
        due = tick + r.reaction_min + below(self.rng, r.reaction_max - r.reaction_min + 1)
        self.pending[p][kind] = (due, uniform(self.rng), target, why)

    def false_alarms(self, tick: int) -> None:
        P, r = self.P, self.r
        for p in range(P):
            if self.next_false_kems[p] == tick:
                if self.pending[p][CALL_KEMS] is None:
                    self.schedule(tick, p, CALL_KEMS, partner_of(p, P), WHY_FALSE)
                self.next_false_kems[p] = self.after(tick, r.false_kems_rate)
            if self.next_false_contre[p] == tick:
                if not self.banned[p] and self.pending[p][CALL_CONTRE] is None:
                    k = below(self.rng, P - 2)  # a random opponent (its team, under contre_target=team)
                    target = [o for o in range(P) if team_of(o, P) != team_of(p, P)][k]
                    self.schedule(tick, p, CALL_CONTRE, target, WHY_FALSE)
                self.next_false_contre[p] = self.after(tick, r.false_contre_rate)

    def after(self, tick: int, p: float) -> int:
        g = geometric(self.rng, p)
        return NEVER if g >= NEVER else tick + g

    def calls(self, tick: int) -> None:
        """KM12: the calls due this tick, in time order; the first that ends the manche wins."""
        due = [(c[1], kind, p) for p in range(self.P) for kind, c in enumerate(self.pending[p])
               if c is not None and c[0] == tick]
        for _, kind, p in sorted(due):
            _, _, target, why = self.pending[p][kind]
            self.pending[p][kind] = None
            if kind == CALL_KEMS:
                self.call_kems(tick, p, why)
            elif not self.banned[p]:
                self.call_contre(tick, p, target, why)
            if self.ended:
                return

    def score(self, team: int, points: int) -> None:
        self.res.points[team] += points

    def penalise(self, offender: int, victims: list[int]) -> None:
        """KM9/KM11/KM12: a penalty gives each victim team a point, or (negative_points) takes one off the offender."""
        if self.r.negative_points:
            self.score(offender, -1)
        else:
            for t in victims:
                self.score(t, 1)

    def end(self, tick: int, outcome: int, caller: int, why: int) -> None:
        self.ended = True
        self.res.outcome, self.res.caller, self.res.why = outcome, caller, why

    def call_kems(self, tick: int, p: int, why: int) -> None:
        """KM8/KM9: only the caller's partner's hand is checked."""
        P, r = self.P, self.r
        q = partner_of(p, P)
        tm = team_of(p, P)
        self.res.calls += 1
        if self.holds_four(q):
            points = 1
            if r.double_mode == "auto":
                if self.holds_four(p):
                    points = 2
            elif self.holds_four(p) and self.second_call(tick, p, q):
                points = 2
            self.score(tm, points)
            self.trace(EV_CALL, p, CALL_KEMS, points)
            self.say(tick, f"P{p} calls KEM'S! P{q} shows {self.hand_text(q)}: team {'ABC'[tm]} +{points}"
                     + (" (double)" if points == 2 else ""))
            self.end(tick, OUT_DOUBLE if points == 2 else OUT_KEMS, p, why)
            return
        self.penalise(tm, [t for t in range(self.T) if t != tm])
        self.trace(EV_CALL, p, CALL_KEMS, 0)
        self.say(tick, f"P{p} calls KEM'S, but P{q} shows {self.hand_text(q)}: wrong Kem's (KM9)")
        for k in range(HAND):
            self.loc[self.hands[q, k]] = q
        self.publish(tick + 1)
        if r.wrong_kems_ends:
            self.end(tick, OUT_WRONG_KEMS, p, why)

    def second_call(self, tick: int, p: int, q: int) -> bool:
        """KM8 ``second_call``: the caller, holding four too, keeps signing (σ per tick); the holder must see a
        sign and call "double" (after R) within ``double_window``."""
        r = self.r
        window = tick + r.double_ticks
        t = tick
        while True:
            g = geometric(self.rng, self.model[p, S_SIGMA])
            if g >= NEVER or t + g > window:
                return False
            t += g
            if uniform(self.rng) < self.model[q, S_ATT_P] * self.model[p, S_VIS]:
                react = r.reaction_min + below(self.rng, r.reaction_max - r.reaction_min + 1)
                return t + react <= window

    def call_contre(self, tick: int, p: int, target: int, why: int) -> None:
        """KM10/KM11: contre on the accused player's team (or on that player, ``contre_target=player``)."""
        P, r = self.P, self.r
        accused_team = team_of(target, P)
        accused = [target] if r.contre_target == "player" else [o for o in range(P) if team_of(o, P) == accused_team]
        self.res.calls += 1
        tm = team_of(p, P)
        if any(self.holds_four(o) for o in accused):
            self.score(tm, 1)
            self.trace(EV_CALL, p, CALL_CONTRE, 1)
            self.say(tick, f"P{p} calls CONTRE-KEM'S on {'/'.join(f'P{o}' for o in accused)}: right, team {'ABC'[tm]} +1")
            self.end(tick, OUT_CONTRE, p, why)
            return
        self.banned[p] = True
        self.res.wrong_contres += 1
        for o in accused:  # KM11: the checked hands are now public
            for k in range(HAND):
                self.loc[self.hands[o, k]] = o
        if r.wrong_contre == "ban_show2":
            for k in range(2):
                self.loc[self.hands[p, k]] = p
        elif r.wrong_contre == "opponents_plus1":
            self.penalise(tm, [accused_team])
        self.publish(tick + 1)
        self.trace(EV_CALL, p, CALL_CONTRE, 0)
        self.say(tick, f"P{p} calls CONTRE-KEM'S on {'/'.join(f'P{o}' for o in accused)}: wrong, banned from contre (KM11)")

    # ------------------------------------------------------------------ the clock
    def play(self) -> MancheResult:
        """The manche on the §3.2 clock (the players' move streams were seeded at construction)."""
        P, r = self.P, self.r
        self.deal()
        for p in range(P):
            self.next_false_kems[p] = self.after(-1, r.false_kems_rate)
            self.next_false_contre[p] = self.after(-1, r.false_contre_rate)
        tick = 0
        self.turn_up(tick)
        phase, phase_end = PH_TURN_UP, r.turn_up_ticks
        quiet = 0
        while True:
            if phase == PH_SWEEP and tick == phase_end:
                self.turn_up(tick)
                phase, phase_end = PH_TURN_UP, tick + r.turn_up_ticks
            if phase == PH_TURN_UP and tick == phase_end:
                self.top(tick)
                phase, quiet = PH_OPEN, 0
            if phase == PH_OPEN:
                if self.moves(tick):
                    quiet = 0
                    self.passed = [False] * P
                else:
                    quiet += 1
                self.open_ticks += 1
                if quiet >= r.quiet_ticks or (r.sweep_on_all_pass and all(self.passed)):
                    self.sweep(tick)
                    phase, phase_end = PH_SWEEP, tick + 1 + r.sweep_ticks
            self.signs(tick)
            self.false_alarms(tick)
            self.calls(tick)
            tick += 1
            if self.ended or tick >= r.max_ticks:
                break
        self.res.ticks = tick
        if not self.ended:
            self.say(tick, f"no call before the {r.max_ticks}-tick cap")
        self.trace(EV_END, self.res.outcome, self.res.caller, tick)
        self.res.trace = self.h
        return self.res


class Game(ReferenceGame):
    """One game of Kem's: manches until a team reaches ``target`` (KM1), the deal rotating clockwise (KM12);
    or one manche (level ``manches``), dealt by seat ``index mod P``.

    Produces the raw integer rows of :mod:`simulator.kems.vocabulary.records`, identical to a kernel's."""

    levels = LEVELS

    def play(self) -> "Game":
        P, T, r = self.P, self.P // 2, self.r
        first_dealer = self.index % P
        totals = [0] * T
        sightings = np.zeros((P, T), dtype=np.int64)
        manches = 0
        while True:
            if self.log is not None:
                self.log.append(f"--- manche {manches}: P{(first_dealer + manches) % P} deals ---")
            if r.signs_change_each_manche:
                sightings[:] = 0
            res = Manche(r, self.seats, self.rng, (first_dealer + manches) % P, sightings, self.log).play()
            totals = [a + b for a, b in zip(totals, res.points)]
            self.rows["manches"].append(
                [self.index, manches, res.dealer, res.outcome, res.caller, res.why, res.ticks, res.sweeps,
                 res.exchanges, res.reshuffles, res.redeals, res.calls, res.wrong_contres]
                + res.points + totals + res.signs + res.seen_partner + res.seen_opp
                + res.seat_exchanges + res.four_tick)
            self.traces.append(res.trace)
            if self.log is not None:
                self.log.append(f"manche {manches}: {OUTCOMES[res.outcome]}; points "
                                + " ".join(f"{'ABC'[t]}{res.points[t]:+d}" for t in range(T))
                                + "; totals " + " ".join(f"{'ABC'[t]}={totals[t]}" for t in range(T)))
            manches += 1
            if self.level == "manches":
                return self
            if max(totals) >= r.target or manches >= MAX_MANCHES:
                break
        best = max(totals)
        winners = [t for t in range(T) if totals[t] == best]
        mask = sum(1 << t for t in winners)
        self.rows["games"].append([self.index, manches, first_dealer, mask, winners[0] if len(winners) == 1 else -1]
                                  + totals)
        return self


def play_games(rules: Rules, seats: list[Seat], seed: int, start: int, stop: int, level: str = "games") -> dict:
    """Raw rows of games ``start <= i < stop``: ``{table: int64 array}`` plus ``traces`` (one per manche)."""
    games = (Game(rules, seats, seed, i, level).play() for i in range(start, stop))
    return stack_rows(games, LEVELS, lambda t: n_cols(t, len(seats)), {"traces": np.uint64})
