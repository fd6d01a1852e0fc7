"""Kamoul strategies: the registry maps each name users type to a kernel id and declared parameters.

Adding a strategy family: one module with its decision functions, its kernel id in ``dispatch.FAMILIES`` and its
branch in each function of ``dispatch``, one entry here. A preset is an entry of an existing family with other defaults, or a TOML file in presets/
(simulator.core.contract.presets; `cardsim tune` writes them).
"""

from __future__ import annotations

from pathlib import Path

from simulator.core.contract.presets import shipped_presets
from simulator.core.contract.seats import StrategyDef, params_array  # noqa: F401  (re-exported)
from strategies.kamoul import call_table, heuristic, random_play, search
from strategies.kamoul.policy import CALL_TABLE, HEURISTIC, RANDOM, SEARCH


STRATEGIES: dict[str, StrategyDef] = {
    s.name: s
    for s in (
        StrategyDef("random", RANDOM, random_play.PARAMS, "a uniformly random legal action at every decision", "random"),
        StrategyDef("heuristic", HEURISTIC, heuristic.PARAMS, "memory-based player; every parameter adjustable (defaults = balanced)", "heuristic"),
        StrategyDef(
            "cautious", HEURISTIC,
            heuristic.PARAMS.with_defaults(call_threshold=1.0, max_unknown_at_call=0, contre_threshold=1.0, unknown_value=6.0),
            "heuristic preset: calls only on a fully known layout of at most 1 point", "heuristic",
        ),
        StrategyDef("balanced", HEURISTIC, heuristic.PARAMS, "heuristic preset: calls at an estimate of 3 with at most one unseen card", "heuristic"),
        StrategyDef(
            "aggressive", HEURISTIC,
            heuristic.PARAMS.with_defaults(call_threshold=5.0, max_unknown_at_call=2, contre_threshold=4.0, unknown_value=4.0,
                    take_discard_max=4.0),
            "heuristic preset: calls at an estimate of 5 with up to two unseen cards", "heuristic",
        ),
        StrategyDef("call-table", CALL_TABLE, call_table.PARAMS,
                    "heuristic play with a call table by unseen cards (defaults: Study 1's policy)",
                    "call-table"),
    )
}
STRATEGIES.update({s.name: s for s in shipped_presets(Path(__file__).parent / "presets", STRATEGIES, "kamoul")})
SEARCH_PARAMS = search.params_over(STRATEGIES["tuned-4p"].params)
STRATEGIES.update({s.name: s for s in (
    StrategyDef("search", SEARCH, SEARCH_PARAMS,
                "searches each turn over sampled worlds, rolled out with its base player (defaults: tuned-4p's) at "
                "every seat", "search"),
    StrategyDef("search-fast", SEARCH, SEARCH_PARAMS.with_defaults(worlds=64),
                "search preset: 64 worlds a turn (about 0.1 ms a searched turn)", "search"),
    StrategyDef("search-strong", SEARCH, SEARCH_PARAMS.with_defaults(worlds=1024),
                "search preset: 1024 worlds a turn (about 2 ms a searched turn)", "search"),
)})
DEFAULT_STRATEGY = "balanced"

