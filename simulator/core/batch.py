"""Batches: several runs ("cells") on the same deals, stored and read as one dataset.

A batch is a tournament (every pair of strategies, seats rotated) or a sweep (a grid of strategy
parameters and rule options). Every cell is an ordinary :class:`RunSpec` with the batch's seed, so game
``i`` of every cell is dealt from the same stream ``(seed, i)``: the cells differ only by who plays.

Layout of a batch directory ``OUT``::

    OUT/
      _batch.json                     format, kind, the batch's inputs, every cell (id, labels, spec)
      cells/cell=c000/                an ordinary run directory (manifest, hands/ …), resumable on its own
      cells/cell=c001/ …
      matrix.parquet, ratings.parquet (tournament) | summary.parquet, outcomes.parquet (sweep)

The ``cell=<id>`` folder names are Hive partitions: ``polars.scan_parquet("OUT/cells/*/hands/*.parquet",
hive_partitioning=True)`` opens every cell's hands with a ``cell`` column, and so does
``pandas.read_parquet("OUT/cells")`` when the level writes a single table. :func:`read_batch` is the
general way: any table, plus each cell's labels as columns.

Opening refuses, before anything is written, a directory that is neither empty nor this same batch.
"""

from __future__ import annotations

import itertools
import json
import os
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from simulator.core.errors import SpecError
from simulator.core.runner import run
from simulator.core.spec import RunSpec
from simulator.core.store import MANIFEST_NAME, read_table

BATCH_FORMAT = "cardsim-batch/1"
BATCH_NAME = "_batch.json"
CELLS = "cells"
MAX_CELLS = 1000
BATCH_ALLOWED = "an empty or new directory, or the same tournament/sweep to resume"


@dataclass(frozen=True)
class Cell:
    """One run of a batch: ``id`` (``c000`` …), ``labels`` (what distinguishes it: a seating, grid values)
    and its :class:`RunSpec`."""

    id: str
    labels: dict
    spec: RunSpec

    def to_dict(self) -> dict:
        return {"id": self.id, "labels": self.labels, "spec": self.spec.to_dict()}


@dataclass(frozen=True)
class Batch:
    """A validated batch: ``kind`` (``tournament`` | ``sweep``), ``inputs`` (what the user asked, for the
    record and for refusing a different batch in the same directory) and the cells."""

    kind: str
    inputs: dict
    cells: tuple[Cell, ...]

    def to_dict(self) -> dict:
        return {"format": BATCH_FORMAT, "kind": self.kind, "inputs": self.inputs,
                "cells": [c.to_dict() for c in self.cells]}


@dataclass
class BatchRun:
    """What :func:`run_batch` did: the batch, its directory, games played by this call, and whether it was
    interrupted (the finished chunks are kept; the same call resumes)."""

    path: Path
    batch: Batch
    games_done: int
    interrupted: bool
    seconds: float
    frames: dict | None = None


def cell_dir(out: str | Path, cell_id: str) -> Path:
    return Path(out) / CELLS / f"cell={cell_id}"


def cell_ids(count: int) -> list[str]:
    if count > MAX_CELLS:
        raise SpecError("cells", count, f"at most {MAX_CELLS} cells in one batch", "is too many")
    width = max(3, len(str(count - 1)))
    return [f"c{i:0{width}d}" for i in range(count)]


def check_batch_dir(out: str | Path, batch: Batch) -> None:
    """Refuse (``SpecError``, nothing written) a directory that cannot hold ``batch``."""
    path = Path(out)
    if not path.exists():
        return
    if not path.is_dir():
        raise SpecError("--out", str(path), BATCH_ALLOWED, "is a file, not a directory")
    meta = path / BATCH_NAME
    if not meta.exists():
        if (path / MANIFEST_NAME).exists():
            raise SpecError("--out", str(path), BATCH_ALLOWED, "holds a single run, not a tournament or sweep")
        if any(path.iterdir()):
            raise SpecError("--out", str(path), BATCH_ALLOWED, "is not empty and is not a cardsim batch (no _batch.json)")
        return
    stored = load_batch(path, "--out")
    if stored != json.loads(json.dumps(batch.to_dict())):
        what = [k for k in ("kind", "inputs") if stored.get(k) != batch.to_dict()[k]]
        raise SpecError("--out", str(path), BATCH_ALLOWED,
                        f"holds a different batch (differs in: {', '.join(what) or 'cells'})")


