"""A study's answer as data: the numbers of its verdict, each with its 95% interval and n, and the sentences
built from those numbers.

Each study module has ``answer(out) -> Answer``, a pure function of what the study stored in ``out``. The
numbers are one small polars frame (:data:`SCHEMA`, one row per number); the sentences are made from that
frame's rows by :func:`say` (no number is typed into a sentence by hand), so ``answer.md`` and
``answer.json`` cannot disagree.

``SCHEMA``:

* ``question`` what the row answers ("call rule", "seat advantage", "rule option", ...);
* ``subject``  what it is about ("4 players, 1 unseen card", "hand_size=6", ...);
* ``measure``  what the number is ("share of decided manches won", ...);
* ``value``, ``low``, ``high``: the number and its 95% interval (``NaN`` bounds for an exact count);
* ``n``        how many units it rests on; ``unit``: what ``n`` counts ("manches", "sampled decisions", ...);
* ``kind``     how to print it: ``share`` (a percentage), ``points``, ``delta`` (a signed difference), ``count``,
  ``percentage points`` (a signed difference of shares), ``rating`` (Elo points, signed, no decimals);
* ``status``   the verdict on that number ("significant", "not significant", "matters", "does not matter",
  "undecided", "no effect", or "").

What a person reads first is the :class:`Answer`'s ``headline`` (at most :data:`HEADLINE_SENTENCES` sentences of at
most :data:`WIDTH` characters, the answer as a player would say it) and its :class:`Table` (one row per player
count, style or question, no line over :data:`WIDTH` columns); the long ``sentences`` with every number follow
in ``answer.md``. :func:`certainty` words a number the headline rests on: decided, even (break-even) or tentative
(too few units, and about how many more would settle it).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from analysis.stats import games_for_half_width
from simulator.core.contract.registry import get_game
from simulator.core.i18n import N_, _, bounds, number as written, percent
from simulator.core.storage.ledger import read_checked_frame
from simulator.core.storage.spec import _fmt

SCHEMA = {"question": pl.Utf8, "subject": pl.Utf8, "measure": pl.Utf8, "value": pl.Float64, "low": pl.Float64,
          "high": pl.Float64, "n": pl.Int64, "unit": pl.Utf8, "kind": pl.Utf8, "status": pl.Utf8}
KINDS = ("share", "points", "delta", "count", "percentage points", "rating")
#: the verdicts a number's ``status`` holds (stored in English; shown as ``_(status)``)
STATUS_WORDS = (N_("significant"), N_("not significant"), N_("undecided"), N_("matters"), N_("does not matter"))
WIDTH = 100  # characters of a headline sentence, columns of a table line
HEADLINE_SENTENCES = 3


def number(question: str, subject: str, measure: str, value: float, low: float = math.nan,
           high: float = math.nan, *, n: int, unit: str, kind: str, status: str = "") -> dict:
    """One row of an answer's frame (see :data:`SCHEMA`)."""
    if kind not in KINDS:
        raise ValueError(f"kind {kind!r} is not one of {KINDS}")
    return {"question": question, "subject": subject, "measure": measure, "value": float(value),
            "low": float(low), "high": float(high), "n": int(n), "unit": unit, "kind": kind, "status": status}


def frame_of(rows: list[dict]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=SCHEMA)


def say(row: dict, *, interval: bool = True) -> str:
    """The number of one frame row as text: ``53.1% [51.2, 55.0]``, ``+2.41 [+2.30, +2.52]``, ``5``."""
    value, low, high, kind = row["value"], row["low"], row["high"], row["kind"]
    if kind == "count":
        return written(value, 0)
    scale, digits, signed = {"share": (100, 1, False), "percentage points": (100, 1, True), "rating": (1, 0, True),
                             "delta": (1, 2, True)}.get(kind, (1, 2, False))
    text = percent(value) if kind == "share" else written(scale * value, digits, signed)
    if kind == "percentage points":
        text = _("{value} points").format(value=text)
    around = " " + bounds(written(scale * low, digits, signed), written(scale * high, digits, signed))
    return text + (around if interval and not (math.isnan(low) or math.isnan(high)) else "")


def significance(low: float, high: float, null: float = 0.0) -> str:
    """``significant`` when the 95% interval leaves out ``null``, else ``not significant``."""
    if math.isnan(low) or math.isnan(high):
        return "undecided"
    return "significant" if low > null or high < null else "not significant"


def equivalence(low: float, high: float, epsilon: float) -> str:
    """``matters`` (the interval leaves out 0), ``does not matter`` (it lies inside ``±epsilon``) or
    ``undecided`` (neither, at this n)."""
    if math.isnan(low) or math.isnan(high):
        return "undecided"
    if low > 0 or high < 0:
        return "matters"
    if -epsilon <= low and high <= epsilon:
        return "does not matter"
    return "undecided"


@dataclass(frozen=True)
class Certainty:
    """How firmly a number answers its question: ``decided`` (its 95% interval leaves out the null), ``even`` (the
    interval lies inside ``null ± margin``: break-even, either choice is as good) or ``tentative`` (neither: ``more``
    units would narrow the interval to ``± margin`` and settle it one way or the other)."""

    word: str
    n: int
    more: int = 0

    @property
    def decided(self) -> bool:
        return self.word == "decided"


