"""``cardsim report``: one self-contained HTML page per run, opened in headless Chromium (Playwright driving
the Debian ``/usr/bin/chromium``, installed by ``scripts/dev.py test``): every chart renders, no broken
image, no console error; the HTML holds the spec, the seat/team tables with their 95% intervals and the
figure captions; ``--pdf`` prints a PDF; bad input is one line, exit 2, nothing written."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

import cardsim as api
import cli

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]

# game -> (simulate kwargs, seat/team rows, tables of the level)
RUNS = {
    "kamoul": (dict(n=60, level="manches", strategies=["cautious", "aggressive", "balanced", "random"]), 4,
               ["hands", "manches"]),
    "rami": (dict(n=8, level="games"), 4, ["rounds", "games"]),
    "kems": (dict(n=8, level="games", players=6), 3, ["manches", "games"]),
}


def expected_charts(tables: list[str], game: str = "") -> int:
    """Win rates, points, outcome kinds; a length chart per table; a win chart per coarser table; Kem's: signs."""
    return 3 + len(tables) + (len(tables) - 1) + (game == "kems")


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    root = tmp_path_factory.mktemp("reports")
    out = {}
    for game, (kwargs, _, _) in RUNS.items():
        api.simulate(game, out=root / game, seed=3, progress=False, **kwargs)
        out[game] = api.report(root / game, root / f"{game}.html")["html"]
    return out


@pytest.fixture(scope="module")
def browser():
    assert Path(CHROMIUM).is_file(), f"{CHROMIUM} is missing: run `python3 scripts/dev.py test`, which installs it"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


class Page(HTMLParser):
    """Tables (by id: caption, header cells, body rows of cell texts) and figures (img alt/src, caption)."""

    def __init__(self):
        super().__init__()
        self.tables, self.figures, self.title = {}, [], ""
        self._table = self._row = self._cell = self._figure = None
        self._in_caption = self._in_title = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":  # the Styler names a table T_<id>
            key = (a.get("id") or "").removeprefix("T_")
            self._table = self.tables.setdefault(key, {"caption": "", "head": [], "rows": []})
        elif tag == "tr" and self._table is not None:
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
        elif tag == "caption":
            self._in_caption = True
        elif tag == "figure":
            self._figure = {"id": a.get("id"), "img": None, "caption": ""}
        elif tag == "img" and self._figure is not None:
            self._figure["img"] = a
        elif tag == "figcaption":
            self._in_caption = True
        elif tag == "title":
            self._in_title = True

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._row.append(("th" if tag == "th" else "td", "".join(self._cell).strip()))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            if all(kind == "th" for kind, _ in self._row):
                self._table["head"] = [text for _, text in self._row]
            else:
                self._table["rows"].append([text for _, text in self._row])
            self._row = None
        elif tag == "table":
            self._table = None
        elif tag in ("caption", "figcaption"):
            self._in_caption = False
        elif tag == "figure":
            self.figures.append(self._figure)
            self._figure = None
        elif tag == "title":
            self._in_title = False

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)
        elif self._in_caption and self._figure is not None:
            self._figure["caption"] += data
        elif self._in_caption and self._table is not None:
            self._table["caption"] += data
        elif self._in_title:
            self.title += data


def interval_holds(cell: str) -> None:
    """A cell ``52.3% [51.0, 53.6]`` (or ``+1.20 [+0.40, +2.00]``): its value lies in its interval."""
    value, _, rest = cell.partition(" [")
    low, high = (float(x.strip(" %").replace(",", "")) for x in rest.split("]")[0].split(", "))
    assert low <= float(value.strip("%").replace(",", "")) <= high, cell


FIRST_SCREEN = """() => {
    const width = window.innerWidth, height = window.innerHeight;
    const verdict = document.getElementById('verdict').getBoundingClientRect();
    const charts = Array.from(document.images).map(img => img.getBoundingClientRect())
        .filter(r => r.width > 0 && r.top < height);
    const inScroll = el => el.closest('.scroll') !== null && !el.classList.contains('scroll');
    const wide = Array.from(document.body.querySelectorAll('*')).filter(el => !inScroll(el))
        .map(el => ({tag: el.tagName, id: el.id, right: el.getBoundingClientRect().right}))
        .filter(e => e.right > width + 0.5);
    const pageHeight = document.documentElement.scrollHeight;  // folded parts closed, as the page opens
    document.querySelectorAll('details').forEach(d => { d.open = true; });  // then every table, opened
    const overflowing = Array.from(document.querySelectorAll('table'))
        .map(t => ({id: t.id, width: t.getBoundingClientRect().width,
                    room: t.closest('.scroll, .numbers, section, body').clientWidth}))
        .filter(t => t.width > t.room + 0.5);
    const splitting = Array.from(document.querySelectorAll('th, td:not(.code)')).map(c => getComputedStyle(c))
        .filter(s => s.overflowWrap === 'anywhere' || s.wordBreak === 'break-all').length;
    return {verdictBottom: verdict.bottom, verdictTop: verdict.top, firstChartBottom: charts.length ? charts[0].bottom : null,
            pageWidth: document.documentElement.scrollWidth, width, height, wide: wide.slice(0, 5),
            pageHeight, overflowing: overflowing.slice(0, 5), splitting};
}"""


