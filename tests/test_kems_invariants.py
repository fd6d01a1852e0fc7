"""Kem's invariants on random play: every card accounted for after every tick, public knowledge consistent,
manches that end, points that follow KM8–KM12, and the KM3 re-deal frequency against its exact probability."""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import combinations, product

import numpy as np
import pytest

from simulator.core.contract.game import seats_of
from simulator.core.storage.spec import build_spec
from simulator.kems.engines import reference
from simulator.kems.engines.engine import raw_kernel
from simulator.kems.engines.reference import Game
from simulator.kems.vocabulary import records
from simulator.kems.vocabulary.codes import (
    EMPTY, LOC_DEAD, LOC_TABLE, LOC_UNKNOWN, OUT_CAP, OUT_CONTRE, OUT_DOUBLE, OUT_KEMS, OUT_WRONG_KEMS,
)
from simulator.kems.vocabulary.rules import Rules, partner_of, team_of


class CheckedManche(reference.Manche):
    """A reference manche that checks the whole state at the end of every tick and logs every call."""

    checked_ticks = 0

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.call_log: list[tuple] = []
        self.ticks_seen: list[int] = []
        CheckedManche.played.append(self)

    def deal(self):
        super().deal()
        for p in range(self.P):  # KM3: after the re-deals nobody holds three of a rank
            assert np.bincount(self.hands[p] % 13, minlength=13).max() <= 2, self.hands[p]
        self.check(-1)

    def calls(self, tick):
        super().calls(tick)
        self.ticks_seen.append(tick)
        self.check(tick)

    def call_kems(self, tick, p, why):
        right = self.holds_four(partner_of(p, self.P))
        self.call_log.append(("kems", p, right, self.holds_four(p)))
        super().call_kems(tick, p, why)

    def call_contre(self, tick, p, target, why):
        accused = [target] if self.r.contre_target == "player" else \
            [o for o in range(self.P) if team_of(o, self.P) == team_of(target, self.P)]
        self.call_log.append(("contre", p, any(self.holds_four(o) for o in accused), team_of(target, self.P)))
        super().call_contre(tick, p, target, why)

    def check(self, tick):
        CheckedManche.checked_ticks += 1
        P = self.P
        hands = self.hands.reshape(-1).tolist()
        centre = [int(c) for c in self.table if c != EMPTY]
        everything = hands + centre + list(self.stock) + list(self.discard)
        assert sorted(everything) == self.r.cards(), f"tick {tick}: cards lost or duplicated"
        assert self.hands.shape == (P, 4) and (self.hands >= 0).all(), f"tick {tick}: a hand is not four cards"
        assert len(centre) + sum(1 for c in self.table if c == EMPTY) == 4
        where = {}
        for p in range(P):
            for c in self.hands[p]:
                where[int(c)] = p
        for c in centre:
            where[c] = LOC_TABLE
        for c in self.stock:
            where[c] = "stock"
        for c in self.discard:
            where[c] = LOC_DEAD
        for c in self.r.cards():
            known, actual = int(self.loc[c]), where[c]
            if 0 <= known < P:  # seen going into seat `known`'s hand and not seen leaving it
                assert actual == known, f"tick {tick}: card {c} marked in P{known}'s hand is in {actual}"
            elif known == LOC_TABLE:
                assert actual == LOC_TABLE, f"tick {tick}: card {c} marked on the table is in {actual}"
            elif known == LOC_DEAD:
                assert actual == LOC_DEAD, f"tick {tick}: card {c} marked in the hidden discard is in {actual}"
            else:
                assert known == LOC_UNKNOWN and actual != LOC_TABLE, f"tick {tick}: card {c} loc {known}"
            if actual == "stock":
                assert known == LOC_UNKNOWN, f"tick {tick}: stock card {c} has public loc {known}"
        assert not any(0 <= self.loc[c] < P or self.loc[c] == LOC_TABLE for c in range(52) if c not in where)


CheckedManche.played = []


def play_checked(monkeypatch, options: dict, players: int, n: int, seed: int, level: str = "manches",
                 strategies=("random",)):
    spec = build_spec("kems", n=n, seed=seed, players=players, level=level, strategies=list(strategies),
                      options=options)
    rules = Rules.from_options(dict(spec.options))
    monkeypatch.setattr(reference, "Manche", CheckedManche)
    CheckedManche.played = []
    games = [Game(rules, seats_of(spec), seed, i, level).play() for i in range(n)]
    return rules, games, CheckedManche.played


