"""The searching player's turn in the reference engine (issue 63): :mod:`simulator.kamoul.engines.turn_loop`'s search in
plain Python, drawing the same numbers, so both engines play a ``search`` seat alike."""

from __future__ import annotations

import copy
import dataclasses

import numpy as np

from simulator.core.contract.decisions import python_twin
from simulator.core.contract.seats import Seat
from simulator.core.kernels.rng import next_u64, stream_state
from simulator.kamoul.engines.world_reference import sample_world
from simulator.kamoul.engines.search_seats import MAX_ACTIONS
from simulator.kamoul.vocabulary import legal
from strategies.kamoul import policy
from strategies.kamoul.policy import HEURISTIC
from strategies.kamoul.search import S, preferred


_TURN_ACTIONS = python_twin(legal.turn_actions)


def turn_actions(c) -> list[int]:
    """K4/K8/K9: the legal actions of the ``Turn`` context ``c`` (``legal.turn_actions``, as plain Python)."""
    out = np.zeros(MAX_ACTIONS, dtype=np.int64)
    return [int(a) for a in out[:_TURN_ACTIONS(c.can_call, c.can_contre, c.can_take, out)]]


def rollout(world, loop, p: int, act: int, in_final: bool, margin: bool, rng) -> float:
    """Play ``act`` for ``p`` on a copy of ``world`` (a :class:`~simulator.kamoul.engines.hand.Hand` whose seats are
    the base player's) and the hand on to its end from ``rng``; ``p``'s points, less the others' mean with
    ``margin``."""
    hand = copy.deepcopy(world)
    hand.rng = rng
    turns = copy.deepcopy(dataclasses.replace(loop, force=None))
    if hand.act(turns, p, act, in_final):
        hand.play_turns(turns)
    points = hand.finish(turns).points
    value = float(points[p])
    if margin:
        value -= sum(points[q] for q in range(len(points)) if q != p) / (len(points) - 1)
    return value


def search_values(hand, loop, c) -> tuple[list[int], int, list[float], list[float]]:
    """The legal actions of seat ``c.me`` (its ``Turn`` context) at the turn ``loop`` stands in, the index of its
    base player's among them, and for each action the sum over the sampled worlds of its result less the base
    action's (lower is better), and of those differences' squares; no search, nothing drawn, with a single legal
    action."""
    acts = turn_actions(c)
    if len(acts) == 1:
        return acts, 0, [0.0], [0.0]
    p = c.me
    prm = hand.seats[p].prm
    key = int(next_u64(hand.rng))
    base_seats = [Seat(HEURISTIC, prm, label="base") for _ in range(hand.P)]
    base = acts.index(policy.ask("turn", base_seats[p], c))
    totals, squares = [0.0] * len(acts), [0.0] * len(acts)
    for w in range(int(prm[S.worlds])):
        rng = stream_state(key, w)
        world = sample_world(hand, p, rng)
        world.seats = base_seats
        values = [rollout(world, loop, p, act, c.can_contre, prm[S.margin] > 0, rng.copy()) for act in acts]
        for i in range(len(acts)):
            gap = values[i] - values[base]
            totals[i] += gap
            squares[i] += gap * gap
    return acts, base, totals, squares


def search_turn(hand, loop, c) -> int:
    """The action (``codes.ACT_*``) seat ``c.me`` of ``hand`` takes at the turn ``loop`` stands in: the kernel's
    choice (``strategies.kamoul.search.preferred``) over :func:`search_values`."""
    acts, base, totals, squares = search_values(hand, loop, c)
    prm = hand.seats[c.me].prm
    return acts[preferred(np.array(acts), len(acts), base, np.array(totals), np.array(squares),
                          np.int64(prm[S.worlds]), prm[S.min_z])]
