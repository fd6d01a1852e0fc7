"""Tables of a report, laid out by pandas' Styler (which escapes every cell): :func:`table` for rows of
already-formatted text, :func:`grid` for a two-way table of one measure coloured by its value.

Both return :class:`markupsafe.Markup` for the page templates; a table's element id is ``T_<id>`` (the Styler's
naming), so that ``id`` stays unique on a page.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd
from markupsafe import Markup, escape
from pandas.io.formats.style import Styler

from reports.formats import MISSING
from simulator.core.i18n import _


def _styled(frame: pd.DataFrame, id: str, caption: str) -> Styler:
    return (Styler(frame, cell_ids=False, uuid=id).hide(axis="index").format(escape="html")
            .format_index(escape="html", axis=1).set_caption(str(escape(caption))))


def constant_columns(headers: Sequence[str], rows: Sequence[Sequence[str]], keep: Iterable[int] = ()) -> list[int]:
    """The columns (but those in ``keep``) whose every row holds the same text, when there are two rows or more."""
    keep = set(keep)
    if len(rows) < 2:
        return []
    return [k for k in range(len(headers)) if k not in keep and len({row[k] for row in rows}) == 1]


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], *, id: str, caption: str,
          numeric: Iterable[int] = (), drop_constant: bool = True, keep: Iterable[int] = (0,),
          code: Iterable[int] = ()) -> Markup:
    """One table of text cells. ``numeric``: the columns aligned right (numbers); ``code``: columns of strategy
    texts and settings, in a fixed-width font and broken anywhere (they have no spaces to break at). With
    ``drop_constant``, a column whose every row holds the same value (but those in ``keep``) is dropped and said
    once in the caption."""
    numeric, code = set(numeric), set(code)
    dropped = constant_columns(headers, rows, keep) if drop_constant else []
    said = [f"{headers[k]}: {rows[0][k]}" for k in dropped if rows[0][k] not in ("", MISSING)]
    shown = [k for k in range(len(headers)) if k not in dropped]
    frame = pd.DataFrame([[str(row[k]) for k in shown] for row in rows], columns=range(len(shown)))
    styler = _styled(frame, id, caption + (_("; in every row, {columns}").format(columns="; ".join(said)) if said else ""))
    styler = styler.relabel_index([headers[k] for k in shown], axis=1)
    classes = pd.DataFrame([["num" if k in numeric else "code" if k in code else "" for k in shown]] * len(rows),
                           columns=frame.columns,
                           index=frame.index)
    return Markup(styler.set_td_classes(classes).to_html(doctype_html=False))


def grid(values: pd.DataFrame, text: pd.DataFrame, *, id: str, caption: str, colour: pd.DataFrame | None = None,
         corner: str = "") -> Markup:
    """A two-way table (rows × columns of ``values``, a float frame) showing ``text`` (the same shape) on a
    diverging colour scale centred on 0, blue above and red below, each side scaled to its largest value:
    ``colour`` (default ``values``) gives each cell's colour, ``nan`` for none (a cell whose interval holds 0, say).
    ``corner`` names the row labels."""
    colour = (values if colour is None else colour).to_numpy(dtype=float)
    # each sign on its own scale: a few large losses must not wash out the small gains
    top, bottom = np.nanmax(colour, initial=0.0), np.nanmin(colour, initial=0.0)
    gmap = np.where(colour > 0, colour / (top or 1.0), np.where(colour < 0, colour / (-bottom or 1.0), 0.0))
    gmap = np.nan_to_num(gmap, nan=0.0)
    frame = text.copy()
    frame.index = frame.index.map(str)
    frame.index.name = None
    frame.columns.name = corner or None
    styler = (Styler(frame, cell_ids=False, uuid=id).format(escape="html").format_index(escape="html", axis=0)
              .format_index(escape="html", axis=1).set_caption(str(escape(caption))))
    styler = styler.background_gradient(cmap="RdBu", vmin=-1.25, vmax=1.25, gmap=gmap, axis=None)
    classes = pd.DataFrame("num", index=frame.index, columns=frame.columns)
    return Markup(styler.set_td_classes(classes).to_html(doctype_html=False))
