"""The run store: one directory per run, one Parquet part file per chunk and table, and a manifest.

Layout of a run directory ``OUT``::

    OUT/
      _manifest.json                      format, version, spec, tables, completed chunks, complete, and for
                                          every part its size, sha256 and rows ("parts")
      hands/part-000000000000-000000250000.parquet    one part per chunk: part-{start:012d}-{stop:012d}
      manches/part-000000000000-000000250000.parquet  every table of the level, same chunk boundaries
      .lock                               the writer's lock (simulator/core/storage/dirlock.py); readers ignore it
      .tmp/                               parts being written (never inside a table folder)
      _quarantine/                        files a resume or ``cardsim verify --repair`` moved out of a table
                                          folder (damaged or foreign parts), kept for inspection

Each table folder holds only part files, so ``pandas.read_parquet(OUT / "hands")`` and
``polars.scan_parquet(OUT / "hands")`` open it as it is. Every part also carries the run's facts in
its key-value metadata (``cardsim.spec``, ``cardsim.seed``, ``cardsim.version``, ``cardsim.chunk``,
``cardsim.table``), from which ``cardsim verify --repair`` can rebuild a lost manifest.

The manifest is the truth: chunk ``[a, b)`` is complete when the manifest lists it, and its parts are
exactly the files the manifest names with the size and sha256 it records. Readers (:func:`read_table`)
read those files and nothing else, after checking their checksums (once per file and process); a damaged,
missing or foreign part is refused with one line (:class:`DatasetError`). A part is written to
``.tmp/``, fsynced and renamed into place before the manifest lists it; the manifest is rewritten
atomically after a chunk, at most about once a second (and always when the run stops), so a killed run
leaves parts the manifest does not list yet: the next open adopts those that are whole parts of this
run (every table, a readable file with this run's metadata) and removes the rest. Opening validates
everything first and changes nothing on disk when it refuses; it takes the directory's lock, so a second
writer is refused (:mod:`simulator.core.storage.dirlock`). :func:`write_parts` writes one chunk without a
:class:`RunStore` (Dask workers use it; the client, which holds the lock, then calls
:meth:`RunStore.record_chunk`); a part already in place with the same bytes is kept, so a retried chunk
is harmless.
"""

from __future__ import annotations

import bisect
import hashlib
import io
import json
import os
import re
import shutil
import socket
import threading
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq

from simulator import __version__
from simulator.core.errors import DatasetError, MetadataError, SpecError
from simulator.core.storage.dirlock import LOCK_NAME, DirLock
from simulator.core.storage.outputs import MARKERS, OWN_FILES
from simulator.core.storage.sealed import read_sealed, sealed
from simulator.core.storage.spec import RunSpec, spec_dict_problem

FORMAT = "cardsim-run/2"
LEGACY_FORMATS = ("cardsim-run/1",)  # no part checksums: read as listed, checksummed on the next resume
MANIFEST_NAME = "_manifest.json"
TMP_NAME = ".tmp"
QUARANTINE_NAME = "_quarantine"
HOUSEKEEPING = (TMP_NAME, LOCK_NAME)  # what an empty or new run directory may hold
PART_PATTERN = re.compile(r"^part-(\d{12})-(\d{12})\.parquet$")
OUT_ALLOWED = "an empty or new directory, or a run with the same spec"
RESTART_ALLOWED = OUT_ALLOWED + " (a new --out, or --restart to start this one afresh)"
MANIFEST_INTERVAL = 1.0  # seconds between two manifest rewrites while a run is going (at least)
VERIFY_HINT = "run `cardsim verify {dir}` to list what is wrong, or re-run the command that wrote it to resume"

Chunk = tuple[int, int]


def is_housekeeping(name: str) -> bool:
    """``True`` for what an empty or new directory may hold: the lock, the temporary folder, and the hidden
    temporary file of an atomic write a kill interrupted (``.<name>.….tmp``)."""
    return name in HOUSEKEEPING or (name.startswith(".") and name.endswith(".tmp"))


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


def part_key(table: str, start: int, stop: int) -> str:
    """The manifest's name of a part: its path relative to the run directory."""
    return f"{table}/{part_name(start, stop)}"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


# --- checksums -----------------------------------------------------------------------------------------


def file_sha256(path: Path) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def part_record(data: bytes, rows: int) -> dict:
    """What the manifest records of one part: ``{"size", "sha256", "rows"}``."""
    return {"size": len(data), "sha256": hashlib.sha256(data).hexdigest(), "rows": int(rows)}


def record_of_file(path: Path) -> dict:
    """The record of a part file on disk (its rows from the footer)."""
    return {"size": path.stat().st_size, "sha256": file_sha256(path), "rows": pq.read_metadata(path).num_rows}


