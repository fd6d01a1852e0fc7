"""The Kamoul match structure as plain Python (K15–K16): hands make a manche, manches a partie, parties a TOP.

The judge of ``match_kernel.py``; each hand is a :class:`simulator.kamoul.engines.hand.Hand` played from the game's own
stream. Produces the raw integer rows of :mod:`simulator.kamoul.vocabulary.records`, identical to the kernel's.
"""

from __future__ import annotations

import numpy as np

from simulator.core.contract.seats import Seat
from simulator.core.kernels.reference import ReferenceGame
from simulator.core.records import stack_rows
from simulator.kamoul.engines.hand import Hand
from simulator.kamoul.vocabulary.codes import BEST_OF, DOUBLE_CREDIT, MANCHE_HIGH, MANCHE_LOW, WINS_NEEDED, ends_manche
from simulator.kamoul.vocabulary.records import LEVELS, n_cols
from simulator.kamoul.vocabulary.rules import Rules


class Game(ReferenceGame):
    """One game at ``level``: a hand, a manche, a partie (BO3 of manches) or a TOP (BO3 of parties).

    Produces the raw integer rows of :mod:`simulator.kamoul.vocabulary.records`, identical to the kernel's.
    """

    levels = LEVELS

    def __init__(self, rules: Rules, seats: list[Seat], seed: int, index: int, level: str,
                 log: list[str] | None = None):
        super().__init__(rules, seats, seed, index, level, log)
        self.estimates: list[float] = []
        self.dealer = (index + self.P - 1) % self.P  # K3: game i starts with seat i mod P (seats take turns)
        self.hand_no = 0
        self.manche_no = 0
        self.partie_no = 0

    def play(self) -> "Game":
        if self.level == "hands":
            self.play_manche(0, [0] * self.P, single_hand=True)
        elif self.level == "manches":
            self.play_manche(0, [0] * self.P)
        elif self.level == "parties":
            self.play_partie()
        else:
            self.play_top()
        return self

    def play_manche(self, partie: int, partie_totals: list[int], single_hand: bool = False):
        """K15: hands until a cumulative passes 31 or reaches -31; lowest wins (goal average, then shared)."""
        P, r = self.P, self.r
        cum = [0] * P
        hands = 0
        if self.log is not None:
            self.log.append(f"=== manche {self.manche_no} (partie {partie}) ===")
        while True:
            if self.log is not None:
                self.log.append(f"--- hand {self.hand_no} ---")
            res = Hand(r, self.seats, self.rng, self.log).play(self.dealer, cum)
            self.rows["hands"].append(
                [self.index, partie, self.manche_no, self.hand_no, hands, self.dealer, res.winner, res.outcome,
                 res.caller, res.call_turn, res.call_true, res.call_unknown, res.contre_mask, res.turns, res.snaps,
                 res.wrong_snaps, res.penalty_cards, res.peeks, res.jq_swaps, res.red_king_looks, res.black_king_looks,
                 res.king_swaps] + res.points + res.cum_after
            )
            self.estimates.append(res.call_estimate)
            self.traces.append(res.trace)
            self.hand_no += 1
            hands += 1
            self.dealer = (self.dealer + 1) % P  # K3: the deal rotates every hand
            cum = res.cum_after
            if single_hand:
                return [], 0, cum
            if any(ends_manche(c) for c in cum) or hands >= r.max_hands_per_manche:
                break
        low = min(cum)
        winners = [q for q in range(P) if cum[q] == low]
        if len(winners) > 1:  # K15: goal average over the partie so far, then shared
            ga = {q: partie_totals[q] + cum[q] for q in winners}
            best = min(ga.values())
            winners = [q for q in winners if ga[q] == best]
        credit = DOUBLE_CREDIT if any(c <= MANCHE_LOW for c in cum) and any(c > MANCHE_HIGH for c in cum) else 1  # K15 special case
        self.rows["manches"].append(
            [self.index, partie, self.manche_no, hands, _mask(winners), _single(winners), credit] + cum
        )
        if self.log is not None:
            self.log.append(f"manche won by {', '.join(f'P{w}' for w in winners)} (credit {credit}); scores {cum}")
        self.manche_no += 1
        return winners, credit, cum

    def play_partie(self):
        """K16: first to 2 manches, at most 3; then most manches, goal average, shared."""
        P = self.P
        partie = self.partie_no
        wins, totals = [0] * P, [0] * P
        played = 0
        while True:
            winners, credit, cum = self.play_manche(partie, totals)
            totals = [t + c for t, c in zip(totals, cum)]
            for w in winners:
                wins[w] += credit
            played += 1
            if max(wins) >= WINS_NEEDED or played == BEST_OF:
                break
        winners = _best(wins, totals)
        self.rows["parties"].append([self.index, partie, played, _mask(winners), _single(winners)] + wins + totals)
        if self.log is not None:
            self.log.append(f"partie won by {', '.join(f'P{w}' for w in winners)}; manches {wins}; totals {totals}")
        self.partie_no += 1
        return winners, totals

    def play_top(self):
        """K16: first to 2 parties, at most 3; then most parties, goal average over the TOP, shared."""
        P = self.P
        wins, totals = [0] * P, [0] * P
        played = 0
        while True:
            winners, partie_totals = self.play_partie()
            totals = [t + c for t, c in zip(totals, partie_totals)]
            for w in winners:
                wins[w] += 1
            played += 1
            if max(wins) >= WINS_NEEDED or played == BEST_OF:
                break
        winners = _best(wins, totals)
        self.rows["tops"].append([self.index, played, _mask(winners), _single(winners)] + wins + totals)
        if self.log is not None:
            self.log.append(f"TOP won by {', '.join(f'P{w}' for w in winners)}; parties {wins}; totals {totals}")


def _best(wins: list[int], totals: list[int]) -> list[int]:
    """Most wins, then the lowest total (goal average), then shared."""
    top = max(wins)
    tied = [q for q in range(len(wins)) if wins[q] == top]
    low = min(totals[q] for q in tied)
    return [q for q in tied if totals[q] == low]


def _mask(seats: list[int]) -> int:
    return sum(1 << q for q in seats)


def _single(seats: list[int]) -> int:
    return seats[0] if len(seats) == 1 else -1


def play_games(rules: Rules, seats: list[Seat], seed: int, start: int, stop: int, level: str) -> dict:
    """Raw rows of games ``start <= i < stop``: ``{table: int64 array}`` plus ``estimates`` and ``traces``."""
    games = (Game(rules, seats, seed, i, level).play() for i in range(start, stop))
    return stack_rows(games, LEVELS, lambda t: n_cols(t, len(seats)),
                      {"estimates": np.float64, "traces": np.uint64})
