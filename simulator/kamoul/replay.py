"""A readable play-by-play of one Kamoul game, from the reference engine and the game's own stream."""

from __future__ import annotations

from simulator.core.spec import RunSpec
from simulator.kamoul.engine import rules_of, seats_of
from simulator.kamoul.match import Game


def replay_game(spec: RunSpec, index: int) -> tuple[list[str], Game]:
    """Play game ``index`` of ``spec`` again with the reference engine; returns its log lines and the game."""
    log: list[str] = []
    game = Game(rules_of(spec), seats_of(spec), spec.seed, index, spec.level, log).play()
    return log, game


def replay_text(spec: RunSpec, index: int) -> str:
    log, _ = replay_game(spec, index)
    seats = ", ".join(f"P{p}={s.label()}" for p, s in enumerate(spec.strategies))
    head = [f"kamoul game {index} of seed {spec.seed} ({spec.level}, {spec.players} players: {seats})",
            "cards: rank + suit (C D H S); values A=1, 2-10 face, J=Q=1, KD/KH=0, KC/KS=15; positions count from 0"]
    return "\n".join(head + log)


def trace_hashes(spec: RunSpec, index: int) -> list[int]:
    """Event-trace hash of each hand of game ``index`` (the ``trace`` column of the ``hands`` table)."""
    _, game = replay_game(spec, index)
    return [int(t) for t in game.traces]
