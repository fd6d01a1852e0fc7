"""The registry of studies: one package per study under ``analysis/studies/<study>/``, whose ``STUDY`` (a
:class:`~analysis.studies.declaration.StudyDef`) names its plan, frames, answer (``study.py``) and report page
(``page.py``, its charts in ``charts.py``); a new study is its package and one line in :data:`STUDIES`.

A study is a directory ``OUT`` holding ``OUT/_study.json`` (``{"study", "game", "inputs", "parts", ...}``), its
runs, batches and steps, its own Parquet frames, ``OUT/answer.md``, ``OUT/answer.json`` and ``OUT/report.html``;
:func:`simulator.core.run.plan.execute` runs the plan.
"""

from __future__ import annotations

from analysis.studies import balance, kamoul_call, rami_openings
from analysis.studies.declaration import StudyDef
from simulator.core.errors import SpecError
from simulator.core.run.plan import recorded_study_name
from simulator.games import GAMES


STUDIES: dict[str, StudyDef] = {s.name: s for s in (kamoul_call.STUDY, rami_openings.STUDY, balance.STUDY)}
"""Every study by name: one line each, its package declares the rest."""


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
