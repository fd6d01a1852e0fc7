"""What every study's page shares: its verdict, from the study's answer (``analysis.<study>.answer``, the same
numbers as ``answer.md`` and ``answer.json``), and the page around its sections."""

from __future__ import annotations

from pathlib import Path

from analysis.studies import study_def
from reports.layout import Figure, Page, Section, write_page
from simulator.core.i18n import _


def write_study_page(out: Path, out_dir: Path, study: str, title: str | None, sections: list[Section],
                     headline: Figure | None, appendix: list) -> Path:
    """Write a study's page to ``out``: the answer's sentences beside ``headline``, then ``sections``, then the
    folded ``appendix`` (the study's description)."""
    answer = study_def(study).module.answer(out_dir)
    page = Page(title or _("cardsim study {study}: {name}").format(study=study, name=out_dir.name),
                list(answer.sentences), sections, headline=headline, holds_for=answer.holds_for, appendix=appendix,
                note=_("Every rate carries its 95% Wilson interval and every mean its 95% t interval; every number with "
                       "its interval and n is in answer.md and answer.json beside this page. Generated from the study "
                       "directory {path}.").format(path=out_dir.resolve()))
    return write_page(out, page)