_CHECKED: dict[tuple, str] = {}  # (path, inode, size, mtime_ns) -> sha256 already computed by this process


def checked_sha256(path: Path) -> str:
    """sha256 of ``path``, computed once per process for an unchanged file (same inode, size, mtime)."""
    stat = path.stat()
    key = (str(path), stat.st_ino, stat.st_size, stat.st_mtime_ns)
    if key not in _CHECKED:
        _CHECKED[key] = file_sha256(path)
    return _CHECKED[key]


def _hash_ahead(paths: list[Path]) -> None:
    """Fill the checksum cache for ``paths`` on every core (hashlib releases the GIL); errors are left for
    :func:`part_problem` to report."""
    def one(path):
        try:
            checked_sha256(path)
        except OSError:
            pass

    if len(paths) > 1:
        with ThreadPoolExecutor(max_workers=min(len(paths), os.cpu_count() or 1)) as pool:
            list(pool.map(one, paths))


def part_problem(path: Path, record: dict | None) -> str | None:
    """Why the part at ``path`` does not match its manifest ``record`` (``None`` when it does; a legacy
    record-less part is only checked to exist). A part that is a symbolic link, or lies in a linked folder, is
    never read: what it points to is not the dataset's (``cardsim verify`` says so too)."""
    if path.is_symlink() or path.parent.is_symlink():
        return "a symbolic link, not read"
    try:
        stat = path.stat()
    except FileNotFoundError:
        return "missing"
    except OSError as err:
        return f"unreadable ({err.strerror})"
    if record is None:
        return None
    if stat.st_size != record.get("size"):
        return "damaged"
    try:
        return None if checked_sha256(path) == record.get("sha256") else "damaged"
    except OSError as err:
        return f"unreadable ({err.strerror})"


# --- writing -------------------------------------------------------------------------------------------


@dataclass
class RunStore:
    """An opened run directory, holding its lock. Create it with :func:`open_run`; ``close()`` (or
    ``finish()``) writes the manifest and releases the lock. ``chunks`` are the completed chunks, sorted
    and never overlapping; ``parts`` the record of each of their parts (:func:`part_record`);
    ``repairs`` says what opening found and fixed (one line each)."""

    path: Path
    spec: RunSpec
    tables: tuple[str, ...]
    chunks: list[Chunk] = field(default_factory=list)
    created: str = field(default_factory=_now)
    complete: bool = False
    parts: dict[str, dict] = field(default_factory=dict)
    repairs: list[str] = field(default_factory=list)
    lock: DirLock | None = field(default=None, repr=False)
    _dirty: bool = field(default=False, repr=False)
    _next_write: float = field(default=0.0, repr=False)

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
        """Write one finished chunk (every table) and record it. Returns ``False`` when the chunk was
        already complete (nothing is rewritten)."""
        if set(frames) != set(self.tables):
            raise ValueError(f"chunk {start}-{stop}: got tables {sorted(frames)}, expected {list(self.tables)}")
        where = self._check_new(start, stop)
        if where is None:
            return False
        try:
            records = write_parts(self.path, self.spec, self.tables, start, stop, frames)
        except BaseException:  # a full disk, a kill: leave no half chunk behind (the manifest never listed it)
            for table in self.tables:
                self.part_path(table, start, stop).unlink(missing_ok=True)
            raise
        self._add(where, (start, stop), records)
        return True

    def record_chunk(self, start: int, stop: int, records: dict | None = None, wait: float = 30.0) -> bool:
        """Record chunk ``[start, stop)`` as complete when its parts were written by someone else (a Dask
        worker, through :func:`write_parts`, which returns ``records``). Returns ``False`` when it was already
        recorded. Each part is checksummed here, as this machine sees it, and must match the worker's record.
        Raises :class:`SpecError` when a part is still not visible here after ``wait`` seconds (network file
        systems may show another machine's new file a little late; never: the workers do not share
        ``path``), :class:`DatasetError` when what is visible differs from what the worker wrote."""
        where = self._check_new(start, stop)
        if where is None:
            return False
        deadline = time.monotonic() + wait
        seen = {}
        for table in self.tables:
            part = self.part_path(table, start, stop)
            while not part.is_file():
                if time.monotonic() >= deadline:
                    raise SpecError(
                        "--out", str(self.path), "a directory the workers and this machine share (same path), "
                        "or --collect client", f"does not show the part {table}/{part.name} a worker wrote",
                    )
                time.sleep(0.2)
            seen[table] = record_of_file(part)
            theirs = (records or {}).get(table)
            if isinstance(theirs, dict) and theirs.get("sha256") != seen[table]["sha256"]:
                raise DatasetError(f"{self.path}: the part {table}/{part.name} differs here from what the worker "
                                   f"wrote (checksum); check the shared storage, then re-run the same command")
        self._add(where, (start, stop), seen)
        return True

    def _add(self, where: int, chunk: Chunk, records: dict[str, dict]) -> None:
        self.chunks.insert(where, chunk)
        for table in self.tables:
            self.parts[part_key(table, *chunk)] = records[table]
        self._dirty = True
        if time.monotonic() >= self._next_write:
            self.write_manifest()

    def _check_new(self, start: int, stop: int) -> int | None:
        """Where ``(start, stop)`` goes in ``chunks``; ``None`` when it is already there."""
        where = bisect.bisect_left(self.chunks, (start, stop))
        if where < len(self.chunks) and self.chunks[where] == (start, stop):
            return None
        for a, b in self.chunks[max(where - 1, 0):where + 1]:
            if a < stop and start < b:
                raise ValueError(f"chunk {start}-{stop} overlaps the completed chunk {a}-{b}")
        return where

    def flush(self) -> None:
        """Write the manifest now if a chunk was recorded since the last write."""
        if self._dirty:
            self.write_manifest()

    def finish(self) -> None:
        """Mark the run complete (every game is on disk), write the manifest and close."""
        missing = self.missing_ranges()
        if missing:
            raise RuntimeError(f"run {self.path} is not complete: games {missing} are missing")
        self.complete = True
        self.write_manifest()
        self.close()

    def close(self) -> None:
        """Write what is not yet in the manifest, remove the temporary folder (it holds nothing of value
        between chunks) and release the lock."""
        try:
            self.flush()
            shutil.rmtree(self.tmp_dir, ignore_errors=True)
        finally:
            if self.lock is not None:
                self.lock.release()
                self.lock = None

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
            "parts": {key: self.parts[key] for c in self.chunks for key in (part_key(t, *c) for t in self.tables)},
        }

    def write_manifest(self) -> None:
        """Rewrite ``_manifest.json`` atomically (temporary file, fsync, rename). The next rewrite during
        a run waits at least :data:`MANIFEST_INTERVAL` (and twenty times this one's duration)."""
        began = time.monotonic()
        write_json_atomic(self.path / MANIFEST_NAME, sealed(self.manifest()), tmp_dir=self.tmp_dir)
        self._dirty = False
        self._next_write = time.monotonic() + max(MANIFEST_INTERVAL, 20 * (time.monotonic() - began))


