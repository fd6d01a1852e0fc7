"""Kem's strategies: the registry maps each name users type to a kernel id and declared parameters.

Adding a strategy: one module with its decision functions, one branch per decision in ``dispatch``, one entry
here. A preset is an entry of an existing family with other defaults. Every family declares the common
parameters of :mod:`strategies.kems.common` first.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from simulator.core.contract.presets import shipped_presets
from simulator.core.contract.seats import StrategyDef
from simulator.core.contract.seats import default_params as strategy_defaults
from strategies.kems import heuristic, random_play
from strategies.kems.policy import HEURISTIC, RANDOM

STRATEGIES: dict[str, StrategyDef] = {
    s.name: s
    for s in (
        StrategyDef("random", RANDOM, random_play.PARAMS, "random legal exchanges; signals a real four of a kind; calls on a sign it sees", "random"),
        StrategyDef("heuristic", HEURISTIC, heuristic.PARAMS, "collector family; every parameter adjustable (defaults = balanced)", "heuristic"),
        StrategyDef("balanced", HEURISTIC, heuristic.PARAMS, "heuristic preset: collects its best rank, signals at σ 0.15, contre at θ 0.7", "heuristic"),
        StrategyDef("blocker", HEURISTIC, heuristic.PARAMS.with_defaults(block_known=2),
                    "heuristic preset: also takes centre cards of a rank an opponent is known to hold two of", "heuristic"),
        StrategyDef("discreet", HEURISTIC, heuristic.PARAMS.with_defaults(sigma=0.08, visibility=0.5, attention_partner=0.5, attention_opponents=0.1),
                    "heuristic preset: rarer, subtler signs; watches its partner more", "heuristic"),
        StrategyDef("watcher", HEURISTIC, heuristic.PARAMS.with_defaults(attention_partner=0.3, attention_opponents=0.25, contre_threshold=0.5, silence_rate=0.05),
                    "heuristic preset: watches the opponents and contres at θ 0.5", "heuristic"),
        StrategyDef("sprinter", HEURISTIC, heuristic.PARAMS.with_defaults(attention_partner=0.3, attention_opponents=0.1, switch_margin=0.5, contre_threshold=2.0),
                    "heuristic preset: eyes on the centre (faster grabs), switches ranks readily, never infers a contre", "heuristic"),
    )
}
STRATEGIES.update({s.name: s for s in shipped_presets(Path(__file__).parent / "presets", STRATEGIES, "kems")})
DEFAULT_STRATEGY = "balanced"


def default_params(name: str) -> np.ndarray:
    """The parameter array of a registered strategy with its defaults."""
    return strategy_defaults(STRATEGIES[name])