def load_batch(out: str | Path, field: str = "batch") -> dict:
    """The parsed ``_batch.json`` of ``out``; one-line :class:`SpecError` when ``out`` is not a batch."""
    meta = Path(out) / BATCH_NAME
    if not meta.is_file():
        raise SpecError(field, str(out), "a tournament or sweep directory", "is not a batch (no _batch.json)")
    try:
        data = json.loads(meta.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise SpecError(field, str(meta), "a cardsim batch file", f"is unreadable ({err})") from None
    if not isinstance(data, dict) or data.get("format") != BATCH_FORMAT or not isinstance(data.get("cells"), list):
        raise SpecError(field, str(meta), f"a cardsim batch file ({BATCH_FORMAT})", "is not a valid batch file")
    return data


def _write_json_atomic(path: Path, data: dict) -> None:
    tmp = path.parent / f".{path.name}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=1)
        handle.write("\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def write_frame(path: Path, frame: pl.DataFrame) -> None:
    """Write a result frame atomically (hidden temporary name, then rename)."""
    tmp = path.parent / f".{path.name}.{os.getpid()}.tmp"
    frame.write_parquet(tmp)
    os.replace(tmp, path)


def run_batch(batch: Batch, out: str | Path, *, chunk_size: int | None = None, threads: int | None = None,
              progress: bool = True) -> BatchRun:
    """Run (or resume) every cell of ``batch`` into ``out``; see the module doc."""
    import time

    from tqdm import tqdm

    began = time.perf_counter()
    check_batch_dir(out, batch)
    path = Path(out)
    path.mkdir(parents=True, exist_ok=True)
    if not (path / BATCH_NAME).exists():
        _write_json_atomic(path / BATCH_NAME, batch.to_dict())
    games, interrupted = 0, False
    bar = tqdm(batch.cells, desc=batch.kind + " cells", unit="cell", disable=None if progress else True,
               dynamic_ncols=True)
    with bar:
        for cell in bar:
            bar.set_postfix_str(cell.id)
            result = run(cell.spec, cell_dir(path, cell.id), chunk_size=chunk_size, threads=threads, progress=progress)
            games += result.games_done
            if result.interrupted:
                interrupted = True
                break
    return BatchRun(path, batch, games, interrupted, time.perf_counter() - began)


def read_batch(out: str | Path, table: str | None = None) -> pl.LazyFrame:
    """Every cell's ``table`` (default: the finest table) as one LazyFrame, with a ``cell`` column and one
    column per cell label (a sweep's parameters, a tournament's ``a``, ``b``, ``seating``)."""
    data = load_batch(out)
    frames = []
    for cell in data["cells"]:
        spec = RunSpec.from_dict(cell["spec"])
        name = table or spec.plugin.tables(spec.level)[0]
        labels = [pl.lit(cell["id"]).alias("cell")] + [pl.lit(v).alias(k) for k, v in cell["labels"].items()]
        frames.append(read_table(cell_dir(out, cell["id"]), name).with_columns(labels))
    return pl.concat(frames, how="vertical_relaxed")


def cartesian(axes: list[tuple[str, list]]) -> list[dict]:
    """Every combination of the axes' values, first axis slowest: ``[{name: value, …}, …]``."""
    names = [name for name, _ in axes]
    return [dict(zip(names, combo)) for combo in itertools.product(*(values for _, values in axes))]