def write_json_atomic(path: Path, data, tmp_dir: Path | None = None) -> None:
    """Write ``data`` as JSON to ``path`` atomically (:func:`write_bytes_atomic`)."""
    write_bytes_atomic(path, (json.dumps(data, indent=1) + "\n").encode("utf-8"), tmp_dir)


def write_bytes_atomic(path: Path, data: bytes, tmp_dir: Path | None = None) -> None:
    """Write ``data`` to ``path`` through a fsynced temporary file and a rename (removed on failure)."""
    folder = tmp_dir or path.parent
    folder.mkdir(exist_ok=True)
    tmp = folder / f".{path.name}.{socket.gethostname()}.{os.getpid()}.{threading.get_ident()}.tmp"
    try:
        with open(tmp, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    _fsync_dir(path.parent)


def part_metadata(spec: RunSpec, table: str, start: int, stop: int) -> dict[str, str]:
    """The key-value metadata of one part file: the run's facts."""
    return {
        "cardsim.spec": spec.to_json(),
        "cardsim.seed": str(spec.seed),
        "cardsim.version": __version__,
        "cardsim.chunk": f"{start}-{stop}",
        "cardsim.table": table,
    }


def part_bytes(frame: pl.DataFrame, metadata: dict[str, str]) -> bytes:
    """One part file's content: ``frame`` as zstd Parquet with the run's key-value ``metadata``."""
    buffer = io.BytesIO()
    frame.write_parquet(buffer, compression="zstd", metadata=metadata)
    return buffer.getvalue()


def write_parts(path: str | Path, spec: RunSpec, tables, start: int, stop: int,
                frames: dict[str, pl.DataFrame]) -> dict[str, dict]:
    """Write chunk ``[start, stop)`` of the run at ``path``: one part per table, each to ``.tmp/``, fsynced
    and renamed into place. Needs no :class:`RunStore` (a Dask worker calls it) and is idempotent: a
    part already in place with the same bytes is kept (a retried chunk is the same games, so the same
    bytes), one with other bytes is replaced, and two writers of the same chunk never see each other's
    temporary files. Returns each table's :func:`part_record`."""
    path = Path(path)
    if set(frames) != set(tables):
        raise ValueError(f"chunk {start}-{stop}: got tables {sorted(frames)}, expected {list(tables)}")
    records = {}
    for table in tables:
        data = part_bytes(frames[table], part_metadata(spec, table, start, stop))
        records[table] = part_record(data, frames[table].height)
        final = path / table / part_name(start, stop)
        if final.is_file() and final.stat().st_size == len(data) and file_sha256(final) == records[table]["sha256"]:
            continue
        final.parent.mkdir(exist_ok=True)
        write_bytes_atomic(final, data, tmp_dir=path / TMP_NAME)
        stat = final.stat()  # this process knows the bytes it wrote: its readers need not hash them again
        _CHECKED[(str(final), stat.st_ino, stat.st_size, stat.st_mtime_ns)] = records[table]["sha256"]
    return records


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


# --- inspecting a run's parts --------------------------------------------------------------------------


@dataclass
class Finding:
    """Something in a run directory that does not match its manifest. ``problem`` is ``missing`` (listed,
    not on disk), ``damaged`` (listed, other bytes than recorded, or unreadable), ``foreign`` (a file that
    is not a part of this run: another run's part, another file), ``unlisted`` (a whole part of this run
    the manifest does not list yet, left by a kill: adopted by the next open) or ``stray`` (a part of this
    run for a chunk not every table finished: removed by the next open) or ``symlink`` (a symbolic link among
    the run's own entries: never followed, removed by repair or the next open, its target untouched). ``path``
    is relative to the run."""

    problem: str
    path: str
    detail: str = ""
    chunk: Chunk | None = None

    def line(self) -> str:
        return f"{self.problem:<9} {self.path}" + (f"  ({self.detail})" if self.detail else "")


@dataclass
class Inspection:
    """What :func:`inspect_run` found: the chunks that hold (``kept``, with every part's record), the
    adoptable unlisted chunks among them (``adopted``), and every finding."""

    kept: list[Chunk]
    records: dict[str, dict]
    adopted: list[Chunk]
    findings: list[Finding]

    def unsound(self) -> list[Finding]:
        """The findings that make the dataset differ from its manifest (all but ``unlisted``/``stray``)."""
        return [f for f in self.findings if f.problem in ("missing", "damaged", "foreign", "symlink")]


def _part_meta(file: Path) -> dict[str, str] | None:
    """The key-value metadata of a Parquet file, or ``None`` when its footer cannot be read."""
    try:
        meta = pq.read_metadata(file).metadata or {}
    except Exception:  # noqa: BLE001 - any unreadable footer means a torn or damaged file
        return None
    return {k.decode("utf-8", "replace"): v.decode("utf-8", "replace") for k, v in meta.items()}


def _meta_says(meta: dict | None, spec_json: str, table: str, chunk: Chunk) -> str | None:
    """``None`` when ``meta`` is this run's part ``table`` of ``chunk``; else what differs."""
    if meta is None:
        return "unreadable footer"
    expected = {"cardsim.spec": spec_json, "cardsim.table": table, "cardsim.chunk": f"{chunk[0]}-{chunk[1]}"}
    wrong = [k for k, v in expected.items() if meta.get(k) != v]
    return None if not wrong else f"its metadata names another {'run' if 'cardsim.spec' in wrong else wrong[0]}"


def _decodes(file: Path) -> bool:
    try:
        pq.read_table(file)
    except Exception:  # noqa: BLE001 - any failure to decode means the part is not whole
        return False
    return True


def _table_entries(path: Path, table: str) -> dict[str, Path]:
    folder = path / table
    try:
        return {e.name: e for e in folder.iterdir()} if folder.is_dir() and not folder.is_symlink() else {}
    except OSError:
        return {}


SYMLINK_DETAIL = "a symbolic link: not followed (repair removes the link, never what it points to)"


def run_symlinks(path: Path, tables) -> list[str]:
    """Relative paths of the symbolic links among a run's own entries (its table folders and their files, the
    quarantine, the temporary folder, the lock, the manifest): none is ever followed, so that nothing outside
    the run directory is read as its data, moved into its quarantine or truncated by its lock."""
    names = [*tables, QUARANTINE_NAME, TMP_NAME, LOCK_NAME, MANIFEST_NAME]
    links = [name for name in names if (path / name).is_symlink()]
    for table in tables:
        if table not in links:
            links += [f"{table}/{name}" for name, entry in sorted(_table_entries(path, table).items())
                      if entry.is_symlink()]
    return links


def _linked(path: Path, key: str) -> bool:
    """Whether the part ``key`` (``table/name``) is a link or lies in a linked table folder."""
    return (path / key).is_symlink() or (path / key.split("/", 1)[0]).is_symlink()


def _linked_finding(path: Path, key: str, chunk: Chunk) -> "Finding":
    """A listed part that is a link (``symlink``), or lies in a linked table folder (``missing``: not read)."""
    if (path / key).is_symlink():
        return Finding("symlink", key, SYMLINK_DETAIL, chunk)
    return Finding("missing", key, "its table folder is a symbolic link (not followed)", chunk)


def inspect_run(path: Path, spec_json: str, tables, chunks: list[Chunk], records: dict[str, dict] | None,
                adopt: bool = True) -> Inspection:
    """Check every listed part against its record (size, sha256; a legacy manifest without records: the
    footer's metadata) and classify every other file of the table folders. ``adopt``: whole unlisted parts
    of this run (every table, footer of this run, decodable, not overlapping a kept chunk) are kept too,
    with fresh records. Reads the disk only."""
    tables = tuple(tables)
    links = run_symlinks(path, tables)
    findings: list[Finding] = [Finding("symlink", link, SYMLINK_DETAIL) for link in links
                               if "/" not in link]  # a linked part is reported with its chunk below
    kept, out_records = [], {}
    listed_names = {t: set() for t in tables}
    for chunk in chunks:
        ok = {}
        for table in tables:
            key = part_key(table, *chunk)
            listed_names[table].add(part_name(*chunk))
            file = path / key
            if _linked(path, key):
                findings.append(_linked_finding(path, key, chunk))
                continue
            record = None if records is None else records.get(key)
            problem = part_problem(file, record) if records is None or record is not None else "damaged"
            if problem is None and record is None:  # legacy manifest: trust a footer of this run, then record it
                problem = _meta_says(_part_meta(file), spec_json, table, chunk) and "damaged"
                record = None if problem else record_of_file(file)
            if problem is None:
                ok[key] = record
                continue
            detail = "listed in the manifest, not on disk" if problem == "missing" else (
                "no record in the manifest" if records is not None and key not in records else problem)
            if problem == "damaged":
                meta = _part_meta(file)
                foreign = meta is not None and _meta_says(meta, spec_json, table, chunk) is not None
                problem, detail = ("foreign", _meta_says(meta, spec_json, table, chunk)) if foreign else (
                    "damaged", "its bytes differ from the manifest's checksum" if records is not None else
                    "unreadable footer")
            findings.append(Finding(problem if problem in ("missing", "damaged", "foreign") else "damaged",
                                    key, detail, chunk))
        if len(ok) == len(tables):
            kept.append(chunk)
            out_records.update(ok)
    candidates: dict[Chunk, dict[str, Path]] = {}
    for table in tables:
        for name, entry in sorted(_table_entries(path, table).items()):
            if name in listed_names[table]:
                continue
            key = f"{table}/{name}"
            chunk = parse_part_name(name)
            if entry.is_symlink():
                findings.append(Finding("symlink", key, SYMLINK_DETAIL))
                continue
            if chunk is None or not entry.is_file():
                findings.append(Finding("foreign", key, "not a part file of this run"))
                continue
            differs = _meta_says(_part_meta(entry), spec_json, table, chunk)
            if differs is not None:
                findings.append(Finding("foreign" if differs != "unreadable footer" else "stray", key, differs, chunk))
                continue
            candidates.setdefault(chunk, {})[table] = entry
    adopted = []
    for chunk, files in sorted(candidates.items()):
        whole = len(files) == len(tables) and all(_decodes(f) for f in files.values())
        free = not any(a < chunk[1] and chunk[0] < b for a, b in kept)
        if whole and free and adopt:
            bisect.insort(kept, chunk)
            adopted.append(chunk)
            for table, file in files.items():
                out_records[part_key(table, *chunk)] = record_of_file(file)
        if whole and free:
            findings += [Finding("unlisted", part_key(t, *chunk), "a whole part of this run the manifest does not "
                                 "list yet (not read; a resume adopts it)", chunk) for t in files]
        else:
            why = "overlaps a listed chunk" if not free else "not every table has it, or it does not decode"
            findings += [Finding("stray", part_key(t, *chunk), why + " (not read; a resume removes it)", chunk)
                         for t in files]
    return Inspection(kept, out_records, adopted, findings)


def quarantine(path: Path, relative: str) -> str:
    """Move ``path/relative`` into ``path/_quarantine/relative`` (a free name); the new relative path. A linked
    quarantine folder is replaced by a real one first (never moved into)."""
    if (path / QUARANTINE_NAME).is_symlink():
        os.unlink(path / QUARANTINE_NAME)
    target = path / QUARANTINE_NAME / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    stem, k = target, 0
    while target.exists():
        k += 1
        target = stem.with_name(f"{stem.name}.{k}")
    os.replace(path / relative, target)
    return str(target.relative_to(path))


def apply_inspection(path: Path, tables, found: Inspection) -> list[str]:
    """Make the table folders hold exactly the kept chunks' parts: damaged and foreign files are moved to
    ``_quarantine/``, stray parts and the unfinished siblings of dropped chunks removed. One line per
    change."""
    done = [f"chunk {c[0]}-{c[1]}: whole parts the manifest did not list yet, adopted" for c in found.adopted]
    kept = set(found.kept)
    for f in found.findings:
        if f.problem == "symlink" and (path / f.path).is_symlink():
            os.unlink(path / f.path)  # the link itself; what it points to is not the run's
            done.append(f"symlink {f.path}: removed (what it pointed to is untouched)")
        elif f.problem in ("damaged", "foreign") and (path / f.path).exists():
            done.append(f"{f.problem} {f.path}: moved to {quarantine(path, f.path)}")
        elif f.problem == "stray":
            (path / f.path).unlink(missing_ok=True)
            done.append(f"stray {f.path}: removed")
    dropped = {f.chunk for f in found.findings
               if f.chunk is not None and f.problem in ("missing", "damaged", "foreign", "symlink")}
    for chunk in sorted(c for c in dropped if c not in kept):
        for table in tables:
            sibling = path / part_key(table, *chunk)
            if sibling.is_file():
                sibling.unlink()
        done.append(f"chunk {chunk[0]}-{chunk[1]}: dropped from the manifest, to be played again")
    return done


# --- opening -----------------------------------------------------------------------------------------


def open_run(out: str | Path, spec: RunSpec, tables: tuple[str, ...] | list[str], field: str = "--out",
             restart: bool = False) -> RunStore:
    """Open (or create) the run directory ``out`` for ``spec`` writing ``tables``, holding its lock. With
    ``restart``, a run already there (of any spec) is cleared first, under the lock (:func:`_clear_run`).

    Refuses with :class:`SpecError`, changing nothing on disk, when ``out`` is a file, a non-empty
    directory that is not a run (a batch, a study, anything else), a run whose manifest is unreadable,
    a run of a different spec, or a run another process is writing. Otherwise checks every listed part
    against its checksum and tidies up (see :func:`apply_inspection`: a damaged, missing or foreign part
    is played again), removes what an interrupted run left behind, and returns the store with its
    completed chunks; ``store.repairs`` says what was fixed.
    """
    path = Path(out)
    tables = tuple(tables)
    manifest = _existing_manifest(path, field)
    if manifest is not None and not restart:
        _check_same_run(path, manifest, spec, tables, field)
    if manifest is not None and restart:
        _strangers_refused(path, manifest, field)
    path.mkdir(parents=True, exist_ok=True)
    lock = DirLock(path, field).acquire()
    try:
        if restart:
            _clear_run(path, field)
        store = _open_locked(path, spec, tables, field)
    except BaseException:
        lock.release()
        raise
    store.lock = lock
    return store


def _open_locked(path: Path, spec: RunSpec, tables: tuple[str, ...], field: str) -> RunStore:
    manifest = _existing_manifest(path, field)  # again: another writer may have finished in between
    if manifest is None:
        shutil.rmtree(path / TMP_NAME, ignore_errors=True)  # left by a run killed before its manifest
        store = RunStore(path, spec, tables)
        store.write_manifest()
        return store
    _check_same_run(path, manifest, spec, tables, field)
    found = inspect_run(path, spec.to_json(), tables, manifest_chunks(manifest), manifest.get("parts"))
    repairs = apply_inspection(path, tables, found)
    shutil.rmtree(path / TMP_NAME, ignore_errors=True)
    store = RunStore(path, spec, tables, list(found.kept), str(manifest.get("created") or _now()),
                     parts=dict(found.records), repairs=repairs)
    store.complete = not store.missing_ranges()
    store.write_manifest()
    return store


def _own_entries(manifest: dict) -> set[str]:
    """What a run directory may hold: its tables, manifest, quarantine, housekeeping and the files cardsim writes
    beside the data."""
    return {*manifest["tables"], MANIFEST_NAME, QUARANTINE_NAME, TMP_NAME, LOCK_NAME, *OWN_FILES, "report.html"}


def _strangers_refused(path: Path, manifest: dict, field: str) -> None:
    strangers = sorted(e.name for e in path.iterdir() if e.name not in _own_entries(manifest)
                       and not is_housekeeping(e.name))
    if strangers:
        raise SpecError(field, str(path), "a run directory holding only what cardsim wrote there",
                        f"holds {', '.join(strangers[:3])}, which --restart would not remove: move it first")


def _clear_run(path: Path, field: str) -> None:
    """Remove the run at ``path`` (``--restart``; the lock held): its table folders and files, then its manifest
    last, so that a restart killed half-way leaves a run that is resumed or restarted again."""
    manifest = _existing_manifest(path, field)
    if manifest is None:
        return
    _strangers_refused(path, manifest, field)
    for name in sorted(_own_entries(manifest) - {MANIFEST_NAME, LOCK_NAME}):
        entry = path / name
        if entry.is_symlink() or entry.is_file():
            entry.unlink()
        elif entry.is_dir():
            shutil.rmtree(entry)
    (path / MANIFEST_NAME).unlink()


def _existing_manifest(path: Path, field: str = "--out") -> dict | None:
    """The manifest of the run at ``path``; ``None`` when ``path`` is new or an empty directory."""
    if not path.exists():
        return None
    if not path.is_dir():
        raise SpecError(field, str(path), OUT_ALLOWED, "is a file, not a directory")
    manifest_path = path / MANIFEST_NAME
    if not manifest_path.exists():
        for marker, what in (("_batch.json", "a tournament or sweep"), ("_study.json", "a study")):
            if (path / marker).exists():
                raise SpecError(field, str(path), OUT_ALLOWED, f"holds {what} ({marker}), not a run")
        if not all(is_housekeeping(entry.name) for entry in path.iterdir()):
            raise SpecError(field, str(path), OUT_ALLOWED, "is not empty and is not a cardsim run (no _manifest.json)")
        return None
    return load_manifest_file(manifest_path, field)


def manifest_chunks(manifest: dict) -> list[Chunk]:
    return [(int(a), int(b)) for a, b in manifest["chunks"]]


REPAIR_HINT = "`cardsim verify {dir} --repair` rebuilds it from the parts' metadata"


def load_manifest_file(manifest_path: Path, field: str = "--out") -> dict:
    """Parse and check one ``_manifest.json`` (its seal, its shape, its spec's shape) and return what it says;
    :class:`MetadataError` naming the file and the field at fault otherwise (``field``, the option that named
    the directory, is kept for the callers' signatures)."""
    hint = REPAIR_HINT.format(dir=manifest_path.parent)
    data, damaged = read_sealed(manifest_path)
    if damaged:
        raise MetadataError(manifest_path, "", damaged, hint)
    why = _manifest_problem(data)
    if why:
        raise MetadataError(manifest_path, "", f"is not a valid run manifest ({FORMAT}: {why})", hint)
    bad = spec_dict_problem(data["spec"])
    if bad:
        raise MetadataError(manifest_path, bad[0], bad[1], hint)
    return data


def _manifest_problem(data) -> str | None:
    """What makes ``data`` not a run manifest, or ``None``."""
    if not isinstance(data, dict) or data.get("format") not in (FORMAT, *LEGACY_FORMATS):
        return "unknown format"
    if not isinstance(data.get("spec"), dict) or not isinstance(data.get("tables"), list) or not data["tables"]:
        return "no spec or tables"
    if not all(isinstance(t, str) and t and "/" not in t and not t.startswith(".") and t not in ("..", QUARANTINE_NAME)
               for t in data["tables"]):
        return "a table name that is not a folder name"
    chunks = data.get("chunks")
    if not isinstance(chunks, list) or not all(
            isinstance(c, list) and len(c) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in c)
            and 0 <= c[0] < c[1] for c in chunks):
        return "chunks are not [start, stop] pairs"
    if any(b[0] < a[1] for a, b in zip(chunks, chunks[1:])):
        return "chunks overlap or are out of order"
    parts = data.get("parts")
    if data["format"] == FORMAT and not (isinstance(parts, dict) and all(
            isinstance(r, dict) and isinstance(r.get("size"), int) and isinstance(r.get("sha256"), str)
            for r in parts.values())):
        return "no part records"
    return None


