"""The run store: one directory per run, one Parquet part file per chunk and table, and a manifest.

Layout of a run directory ``OUT``::

    OUT/
      _manifest.json                      format, version, spec, tables, completed chunks, complete
      hands/part-000000000000-000000250000.parquet    one part per chunk: part-{start:012d}-{stop:012d}
      manches/part-000000000000-000000250000.parquet  every table of the level, same chunk boundaries
      .tmp/                               parts being written (never inside a table folder)

Each table folder holds only part files, so ``pandas.read_parquet(OUT / "hands")`` and
``polars.scan_parquet(OUT / "hands")`` open it as it is. Every part also carries the run's facts in
its key-value metadata (``cardsim.spec``, ``cardsim.seed``, ``cardsim.version``, ``cardsim.chunk``,
``cardsim.table``).

The part files are the truth: chunk ``[a, b)`` is complete when every table has its part for it.
A part is written to ``.tmp/``, fsynced and renamed into place, so a killed run leaves either a whole
part or none; a chunk killed between two tables leaves a stray part, removed on the next open.
Opening validates everything first and changes nothing on disk when it refuses. :func:`write_parts`
writes one chunk without a :class:`RunStore` (Dask workers use it; the client then calls
:meth:`RunStore.record_chunk`); it keeps a part already in place, so a retried chunk is harmless.
"""

from __future__ import annotations

import bisect
import json
import os
import re
import shutil
import socket
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq

from simulator import __version__
from simulator.core.errors import SpecError
from simulator.core.spec import RunSpec

FORMAT = "cardsim-run/1"
MANIFEST_NAME = "_manifest.json"
TMP_NAME = ".tmp"
PART_PATTERN = re.compile(r"^part-(\d{12})-(\d{12})\.parquet$")
OUT_ALLOWED = "an empty or new directory, or a run with the same spec"

Chunk = tuple[int, int]


def part_name(start: int, stop: int) -> str:
    """File name of the part holding games ``start <= i < stop``."""
    return f"part-{start:012d}-{stop:012d}.parquet"


