"""The run store: layout, metadata, readers, refusals that leave the disk untouched, crash leftovers."""

from __future__ import annotations

import hashlib
import json

import pandas as pd
import polars as pl
import pyarrow.parquet as pq
import pytest

import fakegame
from simulator.core.errors import MetadataError, DatasetError, SpecError
from simulator.core.run.runner import run
from simulator.core.storage.store import (
    FORMAT, MANIFEST_NAME, open_run, parse_part_name, part_name, read_manifest, read_table, spec_differences,
)

TABLES = ("hands", "manches")


@pytest.fixture(autouse=True)
def fake(monkeypatch):
    fakegame.patch(monkeypatch)


def snapshot(root):
    """Every path under ``root`` with its content hash and mtime: equal snapshots = untouched tree."""
    out = {}
    for p in sorted(root.rglob("*")):
        stat = p.stat()
        digest = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
        out[str(p.relative_to(root))] = (digest, stat.st_mtime_ns)
    return out


def frames_for(spec, start, stop):
    return fakegame.simulate_chunk(spec, start, stop)


def test_part_names_round_trip():
    assert part_name(0, 250_000) == "part-000000000000-000000250000.parquet"
    assert parse_part_name(part_name(12, 345)) == (12, 345)
    assert parse_part_name("part-000000000005-000000000005.parquet") is None
    assert parse_part_name("part-1-2.parquet") is None
    assert parse_part_name("_manifest.json") is None


def test_layout_manifest_and_part_metadata(tmp_path):
    spec = fakegame.fake_spec(n=20)
    out = tmp_path / "run"
    result = run(spec, out, chunk_size=8, progress=False)
    assert not result.interrupted and result.games_done == 20 and result.chunks_written == 3
    assert sorted(p.name for p in out.iterdir()) == [".lock", "_manifest.json", "hands", "manches"]
    names = [part_name(0, 8), part_name(8, 16), part_name(16, 20)]
    for table in TABLES:
        assert sorted(p.name for p in (out / table).iterdir()) == names
    manifest = read_manifest(out)
    assert manifest["format"] == FORMAT
    assert manifest["spec"] == spec.to_dict() and manifest["spec_digest"] == spec.digest()
    assert manifest["tables"] == list(TABLES)
    assert manifest["chunks"] == [[0, 8], [8, 16], [16, 20]]
    assert manifest["complete"] is True
    assert manifest["cardsim_version"] and manifest["created"] and manifest["updated"]
    for table in TABLES:  # every part's size and sha256, as written
        for name in names:
            record = manifest["parts"][f"{table}/{name}"]
            data = (out / table / name).read_bytes()
            assert record["size"] == len(data) and record["sha256"] == hashlib.sha256(data).hexdigest()
    assert manifest["parts"]["manches/" + names[2]]["rows"] == 4
    meta = pq.read_metadata(out / "manches" / names[1])
    kv = {k.decode(): v.decode() for k, v in meta.metadata.items()}
    assert kv["cardsim.spec"] == spec.to_json()
    assert kv["cardsim.seed"] == str(spec.seed)
    assert kv["cardsim.chunk"] == "8-16"
    assert kv["cardsim.table"] == "manches"
    assert kv["cardsim.version"] == manifest["cardsim_version"]
    assert meta.row_group(0).column(0).compression == "ZSTD"


def test_pandas_and_polars_open_table_folders(tmp_path):
    spec = fakegame.fake_spec(n=30)
    out = tmp_path / "run"
    run(spec, out, chunk_size=9, progress=False)
    expected_hands = frames_for(spec, 0, 30)["hands"]
    by_polars = pl.scan_parquet(out / "hands").collect().sort("game", "hand")
    assert by_polars.equals(expected_hands)
    by_pandas = pd.read_parquet(out / "hands").sort_values(["game", "hand"]).reset_index(drop=True)
    assert by_pandas.equals(expected_hands.to_pandas())
    assert pd.read_parquet(out / "manches").shape == (30, 3)
    assert read_table(out, "manches", lazy=False).equals(frames_for(spec, 0, 30)["manches"])
    assert isinstance(read_table(out), pl.LazyFrame)


