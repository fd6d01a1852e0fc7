"""Rami strategies: the registry maps each name users type to a kernel id and declared parameters.

Adding a strategy: one module with its decision functions, its kernel id in ``dispatch.FAMILIES`` and its branch
in each function of ``dispatch``, one entry here. A preset is an entry of an existing family with other defaults, or a TOML file in presets/
(simulator.core.contract.presets; `cardsim tune` writes them).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from simulator.core.contract.presets import shipped_presets
from simulator.core.contract.seats import StrategyDef
from simulator.core.contract.seats import default_params as strategy_defaults
from simulator.rami.vocabulary.codes import OPENING_KEEP_JOKERS, OPENING_LARGEST, OPENING_SMALLEST
from strategies.rami import opening, random_play
from strategies.rami.policy import OPENING, RANDOM


STRATEGIES: dict[str, StrategyDef] = {
    s.name: s
    for s in (
        StrategyDef("random", RANDOM, random_play.PARAMS, "a uniformly random legal choice at every decision", "random"),
        StrategyDef("opening", OPENING, opening.PARAMS, "opening family; every parameter adjustable (defaults = open-asap)", "opening"),
        StrategyDef("open-asap", OPENING, opening.PARAMS, "opens as soon as 51 is reachable, spends jokers, takes a useful discard", "opening"),
        StrategyDef("open-big", OPENING, opening.PARAMS.with_defaults(min_open_points=80),
                    "opening preset: waits for an opening of at least 80 points", "opening"),
        StrategyDef("rami-sec-hunter", OPENING, opening.PARAMS.with_defaults(hold_for_rami_sec_until_turn=8, hold_for_rami_sec_until_stock=15),
                    "opening preset: holds everything for a rami sec until its 8th turn and while the stock holds more than 15 cards", "opening"),
        StrategyDef("joker-keeper", OPENING, opening.PARAMS.with_defaults(joker_policy=0),
                    "opening preset: keeps jokers in hand, takes table jokers back by swapping", "opening"),
        StrategyDef("open-small", OPENING, opening.PARAMS.with_defaults(opening_style=OPENING_SMALLEST),
                    "opening preset: opens with the fewest cards that reach 51 and keeps the rest in hand", "opening"),
        StrategyDef("open-all", OPENING, opening.PARAMS.with_defaults(opening_style=OPENING_LARGEST),
                    "opening preset: opens with the largest lay-down, the least left in hand", "opening"),
        StrategyDef("joker-saver", OPENING, opening.PARAMS.with_defaults(opening_style=OPENING_KEEP_JOKERS, joker_policy=0),
                    "opening preset: opens without its jokers when it can, and keeps them in hand", "opening"),
        StrategyDef("meld-holder", OPENING, opening.PARAMS.with_defaults(opening_style=OPENING_SMALLEST, hold_melds=2),
                    "opening preset: opens small, then holds its melds in hand until laying them leaves one card, so others cannot lay off", "opening"),
    )
}
STRATEGIES.update({s.name: s for s in shipped_presets(Path(__file__).parent / "presets", STRATEGIES, "rami")})
DEFAULT_STRATEGY = "open-asap"


def default_params(name: str) -> np.ndarray:
    """The parameter array of a registered strategy with its defaults."""
    return strategy_defaults(STRATEGIES[name])