def parse_part_name(name: str) -> Chunk | None:
    """``(start, stop)`` of a part file name, or ``None`` when the name is not a part's."""
    match = PART_PATTERN.match(name)
    if not match:
        return None
    start, stop = int(match.group(1)), int(match.group(2))
    return (start, stop) if start < stop else None


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclass
class RunStore:
    """An opened run directory. Create it with :func:`open_run`. ``chunks`` are the completed
    chunks, sorted and never overlapping."""

    path: Path
    spec: RunSpec
    tables: tuple[str, ...]
    chunks: list[Chunk] = field(default_factory=list)
    created: str = field(default_factory=_now)
    complete: bool = False

    @property
    def tmp_dir(self) -> Path:
        return self.path / TMP_NAME

    def part_path(self, table: str, start: int, stop: int) -> Path:
        return self.path / table / part_name(start, stop)

    def games_done(self) -> int:
        return sum(stop - start for start, stop in self.chunks)

    def missing_ranges(self, n: int | None = None) -> list[Chunk]:
        """``[0, n)`` (default: the spec's ``n``) minus the completed chunks, as sorted ranges."""
        n = self.spec.n if n is None else n
        out, cursor = [], 0
        for start, stop in self.chunks:
            if start > cursor:
                out.append((cursor, min(start, n)))
            cursor = max(cursor, stop)
            if cursor >= n:
                break
        if cursor < n:
            out.append((cursor, n))
        return [(a, b) for a, b in out if a < b]

    def write_chunk(self, start: int, stop: int, frames: dict[str, pl.DataFrame]) -> bool:
        """Write one finished chunk (every table), then the manifest. Returns ``False`` when the chunk
        was already complete (nothing is rewritten)."""
        if set(frames) != set(self.tables):
            raise ValueError(f"chunk {start}-{stop}: got tables {sorted(frames)}, expected {list(self.tables)}")
        where = self._check_new(start, stop)
        if where is None:
            return False
        write_parts(self.path, self.spec, self.tables, start, stop, frames)
        self.chunks.insert(where, (start, stop))
        self.write_manifest()
        return True

    def record_chunk(self, start: int, stop: int, wait: float = 30.0) -> bool:
        """Record chunk ``[start, stop)`` as complete when its parts were written by someone else (a Dask
        worker, through :func:`write_parts`). Returns ``False`` when it was already recorded. Raises
        :class:`SpecError` when a part is still not visible here after ``wait`` seconds (network file
        systems may show another machine's new file a little late; never: the workers do not share
        ``path``)."""
        where = self._check_new(start, stop)
        if where is None:
            return False
        deadline = time.monotonic() + wait
        for table in self.tables:
            part = self.part_path(table, start, stop)
            while not part.is_file():
                if time.monotonic() >= deadline:
                    raise SpecError(
                        "--out", str(self.path), "a directory the workers and this machine share (same path), "
                        "or --collect client", f"does not show the part {table}/{part.name} a worker wrote",
                    )
                time.sleep(0.2)
        self.chunks.insert(where, (start, stop))
        self.write_manifest()
        return True

    def _check_new(self, start: int, stop: int) -> int | None:
        """Where ``(start, stop)`` goes in ``chunks``; ``None`` when it is already there."""
        where = bisect.bisect_left(self.chunks, (start, stop))
        if where < len(self.chunks) and self.chunks[where] == (start, stop):
            return None
        for a, b in self.chunks[max(where - 1, 0):where + 1]:
            if a < stop and start < b:
                raise ValueError(f"chunk {start}-{stop} overlaps the completed chunk {a}-{b}")
        return where

    def finish(self) -> None:
        """Mark the run complete (every game is on disk) and remove the temporary folder."""
        missing = self.missing_ranges()
        if missing:
            raise RuntimeError(f"run {self.path} is not complete: games {missing} are missing")
        self.complete = True
        self.write_manifest()
        self.close()

    def close(self) -> None:
        """Remove the temporary folder (it holds nothing of value between chunks)."""
        shutil.rmtree(self.tmp_dir, ignore_errors=True)

    def manifest(self) -> dict:
        return {
            "format": FORMAT,
            "cardsim_version": __version__,
            "spec": self.spec.to_dict(),
            "spec_digest": self.spec.digest(),
            "tables": list(self.tables),
            "chunks": [list(c) for c in self.chunks],
            "complete": self.complete,
            "created": self.created,
            "updated": _now(),
        }

    def write_manifest(self) -> None:
        """Rewrite ``_manifest.json`` atomically (temporary file, fsync, rename)."""
        self.tmp_dir.mkdir(exist_ok=True)
        tmp = self.tmp_dir / f"{MANIFEST_NAME}.{os.getpid()}"
        with open(tmp, "w", encoding="utf-8") as handle:
            json.dump(self.manifest(), handle, indent=1)
            handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, self.path / MANIFEST_NAME)
        _fsync_dir(self.path)


def part_metadata(spec: RunSpec, table: str, start: int, stop: int) -> dict[str, str]:
    """The key-value metadata of one part file: the run's facts."""
    return {
        "cardsim.spec": spec.to_json(),
        "cardsim.seed": str(spec.seed),
        "cardsim.version": __version__,
        "cardsim.chunk": f"{start}-{stop}",
        "cardsim.table": table,
    }


def write_parts(path: str | Path, spec: RunSpec, tables, start: int, stop: int,
                frames: dict[str, pl.DataFrame]) -> dict[str, int]:
    """Write chunk ``[start, stop)`` of the run at ``path``: one part per table, each to ``.tmp/``, fsynced
    and renamed into place. Needs no :class:`RunStore` (a Dask worker calls it) and is idempotent: a
    part already in place is kept (a retried chunk is the same games, so the same rows), and two writers
    of the same chunk never see each other's temporary files. Returns the rows written per table."""
    path = Path(path)
    if set(frames) != set(tables):
        raise ValueError(f"chunk {start}-{stop}: got tables {sorted(frames)}, expected {list(tables)}")
    tmp_dir = path / TMP_NAME
    tmp_dir.mkdir(exist_ok=True)
    unique = f"{socket.gethostname()}.{os.getpid()}.{threading.get_ident()}"
    for table in tables:
        final = path / table / part_name(start, stop)
        if final.exists():
            continue
        final.parent.mkdir(exist_ok=True)
        tmp = tmp_dir / f"{table}-{final.name}.{unique}"
        with open(tmp, "wb") as handle:
            frames[table].write_parquet(handle, compression="zstd", metadata=part_metadata(spec, table, start, stop))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, final)
        _fsync_dir(final.parent)
    return {table: frames[table].height for table in tables}


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# --- opening -----------------------------------------------------------------------------------------


