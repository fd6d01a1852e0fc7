"""The shared layout of every report page: what a page holds (:class:`Page` of :class:`Section` of
:class:`Block`), its rendering by the Jinja2 templates of ``reports/templates`` (autoescaped), the charts as
embedded PNGs (:func:`figure`) and the atomic write.

Every page reads in the same order: the verdict in a box with the headline chart beside it, a table of contents,
then the sections, where each chart stands beside the numbers it shows and long tables are folded, then the
appendix (the spec, the rule options; folded). Nothing is wider than the page: tables scroll inside their box.
"""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass, field
from pathlib import Path

import jinja2
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from markupsafe import Markup  # noqa: E402

from simulator.core.i18n import _, current_language, ngettext  # noqa: E402
from simulator.core.storage.store import write_bytes_atomic  # noqa: E402

ENVIRONMENT = jinja2.Environment(loader=jinja2.PackageLoader("reports", "templates"), autoescape=True,
                                 trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined,
                                 extensions=["jinja2.ext.i18n"])
ENVIRONMENT.install_gettext_callables(gettext=_, ngettext=ngettext, newstyle=True)


@dataclass(frozen=True)
class Figure:
    """One chart: its element ``id``, its ``caption`` (also the image's alt text) and the PNG in base64."""
    id: str
    caption: str
    png: str


@dataclass
class Block:
    """A chart beside the numbers it shows (either may be ``None``), then a ``note`` under both."""
    figure: Figure | None = None
    table: Markup | None = None
    note: str = ""


@dataclass
class Section:
    """A titled part of a page: ``intro`` paragraphs, ``blocks`` shown, ``details`` folded (``(summary, table)``).
    ``level`` 2 is a top-level section, 3 a part of the one before it."""
    id: str
    heading: str
    intro: list[str] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)
    details: list[tuple[str, Markup]] = field(default_factory=list)
    level: int = 2
    folded: bool = False  # its blocks and details behind one "show" line (a part few readers open)

    @property
    def figures(self) -> list[Figure]:
        return [b.figure for b in self.blocks if b.figure is not None]


@dataclass
class Page:
    """A whole report: the ``verdict`` sentences (and what they hold for), the ``headline`` chart beside them,
    the ``verdict_table`` under them and the ``verdict_details`` (longer sentences) folded, the ``sections``, the
    folded ``appendix`` (``(summary, table)``) and a closing ``note``."""
    title: str
    verdict: list[str]
    sections: list[Section]
    headline: Figure | None = None
    holds_for: str = ""
    appendix: list[tuple[str, Markup]] = field(default_factory=list)
    note: str = ""
    verdict_table: Markup | None = None
    verdict_notes: list[str] = field(default_factory=list)
    verdict_details: list[str] = field(default_factory=list)


def figure(id: str, caption: str, draw, figsize=(7.0, 4.0)) -> Figure:
    """A :class:`Figure` of one chart: ``draw(ax)`` fills a fresh Axes (a ``plot_x(frame, *, ax=None)`` call)."""
    fig, ax = plt.subplots(figsize=figsize)
    try:
        draw(ax)
        fig.tight_layout()
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=100)
    finally:
        plt.close(fig)
    return Figure(id, caption, base64.b64encode(buffer.getvalue()).decode("ascii"))


def render(page: Page) -> bytes:
    """The page as one self-contained HTML document, UTF-8."""
    template = ENVIRONMENT.get_template("page.html.j2")
    return template.render(page=page, lang=current_language()).encode("utf-8")


def write_page(path: str | Path, page: Page) -> Path:
    """Render ``page`` and write it to ``path`` atomically (a temporary name beside it, then a rename)."""
    write_bytes_atomic(Path(path), render(page))
    return Path(path)


def nested(sections: list[Section], id: str, heading: str, folded: bool = False) -> list[Section]:
    """``sections`` (of a tournament, say) as the parts (level 3) of a new section ``heading`` of another page;
    their figure captions start with ``heading``; ``folded``: each part behind its "show" line. Their element ids
    must already be unique on that page."""
    def moved(block: Block) -> Block:
        fig = block.figure
        return Block(fig and Figure(fig.id, f"{heading}: {fig.caption}", fig.png), block.table, block.note)

    return [Section(id, heading)] + [Section(s.id, s.heading, s.intro, [moved(b) for b in s.blocks], s.details, level=3,
                                             folded=folded) for s in sections]