def expected_points(rules: Rules, manche: CheckedManche) -> list[int]:
    """KM8–KM12 from the logged calls: Kem's right +1 (double +2), wrong Kem's a point to every opposing team
    (or −1 to the caller's, negative_points), contre right +1, wrong contre nothing except opponents_plus1."""
    P, T = manche.P, manche.P // 2
    pts = [0] * T
    outcome = manche.res.outcome
    for i, (kind, p, right, extra) in enumerate(manche.call_log):
        tm = team_of(p, P)
        last = i == len(manche.call_log) - 1
        if kind == "kems" and right:
            assert last and outcome in (OUT_KEMS, OUT_DOUBLE)
            if rules.double_mode == "auto":
                assert (outcome == OUT_DOUBLE) == extra  # KM8: double iff the caller holds four as well
            else:
                assert extra or outcome == OUT_KEMS
            pts[tm] += 2 if outcome == OUT_DOUBLE else 1
        elif kind == "kems":
            if rules.wrong_kems_ends:  # KM9: the hands have been shown, the manche ends
                assert last and outcome == OUT_WRONG_KEMS
            else:
                assert outcome != OUT_WRONG_KEMS
            if rules.negative_points:
                pts[tm] -= 1
            else:
                for t in range(T):
                    pts[t] += t != tm
        elif right:
            assert last and outcome == OUT_CONTRE
            pts[tm] += 1
        elif rules.wrong_contre == "opponents_plus1":
            if rules.negative_points:
                pts[tm] -= 1
            else:
                pts[extra] += 1
    return pts


CHECK_CASES = [
    ("default", {}, 4, 100),
    ("32 cards, uniform race, no lag", {"deck": "32", "lag_ticks": "0", "race_policy": "uniform", "false_kems_rate": "0.001",
                                        "false_contre_rate": "0.002", "wrong_contre": "ban_show2"}, 4, 60),
    ("6 players, multi-swap, all-pass sweeps", {"multi_swap": "true", "sweep_on_all_pass": "true", "quiet_time": "1",
                                                "sweep_time": "0", "contre_target": "player", "false_kems_rate": "0.0005",
                                                "false_contre_rate": "0.001", "max_ticks": "800"}, 6, 30),
    ("wrong Kem's goes on, penalties", {"wrong_kems_ends": "false", "negative_points": "true",
                                       "wrong_contre": "opponents_plus1", "false_kems_rate": "0.003",
                                       "false_contre_rate": "0.003", "max_ticks": "300", "deck": "32"}, 6, 40),
    ("plus1 to the accused", {"wrong_kems_ends": "false", "wrong_contre": "opponents_plus1", "false_kems_rate": "0.002",
                              "false_contre_rate": "0.004", "max_ticks": "400", "turn_up_time": "0"}, 4, 60),
]


@pytest.mark.parametrize("name,options,players,n", CHECK_CASES, ids=[c[0] for c in CHECK_CASES])
def test_every_tick_accounts_for_every_card_and_points_follow_the_calls(monkeypatch, name, options, players, n):
    rules, games, manches = play_checked(monkeypatch, options, players, n, seed=31)
    assert len(manches) == n
    T = players // 2
    for g, m in zip(games, manches):
        res, row = m.res, g.rows["manches"][0]
        # every tick from 0 to the last was played and checked
        assert m.ticks_seen == list(range(res.ticks)) and 1 <= res.ticks <= rules.max_ticks
        assert 0 <= res.outcome <= OUT_CAP
        assert (res.outcome == OUT_CAP) == (res.ticks == rules.max_ticks and not m.ended)
        assert (res.caller == -1) == (res.why == -1) == (res.outcome == OUT_CAP)
        if res.outcome != OUT_CAP:
            assert m.call_log and m.call_log[-1][1] == res.caller
        assert res.calls == len(m.call_log)
        assert res.wrong_contres == sum(1 for c in m.call_log if c[0] == "contre" and not c[2])
        assert res.points == expected_points(rules, m)
        assert row[records.team_column("manches", players, "points", 0):][:T] == res.points
        assert sum(res.seat_exchanges) == res.exchanges
        assert all(-1 <= t < res.ticks for t in res.four_tick)
    assert sum(len(m.call_log) for m in manches) >= n  # the points check saw calls (false alarms at least)


@pytest.mark.parametrize("options,players", [({}, 4), ({"deck": "32", "target": "3", "wrong_contre": "opponents_plus1",
                                                        "false_kems_rate": "0.002", "false_contre_rate": "0.002"}, 6)])