def open_run(out: str | Path, spec: RunSpec, tables: tuple[str, ...] | list[str]) -> RunStore:
    """Open (or create) the run directory ``out`` for ``spec`` writing ``tables``.

    Refuses with :class:`SpecError`, changing nothing on disk, when ``out`` is a file, a non-empty
    directory that is not a run, a run whose manifest is unreadable, or a run of a different spec.
    Otherwise removes what an interrupted run left behind (temporary files, parts of chunks that
    not every table finished, unreadable parts) and returns the store with its completed chunks.
    """
    path = Path(out)
    tables = tuple(tables)
    manifest = _existing_manifest(path)
    if manifest is None:
        path.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(path / TMP_NAME, ignore_errors=True)  # left by a run killed before its manifest
        store = RunStore(path, spec, tables)
        store.write_manifest()
        return store
    _check_same_run(path, manifest, spec, tables)
    complete, doomed = _scan_parts(path, spec, tables)
    for victim in doomed:
        victim.unlink(missing_ok=True)
    shutil.rmtree(path / TMP_NAME, ignore_errors=True)
    store = RunStore(path, spec, tables, complete, str(manifest.get("created") or _now()))
    store.complete = not store.missing_ranges()
    store.write_manifest()
    return store


def _existing_manifest(path: Path) -> dict | None:
    """The manifest of the run at ``path``; ``None`` when ``path`` is new or an empty directory."""
    if not path.exists():
        return None
    if not path.is_dir():
        raise SpecError("--out", str(path), OUT_ALLOWED, "is a file, not a directory")
    manifest_path = path / MANIFEST_NAME
    if not manifest_path.exists():
        if any(entry.name != TMP_NAME for entry in path.iterdir()):
            raise SpecError("--out", str(path), OUT_ALLOWED, "is not empty and is not a cardsim run (no _manifest.json)")
        return None
    return load_manifest_file(manifest_path)


def load_manifest_file(manifest_path: Path, field: str = "--out") -> dict:
    """Parse and sanity-check one ``_manifest.json``; :class:`SpecError` naming the file if corrupt."""
    try:
        data = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise SpecError(field, str(manifest_path), "a cardsim run manifest", f"is unreadable ({err})") from None
    ok = (
        isinstance(data, dict)
        and data.get("format") == FORMAT
        and isinstance(data.get("spec"), dict)
        and isinstance(data.get("tables"), list)
    )
    if not ok:
        raise SpecError(field, str(manifest_path), f"a cardsim run manifest ({FORMAT})", "is not a valid run manifest")
    return data


def _check_same_run(path: Path, manifest: dict, spec: RunSpec, tables: tuple[str, ...]) -> None:
    stored = json.dumps(manifest["spec"], sort_keys=True, separators=(",", ":"))
    if stored != spec.to_json():
        differs = ", ".join(spec_differences(manifest["spec"], spec.to_dict())) or "formatting"
        raise SpecError("--out", str(path), OUT_ALLOWED, f"holds a run with a different spec (differs in: {differs})")
    if list(manifest["tables"]) != list(tables):
        raise SpecError(
            "--out", str(path), OUT_ALLOWED,
            f"holds tables {manifest['tables']} but this run writes {list(tables)}",
        )


