"""Is this rule set balanced: seat positions, luck against skill, lengths, one sweep per rule option, for any
game with balance hints (``study.py``: plan, frames, answer; ``charts.py``; ``page.py``)."""

from __future__ import annotations

from analysis.studies.balance import page, study
from analysis.studies.declaration import StudyDef

STUDY = StudyDef(study.STUDY_NAME, None, study, page.build_report,
                 "is this rule set balanced: seats, luck vs skill, lengths, one sweep per rule option")