def test_game_totals_are_cumulative_and_stop_at_the_target(monkeypatch, options, players):
    rules, games, manches = play_checked(monkeypatch, options, players, 6, seed=5, level="games")
    T = players // 2
    first = records.team_column("manches", players, "points", 0)
    tot = records.team_column("manches", players, "total", 0)
    k = 0
    for i, g in enumerate(games):
        rows = np.array(g.rows["manches"])
        assert rows[:, records.MANCHE.manche].tolist() == list(range(len(rows)))
        assert rows[:, records.MANCHE.dealer].tolist() == [(i + j) % players for j in range(len(rows))]
        for j, row in enumerate(rows):
            assert row[first:first + T].tolist() == expected_points(rules, manches[k])
            k += 1
        assert (np.cumsum(rows[:, first:first + T], axis=0) == rows[:, tot:tot + T]).all()
        assert (rows[:-1, tot:tot + T].max(axis=1) < rules.target).all() and rows[-1, tot:tot + T].max() >= rules.target
        (game_row,) = g.rows["games"]
        final = rows[-1, tot:tot + T].tolist()
        assert game_row[len(records.GAME_FIXED):] == final and game_row[records.GAME.manches] == len(rows)
        winners = [t for t in range(T) if final[t] == max(final)]
        assert game_row[records.GAME.winners] == sum(1 << t for t in winners)
        assert game_row[records.GAME.winner] == (winners[0] if len(winners) == 1 else -1)
    assert k == len(manches)


# ---------------------------------------------------------------------------------------------- KM3 re-deals
def p_redeal(players: int, ranks: int) -> Fraction:
    """Exact probability that a deal of four cards to each player leaves at least one player with three or
    four of a rank (deck: ``ranks`` ranks of four suits). DP over ranks: how the four copies of each rank
    split between the players (at most two each) and the rest of the deck, states = sorted hand sizes."""
    ways = {(0,) * players: 1}
    splits = [k for k in product(range(3), repeat=players) if sum(k) <= 4]
    for _ in range(ranks):
        nxt: dict[tuple, int] = {}
        for state, w in ways.items():
            for k in splits:
                sizes = [a + b for a, b in zip(state, k)]
                if max(sizes) > 4:
                    continue
                arrangements = math.factorial(4) // math.prod(math.factorial(x) for x in (*k, 4 - sum(k)))
                key = tuple(sorted(sizes))
                nxt[key] = nxt.get(key, 0) + w * arrangements
        ways = nxt
    n = 4 * ranks
    total = math.factorial(n) // (math.factorial(4) ** players * math.factorial(n - 4 * players))
    return 1 - Fraction(ways[(4,) * players], total)


def test_exact_redeal_probability_agrees_with_a_direct_count():
    # one player: 13 ranks x (4 choices of three suits x 48 other cards + the four of a kind)
    assert p_redeal(1, 13) == Fraction(13 * (4 * 48 + 1), math.comb(52, 4))
    assert p_redeal(1, 8) == Fraction(8 * (4 * 28 + 1), math.comb(32, 4))
    # two players, 2 ranks (8 cards, both hands full): bad unless each hand holds two of each rank
    assert p_redeal(2, 2) == 1 - Fraction(math.comb(4, 2) ** 2, math.comb(8, 4))
    # two players, 3 ranks: every deal of 4 + 4 of the 12 cards, counted one by one
    bad = total = 0
    for first in combinations(range(12), 4):
        rest = [c for c in range(12) if c not in first]
        for second in combinations(rest, 4):
            total += 1
            bad += any(max(np.bincount([c % 3 for c in h], minlength=3)) >= 3 for h in (first, second))
    assert p_redeal(2, 3) == Fraction(bad, total)
    p4 = float(p_redeal(4, 13))
    assert 0.03 < p4 < 1 - (1 - 0.009268) ** 4 + 1e-9


@pytest.mark.slow
@pytest.mark.parametrize("players,deck,n", [(4, "52", 400_000), (6, "52", 300_000), (4, "32", 300_000)])
def test_redeal_frequency_matches_the_exact_probability(players, deck, n):
    """A deal needs a re-deal (KM3) when a player is dealt three or four of a rank; the manches are cut short
    by a certain false alarm (the deal does not depend on play), so the kernel plays many."""
    spec = build_spec("kems", n=n, seed=97, players=players, level="manches",
                      options={"deck": deck, "false_kems_rate": "1", "reaction_min": "1", "reaction_max": "1"})
    rules = Rules.from_options(dict(spec.options))
    raw = raw_kernel(rules, seats_of(spec), 97, 0, n, "manches")
    redeals = raw["manches"][:, records.MANCHE.redeals]
    assert len(redeals) == n
    p = float(p_redeal(players, len(rules.ranks)))
    freq = float((redeals >= 1).mean())
    tol = 4 * math.sqrt(p * (1 - p) / n)
    assert abs(freq - p) < tol, (freq, p, tol)
    # repeated re-deals happen too (a player re-dealt a bad hand again), so redeals counts more than deals
    assert redeals.sum() > (redeals >= 1).sum()
