"""Datasets you can trust (issue 14): one writer per directory, checksummed parts that readers, resume and
``cardsim verify`` check, a manifest rebuilt from the parts, and nothing written before input is valid."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

import cli
import fakegame
from simulator.core.errors import DatasetError, SpecError
from simulator.core.run.runner import iter_chunks, run
from simulator.core.run.verify import verify
from simulator.core.storage.dirlock import LOCK_NAME, DirLock
from simulator.core.storage.store import MANIFEST_NAME, part_name, read_manifest, read_table

ROOT = Path(__file__).resolve().parents[1]
TESTS = Path(__file__).resolve().parent


@pytest.fixture(autouse=True)
def fake(monkeypatch):
    fakegame.patch(monkeypatch)


def tree_hash(root: Path) -> str:
    """Every path and file content under ``root``: equal hashes = an untouched tree (a missing root hashes
    as such)."""
    digest = hashlib.sha256()
    if not root.exists():
        return "absent"
    for path in sorted(root.rglob("*")):
        digest.update(str(path.relative_to(root)).encode() + b"\0")
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


def tables(out):
    return read_table(out, "hands", lazy=False), read_table(out, "manches", lazy=False)


def same(a, b):
    return all(x.equals(y) for x, y in zip(a, b))


def flip_byte(path: Path, where: float = 0.5) -> None:
    data = bytearray(path.read_bytes())
    data[int(len(data) * where)] ^= 0x10
    path.write_bytes(bytes(data))


def run_cli(capsys, *args):
    code = cli.main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# --- one writer per directory ------------------------------------------------------------------------------

WRITER = """
import sys
sys.path[:0] = [{root!r}, {tests!r}]
import fakegame
fakegame.install()
import cli
sys.exit(cli.main(["simulate", "fake", "-n", "{n}", "--seed", "11", "--chunk-size", "{chunk}", "--out", {out!r},
                   "--quiet"]))
