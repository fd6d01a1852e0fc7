"""What every study's page shares: its verdict, from the study's answer (its ``study.answer``, the same numbers as
``answer.md`` and ``answer.json``), and the page around its sections."""

from __future__ import annotations

from pathlib import Path

from analysis.answers import Answer
from reports.layout import Figure, Page, Section, write_page
from reports.tables import table
from simulator.core.i18n import _

def write_study_page(out: Path, out_dir: Path, answer: Answer, title: str, sections: list[Section],
                     headline: Figure | None, appendix: list) -> Path:
    """Write a study's page titled ``title`` (its question) to ``out``: the ``answer``'s headline and table beside
    ``headline`` (its detailed sentences folded under them), then ``sections``, then the folded ``appendix`` (the
    study's description)."""
    short = answer.table
    page = Page(title,
                list(answer.headline or answer.sentences), sections, headline=headline, holds_for=answer.holds_for,
                appendix=appendix, verdict_details=list(answer.sentences) if answer.headline else [],
                verdict_table=table(short.columns, short.rows, id="verdict-table", caption=_("The answer's numbers"),
                                    drop_constant=False) if short else None,
                verdict_notes=list(short.notes) if short else [],
                note=_("Every rate carries its 95% Wilson interval and every mean its 95% t interval; every number with "
                       "its interval and n is in answer.md and answer.json beside this page. Generated from the study "
                       "directory {path}.").format(path=out_dir.resolve()))
    return write_page(out, page)