def spec_differences(old: dict, new: dict) -> list[str]:
    """Names of what differs between two ``RunSpec.to_dict()`` outputs: top-level keys, with the
    option names (``options.x``) and seat strategies (``strategies[2].params.y``) spelled out."""
    out = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        if key == "options" and isinstance(a, dict) and isinstance(b, dict):
            out += [f"options.{k}" for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
        elif key == "strategies" and isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            out += _strategy_differences(a, b)
        else:
            out.append(key)
    return out


def _strategy_differences(old: list, new: list) -> list[str]:
    out = []
    for seat, (a, b) in enumerate(zip(old, new)):
        if a == b:
            continue
        if not (isinstance(a, dict) and isinstance(b, dict)) or a.get("name") != b.get("name"):
            out.append(f"strategies[{seat}].name")
            continue
        pa, pb = a.get("params") or {}, b.get("params") or {}
        out += [f"strategies[{seat}].params.{k}" for k in sorted(set(pa) | set(pb)) if pa.get(k) != pb.get(k)]
    return out


def _scan_parts(path: Path, spec: RunSpec, tables: tuple[str, ...]) -> tuple[list[Chunk], list[Path]]:
    """Completed chunks and the part files to delete (strays and unreadable parts). Raises
    :class:`SpecError` (before anything is deleted) on a readable part that belongs to another run."""
    found: dict[str, dict[Chunk, Path]] = {}
    for table in tables:
        folder = path / table
        parts = {}
        if folder.is_dir():
            for entry in folder.iterdir():
                chunk = parse_part_name(entry.name)
                if chunk is not None and entry.is_file():
                    parts[chunk] = entry
        found[table] = parts
    everywhere = set.intersection(*(set(p) for p in found.values())) if found else set()
    complete, doomed = [], []
    for chunk in sorted(everywhere):
        files = [found[t][chunk] for t in tables]
        if all(_part_is_ours(f, spec, t, chunk) for f, t in zip(files, tables)):
            complete.append(chunk)
        else:
            doomed += files
    _check_no_overlap(path, complete)
    for table in tables:
        doomed += [f for c, f in found[table].items() if c not in everywhere]
    return complete, doomed


def _part_is_ours(file: Path, spec: RunSpec, table: str, chunk: Chunk) -> bool:
    """``True`` for a readable part of this run; ``False`` for a torn file (no footer)."""
    try:
        meta = pq.read_metadata(file).metadata or {}
    except Exception:  # noqa: BLE001 - any unreadable footer means a torn write
        return False
    expected = {b"cardsim.spec": spec.to_json(), b"cardsim.table": table, b"cardsim.chunk": f"{chunk[0]}-{chunk[1]}"}
    for key, value in expected.items():
        if meta.get(key, b"").decode("utf-8", "replace") != value:
            raise SpecError(
                "--out", str(file), "part files written by this run",
                f"is a Parquet file whose metadata does not match this run ({key.decode()})",
            )
    return True


def _check_no_overlap(path: Path, chunks: list[Chunk]) -> None:
    for (a, b), (c, d) in zip(chunks, chunks[1:]):
        if c < b:
            raise SpecError("--out", str(path), "a run whose chunks do not overlap",
                            f"holds overlapping chunks {a}-{b} and {c}-{d}")


# --- reading -----------------------------------------------------------------------------------------


def read_manifest(out: str | Path, field: str = "run") -> dict:
    """The manifest of the run at ``out``; :class:`SpecError` when ``out`` is not a run directory."""
    path = Path(out)
    if not (path / MANIFEST_NAME).is_file():
        raise SpecError(field, str(path), "a cardsim run directory", "is not a run (no _manifest.json)")
    return load_manifest_file(path / MANIFEST_NAME, field)


def completed_chunks(out: str | Path, tables: list[str] | tuple[str, ...]) -> list[Chunk]:
    """Chunks that have a part file in every table folder (file names only, no footer check)."""
    sets = []
    for table in tables:
        folder = Path(out) / table
        names = (parse_part_name(e.name) for e in folder.iterdir()) if folder.is_dir() else ()
        sets.append({c for c in names if c is not None})
    return sorted(set.intersection(*sets)) if sets else []


def read_table(out: str | Path, table: str = "hands", lazy: bool = True, field: str = "run"):
    """One table of a run as a polars ``LazyFrame`` (``lazy=True``) or ``DataFrame``, rows in game
    order, over the chunks complete in every table (a run still in progress shows what is done)."""
    manifest = read_manifest(out, field)
    tables = list(manifest["tables"])
    if table not in tables:
        raise SpecError("table", table, " | ".join(tables))
    chunks = completed_chunks(out, tables)
    if not chunks:
        raise SpecError(field, str(out), "a run with at least one completed chunk", "holds no completed chunk yet")
    files = [str(Path(out) / table / part_name(a, b)) for a, b in chunks]
    frame = pl.scan_parquet(files)
    return frame if lazy else frame.collect()
