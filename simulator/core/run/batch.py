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
      _checksums.json                 size and sha256 of every frame written here (:func:`write_frame`)

The ``cell=<id>`` folder names are Hive partitions: ``polars.scan_parquet("OUT/cells/*/hands/*.parquet",
hive_partitioning=True)`` opens every cell's hands with a ``cell`` column, and so does
``pandas.read_parquet("OUT/cells")`` when the level writes a single table. :func:`read_batch` is the
general way: any table, plus each cell's labels as columns.

Every input is validated before anything is written (the cells' specs when the batch is built, the chunk
size and threads in :func:`run_batch`); then a directory that is neither empty nor this same batch is
refused, unchanged. The batch holds ``OUT/.lock`` while it runs (each cell takes its own as well), so a
second writer is refused (:mod:`simulator.core.storage.dirlock`).
"""

from __future__ import annotations

import itertools
import json
import re
import time
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from simulator.core.errors import MetadataError, SpecError
from simulator.core.i18n import _
from simulator.core.progress import progress as progress_of
from simulator.core.run.backends import check_threads
from simulator.core.run.runner import chunk_size_for, run
from simulator.core.storage.dirlock import DirLock
from simulator.core.storage.ledger import LEDGER_NAME, write_frame
from simulator.core.storage.sealed import read_sealed, sealed
from simulator.core.storage.spec import RunSpec, spec_dict_problem
from simulator.core.storage.store import (
    MANIFEST_NAME, QUARANTINE_NAME, is_housekeeping, load_manifest_file, read_table, write_json_atomic,
)

BATCH_FORMAT = "cardsim-batch/1"
BATCH_NAME = "_batch.json"
CELLS = "cells"
MAX_CELLS = 1000
BATCH_ALLOWED = "an empty or new directory, or the same tournament/sweep to resume"
STUDY_NAME = "_study.json"
CELL_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")  # a folder name: no '/', no '..'


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
    """Refuse (``SpecError``, nothing written) a directory that cannot hold ``batch``: a file, a run, a study,
    another batch, or a non-empty directory that is not a batch. A batch whose ``_batch.json`` was set aside
    by ``cardsim verify --repair`` (damaged) is accepted when what it holds is this batch's: its cells (each
    run's manifest has its cell's spec), its result frames and ledger (:func:`_check_orphan_cells`)."""
    path = Path(out)
    if not path.exists():
        return
    if not path.is_dir():
        raise SpecError("--out", str(path), BATCH_ALLOWED, "is a file, not a directory")
    meta = path / BATCH_NAME
    if not meta.exists():
        if (path / MANIFEST_NAME).exists():
            raise SpecError("--out", str(path), BATCH_ALLOWED, "holds a single run, not a tournament or sweep")
        if (path / STUDY_NAME).exists():
            raise SpecError("--out", str(path), BATCH_ALLOWED, f"holds a study ({STUDY_NAME}), not a tournament or sweep")
        if (path / CELLS).is_dir():
            _check_orphan_cells(path, batch)
        elif not all(is_housekeeping(e.name) for e in path.iterdir()):
            raise SpecError("--out", str(path), BATCH_ALLOWED, "is not empty and is not a cardsim batch (no _batch.json)")
        return
    stored = load_batch(path, "--out")
    if stored != json.loads(json.dumps(batch.to_dict())):
        what = [k for k in ("kind", "inputs") if stored.get(k) != batch.to_dict()[k]]
        raise SpecError("--out", str(path), BATCH_ALLOWED,
                        f"holds a different batch (differs in: {', '.join(what) or 'cells'})")


def _check_orphan_cells(path: Path, batch: Batch) -> None:
    """A batch directory without its ``_batch.json``: every entry must be this batch's (``cells/cell=<id>`` of
    one of its cells, holding nothing or a run of that cell's spec; its result frames; the ledger; housekeeping
    and quarantine), else :class:`SpecError`. Then the batch file can be written again without losing a row."""
    own = {CELLS: None, LEDGER_NAME: None, QUARANTINE_NAME: None,
           **{f"{name}.parquet": None for name in RESULT_FRAMES.get(batch.kind, ())}}
    strangers = [e.name for e in path.iterdir() if e.name not in own and not is_housekeeping(e.name)]
    specs = {f"cell={cell.id}": cell.spec.to_json() for cell in batch.cells}
    for entry in sorted((path / CELLS).iterdir()):
        if entry.name not in specs or entry.is_symlink() or not entry.is_dir():
            strangers.append(f"{CELLS}/{entry.name}")
        elif (entry / MANIFEST_NAME).is_file():
            stored = load_manifest_file(entry / MANIFEST_NAME)["spec"]
            if json.dumps(stored, sort_keys=True, separators=(",", ":")) != specs[entry.name]:
                strangers.append(f"{CELLS}/{entry.name}")
    if strangers:
        raise SpecError("--out", str(path), BATCH_ALLOWED, f"has no {BATCH_NAME} and holds what is not this batch's "
                        f"({', '.join(strangers[:3])})")


BATCH_HINT = "`cardsim verify {dir} --repair` sets it aside; the command that wrote the batch then writes it again"


def load_batch(out: str | Path, field: str = "batch") -> dict:
    """What ``_batch.json`` of ``out`` says: :class:`SpecError` when ``out`` is not a batch, :class:`MetadataError`
    naming the file and field when its file is unreadable, fails its checksum or is not one (every cell must
    have an id that is a plain folder name, labels with the same keys as the other cells' and a spec)."""
    meta = Path(out) / BATCH_NAME
    if not meta.is_file():
        raise SpecError(field, str(out), "a tournament or sweep directory", "is not a batch (no _batch.json)")
    hint = BATCH_HINT.format(dir=out)
    data, damaged = read_sealed(meta)
    if damaged:
        raise MetadataError(meta, "", damaged, hint)
    if data.get("format") != BATCH_FORMAT or not isinstance(data.get("cells"), list) or data.get("kind") not in RESULT_FRAMES:
        raise MetadataError(meta, "", f"is not a valid batch file ({BATCH_FORMAT}, a kind, cells)", hint)
    if not isinstance(data.get("inputs"), dict):
        raise MetadataError(meta, "inputs", "is not an object", hint)
    ids, keys = set(), None
    for k, cell in enumerate(data["cells"]):
        ok = (isinstance(cell, dict) and isinstance(cell.get("id"), str) and CELL_ID.match(cell["id"])
              and isinstance(cell.get("labels"), dict) and isinstance(cell.get("spec"), dict))
        if not ok or cell["id"] in ids or (keys is not None and set(cell["labels"]) != keys):
            raise MetadataError(meta, f"cells[{k}]", "is not a cell (a distinct id made of letters, digits, '-' and "
                                "'_', labels with the same keys as the other cells', a spec)", hint)
        bad = spec_dict_problem(cell["spec"])
        if bad:
            raise MetadataError(meta, f"cells[{k}].{bad[0]}", bad[1], hint)
        ids.add(cell["id"])
        keys = set(cell["labels"])
    return data


RESULT_FRAMES = {"tournament": ("matrix", "ratings"), "sweep": ("summary", "outcomes")}  # written on completion


def result_writer(kind: str, compute):
    """The ``on_complete`` of :func:`run_batch` for a batch of ``kind``: ``compute(path)`` (analysis, given by the
    caller) returns the batch's frames; those of :data:`RESULT_FRAMES` are written into its directory, and all
    are returned (``BatchRun.frames``)."""

    def write(path):
        frames = compute(Path(path))
        for name in RESULT_FRAMES[kind]:
            write_frame(Path(path) / f"{name}.parquet", frames[name])
        return frames

    return write


def check_batch_settings(batch: Batch, chunk_size: int | None, threads) -> None:
    """Validate the execution settings against every cell (:class:`SpecError`) before anything is written."""
    for cell in batch.cells:
        chunk_size_for(cell.spec, chunk_size)
    check_threads(threads)


def run_batch(batch: Batch, out: str | Path, *, chunk_size: int | None = None, threads: int | None = None,
              progress: bool = True, on_complete=None, label: str | None = None, nested: bool = False) -> BatchRun:
    """Run (or resume) every cell of ``batch`` into ``out``; see the module doc. ``on_complete(path)`` runs
    once every cell is complete, still under the batch's lock (the result frames are written there). ``label``
    names the stage in the progress (default: the batch's kind), ``nested`` says it is part of a study."""
    began = time.perf_counter()
    check_batch_settings(batch, chunk_size, threads)
    check_batch_dir(out, batch)
    path = Path(out)
    path.mkdir(parents=True, exist_ok=True)
    with DirLock(path, "--out"):
        check_batch_dir(out, batch)  # again, under the lock: another writer may have started it meanwhile
        if not (path / BATCH_NAME).exists():
            write_json_atomic(path / BATCH_NAME, sealed(batch.to_dict()))
        games, interrupted = 0, False
        stage = label or batch.kind
        with progress_of(len(batch.cells), stage, "cells", enabled=progress, nested=nested) as bar:
            for k, cell in enumerate(batch.cells):
                words = ", ".join(f"{key}={value}" for key, value in cell.labels.items())
                label = _("{stage} cell {k}/{total} ({words})").format(stage=stage, k=k + 1, total=len(batch.cells),
                                                                      words=words)
                result = run(cell.spec, cell_dir(path, cell.id), chunk_size=chunk_size, threads=threads,
                             progress=progress, label=label, nested=True)
                bar.update(1)
                games += result.games_done
                if result.interrupted:
                    interrupted = True
                    break
        done = BatchRun(path, batch, games, interrupted, time.perf_counter() - began)
        if not interrupted and on_complete is not None:
            done.frames = on_complete(path)
    return done


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
