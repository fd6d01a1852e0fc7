"""The Rami "Kracouil" rulebook as plain Python: readable, slow, and the judge of a future numba kernel.

Every rule of docs/rules/rami.md (R1–R15) is implemented here where its number is cited. A kernel must
follow the same steps in the same order and draw the same random numbers (all from the game's stream
``stream_state(seed, index)``), so that for a given (seed, game index) both produce identical rows and an
identical event-trace hash.

State is kept in per-seat parallel arrays: ``hands`` (``int8[P, 53]`` count vectors, index 52 = jokers),
``opened``, ``laid``; the table is ``table[:n_table]`` (``int8[5]`` meld codes of :mod:`simulator.rami.vocabulary.melds`)
with ``owner``; the stock and the discard pile are lists whose last item is the top card. Strategies are
numba functions (:mod:`strategies.rami.policy`) that receive only the deciding player's information set.

Order of random draws (fixed, for the kernel): the dealer draw's shuffle (R2); per round the deal's
shuffle; then, in play order, the strategies' own draws, the R14 reshuffles and the R10 notice / race draws.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from simulator.core.cards import DECK_SIZE, JOKER, N_RANKS
from simulator.core.contract.seats import Seat  # noqa: F401  (re-exported)
from simulator.core.errors import SpecError
from simulator.core.kernels.reference import Narrated, ReferenceGame, race
from simulator.core.kernels.rng import below, uniform
from simulator.core.records import stack_rows
from simulator.rami.engines.table import TableOps, name, physical
from simulator.rami.vocabulary import records
from simulator.rami.vocabulary.codes import (
    A_CARTE, JOKERS_PER_DECK, MAX_ROUNDS, MAX_STEPS, RAMI_SEC_HAND_FACTOR, TAKE_FROM_TURN, DRAW_DISCARD, END_VALUE,
    EV_CLAIM, EV_DEAL, EV_DEALER, EV_DEALER_DRAW, EV_DISCARD, EV_DRAW, EV_END, EV_OPEN, EV_RAMI_SEC, EV_RESHUFFLE,
    EV_TAKE, LAY_KEEP_JOKERS, LAY_NONE, MAX_MELDS, MAX_MOVES, N_IDS, OPEN_OPEN, OPEN_SEC, OPENING_BEST, OUT_BLOCKED,
    OUT_CLAIM, OUT_NORMAL, OUT_RAMI_SEC, OUT_TURN_CAP, OUTCOMES, TRACE_SEED, trace_py,
)
from simulator.rami.vocabulary.contract import Claim, Discard, Draw, Hold, Layoff, Me, Open, OpenWith, Seen
from simulator.rami.vocabulary.melds import MAX_OUT, SWAP_JOKER, opening_min_melds
from simulator.rami.vocabulary.records import GAME_FIXED, ROUND_FIXED
from simulator.rami.vocabulary.rules import Rules
from strategies.rami import policy

LEVELS = ("rounds", "games")


@dataclass
class RoundResult:
    """One round's outcome (one row of the ``rounds`` table)."""

    dealer: int
    first: int
    winner: int = -1
    outcome: int = OUT_TURN_CAP
    turns: int = 0
    claims: int = 0
    reshuffles: int = 0
    melds: int = 0
    jokers_laid: int = 0
    jokers_swapped: int = 0
    points: list[int] = field(default_factory=list)
    open_turn: list[int] = field(default_factory=list)
    cards_left: list[int] = field(default_factory=list)
    open_points: list[int] = field(default_factory=list)
    trace: int = 0


