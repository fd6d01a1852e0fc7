"""A study as a plan the core executes: ordered parts (runs, batches, resumable steps), a study file, a lock,
one progress bar, and the study's frames once every part is done.

A study module (``analysis/<study>.py``) validates its inputs and returns a :class:`Plan`; it never runs games
itself. :func:`execute` does the rest, the same way for every study:

* refuse a directory that cannot hold this study with these inputs before anything is written
  (:func:`check_same_study`: a file, a run, a batch, another study, the same study with other inputs, a
  non-empty directory that is no study), then hold the directory's lock while the parts take their own;
* write ``OUT/_study.json`` = ``{"study", "game", "inputs", "parts", **record}``, sealed with its checksum
  (:mod:`simulator.core.storage.sealed`), and the same document to ``OUT/_study.backup.json``: the study's identity (its
  inputs) is in no other file, so a damaged study file is restored from its twin by ``cardsim verify --repair``
  (:func:`repair_study_file`) and the study resumes;
* run the parts in order under one bar. A part is made when its turn comes (:attr:`Part.make`), so a later part
  may depend on what earlier ones found (Kamoul's balance study plays its best preset, chosen by the skill
  tournament); ``Plan.after(name)`` returns keys to add to the study file when part ``name`` is done;
* once all are done, compute ``Plan.frames(OUT)`` (pure functions of the stored tables), write each as
  ``OUT/<name>.parquet`` and mark the study file ``"complete": true``.

Every part resumes (runs and batches from their chunks, steps from their own part files), so running the same
study again resumes it; an interrupted part stops the plan with ``interrupted`` set.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import polars as pl

from simulator.core.contract.registry import get_game
from simulator.core.errors import MetadataError, SpecError, field_text
from simulator.core.i18n import _
from simulator.core.progress import progress as progress_of
from simulator.core.run.backends import check_threads
from simulator.core.run.batch import Batch, result_writer, run_batch
from simulator.core.run.runner import MAX_CHUNKS, check_chunk_size, run
from simulator.core.storage.dirlock import DirLock
from simulator.core.storage.ledger import write_frame
from simulator.core.storage.sealed import read_sealed, sealed
from simulator.core.storage.spec import MAX_SEED, RunSpec, build_spec, parse_strategy
from simulator.core.storage.store import is_housekeeping, write_json_atomic

STUDY_FILE = "_study.json"
STUDY_BACKUP = "_study.backup.json"  # the same sealed document, written after it
STUDY_HINT = "`cardsim verify {dir} --repair` restores it from {backup}"


@dataclass(frozen=True)
class Step:
    """Work a study does itself, resumably (e.g. sampled rollouts into part files): ``run(progress) -> bool``,
    False when interrupted."""

    run: Callable[[bool], bool]


@dataclass(frozen=True)
class Part:
    """One part of a plan: its ``name`` (its directory under the study when it is a run or a batch), ``make()``
    -> a :class:`~simulator.core.storage.spec.RunSpec`, a :class:`~simulator.core.run.batch.Batch` or a :class:`Step`, and for
    a batch ``stores(path) -> {name: frame}``, its frames (analysis) of which the result frames are written into
    the batch directory when it completes (:data:`simulator.core.run.batch.RESULT_FRAMES`)."""

    name: str
    make: Callable[[], RunSpec | Batch | Step]
    stores: Callable[[Path], dict] | None = None


@dataclass(frozen=True)
class Plan:
    """What :func:`execute` runs: the ``study`` and ``game`` names, the ``inputs`` that identify it (a resumed
    study must have the same; ``how`` names the options that must match), its ``parts``, ``frames(out)``, and
    optionally ``after(name) -> dict`` (keys for the study file) and the study file's first ``record``."""

    study: str
    game: str
    inputs: dict
    how: str
    parts: Sequence[Part]
    frames: Callable[[Path], dict[str, pl.DataFrame]]
    after: Callable[[str], dict | None] | None = None
    record: dict = field(default_factory=dict)


@dataclass
class StudyRun:
    path: Path
    interrupted: bool
    frames: dict[str, pl.DataFrame] | None


def execute(plan: Plan, out: str | Path, *, threads: int | None = None, chunk_size: int | None = None,
            progress: bool = True) -> StudyRun:
    """Run (or resume) ``plan`` into ``out``; see the module doc."""
    path = Path(out)
    with open_study(path, plan.study, plan.inputs, plan.how):
        record = {"study": plan.study, "game": plan.game, "inputs": plan.inputs,
                  "parts": [part.name for part in plan.parts], **plan.record}
        if (path / STUDY_FILE).exists():  # a resumed study keeps what its finished parts recorded
            previous = load_study_file(path, plan.study)
            record.update({k: v for k, v in previous.items() if k not in record or k in plan.record})
        record.pop("complete", None)
        write_study_file(path, record)
        stage = f"study {plan.study} {plan.game}"
        with progress_of(len(plan.parts), stage, "parts", enabled=progress) as bar:
            for k, part in enumerate(plan.parts):
                label = _("{study} {part} (part {k}/{total})").format(study=plan.study, part=part.name, k=k + 1,
                                                                     total=len(plan.parts))
                work = part.make()
                if isinstance(work, Step):
                    done = work.run(progress)
                elif isinstance(work, Batch):
                    on_complete = None if part.stores is None else result_writer(work.kind, part.stores)
                    done = not run_batch(work, path / part.name, chunk_size=chunk_size, threads=threads,
                                         progress=progress, on_complete=on_complete, label=label,
                                         nested=True).interrupted
                else:
                    done = not run(work, path / part.name, chunk_size=chunk_size, threads=threads,
                                   progress=progress, label=label, nested=True).interrupted
                bar.update(1)
                if not done:
                    return StudyRun(path, True, None)
                extra = plan.after(part.name) if plan.after is not None else None
                if extra:
                    record.update(extra)
                    write_study_file(path, record)
        frames = plan.frames(path)
        for name, frame in frames.items():
            write_frame(path / f"{name}.parquet", frame)
        write_study_file(path, {**record, "complete": True})
        return StudyRun(path, False, frames)


