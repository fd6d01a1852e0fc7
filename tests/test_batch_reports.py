"""``cardsim report`` of a tournament or sweep directory (and the Kem's sign exposure of a run): the page opens
in headless Chromium with every chart and no broken image or console error, and its HTML holds the batch's
description, the win-rate matrix, the points gap, the ratings, the sweep summary and the captions."""

from __future__ import annotations

import pytest

import cardsim as api
from test_reports import RUNS, browser, check_first_screen, interval_holds, parse, render, run_cli  # noqa: F401  (browser: the shared Chromium fixture)

KAMOUL = ["balanced", "cautious", "aggressive"]
KEMS = ["heuristic", "random"]
GRID = [1.0, 4.0, 7.0]

# name -> (figure ids that must be present, number of charts)
EXPECTED = {
    # the ratings, the meta-game's mixture and members (the win-rate matrix is a coloured grid, not a chart)
    "kamoul-tournament": ({"fig-ratings", "fig-metagame-mixture", "fig-metagame-members"}, 3),
    "kems-tournament": ({"fig-ratings", "fig-metagame-mixture", "fig-metagame-members"}, 3),
    # seat 0 swept: its win rate and mean points, then the outcome shares per cell
    "sweep": ({"fig-sweep-seat0-win-rate", "fig-sweep-seat0-mean-points", "fig-sweep-outcomes"}, 3),
}


@pytest.fixture(scope="module")
def batches(tmp_path_factory):
    root = tmp_path_factory.mktemp("batches")
    api.tournament("kamoul", strategies=KAMOUL, out=root / "kt", n=40, seed=1, progress=False)
    api.tournament("kems", strategies=KEMS, out=root / "et", n=6, seed=1, progress=False)
    api.sweep("kamoul", out=root / "sw", n=40, seed=1, grids=[f"call_threshold={','.join(f'{v:g}' for v in GRID)}"],
              seats=[0], progress=False)
    return {name: api.report(root / d, root / f"{name}.html")["html"]
            for name, d in (("kamoul-tournament", "kt"), ("kems-tournament", "et"), ("sweep", "sw"))}


@pytest.mark.parametrize("name", list(EXPECTED))
def test_batch_report_renders_in_headless_chromium_with_every_chart(batches, browser, name):  # noqa: F811
    assert len(render(browser, batches[name])) == EXPECTED[name][1]
    check_first_screen(browser, batches[name])
    figures = parse(batches[name]).figures
    assert {f["id"] for f in figures} == EXPECTED[name][0]
    for figure in figures:
        assert figure["caption"].strip() and figure["img"]["alt"]


_interval_holds = interval_holds


@pytest.mark.parametrize("game, names, name", [("kamoul", KAMOUL, "kamoul-tournament"), ("kems", KEMS, "kems-tournament")])
def test_tournament_report_holds_the_description_matrix_gap_and_ratings(batches, game, names, name):
    page = parse(batches[name])
    html = batches[name].read_text(encoding="utf-8")
    # the verdict opens the page, before the description, by the unit the game is won in
    level = "manches" if game == "kamoul" else "games"
    assert html.index("<h2>Verdict</h2>") < html.index('id="toc"') < html.index('id="appendix"') < html.index('<table id="T_spec"')
    assert f'<p class="verdict">verdict, by whole {level}: ' in html
    spec = {row[0]: row[1] for row in page.tables["spec"]["rows"]}
    assert spec["kind"] == "tournament" and spec["game"] == game and spec["seed"].startswith("1 ")
    assert spec["cardsim version"] != "?" and spec["strategies"] == "\n".join(names)
    assert "(batch not complete)" not in spec["games finished"]
    cells = page.tables["cells"]["rows"]
    assert {(r[1], r[2]) for r in cells} == {(a, b) for i, a in enumerate(names) for b in names[i + 1:]}
    for key in ("matrix", "points-gap"):
        table = page.tables[key]
        assert table["head"] == ["strategy \\ opponent", *names] and [r[0] for r in table["rows"]] == names
        assert "95%" in table["caption"]
        for i, row in enumerate(table["rows"]):
            for j, cell in enumerate(row[1:]):
                if i == j:
                    assert cell == "—"
                else:  # the matrix's cells end with won/decided on a line of their own
                    _interval_holds(" ".join(cell.split("\n")[:2]))
    ratings = page.tables["ratings"]
    assert sorted(r[0] for r in ratings["rows"]) == sorted(names)
    for row in ratings["rows"]:
        _interval_holds(row[1])
        _interval_holds(row[2])


def test_sweep_report_holds_the_grid_the_summary_and_the_outcomes(batches):
    page = parse(batches["sweep"])
    spec = {row[0]: row[1] for row in page.tables["spec"]["rows"]}
    assert spec["kind"] == "sweep" and spec["grid (strategy parameter) call_threshold"] == "1.0, 4.0, 7.0"
    assert spec["swept seats"] == "0"
    assert [r[1] for r in page.tables["cells"]["rows"]] == ["1.0", "4.0", "7.0"]
    summary = page.tables["sweep-seat0"]
    assert summary["head"][:2] == ["cell", "call_threshold"] and "seat 0" in summary["caption"]
    assert [r[1] for r in summary["rows"]] == ["1.0", "4.0", "7.0"]
    for row in summary["rows"]:
        _interval_holds(row[summary["head"].index("won (95% interval)")])
        _interval_holds(row[summary["head"].index("mean points (95% interval)")])
    outcomes = page.tables["sweep-outcomes"]["rows"]
    assert {r[0] for r in outcomes} == {r[0] for r in summary["rows"]}
    for cell in {r[0] for r in outcomes}:
        assert abs(sum(float(r[4].split("%")[0]) for r in outcomes if r[0] == cell) - 100) < 0.5


def test_kems_run_report_holds_the_sign_exposure(tmp_path):
    kwargs = RUNS["kems"][0]
    api.simulate("kems", out=tmp_path / "run", seed=3, progress=False, **kwargs)
    page = parse(api.report(tmp_path / "run", tmp_path / "r.html")["html"])
    table = page.tables["sign-exposure"]
    assert [r[0] for r in table["rows"]] == ["team A", "team B", "team C"]
    shares = [table["head"].index(h) for h in ("seen by partner", "seen by one opponent", "contred share", "Kem's share")]
    for row in table["rows"]:
        for k in shares:
            _interval_holds(row[k])
    assert "fig-signs" in {f["id"] for f in page.figures}


def test_report_of_a_broken_batch_is_one_line_exit_2(tmp_path, capsys):
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "_batch.json").write_text("{not json", encoding="utf-8")
    (tmp_path / "neither").mkdir()
    (tmp_path / "neither" / "cells").mkdir()
    for bad in ("b", "neither"):  # damaged metadata is a dataset fault (exit 1, what to run); not a dataset: exit 2
        code, out, err = run_cli(capsys, "report", str(tmp_path / bad), "--out", str(tmp_path / "r.html"))
        assert code == (1 if bad == "b" else 2) and out == "" and len(err.strip().splitlines()) == 1
        assert err.startswith("Error: RUN:") if bad == "neither" else f"{tmp_path / 'b' / '_batch.json'} is unreadable" in err
        assert "Traceback" not in err and ("neither a run, a batch nor a study" in err) == (bad == "neither")
    assert not (tmp_path / "r.html").exists()