def test_read_refuses_what_is_not_a_run(tmp_path):
    with pytest.raises(SpecError, match="is not a run"):
        read_manifest(tmp_path)
    with pytest.raises(SpecError, match="is not a run"):
        read_table(tmp_path / "nowhere")
    spec = fakegame.fake_spec(n=5)
    run(spec, tmp_path / "run", progress=False)
    with pytest.raises(SpecError, match="table: 'tricks'.*hands | manches"):
        read_table(tmp_path / "run", "tricks")


def test_missing_ranges_and_write_once(tmp_path):
    spec = fakegame.fake_spec(n=100)
    store = open_run(tmp_path / "run", spec, TABLES)
    assert store.missing_ranges() == [(0, 100)]
    assert store.write_chunk(10, 20, frames_for(spec, 10, 20))
    assert store.write_chunk(50, 60, frames_for(spec, 50, 60))
    assert store.missing_ranges() == [(0, 10), (20, 50), (60, 100)]
    assert store.missing_ranges(15) == [(0, 10)]
    part = tmp_path / "run" / "hands" / part_name(10, 20)
    before = part.stat().st_mtime_ns, part.stat().st_ino
    assert not store.write_chunk(10, 20, frames_for(spec, 10, 20))
    assert (part.stat().st_mtime_ns, part.stat().st_ino) == before
    for a, b in [(15, 25), (5, 12), (45, 70), (12, 18)]:
        with pytest.raises(ValueError, match="overlaps"):
            store.write_chunk(a, b, frames_for(spec, a, b))
    with pytest.raises(ValueError, match="tables"):
        store.write_chunk(20, 30, {"hands": frames_for(spec, 20, 30)["hands"]})
    store.flush()
    assert read_manifest(tmp_path / "run")["chunks"] == [[10, 20], [50, 60]]
    assert not (tmp_path / "run" / "hands" / ".tmp").exists()


def test_open_cleans_crash_leftovers_only_after_validation(tmp_path):
    spec = fakegame.fake_spec(n=40)
    out = tmp_path / "run"
    store = open_run(out, spec, TABLES)
    for a in (0, 10, 20):
        store.write_chunk(a, a + 10, frames_for(spec, a, a + 10))
    store.close()
    # a chunk killed between its two tables, junk in .tmp, a torn part (no footer)
    stray = frames_for(spec, 30, 40)["hands"]
    stray.write_parquet(out / "hands" / part_name(30, 40))
    (out / ".tmp").mkdir(exist_ok=True)
    (out / ".tmp" / "hands-part.parquet.123").write_bytes(b"half a file")
    torn = out / "manches" / part_name(20, 30)
    torn.write_bytes(torn.read_bytes()[:50])
    # a different spec is refused first, and nothing is cleaned
    before = snapshot(out)
    with pytest.raises(SpecError):
        open_run(out, fakegame.fake_spec(n=40, bonus=1), TABLES)
    assert snapshot(out) == before
    # the same spec cleans up
    store = open_run(out, spec, TABLES)
    assert sorted(store.chunks) == [(0, 10), (10, 20)]
    assert store.missing_ranges() == [(20, 40)]
    assert not (out / ".tmp").exists() or not any((out / ".tmp").iterdir())
    for table in TABLES:
        assert sorted(p.name for p in (out / table).iterdir()) == [part_name(0, 10), part_name(10, 20)]
    assert (out / "_quarantine" / "manches" / part_name(20, 30)).is_file()  # the torn part, kept aside
    assert any("damaged manches/" in line for line in store.repairs)