"""


def start_writer(out, n, chunk, delay_ms):
    script = WRITER.format(root=str(ROOT), tests=str(TESTS), n=n, chunk=chunk, out=str(out))
    env = dict(os.environ, FAKEGAME_DELAY_MS=str(delay_ms))
    return subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)


def wait_for_lock(out: Path, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if (out / MANIFEST_NAME).is_file():
            return
        time.sleep(0.02)
    pytest.fail("the first writer did not start in time")


@pytest.mark.slow
@pytest.mark.parametrize("second_chunk", [6, 5], ids=["same-chunk-size", "different-chunk-size"])
def test_two_writers_on_one_directory_exactly_one_runs(tmp_path, second_chunk):
    out = tmp_path / "run"
    first = start_writer(out, 60, 6, 700)  # ~7 s of chunks: the second starts while it writes
    wait_for_lock(out)
    second = start_writer(out, 60, second_chunk, 0)
    _, err2 = second.communicate(timeout=120)
    _, err1 = first.communicate(timeout=120)
    assert first.returncode == 0, err1
    assert second.returncode == 2
    lines = err2.strip().splitlines()
    assert len(lines) == 1 and "being written by another cardsim process" in lines[0], err2
    assert f"pid {first.pid} " in lines[0]
    hands, manches = tables(out)
    assert manches.height == 60 and manches["game"].to_list() == list(range(60))
    assert hands.height == 120 and hands.select("game", "hand").is_unique().all()
    assert sorted(p.name for p in (out / "manches").iterdir()) == [part_name(a, min(a + 6, 60)) for a in range(0, 60, 6)]
    expected = fakegame.simulate_chunk(fakegame.fake_spec(n=60, seed=11), 0, 60)
    assert manches.equals(expected["manches"])
    assert verify(out)["sound"]


def test_the_lock_dies_with_its_process_and_names_the_holder(tmp_path):
    out = tmp_path / "d"
    out.mkdir()
    holder = subprocess.Popen([sys.executable, "-c", f"import sys; sys.path[:0] = [{str(ROOT)!r}]\n"
                               "from simulator.core.storage.dirlock import DirLock\nimport time\n"
                               f"DirLock({str(out)!r}).acquire(); print('held', flush=True); time.sleep(60)"],
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    with pytest.raises(SpecError, match=f"^--out: .*another cardsim process \\(pid {holder.pid} on "):
        DirLock(out).acquire()
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    with DirLock(out) as lock:  # the kernel released it: no stale lock
        assert lock.held and (out / LOCK_NAME).read_text().split()[0] == str(os.getpid())
        with DirLock(out):  # re-entrant within a process
            pass
        assert lock.held


# --- checksums: verify, readers and resume ------------------------------------------------------------------


@pytest.fixture
def finished(tmp_path):
    """A finished fake run of 40 games in chunks of 10, its tables and the bytes of every part."""
    spec = fakegame.fake_spec(n=40, seed=3)
    out = tmp_path / "run"
    run(spec, out, chunk_size=10, progress=False)
    parts = {p.relative_to(out): p.read_bytes() for p in out.glob("*/part-*.parquet")}
    return spec, out, tables(out), parts


def problems(out):
    return sorted((p["problem"], p["path"]) for p in verify(out)["problems"])


def test_a_flipped_byte_is_seen_by_verify_readers_and_resume(finished, capsys):
    spec, out, expected, parts = finished
    victim = out / "hands" / part_name(10, 20)
    flip_byte(victim)
    assert problems(out) == [("damaged", f"hands/{part_name(10, 20)}")]
    code, stdout, err = run_cli(capsys, "verify", str(out))
    assert code == 1 and "damaged" in stdout and "NOT sound" in stdout
    with pytest.raises(DatasetError, match=f"hands/{part_name(10, 20)} is damaged; run `cardsim verify {out}`"):
        read_table(out, "hands")
    result = run(spec, out, chunk_size=10, progress=False)  # resume: plays that chunk again, to the same bytes
    assert result.games_done == 10 and any(r.startswith("damaged hands/") for r in result.repairs)
    assert {p.relative_to(out): p.read_bytes() for p in out.glob("*/part-*.parquet")} == parts
    assert same(tables(out), expected) and verify(out)["sound"]
    assert (out / "_quarantine" / "hands" / part_name(10, 20)).is_file()


@pytest.mark.parametrize("where", [0.02, 0.3, 0.6, 0.9, 0.999])
def test_every_flipped_position_is_detected(finished, where):
    _, out, _, _ = finished
    flip_byte(out / "manches" / part_name(30, 40), where)
    assert problems(out) == [("damaged", f"manches/{part_name(30, 40)}")]


def test_a_deleted_part_and_a_foreign_part_are_reported_and_resumed(finished):
    spec, out, expected, parts = finished
    (out / "manches" / part_name(0, 10)).unlink()
    other = fakegame.fake_spec(n=40, seed=4)
    foreign = fakegame.simulate_chunk(other, 20, 30)["hands"]
    from simulator.core.storage.store import part_bytes, part_metadata

    (out / "hands" / part_name(20, 30)).write_bytes(part_bytes(foreign, part_metadata(other, "hands", 20, 30)))
    (out / "hands" / "notes.txt").write_text("not a part")
    found = problems(out)
    assert ("missing", f"manches/{part_name(0, 10)}") in found
    assert ("foreign", f"hands/{part_name(20, 30)}") in found and ("foreign", "hands/notes.txt") in found
    with pytest.raises(DatasetError, match="is missing"):
        read_table(out, "manches")
    with pytest.warns(UserWarning, match="notes.txt"):
        with pytest.raises(DatasetError, match="is damaged"):
            read_table(out, "hands")
    result = run(spec, out, chunk_size=10, progress=False)
    assert result.games_done == 20
    assert same(tables(out), expected) and verify(out)["sound"]
    assert sorted(p.name for p in (out / "hands").iterdir()) == sorted(p.name for p in (out / "manches").iterdir())


def test_readers_read_only_what_the_manifest_lists(finished):
    _, out, expected, _ = finished
    stray = fakegame.simulate_chunk(fakegame.fake_spec(n=40, seed=3), 0, 10)["manches"]
    stray.write_parquet(out / "manches" / "part-000000000040-000000000050.parquet")  # a copy, unlisted
    with pytest.warns(UserWarning, match="does not list"):
        assert read_table(out, "manches", lazy=False).equals(expected[1])
    assert ("foreign", "manches/part-000000000040-000000000050.parquet") in problems(out)


def test_a_deleted_manifest_is_rebuilt_then_the_run_resumes_and_reads_as_before(finished, capsys):
    spec, out, expected, _ = finished
    manifest = read_manifest(out)
    (out / MANIFEST_NAME).unlink()
    (out / "hands" / part_name(30, 40)).unlink()  # and one chunk lost in one table
    code, stdout, _ = run_cli(capsys, "verify", str(out))
    assert code == 1 and "manifest" in stdout and "--repair" in stdout
    code, stdout, _ = run_cli(capsys, "verify", str(out), "--repair")
    assert code == 0, stdout
    assert "rebuilt from the parts' metadata" in stdout
    rebuilt = read_manifest(out)
    assert rebuilt["spec"] == manifest["spec"] and rebuilt["chunks"] == [[0, 10], [10, 20], [20, 30]]
    assert rebuilt["parts"] == {k: v for k, v in manifest["parts"].items() if "000000000030-" not in k}
    result = run(spec, out, chunk_size=10, progress=False)
    assert result.games_done == 10 and not result.interrupted
    assert same(tables(out), expected)
    assert read_manifest(out)["parts"] == manifest["parts"] and read_manifest(out)["complete"]


def test_unlisted_whole_parts_are_adopted_and_strays_removed(finished):
    """A kill between the parts' rename and the manifest's rewrite leaves whole parts the manifest does not
    list: resume keeps them (they are this run's, every table, decodable), and removes a half chunk."""
    spec, out, expected, _ = finished
    manifest = read_manifest(out)
    manifest["chunks"] = manifest["chunks"][:2]
    manifest["parts"] = {k: v for k, v in manifest["parts"].items() if "000000000020-" not in k
                         and "000000000030-" not in k}
    manifest["complete"] = False
    (out / MANIFEST_NAME).write_text(json.dumps(manifest))
    (out / "manches" / part_name(30, 40)).unlink()
    found = problems(out)
    assert ("unlisted", f"hands/{part_name(20, 30)}") in found and ("stray", f"hands/{part_name(30, 40)}") in found
    assert read_table(out, "manches", lazy=False).height == 20
    result = run(spec, out, chunk_size=10, progress=False)
    assert result.games_done == 10 and same(tables(out), expected)


def test_a_legacy_manifest_is_read_and_checksummed_on_resume(finished):
    spec, out, expected, _ = finished
    manifest = read_manifest(out)
    legacy = {k: v for k, v in manifest.items() if k != "parts"}
    legacy["format"] = "cardsim-run/1"
    (out / MANIFEST_NAME).write_text(json.dumps(legacy))
    assert same(tables(out), expected)
    run(spec, out, chunk_size=10, progress=False)
    assert read_manifest(out)["parts"] == manifest["parts"]


# --- nothing written before the input is valid --------------------------------------------------------------


def test_lazy_bounded_chunks(tmp_path):
    chunks = iter_chunks([(0, 10**12)], 1)
    assert next(chunks) == (0, 1) and next(chunks) == (1, 2)  # a generator: nothing built up front
    spec = fakegame.fake_spec(n=10**12)
    with pytest.raises(SpecError, match="^--chunk-size: 1 makes 1,000,000,000,000 chunks"):
        run(spec, tmp_path / "big", chunk_size=1, progress=False)
    assert not (tmp_path / "big").exists()


def test_a_run_refuses_batch_and_study_directories(tmp_path):
    for marker in ("_batch.json", "_study.json"):
        folder = tmp_path / marker.strip("_.")
        folder.mkdir()
        (folder / marker).write_text("{}")
        before = tree_hash(folder)
        with pytest.raises(SpecError, match=f"holds .*\\({marker}\\), not a run"):
            run(fakegame.fake_spec(n=5), folder, progress=False)
        assert tree_hash(folder) == before


class FullDisk:
    """``write_bytes_atomic`` that fails with ENOSPC from its ``after``-th call on, like a filling disk."""

    def __init__(self, real, after):
        self.real, self.after, self.calls = real, after, 0

    def __call__(self, path, data, tmp_dir=None):
        self.calls += 1
        if self.calls > self.after:
            import errno

            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        return self.real(path, data, tmp_dir)


def test_enospc_mid_run_is_one_line_and_the_run_resumes(tmp_path, capsys, monkeypatch):
    import simulator.core.storage.store as store

    out = tmp_path / "run"
    full = FullDisk(store.write_bytes_atomic, after=7)
    monkeypatch.setattr(store, "write_bytes_atomic", full)
    code, _, err = run_cli(capsys, "simulate", "fake", "-n", "60", "--seed", "11", "--chunk-size", "6", "--out",
                           str(out), "--quiet")
    lines = err.strip().splitlines()
    assert code == 1 and len(lines) == 1, err
    assert "No space left on device (ENOSPC)" in lines[0] and "re-run the same command" in lines[0]
    monkeypatch.setattr(store, "write_bytes_atomic", full.real)
    # the manifest could not be rewritten either: whole parts it does not list yet, nothing damaged
    assert {p["problem"] for p in verify(out)["problems"]} <= {"unlisted"} and not read_manifest(out)["complete"]
    code, _, err = run_cli(capsys, "simulate", "fake", "-n", "60", "--seed", "11", "--chunk-size", "6", "--out",
                           str(out), "--quiet")
    assert code == 0, err
    expected = fakegame.simulate_chunk(fakegame.fake_spec(n=60, seed=11), 0, 60)
    assert read_table(out, "manches", lazy=False).equals(expected["manches"])


def test_a_memory_error_is_one_line(tmp_path, capsys, monkeypatch):
    def exhausted(*args):
        raise MemoryError

    monkeypatch.setattr(fakegame, "_play", exhausted)
    code, _, err = run_cli(capsys, "simulate", "fake", "-n", "20", "--out", str(tmp_path / "run"), "--quiet")
    assert code == 1 and len(err.strip().splitlines()) == 1 and "out of memory" in err
    assert verify(tmp_path / "run")["sound"]


def test_hypothesis_is_a_test_dependency():
    text = (ROOT / "pyproject.toml").read_text()
    assert "hypothesis" in text.split("[project.optional-dependencies]")[1].split("\n", 3)[2]


def test_a_damaged_dataset_fails_polars_free(finished):
    """Data read through the store equals what was written, and a damaged part never reaches polars."""
    _, out, expected, _ = finished
    flip_byte(out / "manches" / part_name(0, 10), 0.4)
    with pytest.raises(DatasetError):
        read_table(out, "manches", lazy=True)
    assert isinstance(pl.scan_parquet(out / "hands"), pl.LazyFrame)  # the other table is untouched
    assert read_table(out, "hands", lazy=False).equals(expected[0])


def test_a_study_s_own_files_are_checksummed(tmp_path):
    """Frames and samples a study or batch writes itself go to its _checksums.json: readers and verify check
    them, and a damaged one counts as not written (a resume writes it again)."""
    from simulator.core.storage.ledger import checked_files, frame_is_recorded, read_ledger, write_frame

    study = tmp_path / "study"
    study.mkdir()
    (study / "_study.json").write_text('{"study": "kamoul-call", "inputs": {}}')
    sample = study / "samples" / "players=2" / "part-0000000000-0000000010.parquet"
    sample.parent.mkdir(parents=True)
    write_frame(sample, pl.DataFrame({"x": list(range(10))}))
    write_frame(study / "policy.parquet", pl.DataFrame({"t": [1, 2]}))
    ledger = read_ledger(study)
    assert set(ledger) == {"policy.parquet", "samples/players=2/part-0000000000-0000000010.parquet"}
    assert checked_files([sample]) == [sample] and frame_is_recorded(sample)
    stray = sample.with_name("part-0000000010-0000000020.parquet")
    pl.DataFrame({"x": [1]}).write_parquet(stray)
    assert checked_files([sample, stray]) == [sample]  # not in the ledger: not read
    assert verify(study)["sound"]
    flip_byte(sample)
    with pytest.raises(DatasetError, match="players=2/part-0000000000-0000000010.parquet is damaged"):
        checked_files([sample])
    assert not frame_is_recorded(sample)
    assert [(p["problem"], p["path"]) for p in verify(study)["problems"]] == [
        ("damaged", "samples/players=2/part-0000000000-0000000010.parquet")]