def check_first_screen(browser, path: Path, max_height: int | None = None) -> dict:
    """At 1280×900 in headless Chromium: the verdict and at least one whole chart are on the first screen, no
    element is wider than the window, no table (folded ones opened) wider than its box, no cell that may break a
    word anywhere; with ``max_height``, the page (folded parts closed) at most that many pixels tall."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(path.resolve().as_uri(), wait_until="load")
    seen = page.evaluate(FIRST_SCREEN)
    page.close()
    assert 0 <= seen["verdictTop"] and seen["verdictBottom"] <= seen["height"], seen
    assert seen["firstChartBottom"] is not None and seen["firstChartBottom"] <= seen["height"], seen
    assert seen["pageWidth"] <= seen["width"] and seen["wide"] == [], seen
    assert seen["overflowing"] == [] and seen["splitting"] == 0, seen
    assert max_height is None or seen["pageHeight"] <= max_height, seen
    return seen


def parse(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def render(browser, path: Path) -> list[dict]:
    """Open ``path`` in headless Chromium; assert no console error, page error or failed request, and every
    image complete, non-empty and inline. Returns the images (complete, width, height, inline)."""
    errors = []
    page = browser.new_page()
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("requestfailed", lambda req: errors.append(f"request failed: {req.url}"))
    page.goto(path.resolve().as_uri(), wait_until="load")
    images = page.evaluate("""() => Array.from(document.images).map(img => ({
        complete: img.complete, width: img.naturalWidth, height: img.naturalHeight,
        inline: img.src.startsWith('data:image/png;base64,')}))""")
    page.close()
    for img in images:
        assert img["complete"] and img["width"] > 0 and img["height"] > 0 and img["inline"], img
    assert errors == []
    return images


@pytest.mark.parametrize("game", list(RUNS))
def test_report_renders_in_headless_chromium_with_every_chart(reports, browser, game):
    assert len(render(browser, reports[game])) == expected_charts(RUNS[game][2], game)


@pytest.mark.parametrize("game", list(RUNS))
def test_report_opens_on_its_verdict_and_a_chart_and_fits_the_window(reports, browser, game):
    check_first_screen(browser, reports[game])
    html = reports[game].read_text(encoding="utf-8")
    assert html.index('id="verdict"') < html.index('id="toc"') < html.index('id="results"') < html.index('id="appendix"')
    assert html.index('id="T_spec"') > html.index('id="appendix"') and "<details>" in html


@pytest.mark.parametrize("game", list(RUNS))
def test_report_html_holds_the_spec_the_tables_with_intervals_and_the_captions(reports, game):
    kwargs, sides, tables = RUNS[game]
    page = parse(reports[game])
    spec = {row[0]: row[1] for row in page.tables["spec"]["rows"]}
    players = kwargs.get("players", 4)
    assert spec["game"] == game and spec["players"] == str(players) and spec["level"] == kwargs["level"]
    assert spec["seed"] == "3" and spec["games (n)"] == str(kwargs["n"]) and spec["cardsim version"]
    seat_rows = [k for k in spec if k.startswith("strategy, seat ")]
    assert len(seat_rows) == players
    if "strategies" in kwargs:
        for p, name in enumerate(kwargs["strategies"]):
            assert spec[f"strategy, seat {p}"].startswith(name)
    assert page.tables["options"]["rows"]  # the rule options played, folded beside the spec

    side = page.tables["sides"]
    assert side["head"][0] == ("team" if game == "kems" else "seat") and len(side["rows"]) == sides
    assert "lower points are better" in side["caption"] if game != "kems" else "higher points are better" in side["caption"]
    for row in side["rows"]:
        interval_holds(row[-2])
        interval_holds(row[-1])
    for table in tables[1:]:
        wins = page.tables[f"wins-{table}"]
        assert "share (95% interval)" in wins["head"] and len(wins["rows"]) == sides
    assert page.tables["outcomes"]["rows"] and "share (95% interval)" in page.tables["outcomes"]["head"]
    assert [row[0] for row in page.tables["lengths"]["rows"]] == tables

    assert len(page.figures) == expected_charts(tables, game)
    for figure in page.figures:
        assert figure["caption"].strip() and figure["img"]["alt"] and figure["img"]["src"].startswith("data:image/png")
    ids = {f["id"] for f in page.figures}
    assert {"fig-wins", "fig-points", "fig-outcomes"} | {f"fig-length-{t}" for t in tables} <= ids


def test_report_escapes_text_and_pdf_prints(reports, tmp_path, monkeypatch):
    run = reports["kems"].parent / "kems"
    title = '<script>alert("x")</script> & co'
    home = tmp_path.parent / f"{tmp_path.name}-home"
    home.mkdir()
    for name in ("HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(name, str(home) if name == "HOME" else str(home / name.lower()))
    result = api.report(run, tmp_path / "r.html", pdf=tmp_path / "r.pdf", title=title)
    assert list(home.iterdir()) == []  # Chromium wrote nothing in the user's home (its profile is temporary)
    text = result["html"].read_text(encoding="utf-8")
    assert "<script>" not in text and "&lt;script&gt;" in text
    assert parse(result["html"]).title == title
    pdf = result["pdf"].read_bytes()
    assert pdf.startswith(b"%PDF") and len(pdf) > 1000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html", "r.pdf"]  # no temporary file left


def run_cli(capsys, *args):
    code = cli.main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_report_cli_writes_the_page(reports, tmp_path, capsys):
    code, out, _ = run_cli(capsys, "report", str(reports["rami"].parent / "rami"), "--out", str(tmp_path / "x.html"))
    assert code == 0 and "x.html" in out and (tmp_path / "x.html").read_text().startswith("<!DOCTYPE html>")
    code, out, _ = run_cli(capsys, "report", "--help")
    assert code == 0 and "Usage: cardsim report" in out


def _bad_runs(root: Path) -> dict[str, Path]:
    (root / "empty").mkdir()
    (root / "corrupt").mkdir()
    (root / "corrupt" / "_manifest.json").write_text("{not json", encoding="utf-8")
    (root / "foreign").mkdir()
    (root / "foreign" / "_manifest.json").write_text('{"format": "other"}', encoding="utf-8")
    return {"missing": root / "nope", "empty": root / "empty", "corrupt": root / "corrupt", "foreign": root / "foreign"}


@pytest.mark.parametrize("which", ["missing", "empty", "corrupt", "foreign"])
def test_report_of_something_that_is_not_a_run_is_one_line_exit_2(tmp_path, capsys, which):
    (tmp_path / "in").mkdir()
    run = _bad_runs(tmp_path / "in")[which]
    out = tmp_path / "out"
    out.mkdir()
    code, stdout, err = run_cli(capsys, "report", str(run), "--out", str(out / "r.html"), "--pdf", str(out / "r.pdf"))
    damaged = which in ("corrupt", "foreign")  # a run whose manifest is damaged: exit 1 and what to run
    assert code == (1 if damaged else 2) and stdout == "" and len(err.strip().splitlines()) == 1
    assert f"{run / '_manifest.json'}" in err and "--repair" in err if damaged else err.startswith("Error: RUN:")
    assert "Traceback" not in err and list(out.iterdir()) == []


def test_report_into_a_missing_folder_or_without_chromium_is_one_line_exit_2(reports, tmp_path, capsys, monkeypatch):
    run = str(reports["kamoul"].parent / "kamoul")
    code, _, err = run_cli(capsys, "report", run, "--out", str(tmp_path / "no" / "r.html"))
    assert code == 2 and len(err.strip().splitlines()) == 1 and err.startswith("Error: --out:") and "missing" in err
    code, _, err = run_cli(capsys, "report", run, "--out", str(tmp_path / "r.html"), "--pdf", str(tmp_path / "no" / "r.pdf"))
    assert code == 2 and len(err.strip().splitlines()) == 1 and err.startswith("Error: --pdf:")
    monkeypatch.setattr("reports.output.find_chromium", lambda: None)
    code, _, err = run_cli(capsys, "report", run, "--out", str(tmp_path / "r.html"), "--pdf", str(tmp_path / "r.pdf"))
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Chromium" in err
    assert list(tmp_path.iterdir()) == []