def test_different_spec_refused_with_differences_named(tmp_path):
    spec = fakegame.fake_spec(n=20)
    out = tmp_path / "run"
    run(spec, out, chunk_size=6, progress=False)
    before = snapshot(out)
    other = fakegame.build_spec("fake", n=30, seed=7, options={"bonus": 3}, strategies=["greedy:threshold=4"])
    with pytest.raises(SpecError) as err:
        run(other, out, chunk_size=6, progress=False)
    message = str(err.value)
    assert message.startswith("--out: ")
    assert "holds a run with a different spec" in message
    assert "n" in message.split("differs in: ")[1]
    assert "options.bonus" in message and "strategies[0].name" in message
    assert "allowed: an empty or new directory, or a run with the same spec" in message
    assert snapshot(out) == before


def test_spec_differences_names_sub_keys():
    a = {"n": 1, "seed": 2, "options": {"x": 1, "y": 2},
         "strategies": [{"name": "g", "params": {"t": 1}}, {"name": "g", "params": {"t": 1}}]}
    b = {"n": 1, "seed": 3, "options": {"x": 1, "y": 5},
         "strategies": [{"name": "g", "params": {"t": 1}}, {"name": "g", "params": {"t": 2}}]}
    assert spec_differences(a, b) == ["options.y", "seed", "strategies[1].params.t"]
    assert spec_differences(a, a) == []


def test_non_run_directory_and_file_refused_unchanged(tmp_path):
    spec = fakegame.fake_spec(n=5)
    other = tmp_path / "photos"
    other.mkdir()
    (other / "cat.jpg").write_bytes(b"meow")
    (other / "hands").mkdir()
    before = snapshot(other)
    with pytest.raises(SpecError, match="is not a cardsim run"):
        run(spec, other, progress=False)
    assert snapshot(other) == before
    a_file = tmp_path / "notes.txt"
    a_file.write_text("hello")
    with pytest.raises(SpecError, match="is a file"):
        run(spec, a_file, progress=False)
    assert a_file.read_text() == "hello"


@pytest.mark.parametrize("content", [b"{not json", b'{"format": "something-else/9"}', b"[1, 2]", b"\xff\xfe"])
def test_corrupt_manifest_refused_unchanged(tmp_path, content):
    spec = fakegame.fake_spec(n=10)
    out = tmp_path / "run"
    run(spec, out, chunk_size=4, progress=False)
    (out / MANIFEST_NAME).write_bytes(content)
    before = snapshot(out)
    with pytest.raises(MetadataError, match=f"{MANIFEST_NAME}.*--repair"):
        run(spec, out, progress=False)
    assert snapshot(out) == before


def test_foreign_part_is_quarantined_and_played_again(tmp_path):
    spec = fakegame.fake_spec(n=10)
    out = tmp_path / "run"
    run(spec, out, chunk_size=5, progress=False)
    expected = read_table(out, "hands", lazy=False)
    other = fakegame.fake_spec(n=10, bonus=2)
    foreign = out / "hands" / part_name(0, 5)
    frames_for(other, 0, 5)["hands"].write_parquet(foreign, metadata={"cardsim.spec": other.to_json()})
    with pytest.raises(DatasetError, match="hands/" + part_name(0, 5) + " is damaged.*cardsim verify"):
        read_table(out, "hands")
    result = run(spec, out, chunk_size=5, progress=False)
    assert result.games_done == 5 and any(line.startswith("foreign hands/") for line in result.repairs)
    assert read_table(out, "hands", lazy=False).equals(expected)
    assert (out / "_quarantine" / "hands" / part_name(0, 5)).is_file()


def test_empty_directory_is_used_and_manifest_written_at_once(tmp_path):
    spec = fakegame.fake_spec(n=10)
    open_run(tmp_path, spec, TABLES)
    manifest = json.loads((tmp_path / MANIFEST_NAME).read_text())
    assert manifest["chunks"] == [] and manifest["complete"] is False
    # reopening an untouched run with the same spec is fine
    assert open_run(tmp_path, spec, TABLES).missing_ranges() == [(0, 10)]