class Round(Narrated, TableOps):
    """One round of Rami (R2–R14), played from a shared random stream ``rng`` (``uint64[4]``)."""

    def __init__(self, rules: Rules, seats: list[Seat], rng: np.ndarray, log: list[str] | None = None):
        if rules.opening_cumulative:  # R7: not implemented, refused rather than ignored
            raise SpecError("--option opening_cumulative", True, "false (an opening spread over several turns "
                            "is not implemented yet)")
        self.r, self.seats, self.P, self.rng, self.log = rules, seats, len(seats), rng, log
        self.decks = rules.decks(self.P)
        P = self.P
        self.hands = np.zeros((P, N_IDS), dtype=np.int8)
        self.sizes = np.zeros(P, dtype=np.int64)
        self.opened = np.zeros(P, dtype=np.int8)
        self.laid = np.zeros(P, dtype=np.int8)          # laid any card this round (R12 "laid nothing before")
        self.on_others_melds = False                    # this turn laid off / swapped on another's meld (R12)
        self.open_turn = [-1] * P
        self.open_points = [-1] * P                    # R7 value of the opening or rami sec lay-down, -1 never
        self.jokers_laid = 0                            # jokers put on the table (melds, lay-offs, R9 re-lays)
        self.jokers_swapped = 0                         # table jokers taken back by an R9 swap
        self.own_turns = [0] * P
        self.table = np.zeros((MAX_MELDS, 5), dtype=np.int8)
        self.owner = np.full(MAX_MELDS, -1, dtype=np.int8)
        self.n_table = 0
        self.stock: list[int] = []
        self.discard: list[int] = []
        self.scores = np.zeros(P, dtype=np.int64)       # cumulative scores before the round (public)
        self.out = np.zeros((MAX_OUT, 5), dtype=np.int8)
        self.moves = np.zeros((MAX_MOVES, 4), dtype=np.int16)
        self.moves2 = np.zeros((MAX_MOVES, 4), dtype=np.int16)
        self.one = np.zeros(N_IDS, dtype=np.int8)
        self.h = TRACE_SEED
        self.turns = self.claims = self.reshuffles = 0
        self.winner = -1
        self.outcome = OUT_TURN_CAP
        self.represented = rules.joker_opening_value == "represented"
        self.inside = rules.franche_inside_longer_run
        self.min_melds = opening_min_melds(rules.opening_single_meld)  # R7: the franche + another combination

    # ------------------------------------------------------------------ helpers
    def hand_text(self, p: int) -> str:
        return " ".join(name(c) for c in range(N_IDS) for _ in range(int(self.hands[p, c]))) or "(empty)"

    def hand_value(self, p: int) -> int:
        """R13: ace 11, J/Q/K 10, joker 20."""
        return int((self.hands[p].astype(np.int64) * END_VALUE).sum())

    def give(self, p: int, card: int) -> None:
        self.hands[p, card] += 1
        self.sizes[p] += 1

    def remove(self, p: int, card: int) -> None:
        assert self.hands[p, card] > 0, f"P{p} does not hold {name(card)}"
        self.hands[p, card] -= 1
        self.sizes[p] -= 1

    def shuffle(self, cards: list[int]) -> None:
        """Fisher–Yates from the end, one ``below`` per position (as in every cardsim engine)."""
        for i in range(len(cards) - 1, 0, -1):
            j = below(self.rng, i + 1)
            cards[i], cards[j] = cards[j], cards[i]

    def full_deck(self) -> list[int]:
        """R1: ``decks`` decks of 54 cards (ids 0–51 and two jokers each), in a fixed order before shuffling."""
        return [c for _ in range(self.decks) for c in list(range(DECK_SIZE)) + [JOKER] * JOKERS_PER_DECK]

    # ------------------------------------------------------------------ R14
    def reshuffle(self) -> bool:
        """R14: the discard pile but its top card is shuffled into a new stock."""
        if len(self.discard) < 2:
            return False
        top = self.discard.pop()
        cards = self.discard
        self.shuffle(cards)
        self.stock, self.discard = cards, [top]
        self.reshuffles += 1
        self.trace(EV_RESHUFFLE, len(self.stock))
        self.say(f"  stock empty: {len(self.stock)} discarded cards reshuffled into a new stock (top {name(top)} stays)")
        return True

    def do_move(self, p: int, move) -> None:
        self.apply_move(p, move)
        if int(move[2]) == SWAP_JOKER and self.r.joker_swap == "must_reuse":  # R9: the joker is laid again now
            jm = self.card_moves(JOKER)
            assert len(jm) > 0
            seat = self.seats[p]
            k = policy.ask("layoff", seat, Layoff(p, self.hands[p], self.opened, self.sizes, jm, len(jm), True,
                                                  self.rng))
            self.apply_move(p, jm[k])

    def layoff_phase(self, p: int) -> None:
        """R8/R9: lay-offs and joker swaps, one move at a time, until the strategy stops."""
        seat = self.seats[p]
        for _ in range(MAX_STEPS):
            if self.sizes[p] == 0:
                return
            moves = self.legal_moves(p)
            if len(moves) == 0:
                return
            k = policy.ask("layoff", seat, Layoff(p, self.hands[p], self.opened, self.sizes, moves, len(moves), False,
                                                  self.rng))
            if k < 0:
                return
            self.do_move(p, moves[k])
        raise AssertionError("lay-off loop did not end")

    def take_plan(self, p: int) -> tuple[bool, int]:
        """R5: may ``p`` take the top discard now, and (unopened) with how many opening points?

        From the player's 2nd turn, never "à carte" (exactly one card), and only if the card can be laid this
        turn: an opened player in a new meld of the hand (the least-left lay-down then needs it) or as a
        lay-off; an unopened player only if the best opening of hand + card reaches the threshold and lays
        that card (with ``discard_in_tierce`` false: outside a tierce franche that the opening also holds)."""
        if not self.discard or self.own_turns[p] < TAKE_FROM_TURN or self.sizes[p] == A_CARTE:
            return False, 0
        c = self.discard[-1]
        counts = self.hands[p].copy()
        if self.opened[p]:
            if len(self.card_moves(c)) > 0:
                return True, 0
            return self.meld_with(counts, c) is not None, 0
        counts[c] += 1
        can, points, melds = self.opening_melds(counts)
        if not can:
            return False, points
        return self.opening_uses(melds, c), points

    # ------------------------------------------------------------------ R4: one turn
    def turn(self, p: int, first_turn_of_round: bool) -> bool:
        """Player ``p``'s turn; True when the round ended."""
        r = self.r
        seat = self.seats[p]
        self.own_turns[p] += 1
        self.turns += 1
        laid_before = bool(self.laid[p])
        self.on_others_melds = False
        self.say(f"T{self.turns} P{p} (turn {self.own_turns[p]}): {self.hand_text(p)}")
        if first_turn_of_round and not r.first_player_draws:
            self.say("  first player: no draw (R3)")
        else:
            if not self.stock:
                self.reshuffle()  # R14
            can_take, take_points = self.take_plan(p)
            if not self.stock and not can_take:
                self.say("  nothing to draw: the round is blocked")
                self.outcome = OUT_BLOCKED
                return True
            if not self.stock:
                src = DRAW_DISCARD  # the only way to draw: no decision
            else:
                top = self.discard[-1] if self.discard else -1
                src = policy.ask("draw", seat, Draw(p, self.hands[p], self.opened, self.sizes, top, can_take,
                                                    take_points, self.own_turns[p], len(self.stock), self.rng))
            if src == DRAW_DISCARD:
                    self.take_discard(p)
            else:
                card = self.stock.pop()
                self.give(p, card)
                self.trace(EV_DRAW, p, card)
                self.say(f"  draws {name(card)} from the stock")
        sec_discard = -2
        if not self.opened[p]:
            sec_discard = self.unopened_phase(p)
        if self.opened[p] and sec_discard == -2 and self.sizes[p] > 0:
            self.lay_phase(p)
            self.layoff_phase(p)
        if self.sizes[p] == 0:
            return self.going_out(p, laid_before)  # R11: everything melded
        if sec_discard >= 0:
            card = sec_discard
        else:
            fits = self.fits()
            forbid = r.playable_discard == "forbidden"
            card = policy.ask("discard", seat, Discard(p, self.hands[p], self.opened, self.sizes, fits, forbid,
                                                       self.rng))
        self.do_discard(p, card)
        if self.sizes[p] == 0:
            return self.going_out(p, laid_before)  # R11: the last card discarded
        return self.claim_window(p, card)

    def take_discard(self, p: int) -> None:
        """R5: the top discard is taken and laid at once (the engine lays it; see docs R5)."""
        c = self.discard.pop()
        self.give(p, c)
        self.trace(EV_TAKE, p, c)
        self.say(f"  takes {name(c)} from the discard")
        if not self.opened[p]:
            counts = self.hands[p].copy()
            can, points, melds = self.opening_melds(counts)
            assert can and self.opening_uses(melds, c)
            self.open_with(p, melds, points)
            return
        counts = self.hands[p].copy()
        counts[c] -= 1
        meld = self.meld_with(counts, c)
        if meld is not None:
            self.lay_meld(p, meld)
            return
        moves = self.card_moves(c)
        seat = self.seats[p]
        k = policy.ask("layoff", seat, Layoff(p, self.hands[p], self.opened, self.sizes, moves, len(moves), True,
                                              self.rng))
        self.apply_move(p, moves[k])

    def open_with(self, p: int, melds: list, points: int) -> None:
        """R7: the opening's melds go down together; from now on ``p`` may lay and lay off (R8)."""
        self.trace(EV_OPEN, p, points, len(melds))
        self.say(f"  opens with {points} points")
        for m in melds:
            self.lay_meld(p, m)
        self.opened[p] = 1
        self.open_turn[p] = self.own_turns[p]
        self.open_points[p] = points

    def unopened_phase(self, p: int) -> int:
        """R7/R12 for an unopened player; returns the forced last discard of a rami sec, -1 for a rami sec
        laying everything, -2 otherwise."""
        seat = self.seats[p]
        counts = self.hands[p].copy()
        can_open, points, melds = self.opening_melds(counts)
        sec = self.rami_sec_plan(p)
        choice = policy.ask("open", seat, Open(p, self.hands[p], self.opened, self.sizes, points, can_open,
                                               sec is not None, self.own_turns[p], len(self.stock), self.rng))
        if choice == OPEN_SEC:
            sec_melds, last = sec
            sec_points = self.melds_points(sec_melds)  # R12: 51 not needed, but recorded
            self.trace(EV_RAMI_SEC, p, sec_points, len(sec_melds))
            self.say(f"  lays the whole hand at once (rami sec, {sec_points} points)")
            for m in sec_melds:
                self.lay_meld(p, m)
            self.opened[p] = 1
            self.open_turn[p] = self.own_turns[p]
            self.open_points[p] = sec_points
            return last
        if choice == OPEN_OPEN:  # the contract checked can_open (R7) and can_sec (R12)
            styles, n_styles = self.opening_styles(counts)  # counts: the hand, as opening_melds left it
            style = policy.ask("open_with", seat, OpenWith(p, self.hands[p], self.opened, self.sizes, styles, n_styles,
                                                           self.rng))
            if style != OPENING_BEST:
                points, melds = self.styled_opening(style, counts)
            self.open_with(p, melds, points)
        return -2

    def lay_phase(self, p: int) -> None:
        """R8: new melds from the hand, chosen by the least-left lay-down (jokers kept in hand on request); the
        player lays or holds each."""
        seat = self.seats[p]
        plan = policy.ask("lay", seat, Seen(p, self.hands[p], self.opened, self.sizes, self.rng))
        if plan == LAY_NONE:
            return
        counts = self.hands[p].copy()
        if plan == LAY_KEEP_JOKERS:
            counts[JOKER] = 0
        _, melds = self.least_left(counts, False)
        used = sum(len(physical(m)) for m in melds)
        while self.r.final_discard_required and melds and used >= self.sizes[p]:  # R11: keep one card to discard
            used -= len(physical(melds.pop()))
        left = self.sizes[p] - used
        for m in melds:  # R8: each may stay in hand this turn
            if not policy.ask("hold", seat, Hold(p, self.hands[p], self.opened, self.sizes, m, left, self.rng)):
                self.lay_meld(p, m)

    def do_discard(self, p: int, card: int) -> None:
        self.remove(p, card)
        self.discard.append(card)
        self.trace(EV_DISCARD, p, card)
        self.say(f"  discards {name(card)}")

    def going_out(self, p: int, laid_before: bool) -> bool:
        """R11, and R12: a rami sec when ``p`` had laid nothing before this turn and laid the whole hand in
        melds of their own (no lay-off or swap on another player's meld this turn, unless ``rami_sec_layoffs``)."""
        sec = not laid_before and (self.r.rami_sec_layoffs or not self.on_others_melds)
        self.winner = p
        self.outcome = OUT_RAMI_SEC if sec else OUT_NORMAL
        self.say(f"  P{p} goes out{' - RAMI SEC!' if sec else ''}")
        return True

    # ------------------------------------------------------------------ R10: playable discard
    def claim_window(self, p: int, card: int) -> bool:
        """R10 ``snap``: a discard that fits a table meld may be claimed by the first player who notices it.

        Eligible: every other player (``claim_eligibility``: opened ones, or anyone) who is not "à carte"
        (R5: holding one card, unless ``a_carte_claims``), asked in turn order from ``p``'s next player; each
        notices with ``notice_prob`` (one uniform each, drawn only when < 1), then its strategy decides. The
        race picks one claimant, who lays the card off and discards; the new discard opens a new window.
        Returns True when a claimant went out (only an à-carte claimant can)."""
        r = self.r
        if r.playable_discard != "snap":
            return False
        while True:
            moves = self.card_moves(card)
            if len(moves) == 0:
                return False
            claimants = []
            for k in range(1, self.P):
                q = (p - k) % self.P
                if not (self.opened[q] or r.claim_eligibility == "anyone"):
                    continue
                if self.sizes[q] == A_CARTE and not r.a_carte_claims:  # R5: à carte, never the discard
                    continue
                if r.notice_prob < 1.0 and uniform(self.rng) >= r.notice_prob:
                    continue
                seat = self.seats[q]
                if policy.ask("claim", seat, Claim(q, self.hands[q], self.opened, self.sizes, card, self.rng)):
                    claimants.append(q)
            if not claimants:
                return False
            q = self.race(claimants)
            seat = self.seats[q]
            self.discard.pop()
            self.give(q, card)
            self.claims += 1
            self.trace(EV_CLAIM, q, card, len(claimants))
            self.say(f"  P{q} claims {name(card)} (claimants: {', '.join(f'P{x}' for x in claimants)})")
            k = policy.ask("layoff", seat, Layoff(q, self.hands[q], self.opened, self.sizes, moves, len(moves), True,
                                                  self.rng))
            self.apply_move(q, moves[k])
            fits = self.fits()
            card = policy.ask("discard", seat, Discard(q, self.hands[q], self.opened, self.sizes, fits, False,
                                                       self.rng))
            self.do_discard(q, card)
            if self.sizes[q] == 0:
                self.winner, self.outcome = q, OUT_CLAIM  # R11, scored as R13
                self.say(f"  P{q} goes out on a claim")
                return True
            p = q

    def race(self, claimants: list[int]) -> int:
        """The race policy (rule R10, ``race_policy``) among several claimants (listed in turn order from the
        discarder's next): :func:`simulator.core.kernels.reference.race`."""
        return claimants[race(self.r.race_policy, len(claimants),
                              lambda i: policy.ask("speed", self.seats[claimants[i]], Me(claimants[i])),
                              self.rng)]

    # ------------------------------------------------------------------ the round
    def deal(self, dealer: int) -> int:
        """R2: shuffle, deal ``hand_cards`` one at a time counter-clockwise from the dealer's right-hand
        neighbour, one more card to that player (who plays first), turn the top card of the stock."""
        P, r = self.P, self.r
        self.stock = self.full_deck()
        self.shuffle(self.stock)
        first = (dealer - 1) % P
        for _ in range(r.hand_cards):
            for k in range(P):
                self.give((first - k) % P, self.stock.pop())
        self.give(first, self.stock.pop())
        self.discard = [self.stock.pop()]
        self.trace(EV_DEAL, dealer, self.discard[-1])
        self.say(f"deal by P{dealer}; P{first} gets 14 cards and plays first; discard starts with {name(self.discard[-1])}")
        for p in range(P):
            self.say(f"  P{p}: {self.hand_text(p)}")
        return first

    def play(self, dealer: int, scores: list[int]) -> RoundResult:
        r, P = self.r, self.P
        self.scores[:] = scores
        first = self.deal(dealer)
        res = RoundResult(dealer=dealer, first=first)
        p = first
        ended = False
        while not ended:
            if self.turns >= r.max_turns_per_round:  # R15 guard
                self.say(f"turn cap of {r.max_turns_per_round} reached: the round ends without a winner")
                self.outcome = OUT_TURN_CAP
                break
            ended = self.turn(p, self.turns == 0)
            p = (p - 1) % P  # R2: play runs counter-clockwise
        res.winner, res.outcome = self.winner, self.outcome
        res.turns, res.claims, res.reshuffles, res.melds = self.turns, self.claims, self.reshuffles, self.n_table
        res.jokers_laid, res.jokers_swapped = self.jokers_laid, self.jokers_swapped
        res.open_points = list(self.open_points)
        res.points = self.score()
        res.open_turn = list(self.open_turn)
        res.cards_left = [int(x) for x in self.sizes]
        self.trace(EV_END, res.outcome, res.winner)
        res.trace = self.h
        return res

    def score(self) -> list[int]:
        """R12/R13 (and the R15 guard / a blocked round: everyone scores their hand)."""
        r, P, w = self.r, self.P, self.winner
        values = [self.hand_value(p) for p in range(P)]
        if self.outcome == OUT_RAMI_SEC:  # R12
            points = [r.rami_sec_unopened if not self.opened[q] else RAMI_SEC_HAND_FACTOR * values[q] for q in range(P)]
            points[w] = r.rami_sec_bonus
        elif self.outcome in (OUT_NORMAL, OUT_CLAIM):  # R13
            points = [r.unopened_penalty if (r.unopened_penalty > 0 and not self.opened[q]) else values[q]
                      for q in range(P)]
            points[w] = 0
        else:
            points = values
        for q in range(P):
            self.say(f"  P{q} holds {self.hand_text(q)} = {values[q]}{' (never opened)' if not self.opened[q] else ''}")
        self.say(f"  {OUTCOMES[self.outcome]}" + (f", winner P{w}" if w >= 0 else "") + "; points "
                 + " ".join(f"P{q}:{points[q]:+d}" for q in range(P)))
        return points


