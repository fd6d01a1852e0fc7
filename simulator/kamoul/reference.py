"""The Kamoul rulebook as plain Python: one hand (:mod:`simulator.kamoul.hand`, K2–K14) and the match structure
(:mod:`simulator.kamoul.match`, K15–K16). This module gathers their names for the callers that read the reference
engine as one (replay, tests, the studies).
"""

from __future__ import annotations

from simulator.core.game import Seat  # noqa: F401
from simulator.core.rng import stream_state  # noqa: F401
from simulator.kamoul.codes import EV_PEEK, trace_py  # noqa: F401
from simulator.kamoul.hand import Hand, HandResult, fits, name, value  # noqa: F401
from simulator.kamoul.match import Game, play_games  # noqa: F401
from simulator.kamoul.records import LEVELS  # noqa: F401
from strategies.kamoul import policy  # noqa: F401  (tests replace its decisions)
