"""What every study's answer must be (the verdicts issue, and the ten-seconds issue): a headline of at most three
sentences of at most 100 characters, then a table no line of which is wider than 100 columns; at most five
detailed sentences, at least one number with its 95% interval, ``answer.json`` and ``answer.md`` holding the same
sentences and the same numbers, and the report opening with the verdict."""

from __future__ import annotations

import json
import math
import re
from html import escape as html_escape
from pathlib import Path

from analysis.answers import say

INTERVAL = re.compile(r"[+-]?\d[\d,]*(\.\d+)?(%| points)? \[[+-]?\d[\d.]*, [+-]?\d[\d.]*\]")


def unescape_quotes(html: str) -> str:
    """``html`` with its escaped quotes as plain quotes (Jinja2 writes ``&#39;`` and ``&#34;``)."""
    return html.replace("&#39;", "'").replace("&#34;", '"').replace("&#x27;", "'").replace("&quot;", '"')


def check_answer(out: Path) -> dict:
    """Assert the answer files of the finished study at ``out`` agree with each other and with its report;
    returns ``answer.json``."""
    data = json.loads((out / "answer.json").read_text(encoding="utf-8"))
    assert set(data) == {"study", "game", "holds_for", "headline", "table", "sentences", "numbers"}
    check_short(data)
    sentences = data["sentences"]
    assert 1 <= len(sentences) <= 5 and any(INTERVAL.search(s) for s in sentences), sentences
    markdown = (out / "answer.md").read_text(encoding="utf-8")
    assert f"Holds for: {data['holds_for']}." in markdown
    assert [line[2:] for line in markdown.splitlines() if line.startswith("- ")] == sentences
    head, details = markdown.split("\n## Details\n")
    assert " ".join(data["headline"]) in head and "| " + " | ".join(data["table"]["columns"]) + " |" in head
    table = [line.split(" | ") for line in details.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert len(table) == len(data["numbers"]) > 0
    for cells, row in zip(table, data["numbers"]):
        number = {k: (math.nan if v is None else v) for k, v in row.items()}
        assert cells[0] == f"| {row['question']}" and cells[1] == row["subject"] and cells[2] == row["measure"]
        assert cells[3] == say(number) and cells[4] == f"{row['n']:,} {row['unit']}", (cells, row)
    html = (out / "report.html").read_text(encoding="utf-8")
    assert html.index("<h2>") == html.index("<h2>Verdict</h2>"), "the report opens with the verdict"
    verdict = unescape_quotes(html[html.index('<section id="verdict">'):html.index("</section>")])
    for sentence in data["headline"]:
        assert f'<p class="verdict">{html_escape(sentence, quote=False)}</p>' in verdict
    for sentence in sentences:  # the details, folded under the headline and its table
        assert f'<p class="verdict-detail">{html_escape(sentence, quote=False)}</p>' in verdict
    assert verdict.index("<table") < verdict.index('<details class="verdict-details">')
    for cell in data["table"]["rows"][0]:
        assert f">{html_escape(cell, quote=False)}</td>" in verdict, cell
    # the report names what -n counts, and the rules the study was played under
    n = json.loads((out / "_study.json").read_text(encoding="utf-8"))["inputs"]["n"]
    assert f"<td>-n (what it counts)</td><td>{n:,}" in html.replace("\n", "") or \
        re.search(rf"-n \(what it counts\)</t[dh]>\s*<td[^>]*>{n:,}[ :]", html), "the report names the unit of -n"
    assert "rule options played" in html
    return data


WIDTH = 100


def check_short(data: dict) -> None:
    """The part a person reads first: at most three sentences of at most 100 characters, each ending a sentence,
    then a table with at least one row whose printed lines (notes included) fit in 100 columns."""
    from analysis.answers import Table

    headline = data["headline"]
    assert 1 <= len(headline) <= 3, headline
    for sentence in headline:
        assert len(sentence) <= WIDTH and sentence.endswith(".") and sentence[0].isupper(), sentence
    table = data["table"]
    assert table["rows"] and all(len(r) == len(table["columns"]) for r in table["rows"]), table
    printed = Table(tuple(table["columns"]), tuple(map(tuple, table["rows"])), tuple(table["notes"])).text()
    assert max(len(line) for line in printed.splitlines()) <= WIDTH, printed


def numbers(data: dict, question: str) -> list[dict]:
    return [r for r in data["numbers"] if r["question"] == question]


ENGLISH_WORDS = (" the ", " against ", " players", " of decided ", " wins ", " rules", "default rules", " play")
FRENCH_INTERVAL = re.compile(r"\[[+-]?\d[\d\u202f]*(,\d+)? ; [+-]?\d[\d\u202f]*(,\d+)?\]")


def check_french(answer, out: Path) -> None:
    """The study's answer (``answer(out)``) asked in French: as many sentences as in English, each one French (none
    of the English sentence glue left, its intervals written ``[51,0 ; 53,6]``), and what it holds for too."""
    from simulator.core.i18n import language

    english = answer(out)
    with language("fr"):
        french = answer(out)
    check_short(french.to_dict())
    assert len(french.headline) == len(english.headline)
    for en, fr in zip(english.headline, french.headline):
        assert fr != en and not any(word in fr for word in ENGLISH_WORDS), fr
    assert french.table.columns != english.table.columns
    assert len(french.sentences) == len(english.sentences)
    for en, fr in zip(english.sentences, french.sentences):
        assert fr != en and not any(word in fr for word in ENGLISH_WORDS), fr
    assert any(FRENCH_INTERVAL.search(s) for s in french.sentences), french.sentences
    assert french.holds_for != english.holds_for and not any(w in french.holds_for for w in ENGLISH_WORDS)
