"""Deux cartes played hand by hand: one readable engine that writes the rows and the event trace.

Game ``i`` of a run draws from ``numpy.random.default_rng((seed, i))`` only, so it depends on ``(spec, i)``
alone. Rows: ``hands`` (one per hand: ``game``, ``hand``, ``dealer``, ``winner`` (-1: none), ``outcome``,
``turns`` (draws made), ``points_<p>`` (each player's total), ``trace``) and at level ``matches`` one ``matches``
row per game (``game``, ``hands``, ``winner``, ``winners`` (bit mask), ``points_<p>`` (hands won)).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from simulator.core.kernels.trace import TRACE_SEED, trace_py
from tests.toygame.rules import DECK, HAND_CARDS, MAX_HANDS
from tests.toygame.strategies import wants_draw

EV_DEAL, EV_DRAW, EV_END = 1, 2, 3


def play_hand(spec, rng, hand: int, log) -> dict:
    """One hand (T1–T3); ``log`` (a list or ``None``) receives its play-by-play."""
    players = spec.players
    draws, tie = spec.option("draws"), spec.option("tie")
    dealer = hand % players
    stock = list(rng.permutation(np.array(DECK)))
    cards = [[int(stock.pop()) for _ in range(HAND_CARDS)] for _ in range(players)]
    trace = TRACE_SEED
    for p in range(players):
        trace = trace_py(trace, EV_DEAL, p, cards[p][0], cards[p][1])
    order = [(dealer + 1 + k) % players for k in range(players)]
    turns = 0
    for p in order:  # T2
        strategy = spec.strategies[p]
        kernel_id, params = spec.plugin.strategies[strategy.name].kernel_id, dict(strategy.params)
        for _ in range(draws):
            lower = min(cards[p])
            if not wants_draw(kernel_id, params, lower, float(rng.random())):
                break
            new = int(stock.pop())
            cards[p][cards[p].index(lower)] = new
            turns += 1
            trace = trace_py(trace, EV_DRAW, p, lower, new)
            if log is not None:
                log.append(f"hand {hand}: P{p} throws {lower}, draws {new}")
    totals = [sum(c) for c in cards]
    best = max(totals)
    tied = [p for p in order if totals[p] == best]
    winner = tied[0] if len(tied) == 1 or tie == "first" else -1  # T3
    trace = trace_py(trace, EV_END, winner, best, turns)
    if log is not None:
        log.append(f"hand {hand}: dealer P{dealer}, totals {totals}, winner " + (f"P{winner}" if winner >= 0 else "none"))
    return {"hand": hand, "dealer": dealer, "winner": winner, "outcome": "tie" if len(tied) > 1 else "win",
            "turns": turns, **{f"points_{p}": totals[p] for p in range(players)}, "trace": trace}


def play_game(spec, index: int, log=None) -> tuple[list[dict], dict | None]:
    """Game ``index``: one hand, or a match (T4) at level ``matches``."""
    rng = np.random.default_rng((spec.seed, index))
    if spec.level == "hands":
        return [play_hand(spec, rng, 0, log)], None
    wins = [0] * spec.players
    hands = []
    while max(wins) < spec.option("match_wins") and len(hands) < MAX_HANDS:
        row = play_hand(spec, rng, len(hands), log)
        hands.append(row)
        if row["winner"] >= 0:
            wins[row["winner"]] += 1
    winner = wins.index(max(wins)) if max(wins) >= spec.option("match_wins") else -1
    match = {"hands": len(hands), "winner": winner, "winners": (1 << winner) if winner >= 0 else 0,
             **{f"points_{p}": wins[p] for p in range(spec.players)}}
    return hands, match


def simulate_chunk(spec, start: int, stop: int, threads=None) -> dict[str, pl.DataFrame]:
    hands, matches = [], []
    for index in range(start, stop):
        rows, match = play_game(spec, index)
        hands += [{"game": index, **r} for r in rows]
        if match is not None:
            matches.append({"game": index, **match})
    frames = {"hands": pl.DataFrame(hands).with_columns(pl.col("trace").cast(pl.UInt64))}
    if spec.level == "matches":
        frames["matches"] = pl.DataFrame(matches)
    return frames


def reference_play(spec, index: int, log) -> list[int]:
    return [r["trace"] for r in play_game(spec, index, log)[0]]