def certainty(low: float, high: float, n: int, margin: float, null: float = 0.0) -> Certainty:
    """:class:`Certainty` of a number whose 95% interval is ``[low, high]`` from ``n`` units."""
    if math.isnan(low) or math.isnan(high) or n <= 0:
        return Certainty("tentative", max(0, int(n)))
    if low > null or high < null:
        return Certainty("decided", int(n))
    if null - margin <= low and high <= null + margin:
        return Certainty("even", int(n))
    return Certainty("tentative", int(n), games_for_half_width((high - low) / 2, int(n), margin) - int(n))


def certainty_word(c: Certainty) -> str:
    """The word a table cell adds after a number: nothing when decided, "even" or "tentative"."""
    return "" if c.decided else (_("even") if c.word == "even" else _("tentative"))


@dataclass(frozen=True)
class Table:
    """The compact table under a headline: ``columns`` (titles), ``rows`` (cells already written, one tuple per
    row) and ``notes`` (short lines printed under it: what a tentative cell needs, what a column means)."""

    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    notes: tuple[str, ...] = ()

    def _widths(self) -> list[int]:
        return [max(len(c), *(len(r[k]) for r in self.rows)) if self.rows else len(c)
                for k, c in enumerate(self.columns)]

    def text(self) -> str:
        """The table in aligned columns (two spaces between them), then its notes."""
        widths = self._widths()

        def line(cells) -> str:
            return "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()

        lines = [line(self.columns)] + [line(r) for r in self.rows]
        return "\n".join(lines + list(self.notes))

    def markdown(self) -> str:
        lines = ["| " + " | ".join(self.columns) + " |", "|" + "---|" * len(self.columns)]
        lines += ["| " + " | ".join(r) + " |" for r in self.rows]
        return "\n".join(lines + ([""] + list(self.notes) if self.notes else []))

    def to_dict(self) -> dict:
        return {"columns": list(self.columns), "rows": [list(r) for r in self.rows], "notes": list(self.notes)}


@dataclass(frozen=True)
class Answer:
    """A study's verdict: ``headline`` (at most :data:`HEADLINE_SENTENCES` sentences of at most :data:`WIDTH`
    characters: the answer as a player would say it), ``table`` (the key numbers with their intervals, one row per
    player count, style or question), ``sentences`` (the details: at most five, each holding numbers of ``frame``
    with their intervals), ``frame`` (:data:`SCHEMA`), and ``holds_for``: the game, rule variant and players the
    answer is about."""

    study: str
    game: str
    holds_for: str
    sentences: tuple[str, ...]
    frame: pl.DataFrame
    headline: tuple[str, ...] = ()
    table: Table | None = None

    def text(self) -> str:
        """What the terminal prints: the headline, one sentence per line, then the table and its notes."""
        if not self.headline:
            return "\n".join(self.sentences)
        return "\n".join(self.headline) + ("\n\n" + self.table.text() if self.table else "")

    def to_dict(self) -> dict:
        """``answer.json``: ``study``, ``game``, ``holds_for``, ``headline``, ``table`` (``columns``, ``rows``,
        ``notes``), ``sentences`` and ``numbers`` (the frame's rows; NaN bounds become ``null``)."""
        rows = [{k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()}
                for r in self.frame.iter_rows(named=True)]
        return {"study": self.study, "game": self.game, "holds_for": self.holds_for,
                "headline": list(self.headline), "table": self.table.to_dict() if self.table else None,
                "sentences": list(self.sentences), "numbers": rows}

    def json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)

    def markdown(self) -> str:
        """``answer.md``: the verdict, what it holds for, then every number with its interval and n."""
        lines = [_("# {study}: the answer").format(study=self.study), "",
                 _("Holds for: {what}.").format(what=self.holds_for), ""]
        if self.headline:
            lines += [" ".join(self.headline), ""]
        if self.table:
            lines += [self.table.markdown(), "", _("## Details"), ""]
        lines += [f"- {s}" for s in self.sentences]
        lines += ["", "| " + " | ".join([_("question"), _("subject"), _("measure"), _("value (95% interval)"), "n",
                                         _("status")]) + " |", "|---|---|---|---|---|---|"]
        for r in self.frame.iter_rows(named=True):
            lines.append(f"| {r['question']} | {r['subject']} | {r['measure']} | {say(r)} | {r['n']:,} {r['unit']} | "
                         f"{r['status']} |")
        return "\n".join(lines) + "\n"


def rules_text(game: str, options: dict | None) -> str:
    """``"default rules"`` or the changed options, as the answer's ``holds_for`` names them."""
    defaults = {p.name: p.default for p in get_game(game).options.params}
    changed = {k: v for k, v in (options or {}).items() if defaults.get(k) != v}
    if not changed:
        return _("default rules")
    return _("rules {changed}").format(changed=", ".join(f"{k}={_fmt(v)}" for k, v in changed.items()))


def stored_frames(out, names) -> dict[str, pl.DataFrame]:
    """The study's frames as it stored them (``OUT/<name>.parquet``), those of ``names`` that exist, each checked
    against the study's ledger first (:func:`simulator.core.storage.ledger.read_checked_frame`)."""
    frames = {name: read_checked_frame(Path(out) / f"{name}.parquet") for name in names}
    return {name: frame for name, frame in frames.items() if frame is not None}