# --- the study file, the directory, the settings: validated before anything is written ----------------------


def write_study_file(path: Path, record: dict) -> None:
    """``record`` sealed into ``path/_study.json``, then into its twin ``_study.backup.json`` (a kill between
    the two leaves the twin one step behind: same inputs, which is all a restore needs)."""
    document = sealed(record)
    write_json_atomic(path / STUDY_FILE, document)
    write_json_atomic(path / STUDY_BACKUP, document)


def _read_checked(file: Path) -> tuple[dict | None, tuple[str, str] | None]:
    """``(what the study file says, None)``, or ``(None, (field, reason))`` when it cannot be trusted: unreadable,
    failing its seal, or a field of the wrong kind (``field`` is ``""`` for the whole file). A file written before
    seals existed is read as it is."""
    data, damaged = read_sealed(file)
    if damaged:
        return None, ("", damaged)
    for key, kind in (("study", str), ("inputs", dict)):
        if not isinstance(data.get(key), kind):
            return None, (key, f"is {data.get(key)!r}, not a{'n' if kind is dict else ''} "
                               f"{'object' if kind is dict else 'text'}")
    for key, kind in (("game", str), ("parts", list), ("complete", bool)):
        if key in data and not isinstance(data[key], kind):
            return None, (key, f"is {data[key]!r}, not a {'list' if kind is list else kind.__name__}")
    return data, None


def study_file_problem(file: Path) -> tuple[str, str] | None:
    """``(field, reason)`` when the study file ``file`` (``_study.json`` or its twin) cannot be trusted, else
    ``None`` (:func:`_read_checked`)."""
    return _read_checked(file)[1]


def read_study_file(out: str | Path) -> dict:
    """What ``out/_study.json`` says, checked (:func:`study_file_problem`); :class:`MetadataError` naming the file
    and field when it cannot be trusted, :class:`FileNotFoundError` when there is none."""
    file = Path(out) / STUDY_FILE
    if not file.is_file():
        if (Path(out) / STUDY_BACKUP).is_file():
            raise MetadataError(file, "", "is missing", STUDY_HINT.format(dir=out, backup=STUDY_BACKUP))
        raise FileNotFoundError(file)
    data, problem = _read_checked(file)
    if problem is not None:
        raise MetadataError(file, *problem, STUDY_HINT.format(dir=out, backup=STUDY_BACKUP))
    return data


def repair_study_file(out: str | Path) -> str | None:
    """Set the study file of ``out`` and its twin right from each other: a damaged or missing one is rewritten
    from the intact one. Returns what was done (``None``: nothing to do); :class:`MetadataError` when neither
    is intact (the study's inputs are lost: run the study again into a new directory)."""
    path = Path(out)
    main, twin = path / STUDY_FILE, path / STUDY_BACKUP
    main_bad = study_file_problem(main) if main.exists() else ("", "is missing")
    if not twin.exists() and main_bad is None:
        return None  # written before twins existed
    twin_bad = study_file_problem(twin) if twin.exists() else ("", "is missing")
    if main_bad is None and twin_bad is None:
        return None
    if main_bad is not None and twin_bad is not None:
        raise MetadataError(main, main_bad[0], main_bad[1] + f" and so is {STUDY_BACKUP}",
                            "the study's inputs are lost: run the study again into a new directory")
    good, bad = (twin, main) if main_bad is not None else (main, twin)
    write_json_atomic(bad, sealed(_read_checked(good)[0]))
    return f"{bad.name}: {field_text(*(main_bad or twin_bad))}; written again from {good.name}"


def load_study_file(out: str | Path, name: str, field: str = "--out") -> dict:
    """``out/_study.json`` of the study ``name``: :class:`SpecError` on ``field`` when missing or another study's,
    :class:`MetadataError` when damaged (:func:`read_study_file`)."""
    try:
        data = read_study_file(out)
    except FileNotFoundError:
        raise SpecError(field, str(out), f"a {name} study directory", f"has no {STUDY_FILE}") from None
    if data["study"] != name:
        raise SpecError(field, str(out), f"a {name} study directory", f"holds another study ({data['study']})")
    return data


