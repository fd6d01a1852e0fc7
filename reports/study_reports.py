"""The registry of study reports, keyed by study name (``analysis.studies``): each ``build_report(out_dir,
out_html, *, title=None, frames=None) -> Path`` draws a finished study directory's page from its frames."""

from __future__ import annotations

from analysis import balance, kamoul_call, rami_openings
from reports import balance_html, kamoul_call_html, rami_openings_html

REPORTS = {
    kamoul_call.STUDY_NAME: kamoul_call_html.build_report,
    rami_openings.STUDY_NAME: rami_openings_html.build_report,
    balance.STUDY_NAME: balance_html.build_report,
}
