"""A readable tick-by-tick account of one Kem's game, from the reference engine and the game's own stream."""

from __future__ import annotations

from simulator.core.spec import RunSpec
from simulator.kems.plugin import rules_of, seats_of
from simulator.kems.reference import Game
from simulator.kems.rules import team_of


def replay_game(spec: RunSpec, index: int) -> tuple[list[str], Game]:
    """Play game ``index`` of ``spec`` again with the reference engine; returns its log lines and the game."""
    log: list[str] = []
    game = Game(rules_of(spec), seats_of(spec), spec.seed, index, spec.level, log).play()
    return log, game


def replay_text(spec: RunSpec, index: int) -> str:
    log, _ = replay_game(spec, index)
    P = spec.players
    seats = ", ".join(f"P{p}={s.label()} (team {'ABC'[team_of(p, P)]})" for p, s in enumerate(spec.strategies))
    rules = rules_of(spec)
    head = [f"kems game {index} of seed {spec.seed} ({spec.level}, {P} players: {seats})",
            f"one tick = {rules.tick:g} s; cards: rank + suit (C D H S); partners sit opposite; every exchange is "
            "public, signs are seen only by those listed"]
    return "\n".join(head + log)


def trace_hashes(spec: RunSpec, index: int) -> list[int]:
    """Event-trace hash of each manche of game ``index`` (the ``trace`` column of the ``manches`` table)."""
    _, game = replay_game(spec, index)
    return [int(t) for t in game.traces]
