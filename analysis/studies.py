"""The registry of studies: which games each study accepts, how it is planned and what frames it computes.

A study is a directory ``OUT`` holding ``OUT/_study.json`` (``{"study", "game", "inputs", "parts", ...}``), its
runs, batches and steps, its own Parquet frames and ``OUT/report.html``. Each study module (``analysis/<study>.py``)
exposes ``plan(out, *, game, n, seed, players, threads, chunk_size) -> simulator.core.run.plan.Plan`` (every input
validated first: a refused command leaves the disk as it was) and ``study_frames(out) -> {name: frame}`` (pure
functions of the stored tables) and ``answer(out) -> analysis.answers.Answer`` (the verdict as data, from
what the study stored); :func:`simulator.core.run.plan.execute` runs the plan. Reports are registered by
study name in ``reports/dispatch.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

from analysis import balance, kamoul_call, rami_openings
from simulator.core.errors import SpecError
from simulator.core.run.plan import recorded_study_name
from simulator.games import GAMES


@dataclass(frozen=True)
class StudyDef:
    name: str
    games: tuple[str, ...] | None  # None: every registered game that its module accepts
    module: ModuleType  # plan(...), study_frames(out), load_study(out)
    summary: str

    def accepts(self, game: str) -> bool:
        return self.games is None or game in self.games


STUDIES: dict[str, StudyDef] = {s.name: s for s in (
    StudyDef(kamoul_call.STUDY_NAME, kamoul_call.GAMES, kamoul_call,
             "when to call Kamoul: counterfactual rollouts, the policy they imply, and its gain over the presets"),
    StudyDef(rami_openings.STUDY_NAME, rami_openings.GAMES, rami_openings,
             "every Rami opening strategy against the others, the 51 threshold and the joker rules"),
    StudyDef(balance.STUDY_NAME, None, balance,
             "is this rule set balanced: seats, luck vs skill, lengths, one sweep per rule option"),
)}


def study_def(name: str) -> StudyDef:
    if name not in STUDIES:
        raise SpecError("STUDY", name, ", ".join(STUDIES))
    return STUDIES[name]


def study_games(study: StudyDef) -> tuple[str, ...]:
    """The games the study plays: its own list, or every registered game with balance hints."""
    return study.games if study.games is not None else tuple(g for g, p in GAMES.items() if p.balance is not None)


def check_game(study: StudyDef, game: str | None) -> str:
    """The study's game: ``game``, or the study's only game when ``game`` is ``None``."""
    games = study_games(study)
    if game is None:
        if len(games) == 1:
            return games[0]
        raise SpecError("GAME", "(none)", f"one of {', '.join(games)} (the {study.name} study needs a game)")
    if game not in games:
        raise SpecError("GAME", game, f"{', '.join(games)} (the games of the {study.name} study)")
    return game


def study_name_of(out) -> str | None:
    """The registered study recorded in ``out/_study.json``, or ``None`` when ``out`` holds no study file."""
    name = recorded_study_name(out)
    if name is not None and name not in STUDIES:
        raise SpecError("RUN", str(out), "a study directory", f"names an unknown study {name!r}")
    return name
