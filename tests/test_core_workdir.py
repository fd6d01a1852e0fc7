"""A working directory a long command owns (a tuning's, a growth's): refused when it holds something else, locked
while the command runs, its sealed inputs written once, the same inputs resumed."""

from __future__ import annotations

import polars as pl
import pytest

from simulator.core.errors import SpecError
from simulator.core.run.workdir import owned_workdir
from simulator.core.storage.sealed import read_sealed

ALLOWED = "a new or empty directory, or the same thing to resume"


def test_a_new_directory_gets_its_inputs_once_and_resumes_with_the_same(tmp_path):
    out = tmp_path / "w"
    with owned_workdir(out, "_w.json", {"n": 3}, "thing", ALLOWED) as work:
        assert work.path == out and work / "x" == out / "x" and (out / ".lock").exists()
        first = (out / "_w.json").read_bytes()
    with owned_workdir(out, "_w.json", {"n": 3}, "thing", ALLOWED):
        assert (out / "_w.json").read_bytes() == first
    assert read_sealed(out / "_w.json")[0] == {"n": 3}


@pytest.mark.parametrize("prepare, says", [
    (lambda out: (out.mkdir(), (out / "x.txt").write_text("mine")), "is not empty and is not a thing"),
    (lambda out: out.write_text("a file"), "is a file"),
])
def test_a_directory_holding_something_else_is_refused_and_left_as_it_was(tmp_path, prepare, says):
    out = tmp_path / "w"
    prepare(out)
    before = sorted(p.name for p in out.iterdir()) if out.is_dir() else out.read_text()
    with pytest.raises(SpecError, match=says):
        with owned_workdir(out, "_w.json", {"n": 3}, "thing", ALLOWED):
            pytest.fail("entered")
    assert (sorted(p.name for p in out.iterdir()) if out.is_dir() else out.read_text()) == before


def test_other_inputs_are_refused(tmp_path):
    out = tmp_path / "w"
    with owned_workdir(out, "_w.json", {"n": 3}, "thing", ALLOWED):
        pass
    with pytest.raises(SpecError, match="holds another thing"):
        with owned_workdir(out, "_w.json", {"n": 4}, "thing", ALLOWED):
            pytest.fail("entered")


def test_what_the_command_writes_goes_through_its_workdir(tmp_path):
    """Frames and bytes written whole (atomically) under the directory, read back; a frame not written yet reads
    as None and is not written."""
    out = tmp_path / "w"
    with owned_workdir(out, "_w.json", {"n": 3}, "thing", ALLOWED) as work:
        assert work.read_frame("t.parquet") is None and not work.is_written("round-1/t.parquet")
        work.write_frame("round-1/t.parquet", pl.DataFrame({"a": [1, 2]}))
        work.write_bytes("best.toml", b"x = 1\n")
        assert work.is_written("round-1/t.parquet")
        assert work.read_frame("round-1/t.parquet")["a"].to_list() == [1, 2]
    assert (out / "best.toml").read_bytes() == b"x = 1\n"
    assert not [p for p in out.rglob("*") if p.name.startswith(".") and p.name != ".lock"]  # no scratch left
