"""When to call KAMOUL: counterfactual rollouts of the call at every turn, the call policy they imply, and its
gain over the presets, played in a tournament (``study.py``: plan, frames, answer; ``charts.py``; ``page.py``)."""

from __future__ import annotations

from analysis.studies.declaration import StudyDef
from analysis.studies.kamoul_call import page, study

STUDY = StudyDef(study.STUDY_NAME, study.GAMES, study, page.build_report,
                 "when to call Kamoul: counterfactual rollouts, the policy they imply, and its gain over the presets")
