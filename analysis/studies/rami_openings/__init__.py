"""Which Rami opening strategy wins: every opening family against the others, the 51 threshold and the joker
rules (``study.py``: plan, frames, answer; ``charts.py``; ``page.py``)."""

from __future__ import annotations

from analysis.studies.declaration import StudyDef
from analysis.studies.rami_openings import page, study

STUDY = StudyDef(study.STUDY_NAME, study.GAMES, study, page.build_report,
                 "every Rami opening strategy against the others, the 51 threshold and the joker rules")