# ---------------------------------------------------------------------- R2 dealer, R15 game
class Game(ReferenceGame):
    """One game of Rami: rounds until someone reaches ``target`` (R15); or one round (level ``rounds``).

    Produces the raw integer rows of :mod:`simulator.rami.vocabulary.records`, identical to a kernel's."""

    levels = LEVELS

    def __init__(self, rules: Rules, seats: list[Seat], seed: int, index: int, level: str = "games",
                 log: list[str] | None = None):
        super().__init__(rules, seats, seed, index, level, log)
        self.h = TRACE_SEED

    def choose_dealer(self) -> int:
        """R2: each player draws a card from a shuffled deck (seat order); highest wins, ace high; a joker is
        redrawn at once; players tied for the highest draw again (in seat order) among themselves."""
        helper = Round(self.r, self.seats, self.rng)
        deck = helper.full_deck()
        helper.shuffle(deck)
        contenders = list(range(self.P))
        while True:
            drawn = {}
            for q in contenders:
                while True:
                    if not deck:  # only with many ties: a fresh shuffled deck
                        deck = helper.full_deck()
                        helper.shuffle(deck)
                    c = deck.pop()
                    self.h = trace_py(self.h, EV_DEALER_DRAW, q, c, 0)
                    self.say(f"dealer draw: P{q} draws {name(c)}")
                    if c != JOKER:
                        break
                drawn[q] = (c % N_RANKS - 1) % N_RANKS  # ace high: 2 -> 0 ... K -> 11, A -> 12
            top = max(drawn.values())
            contenders = [q for q in contenders if drawn[q] == top]
            if len(contenders) == 1:
                self.h = trace_py(self.h, EV_DEALER, contenders[0], 0, 0)
                self.say(f"P{contenders[0]} deals first")
                return contenders[0]

    def play(self) -> "Game":
        P, r = self.P, self.r
        dealer = self.choose_dealer()
        first_dealer = dealer
        scores = [0] * P
        rounds = 0
        while True:
            self.say(f"--- round {rounds} ---")
            rnd = Round(r, self.seats, self.rng, self.log)
            if rounds == 0:
                rnd.h = self.h  # the dealer draw is hashed into the first round's trace
            res = rnd.play(dealer, scores)
            scores = [s + x for s, x in zip(scores, res.points)]
            fixed = dict(game=self.index, round=rounds, dealer=res.dealer, first=res.first, winner=res.winner,
                         outcome=res.outcome, turns=res.turns, claims=res.claims, reshuffles=res.reshuffles,
                         melds=res.melds, jokers_laid=res.jokers_laid, jokers_swapped=res.jokers_swapped)
            self.rows["rounds"].append([fixed[c] for c in ROUND_FIXED]  # per seat: records.ROUND_SEAT order
                                       + res.points + scores + res.open_turn + res.cards_left + res.open_points)
            self.traces.append(res.trace)
            rounds += 1
            dealer = (dealer - 1) % P  # R2: the next dealer sits on the previous dealer's right
            if self.level == "rounds" or max(scores) >= r.target or rounds >= MAX_ROUNDS:
                break
        low = min(scores)
        winners = [q for q in range(P) if scores[q] == low]  # R15: lowest total wins, ties shared
        mask = sum(1 << q for q in winners)
        fixed = dict(game=self.index, rounds=rounds, first_dealer=first_dealer, winners=mask,
                     winner=winners[0] if len(winners) == 1 else -1)
        self.rows["games"].append([fixed[c] for c in GAME_FIXED] + scores)
        self.say(f"game over after {rounds} round(s): scores {scores}; winner(s) {', '.join(f'P{w}' for w in winners)}")
        return self


def play_games(rules: Rules, seats: list[Seat], seed: int, start: int, stop: int, level: str = "games") -> dict:
    """Raw rows of games ``start <= i < stop``: ``{table: int64 array}`` plus ``traces`` (one per round)."""
    games = (Game(rules, seats, seed, i, level).play() for i in range(start, stop))
    return stack_rows(games, LEVELS, lambda t: records.n_cols(t, len(seats)), {"traces": np.uint64})
