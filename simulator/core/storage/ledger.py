"""The ``_checksums.json`` ledger of a batch or study directory: the size and sha256 of every file the batch or
study writes itself (result frames, sampled rollouts), sealed like the other metadata files
(:mod:`simulator.core.storage.sealed`).

A directory without a ledger was written by an older cardsim: its files are read as they are. A ledger that is
present is strict: a file it does not list is not read, and one whose bytes differ is damaged. A damaged
ledger (unreadable, failed seal, an entry that is no record) is never trusted: readers refuse with one line,
a resume writes every file again, and ``cardsim verify --repair`` keeps only the entries whose file on disk
still has the recorded bytes (:func:`salvage_ledger`).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import polars as pl

from simulator.core.errors import DatasetError
from simulator.core.storage.sealed import read_sealed, sealed, unsealed
from simulator.core.storage.store import VERIFY_HINT, part_problem, part_record, write_bytes_atomic, write_json_atomic

LEDGER_NAME = "_checksums.json"  # relative path -> {"size": int, "sha256": str}
MARKERS = ("_batch.json", "_study.json")
REPAIR_HINT = "`cardsim verify {dir} --repair` keeps what is still whole; re-running the command writes the rest again"


def ledger_root(path: Path) -> Path | None:
    """The batch or study directory a file at ``path`` belongs to (the nearest of its folders, up to four
    levels up, that holds ``_batch.json`` or ``_study.json``), or ``None``."""
    for folder in list(Path(path).parents)[:4]:
        if any((folder / marker).is_file() for marker in MARKERS):
            return folder
    return None


def _read(root: Path) -> tuple[dict | None, str | None]:
    """``(entries, None)`` of ``root``'s intact ledger, ``(None, None)`` when it has none, ``(None, why)`` when it
    cannot be trusted."""
    if not (root / LEDGER_NAME).exists():
        return None, None
    entries, problem = read_sealed(root / LEDGER_NAME)
    if problem is None and not all(_is_record(r) for r in entries.values()):
        problem = "has an entry that is not {size, sha256}"
    if problem is None and not all(_inside(root, name) for name in entries):
        problem = "names a file outside its directory"
    return (None, problem) if problem else (entries, None)


def ledger_problem(root: Path) -> str | None:
    """Why the ledger of ``root`` cannot be trusted, or ``None`` (intact, or absent)."""
    return _read(root)[1]


def _is_record(record) -> bool:
    return (isinstance(record, dict) and isinstance(record.get("size"), int) and not isinstance(record["size"], bool)
            and isinstance(record.get("sha256"), str))


def read_ledger(root: Path) -> dict | None:
    """``{relative path: {"size", "sha256"}}`` of ``root``'s ledger; ``None`` when it has none (legacy); ``{}``
    and no entry trusted when it is damaged (:func:`ledger_problem` says why)."""
    entries, problem = _read(root)
    return {} if problem else entries


def salvage_ledger(root: Path) -> dict:
    """The entries of ``root``'s ledger, damaged or not, whose file on disk has exactly the recorded size and
    sha256 (a random change cannot forge one); ``{}`` when nothing can be parsed."""
    try:
        data = json.loads((root / LEDGER_NAME).read_text(encoding="utf-8", errors="replace"))
    except (OSError, ValueError, RecursionError):
        return {}
    entries = unsealed(data) if isinstance(data, dict) else {}
    return {name: {"size": r["size"], "sha256": r["sha256"]} for name, r in sorted(entries.items())
            if _is_record(r) and _inside(root, name) and part_problem(root / name, r) is None}


def _inside(root: Path, name) -> bool:
    return isinstance(name, str) and ".." not in Path(name).parts and not Path(name).is_absolute()


def write_ledger(root: Path, entries: dict) -> None:
    write_json_atomic(root / LEDGER_NAME, sealed(dict(sorted(entries.items()))))


def write_frame(path: Path, frame: pl.DataFrame) -> None:
    """Write a result frame atomically (encoded in memory, then a fsynced temporary file and a rename): a
    full disk or a killed process leaves the previous file or none, never half of one. Inside a batch or
    study directory its size and sha256 go to that directory's ledger (a damaged ledger is salvaged first)."""
    buffer = io.BytesIO()
    frame.write_parquet(buffer)
    data = buffer.getvalue()
    path = Path(path)
    write_bytes_atomic(path, data)
    root = ledger_root(path)
    if root is not None:
        ledger = salvage_ledger(root) if ledger_problem(root) else (read_ledger(root) or {})
        record = part_record(data, frame.height)
        ledger[str(path.relative_to(root))] = {"size": record["size"], "sha256": record["sha256"]}
        write_ledger(root, ledger)


def frame_is_recorded(path: Path) -> bool:
    """``True`` when the file at ``path`` is whole: listed by its batch's or study's intact ledger with these
    bytes (a folder without a ledger: when it exists). A resume writes again what is not."""
    path = Path(path)
    root = ledger_root(path)
    ledger = read_ledger(root) if root is not None else None
    if ledger is None:
        return path.exists()
    record = ledger.get(str(path.relative_to(root)))
    return record is not None and part_problem(path, record) is None


def checked_files(paths) -> list[Path]:
    """The files among ``paths`` that their batch's or study's ledger lists, each checked against its size
    and sha256 (:class:`DatasetError` naming the file and what to run, also when the ledger is damaged); a
    folder without a ledger (written by an older cardsim) is read as it is, a file its ledger does not list is
    left out."""
    out, ledgers = [], {}  # each root's ledger, read once
    for path in map(Path, paths):
        root = ledger_root(path)
        if root is not None and root not in ledgers:
            ledgers[root], problem = _read(root)
            if problem:
                raise DatasetError(f"{root / LEDGER_NAME} {problem}; " + REPAIR_HINT.format(dir=root))
        ledger = ledgers[root] if root is not None else None
        if ledger is None:
            out.append(path)
            continue
        record = ledger.get(str(path.relative_to(root)))
        if record is None:
            continue
        problem = part_problem(path, record)
        if problem is not None:
            raise DatasetError(f"{root}: {path.relative_to(root)} is {problem}; " + VERIFY_HINT.format(dir=root))
        out.append(path)
    return out


def read_checked_frame(path) -> pl.DataFrame | None:
    """The result frame at ``path`` once :func:`checked_files` has checked it (``None`` when it is absent or its
    intact ledger does not list it; :class:`DatasetError` when its bytes are not the recorded ones)."""
    path = Path(path)
    if not path.is_file() and not path.is_symlink():
        return None
    files = checked_files([path])
    return pl.read_parquet(files[0]) if files else None
