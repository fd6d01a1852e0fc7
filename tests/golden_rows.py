"""Stored fingerprints of runs: the rows every game's numba engine writes for a fixed set of specs.

A refactoring or a speed-up must not change a single row for the same seeds; :func:`fingerprint` reduces a
chunk's tables to one SHA-256 per table over every column's name, dtype and values (strings and enums as their
text), and ``tests/golden_rows.json`` holds the fingerprints of :data:`CASES` made by the code before such a
change. ``tests/test_golden_rows.py`` recomputes them. When a change is *meant* to change rows (a rule fixed, a
new column), regenerate the file in the same commit and say why in its message::

    .venv/bin/python tests/golden_rows.py --write
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import polars as pl

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

GOLDEN = Path(__file__).with_name("golden_rows.json")

# (name, game, keyword arguments of build_spec): every game at its finest and coarsest level, several strategies
# at one table, the options most likely to move a code path, 2 and many players. The "default" cases name the
# strategy that was the default when they were stored (the default player is now the tuned preset).
CASES = (
    ("kamoul-default", "kamoul", dict(n=3000, seed=11, strategies=["balanced"])),
    ("kamoul-mixed-2p", "kamoul", dict(n=3000, seed=12, players=2, strategies=["random", "aggressive"])),
    ("kamoul-options", "kamoul", dict(n=2000, seed=13, players=5, strategies=["cautious", "balanced", "aggressive",
                                                                                 "random", "call-table"],
                                      options={"snap_chain": True, "snap_others": True, "false_call_mode": "tamalou",
                                               "implicit_contest": True, "discard_pick_face_up": True})),
    ("kamoul-tops", "kamoul", dict(n=20, seed=14, level="tops", players=3, strategies=["balanced"])),
    ("rami-default", "rami", dict(n=400, seed=21, strategies=["open-asap"])),
    ("rami-mixed-3p", "rami", dict(n=300, seed=22, players=3, strategies=["open-big", "rami-sec-hunter", "random"])),
    ("rami-options", "rami", dict(n=300, seed=23, players=2, strategies=["joker-keeper", "open-asap"],
                                  options={"joker_swap": "free", "playable_discard": "forbidden",
                                           "final_discard_required": True, "opening_points": 40})),
    ("rami-games", "rami", dict(n=3, seed=24, level="games", players=4, strategies=["open-asap"])),
    ("kems-default", "kems", dict(n=3000, seed=31, strategies=["balanced"])),
    ("kems-mixed-6p", "kems", dict(n=1000, seed=32, players=6, strategies=["balanced", "watcher", "blocker",
                                                                             "discreet", "sprinter", "random"])),
    ("kems-options", "kems", dict(n=1500, seed=33, strategies=["balanced"], options={"double_mode": "second_call", "contre_target": "player",
                                                             "wrong_contre": "opponents_plus1", "deck": "32"})),
    ("kems-games", "kems", dict(n=30, seed=34, level="games", strategies=["balanced"])),
)


def fingerprint(frame: pl.DataFrame) -> str:
    """SHA-256 over the frame's columns in order: name, dtype and values (text for strings and enums)."""
    digest = hashlib.sha256()
    for name in frame.columns:
        column = frame[name]
        digest.update(f"{name}:{column.dtype}:{column.len()}".encode())
        if column.dtype in (pl.String, pl.Categorical) or isinstance(column.dtype, pl.Enum):
            digest.update("\x00".join("\x01" if v is None else v for v in column.cast(pl.String).to_list()).encode())
        else:
            values = column.to_numpy()
            if values.dtype.kind == "f":
                values = np.where(np.isnan(values), np.float64(-0.123456789), values)
            digest.update(np.ascontiguousarray(values).tobytes())
    return digest.hexdigest()


def case_fingerprints(game: str, kwargs: dict) -> dict[str, str]:
    """``{table: fingerprint}`` of the whole run of ``kwargs``, played by the kernel in one chunk."""
    from simulator.core.storage.spec import build_spec

    spec = build_spec(game, **kwargs)
    frames = spec.plugin.simulate_chunk(spec, 0, spec.n, None)
    return {table: fingerprint(frame) for table, frame in sorted(frames.items())}


def compute() -> dict[str, dict[str, str]]:
    import simulator.games  # noqa: F401  (registers the games)

    return {name: case_fingerprints(game, kwargs) for name, game, kwargs in CASES}


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: tests/golden_rows.py --write   (regenerates tests/golden_rows.json from the current code)")
    GOLDEN.write_text(json.dumps(compute(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN}")
