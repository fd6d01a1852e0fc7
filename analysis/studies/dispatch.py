"""Which report a directory gets: a run's, a tournament's or sweep's, a tuning's, or its study's own (the
study's ``report``, :mod:`analysis.studies`)."""

from __future__ import annotations

from pathlib import Path

from analysis.studies import study_def, study_name_of
from reports import batch_report, run_report, tune_report
from reports.output import check_run
from simulator.core.errors import SpecError
from simulator.core.run.batch import BATCH_NAME, load_batch
from simulator.core.storage.store import MANIFEST_NAME

def check_source(path: str | Path) -> str:
    """``"study"`` when ``path`` is a study directory (``_study.json``), ``"tune"`` a finished tuning, ``"batch"`` a
    tournament or sweep directory (``_batch.json``), ``"run"`` a run; :class:`SpecError` on field ``RUN`` otherwise."""
    if study_name_of(path) is not None:
        return "study"
    if (Path(path) / "_tune.json").is_file():
        if not (Path(path) / "best.toml").is_file():
            raise SpecError("RUN", str(path), "a finished tuning (best.toml)", "is not finished: re-run the tune command")
        return "tune"
    if (Path(path) / BATCH_NAME).is_file():
        load_batch(path, "RUN")
        return "batch"
    if Path(path).is_dir() and not (Path(path) / MANIFEST_NAME).exists():
        raise SpecError("RUN", str(path), "a cardsim run directory, a tournament or sweep directory, or a study directory",
                        f"is neither a run, a batch nor a study (no {MANIFEST_NAME}, {BATCH_NAME} or _study.json)")
    check_run(path)
    return "run"


def build_any_report(path: str | Path, out_html: str | Path, *, title: str | None = None) -> Path:
    """The report of whatever ``path`` holds (:func:`check_source`), written to ``out_html``."""
    kind = check_source(path)
    if kind == "study":
        return study_def(study_name_of(path)).report(path, out_html, title=title)
    if kind == "batch":
        return batch_report.build_batch_report(path, out_html, title=title)
    if kind == "tune":
        return tune_report.build_tune_report(path, out_html, title=title)
    return run_report.build_report(path, out_html, title=title)