def _check_same_run(path: Path, manifest: dict, spec: RunSpec, tables: tuple[str, ...], field: str = "--out") -> None:
    stored = json.dumps(manifest["spec"], sort_keys=True, separators=(",", ":"))
    if stored != spec.to_json():
        differences = spec_differences(manifest["spec"], spec.to_dict())
        changed = [d for d in differences if d.endswith(".sha256")]
        if changed and changed == differences:
            index = int(re.match(r"strategies\[(\d+)\]", changed[0]).group(1))
            seat, now = manifest["spec"]["strategies"][index], spec.to_dict()["strategies"][index]
            raise SpecError(field, str(path), RESTART_ALLOWED,
                            f"holds a run of strategy file {Path(str(seat.get('source'))).name} as it was (sha256 "
                            f"{str(seat.get('sha256'))[:12]}…); the file has changed since (sha256 "
                            f"{str(now.get('sha256'))[:12]}…)")
        differs = ", ".join(differences) or "formatting"
        raise SpecError(field, str(path), RESTART_ALLOWED, f"holds a run with a different spec (differs in: {differs})")
    if list(manifest["tables"]) != list(tables):
        raise SpecError(
            field, str(path), OUT_ALLOWED,
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
        out += [f"strategies[{seat}].{k}" for k in ("source", "sha256", "label") if a.get(k) != b.get(k)]
    return out


# --- reading -----------------------------------------------------------------------------------------


class UnlistedFilesWarning(UserWarning):
    """A table folder holds files its manifest does not list (they are not read)."""


def read_manifest(out: str | Path, field: str = "run") -> dict:
    """The manifest of the run at ``out``; :class:`SpecError` when ``out`` is not a run directory."""
    path = Path(out)
    if not (path / MANIFEST_NAME).is_file():
        raise SpecError(field, str(path), "a cardsim run directory", "is not a run (no _manifest.json)")
    return load_manifest_file(path / MANIFEST_NAME, field)


def completed_chunks(out: str | Path, tables: list[str] | tuple[str, ...] | None = None) -> list[Chunk]:
    """The chunks the run's manifest lists as complete (``tables`` is accepted for compatibility)."""
    return manifest_chunks(read_manifest(out))


def listed_files(out: str | Path, table: str, manifest: dict | None = None, field: str = "run") -> list[Path]:
    """The part files of ``table`` the manifest lists, in game order, each checked against its record
    (size and sha256, once per process for an unchanged file). :class:`DatasetError` (one line: which part,
    what to run) when one is missing or damaged; files the manifest does not list are never read (a
    :class:`UnlistedFilesWarning` names them)."""
    path = Path(out)
    manifest = read_manifest(path, field) if manifest is None else manifest
    records = manifest.get("parts") if manifest.get("format") == FORMAT else None
    _warn_unlisted(path, table, {part_name(*c) for c in manifest_chunks(manifest)})
    if records is not None:
        _hash_ahead([path / part_key(table, *c) for c in manifest_chunks(manifest)])
    files = []
    for chunk in manifest_chunks(manifest):
        key = part_key(table, *chunk)
        problem = part_problem(path / key, None if records is None else records.get(key, {}))
        if problem is not None:
            raise DatasetError(f"{path}: the part {key} is {problem}; " + VERIFY_HINT.format(dir=path))
        files.append(path / key)
    return files


_WARNED: set = set()


def _warn_unlisted(path: Path, table: str, listed: set[str]) -> None:
    extra = sorted(n for n in _table_entries(path, table) if n not in listed)
    key = (str(path.resolve()), table, tuple(extra))
    if extra and key not in _WARNED:
        _WARNED.add(key)
        warnings.warn(f"{path / table} holds {len(extra)} file(s) its manifest does not list (not read: "
                      f"{', '.join(extra[:3])}{' …' if len(extra) > 3 else ''}); `cardsim verify {path}` says more",
                      UnlistedFilesWarning, stacklevel=3)


def read_table(out: str | Path, table: str = "hands", lazy: bool = True, field: str = "run"):
    """One table of a run as a polars ``LazyFrame`` (``lazy=True``) or ``DataFrame``, rows in game
    order, over the chunks the manifest lists (a run still in progress shows what is recorded). Every
    part is checked against its checksum first (:func:`listed_files`)."""
    manifest = read_manifest(out, field)
    tables = list(manifest["tables"])
    if table not in tables:
        raise SpecError("table", table, " | ".join(tables))
    files = listed_files(out, table, manifest, field)
    if not files:
        raise SpecError(field, str(out), "a run with at least one completed chunk", "holds no completed chunk yet")
    frame = pl.scan_parquet([str(f) for f in files])
    return frame if lazy else frame.collect()


def check_own_directory(out: Path, meta: str, expected: dict, what: str, allowed: str) -> None:
    """Refuse (:class:`SpecError` on ``--out``, nothing written) a directory that cannot hold the ``what`` (a
    tuning, a growth) whose sealed inputs file is ``meta`` with content ``expected``: a file; a directory whose
    ``meta`` is damaged or holds other inputs; another dataset; a non-empty directory without ``meta``. A new or
    empty directory, or the same inputs (a resume), pass."""
    if not out.exists():
        return
    if not out.is_dir():
        raise SpecError("--out", str(out), allowed, "is a file")
    if (out / meta).is_file():
        data, damaged = read_sealed(out / meta)
        if damaged:
            raise SpecError("--out", str(out), allowed, f"has a {meta} that {damaged}")
        if data != json.loads(json.dumps(expected)):
            raise SpecError("--out", str(out), allowed, f"holds another {what}")
        return
    for marker in MARKERS:
        if (out / marker).exists():
            raise SpecError("--out", str(out), allowed, f"holds a dataset ({marker})")
    if not all(is_housekeeping(e.name) for e in out.iterdir()):
        raise SpecError("--out", str(out), allowed, f"is not empty and is not a {what} (no {meta})")
