"""The Kamoul rulebook as plain Python: one hand (:mod:`simulator.kamoul.engines.hand`, K2–K14) and the match structure
(:mod:`simulator.kamoul.engines.match`, K15–K16). This module gathers their names for the callers that read the reference
engine as one (replay, tests, the studies).
"""

from __future__ import annotations

from simulator.core.contract.seats import Seat  # noqa: F401
from simulator.core.kernels.rng import stream_state  # noqa: F401
from simulator.kamoul.engines.hand import Hand, HandResult, fits, name, value  # noqa: F401
from simulator.kamoul.engines.match import Game, play_games  # noqa: F401
from simulator.kamoul.vocabulary.codes import EV_PEEK, trace_py  # noqa: F401
from simulator.kamoul.vocabulary.records import LEVELS  # noqa: F401
from strategies.kamoul import policy  # noqa: F401  (tests replace its decisions)
