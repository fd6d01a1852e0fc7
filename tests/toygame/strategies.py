"""Deux cartes strategies: ``random`` (draws with probability ``p``) and ``threshold`` (draws when its lower card
is below ``threshold``), with one preset of it (``greedy``)."""

from __future__ import annotations

from simulator.core.contract.seats import StrategyDef
from simulator.core.params import Param, ParamSet

RANDOM, THRESHOLD = 0, 1

STRATEGIES = {
    "random": StrategyDef("random", RANDOM, ParamSet((Param("p", "float", 0.5, "chance of drawing", 0.0, 1.0),),
                                                     "parameter"), "draws at random"),
    "threshold": StrategyDef("threshold", THRESHOLD, ParamSet((
        Param("threshold", "int", 5, "draw when the lower card is below this", 1, 11),), "parameter"),
        "draws when its lower card is below the threshold"),
    "greedy": StrategyDef("greedy", THRESHOLD, ParamSet((
        Param("threshold", "int", 8, "draw when the lower card is below this", 1, 11),), "parameter"),
        "threshold 8: draws often"),
}


def wants_draw(kernel_id: int, params: dict, lower: int, uniform: float) -> bool:
    """The player's decision (T2): it sees only its own two cards; ``uniform`` is its own random draw."""
    if kernel_id == RANDOM:
        return uniform < params["p"]
    return lower < params["threshold"]
