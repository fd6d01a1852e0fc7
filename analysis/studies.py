"""The registry of studies: which games each study accepts, the module that runs it and the module that
reports it. A study is a directory ``OUT`` holding ``OUT/_study.json`` (``{"study", "game", "inputs",
"parts"}``), its batches or runs, its own Parquet frames and ``OUT/report.html``.

Every study module exposes ``run(out, *, game, n, seed, players, threads, chunk_size, progress) -> {"path",
"interrupted", "frames"}``, every report module ``build_report(out_dir, out_html, *, title=None, frames=None) ->
Path``. Modules are imported only when their study is used.

A study's ``run`` validates every input first (:func:`check_study_settings`, :func:`check_players`,
:func:`check_rounds`), then refuses a directory that is not empty and not the same study
(:func:`check_same_study`: a run, a batch, another study, anything else), then works inside
:func:`open_study` (the directory's lock, held while its parts take their own): a refused command leaves
the disk as it was.
"""

from __future__ import annotations

import importlib
import json
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from simulator.core.errors import SpecError

STUDY_FILE = "_study.json"


@dataclass(frozen=True)
class StudyDef:
    name: str
    games: tuple[str, ...]
    runner: str  # module with run(...)
    reporter: str  # module with build_report(...)
    summary: str

    def run_module(self):
        return importlib.import_module(self.runner)

    def report_module(self):
        return importlib.import_module(self.reporter)


STUDIES: dict[str, StudyDef] = {s.name: s for s in (
    StudyDef("kamoul-call", ("kamoul",), "analysis.kamoul_call", "reports.kamoul_call_html",
             "when to call Kamoul: counterfactual rollouts, the policy they imply, and its gain over the presets"),
    StudyDef("rami-openings", ("rami",), "analysis.rami_openings", "reports.rami_openings_html",
             "every Rami opening strategy against the others, the 51 threshold and the joker rules"),
    StudyDef("balance", ("kamoul", "rami", "kems"), "analysis.balance", "reports.balance_html",
             "is this rule set balanced: seats, luck vs skill, lengths, one sweep per rule option"),
)}


def study_def(name: str) -> StudyDef:
    if name not in STUDIES:
        raise SpecError("STUDY", name, ", ".join(STUDIES))
    return STUDIES[name]


def check_game(study: StudyDef, game: str | None) -> str:
    """The study's game: ``game``, or the study's only game when ``game`` is ``None``."""
    if game is None:
        if len(study.games) == 1:
            return study.games[0]
        raise SpecError("GAME", "(none)", f"one of {', '.join(study.games)} (the {study.name} study needs a game)")
    if game not in study.games:
        raise SpecError("GAME", game, f"{', '.join(study.games)} (the games of the {study.name} study)")
    return game


def study_name_of(out: str | Path) -> str | None:
    """The name recorded in ``out/_study.json``, or ``None`` when ``out`` holds no study file."""
    path = Path(out) / STUDY_FILE
    if not path.is_file():
        return None
    try:
        name = json.loads(path.read_text(encoding="utf-8"))["study"]
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        raise SpecError("RUN", str(out), "a study directory", f"has a broken {STUDY_FILE}") from None
    if not isinstance(name, str) or name not in STUDIES:
        raise SpecError("RUN", str(out), "a study directory", f"names an unknown study {name!r}")
    return name


def load_study_file(out: str | Path, name: str, field: str = "--out") -> dict:
    """``out/_study.json`` of the study ``name``; :class:`SpecError` on ``field`` when missing or another study's."""
    path = Path(out) / STUDY_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        assert isinstance(data, dict) and data["study"] == name and isinstance(data["inputs"], dict)
        return data
    except FileNotFoundError:
        raise SpecError(field, str(out), f"a {name} study directory", f"has no {STUDY_FILE}") from None
    except (OSError, ValueError, KeyError, AssertionError, TypeError, RecursionError):
        raise SpecError(field, str(out), f"a {name} study directory",
                        f"has a broken {STUDY_FILE} or holds another study") from None


def check_same_study(out: str | Path, name: str, inputs: dict, how: str) -> None:
    """Refuse (:class:`SpecError`, nothing written) an ``out`` that cannot hold the study ``name`` with these
    ``inputs``: a file, a run, a tournament or sweep, another study, the same study with other inputs (``how``
    names the options that must match), or a non-empty directory that is no study."""
    from simulator.core.store import is_housekeeping

    path = Path(out)
    allowed = f"a new or empty directory, or the same study ({how})"
    if not path.exists():
        return
    if not path.is_dir():
        raise SpecError("--out", str(path), allowed, "is a file, not a directory")
    if (path / STUDY_FILE).exists():
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
    from simulator.core.dirlock import DirLock

    check_same_study(out, name, inputs, how)
    path = Path(out)
    path.mkdir(parents=True, exist_ok=True)
    with DirLock(path, "--out"):
        check_same_study(out, name, inputs, how)
        yield path


def check_rounds(n) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 10**12:
        raise SpecError("-n", n, "a number of rounds per cell in [1, 10^12]")
    return n


def check_study_settings(*, n: int, seed, threads, chunk_size) -> None:
    """The seed, threads and chunk size of a study, validated (:class:`SpecError`) before anything is written:
    they are used only by later parts, which must not fail after earlier ones wrote."""
    from simulator.core.backends import check_threads
    from simulator.core.runner import MAX_CHUNKS, check_chunk_size
    from simulator.core.spec import MAX_SEED

    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise SpecError("--seed", seed, f"an integer in [0, {MAX_SEED}]")
    check_threads(threads)
    if chunk_size is not None:
        check_chunk_size(chunk_size)
        if -(-n // chunk_size) > MAX_CHUNKS:
            raise SpecError("--chunk-size", chunk_size, f"an integer >= {-(-n // MAX_CHUNKS):,} for -n {n:,} (at most "
                            f"{MAX_CHUNKS:,} chunks in one run)", f"makes {-(-n // chunk_size):,} chunks")


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


def run_parts(parts, desc: str, progress: bool, after=None) -> bool:
    """Run the study's ``(name, run)`` parts in order under one progress bar, calling ``after(name)`` when one
    is done (later parts may depend on it); False as soon as one is interrupted (its finished chunks are kept:
    re-running the study resumes it)."""
    from tqdm import tqdm

    with tqdm(parts, desc=desc, unit="part", disable=None if progress else True, dynamic_ncols=True) as bar:
        for name, part in bar:
            bar.set_postfix_str(name)
            if part().interrupted:
                return False
            if after is not None:
                after(name)
    return True
