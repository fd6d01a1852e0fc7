"""Progress that works everywhere (issue "a CLI that says what it is doing", step 2): log lines with the stage's
name when stderr is no terminal, bars of nested stages labelled, counts finer than a chunk without changing a
byte of the parts, and a rate that does not count compile time."""

from __future__ import annotations

import polars as pl
import pytest

import cli
import fakegame
from simulator.core import progress as progress_module
from simulator.core.progress import LogLines, compile_finished, progress
from simulator.core.run.backends import MIN_SLICE, PROGRESS_SLICES, slices
from simulator.core.run.batch import Batch, Cell, run_batch
from simulator.core.run.runner import run


@pytest.fixture(autouse=True)
def fake(monkeypatch):
    fakegame.patch(monkeypatch)


@pytest.fixture
def every_update(monkeypatch):
    """A log line at every update (the interval set to 0)."""
    monkeypatch.setenv("CARDSIM_PROGRESS_INTERVAL", "0")


def log_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("[cardsim] ")]


@pytest.mark.parametrize("start,stop", [(0, 10), (0, MIN_SLICE * 3 + 1), (100, 100 + 1000), (7, 7 + 250_000)])
def test_slices_cover_the_chunk_in_order(start, stop):
    cut = slices(start, stop)
    assert cut[0][0] == start and cut[-1][1] == stop and all(a[1] == b[0] for a, b in zip(cut, cut[1:]))
    assert len(cut) == max(1, min(PROGRESS_SLICES, (stop - start) // MIN_SLICE))
    assert all(b - a >= min(MIN_SLICE, stop - start) for a, b in cut)


def test_a_watched_run_writes_the_same_bytes_in_slices(tmp_path, every_update, capsys):
    spec = fakegame.fake_spec(n=2000, seed=4)
    run(spec, tmp_path / "quiet", chunk_size=1000, progress=False)
    run(spec, tmp_path / "watched", chunk_size=1000, progress=True)
    lines = log_lines(capsys.readouterr().err)
    counts = [int(line.split(": ")[1].split("/")[0].replace(",", "")) for line in lines]
    assert len(lines) >= PROGRESS_SLICES  # the first chunk in eight slices: the count moves within a chunk
    assert counts == sorted(counts) and counts[-1] == 2000 and any(c % 1000 for c in counts)
    for part in sorted((tmp_path / "quiet").glob("*/part-*.parquet")):
        assert (tmp_path / "watched" / part.relative_to(tmp_path / "quiet")).read_bytes() == part.read_bytes()


def test_progress_to_a_file_is_log_lines_with_the_stage(tmp_path, capsys):
    code = cli.main(["simulate", "kamoul", "-n", "3000", "--out", str(tmp_path / "r"), "--chunk-size", "1000"])
    err = capsys.readouterr().err
    lines = log_lines(err)
    assert code == 0 and lines[0].startswith("[cardsim] kamoul hands: 125/3,000 hands (4%), ")  # 1,000 in 8 slices
    assert lines[-1].startswith("[cardsim] kamoul hands: 3,000/3,000 hands (100%)") and lines[-1].endswith("done")
    assert "\r" not in err and "it/s" not in err  # no bar drawn into a file


def test_batch_cells_are_labelled_and_their_own_lines_do_not_pile_up(tmp_path, every_update, capsys):
    cells = tuple(Cell(f"c00{k}", {"bonus": b}, fakegame.fake_spec(n=400, seed=5, bonus=b)) for k, b in enumerate((0, 9)))
    run_batch(Batch("sweep", {"bonus": [0, 9]}, cells), tmp_path / "b", chunk_size=200, label="sweep 4p")
    lines = log_lines(capsys.readouterr().err)
    assert lines[0].startswith("[cardsim] sweep 4p cell 1/2 (bonus=0): ") and lines[-1].startswith("[cardsim] sweep 4p: 2/2 cells")
    assert any(line.startswith("[cardsim] sweep 4p cell 2/2 (bonus=9): ") for line in lines)
    assert not any(line.endswith("done") for line in lines[:-1])  # a nested stage writes no start or end line


def test_the_rate_counts_from_the_end_of_the_compile(monkeypatch, capsys):
    clock = [1000.0]
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: clock[0])
    monkeypatch.setenv("CARDSIM_PROGRESS_INTERVAL", "0")
    bar = LogLines(1000, "kamoul hands", "hands")
    bar.update(0)  # its first line
    clock[0] += 60  # the first chunk compiles for a minute ...
    compile_finished()
    clock[0] += 1  # ... then plays 100 hands in a second
    bar.update(100)
    line = log_lines(capsys.readouterr().err)[-1]
    assert line == "[cardsim] kamoul hands: 100/1,000 hands (10%), 100 hands/s, about 9 s left"
    bar.close()
    assert progress_module._ACTIVE == []


def test_quiet_progress_writes_nothing(capsys):
    with progress(10, "x", "things", enabled=False) as bar:
        bar.update(10)
    assert capsys.readouterr().err == ""


def test_a_terminal_gets_a_bar_that_vanishes_when_nested(monkeypatch):
    monkeypatch.setattr(progress_module, "draws_bars", lambda: True)
    top, inner = progress(5, "study", "parts"), progress(5, "study cell", "hands", nested=True)
    from tqdm import tqdm

    assert isinstance(top, tqdm) and top.leave and not inner.leave
    inner.close()
    top.close()
    assert progress_module._ACTIVE == []


def test_reading_a_run_written_in_slices_is_the_same_table(tmp_path):
    spec = fakegame.fake_spec(n=1500, seed=8)
    run(spec, tmp_path / "a", chunk_size=1500, progress=False)
    run(spec, tmp_path / "b", chunk_size=1500, progress=True)
    assert pl.read_parquet(tmp_path / "a" / "hands").equals(pl.read_parquet(tmp_path / "b" / "hands"))


def test_a_stage_that_ends_early_closes_at_done_with_no_time_left(capsys):
    """A duel decided after 32 of 200,000 deals closes its progress at done, not at 0% with an hour left."""
    with LogLines(200_000, "duel kamoul a vs b", "deals") as bar:
        bar.update(32)
        bar.finish()
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert "32/32 deals (100%)" in last and last.endswith(", done") and "left" not in last


def test_progress_lines_follow_the_language(capsys):
    from simulator.core.i18n import language

    with language("fr"):
        with LogLines(10, "study", "deals") as bar:
            bar.update(10)
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert "10/10 donnes (100%)" in last and last.endswith(", terminé"), last
