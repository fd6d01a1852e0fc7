"""What every game's reference engine shares: the play-by-play and the event trace of a hand or round
(:class:`Narrated`), a game's identity, random stream and raw rows (:class:`ReferenceGame`), and the race policy
among claimants of one card (:func:`race`).

A game's readable ``Game`` (``simulator/<g>/engines/reference.py``, Kamoul's ``match.py``) subclasses
:class:`ReferenceGame`, names its ``levels`` and plays; the kernels' ``play_game`` is its twin. Its hand, round or
manche subclasses :class:`Narrated`.
"""

from __future__ import annotations

from collections.abc import Callable

from simulator.core.kernels.rng import below, stream_state, uniform
from simulator.core.kernels.trace import trace_py


class Narrated:
    """A reference hand, round or manche: :meth:`say` adds a line to the play-by-play ``log`` (``None``: not
    kept), :meth:`trace` folds an event into the trace hash ``h`` as the kernels' ``trace`` does."""

    log: list[str] | None = None
    h: int = 0

    def say(self, text: str) -> None:
        """Add a line to the play-by-play, when one is kept."""
        if self.log is not None:
            self.log.append(text)

    def trace(self, ev: int, a: int = 0, b: int = 0, c: int = 0) -> None:
        self.h = trace_py(self.h, ev, a, b, c)


class ReferenceGame(Narrated):
    """Game ``index`` of a run at ``level`` (one of ``levels``; the coarsest when not given).

    Holds the rules as ``r``, the ``seats`` and their count ``P``, the play-by-play ``log`` (``None``: not kept),
    the game's random stream ``rng`` (``stream_state(seed, index)``: game ``i`` depends on ``(seed, i)`` only), the
    raw integer rows per table in ``rows`` (``{level: [row, ...]}``) and the event-trace hashes in ``traces``.
    """

    levels: tuple[str, ...] = ()

    def __init__(self, rules, seats: list, seed: int, index: int, level: str | None = None,
                 log: list[str] | None = None):
        level = self.levels[-1] if level is None else level
        assert level in self.levels, level
        self.r, self.seats, self.P, self.index, self.level, self.log = rules, seats, len(seats), index, level, log
        self.rng = stream_state(seed, index)
        self.rows: dict[str, list] = {t: [] for t in self.levels}
        self.traces: list[int] = []


def race(policy: str, n: int, speed_of: Callable[[int], float], rng) -> int:
    """Which of ``n`` claimants of one card (in turn order) acts, by the game's ``race_policy`` option (Kamoul K6 /
    rule 0.2, Rami R10): ``turn_order`` the first; ``uniform`` one drawn with ``below``; ``speed_weighted`` one
    drawn with probability proportional to its speed ``speed_of(i)``, by one ``uniform`` against the running sum.
    A single claimant draws nothing. The kernels draw the same numbers in the same order."""
    if n == 1 or policy == "turn_order":
        return 0
    if policy == "uniform":
        return below(rng, n)
    speeds = [speed_of(i) for i in range(n)]
    u = uniform(rng) * sum(speeds)
    reached = 0.0
    for i, speed in enumerate(speeds):
        reached += speed
        if u < reached:
            return i
    return n - 1