def recorded_study_name(out: str | Path) -> str | None:
    """The name recorded in ``out/_study.json`` (not checked against any registry), or ``None`` when ``out``
    holds no study file; :class:`MetadataError` when it is damaged."""
    try:
        return read_study_file(out)["study"]
    except FileNotFoundError:
        return None


def check_same_study(out: str | Path, name: str, inputs: dict, how: str) -> None:
    """Refuse (:class:`SpecError`, nothing written) an ``out`` that cannot hold the study ``name`` with these
    ``inputs``: a file, a run, a tournament or sweep, another study, the same study with other inputs (``how``
    names the options that must match), or a non-empty directory that is no study."""
    path = Path(out)
    allowed = f"a new or empty directory, or the same study ({how})"
    if not path.exists():
        return
    if not path.is_dir():
        raise SpecError("--out", str(path), allowed, "is a file, not a directory")
    if (path / STUDY_FILE).exists() or (path / STUDY_BACKUP).exists():
        if load_study_file(out, name)["inputs"] != json.loads(json.dumps(inputs)):
            raise SpecError("--out", str(out), allowed, "holds a different study")
        return
    for marker, what in (("_manifest.json", "a run"), ("_batch.json", "a tournament or sweep")):
        if (path / marker).exists():
            raise SpecError("--out", str(path), allowed, f"holds {what} ({marker}), not a {name} study")
    if not all(is_housekeeping(e.name) for e in path.iterdir()):
        raise SpecError("--out", str(path), allowed, f"is not empty and is not a cardsim study (no {STUDY_FILE})")


@contextmanager
def open_study(out: str | Path, name: str, inputs: dict, how: str):
    """Create ``out`` if needed and hold its lock for the duration (the check of :func:`check_same_study` is
    made again under the lock); yields the directory."""
    check_same_study(out, name, inputs, how)
    path = Path(out)
    path.mkdir(parents=True, exist_ok=True)
    with DirLock(path, "--out"):
        check_same_study(out, name, inputs, how)
        yield path


def check_games(n, unit: str) -> int:
    """``n`` as a study's ``-n``: a count of ``unit`` (e.g. "whole games per seating") in [1, 10^12]."""
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 10**12:
        raise SpecError("-n", n, f"a number of {unit} in [1, 10^12]")
    return n


def check_study_settings(*, n: int, seed, threads, chunk_size) -> None:
    """The seed, threads and chunk size of a study, validated (:class:`SpecError`) before anything is written:
    they are used only by later parts, which must not fail after earlier ones wrote."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise SpecError("--seed", seed, f"an integer in [0, {MAX_SEED}]")
    check_threads(threads)
    if chunk_size is not None:
        check_chunk_size(chunk_size)
        if -(-n // chunk_size) > MAX_CHUNKS:
            raise SpecError("--chunk-size", chunk_size, f"an integer >= {-(-n // MAX_CHUNKS):,} for -n {n:,} (at most "
                            f"{MAX_CHUNKS:,} chunks in one run)", f"makes {-(-n // chunk_size):,} chunks")


def check_study_rules(game: str, options: dict | None, players: int | None = None) -> dict:
    """The rule options a study plays (``--option K=V``), validated as a run's are (one-line :class:`SpecError`
    naming ``--option K``); returns the given options only, as typed values, in name order (stored in the
    study's inputs, so a changed one is refused on resume)."""
    if not options:
        return {}
    spec = build_spec(game, n=1, seed=0, players=players, options=dict(options))
    resolved = dict(spec.options)
    return {k: resolved[k] for k in sorted(options)}


def check_study_strategies(game: str, strategies, *, at_least: int = 1, at_most: int | None = None,
                           what: str = "") -> list[str] | None:
    """``--strategy`` of a study: ``None`` (the study's own) or the strategy texts, each validated as a run's
    (one-line :class:`SpecError`), between ``at_least`` and ``at_most`` of them; ``what`` says what they set."""
    if not strategies:
        return None
    texts = [str(t) for t in strategies]
    count = f"{at_least}" + ("" if at_most == at_least else f" to {at_most}" if at_most else " or more")
    if len(texts) < at_least or (at_most is not None and len(texts) > at_most):
        raise SpecError("--strategy", len(texts), f"{count} strategies ({what})", "strategies given")
    plugin = get_game(game)
    for text in texts:
        parse_strategy(plugin, text)
    return texts


def check_players(players, allowed=range(2, 7)) -> tuple[int, ...]:
    """The player counts of a study: distinct integers in ``allowed``; :class:`SpecError` otherwise."""
    lo, hi = min(allowed), max(allowed)
    example = ",".join(str(p) for p in list(allowed)[:3])
    try:
        values = tuple(int(p) for p in (players.split(",") if isinstance(players, str) else players))
    except (TypeError, ValueError):
        raise SpecError("--players", players, f"player counts in [{lo}, {hi}] separated by commas, e.g. {example}") from None
    if not values or len(set(values)) != len(values) or any(p not in allowed for p in values):
        raise SpecError("--players", players if isinstance(players, str) else ",".join(map(str, values)),
                        f"distinct player counts in [{lo}, {hi}] separated by commas, e.g. {example}")
    return values
