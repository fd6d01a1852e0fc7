"""Refused commands leave the disk as it was (issue 14 points 4-6): every bad input is refused in one line
before anything is written, a study or batch never writes into a directory that is not its own, and
operating-system failures (not a directory, a read-only or full file system, a name too long) end in one
line with exit 1 and a dataset that the same command resumes."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest

import cardsim as api
import cli
from simulator.core.storage.sealed import sealed, unsealed
from simulator.core.storage.store import read_table


def tree_hash(root: Path) -> str:
    """Every path and file content under ``root`` (``"absent"`` when it does not exist)."""
    if not root.exists():
        return "absent"
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        digest.update(str(path.relative_to(root)).encode() + b"\0")
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


def run_cli(capsys, *args):
    code = cli.main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and "Traceback" not in err, err
    return lines[0]


@pytest.fixture(scope="module")
def dirs(tmp_path_factory):
    """A finished kamoul run and a finished tournament, made once."""
    root = tmp_path_factory.mktemp("refusals")
    api.simulate("kamoul", out=root / "run", n=2000, seed=5, chunk_size=500, progress=False)
    api.tournament("kamoul", strategies=["balanced", "random"], out=root / "batch", n=30, seed=0, players=2,
                   progress=False)
    return root


BATCH_COMMANDS = {
    "tournament": ["tournament", "kamoul", "--strategy", "balanced", "--strategy", "random", "--players", "2", "-n", "30"],
    "sweep": ["sweep", "kamoul", "--grid", "call_threshold=1,3", "-n", "30"],
    "study kamoul-call": ["study", "kamoul-call", "-n", "30", "--players", "2"],
    "study rami-openings": ["study", "rami-openings", "-n", "30", "--players", "2"],
    "study balance": ["study", "balance", "kamoul", "-n", "30"],
}
BAD_SETTINGS = {"--chunk-size 0": ["--chunk-size", "0"], "--threads 0": ["--threads", "0"],
                "--seed -1": ["--seed", "-1"], "--seed 2**64": ["--seed", str(2**64)]}


@pytest.mark.parametrize("bad", list(BAD_SETTINGS))
@pytest.mark.parametrize("command", list(BATCH_COMMANDS))
def test_bad_settings_refused_before_anything_is_written(tmp_path, capsys, dirs, command, bad):
    """Issue 14 point 5: tournament, sweep and study with --chunk-size 0, --threads 0, --seed -1 or --seed 2**64:
    one line, exit 2, nothing written (a new directory is not created, an existing batch is untouched)."""
    flag = bad.split()[0]
    for out in (tmp_path / "new", dirs / "batch"):
        before = tree_hash(out)
        code, _, err = run_cli(capsys, *BATCH_COMMANDS[command], *BAD_SETTINGS[bad], "--out", out, "--quiet")
        assert code == 2 and flag.lstrip("-") + ": " in one_line(err)
        assert tree_hash(out) == before


def test_the_corrected_command_runs_after_a_refusal(tmp_path, capsys):
    out = tmp_path / "t"
    base = ["tournament", "kamoul", "--strategy", "balanced", "--strategy", "random", "--players", "2", "-n", "20",
            "--out", out, "--quiet"]
    assert run_cli(capsys, *base, "--chunk-size", "0")[0] == 2 and not out.exists()
    code, _, err = run_cli(capsys, *base, "--chunk-size", "10")
    assert code == 0, err


@pytest.mark.parametrize("command", ["study kamoul-call", "study rami-openings", "study balance", "tournament", "sweep"])
def test_a_study_or_batch_refuses_a_run_directory_and_leaves_it_whole(tmp_path, capsys, dirs, command):
    run = dirs / "run"
    before = tree_hash(run)
    code, _, err = run_cli(capsys, *BATCH_COMMANDS[command], "--out", run, "--quiet")
    assert code == 2 and ("holds a run" in one_line(err) or "holds a single run" in one_line(err))
    assert tree_hash(run) == before
    assert api.report(run, tmp_path / "r.html")["html"].is_file()  # the run's own report is still produced


def test_a_run_refuses_a_batch_directory(capsys, dirs):
    before = tree_hash(dirs / "batch")
    code, _, err = run_cli(capsys, "simulate", "kamoul", "-n", "30", "--out", dirs / "batch", "--quiet")
    assert code == 2 and "holds a tournament or sweep" in one_line(err)
    assert tree_hash(dirs / "batch") == before


def test_a_batch_cell_id_outside_the_batch_is_refused(tmp_path, capsys, dirs):
    batch = tmp_path / "batch"
    shutil.copytree(dirs / "batch", batch)
    text = (batch / "_batch.json").read_text().replace('"id": "c000"', '"id": "../../run"', 1)
    (batch / "_batch.json").write_text(text)
    code, _, err = run_cli(capsys, "report", batch, "--out", tmp_path / "b.html")
    assert code == 1 and "_batch.json is damaged" in one_line(err)  # its checksum: nothing of it is trusted
    text = json.dumps(sealed(unsealed(json.loads(text))))  # the same edit, sealed: the field check refuses the id
    (batch / "_batch.json").write_text(text)
    code, _, err = run_cli(capsys, "report", batch, "--out", tmp_path / "b.html")
    assert code == 1 and "_batch.json: field cells[0] is not a cell" in one_line(err)
    assert not (tmp_path / "b.html").exists()


def os_failures(tmp_path: Path):
    (tmp_path / "a-file").write_text("x")
    return {
        "under a file": (tmp_path / "a-file" / "run", "ENOTDIR"),
        "in /proc": (Path("/proc/cardsim-test/run"), "ENOENT"),
    }  # a name over 255 bytes is bad input, refused before the OS sees it (tests/test_outputs.py)


@pytest.mark.parametrize("case", ["under a file", "in /proc"])
@pytest.mark.parametrize("command", ["simulate", "tournament", "study kamoul-call"])
def test_os_failures_are_one_line_exit_1_and_write_nothing(tmp_path, capsys, case, command):
    out, code_name = os_failures(tmp_path)[case]
    args = (["simulate", "kamoul", "-n", "30"] if command == "simulate" else BATCH_COMMANDS[command])
    before = tree_hash(tmp_path)
    code, _, err = run_cli(capsys, *args, "--out", out, "--quiet")
    line = one_line(err)
    assert code == 1 and f"({code_name})" in line and str(out.parent) in line
    assert tree_hash(tmp_path) == before


def test_study_out_a_file_is_refused(tmp_path, capsys):
    target = tmp_path / "a-file"
    target.write_text("keep me")
    code, _, err = run_cli(capsys, "study", "kamoul-call", "-n", "5", "--out", target, "--quiet")
    assert code == 2 and "is a file" in one_line(err) and target.read_text() == "keep me"


@pytest.mark.parametrize("spec, says", [("DIR", "is a directory"), ("/dev/zero", "is not a regular file"),
                                        ("BIG", "bytes"), ("WRONG", "strategies"), ("EMPTY", "is empty")])
def test_spec_files_are_checked_before_reading(tmp_path, capsys, spec, says):
    (tmp_path / "big.toml").write_bytes(b"#" * (2 << 20))
    (tmp_path / "wrong.toml").write_text('n = 10\n[[strategy]]\nname = "balanced"\nparams = 3\n')
    (tmp_path / "empty.toml").write_text('n = 10\nstrategies = []\n')
    path = {"DIR": tmp_path, "BIG": tmp_path / "big.toml", "WRONG": tmp_path / "wrong.toml",
            "EMPTY": tmp_path / "empty.toml"}.get(spec, spec)
    code, _, err = run_cli(capsys, "simulate", "kamoul", "--spec", path, "--out", tmp_path / "o", "--quiet")
    assert code == 2 and says in one_line(err) and "--spec" in one_line(err)
    assert not (tmp_path / "o").exists()


def test_replay_run_refuses_what_it_would_ignore(capsys, dirs):
    for extra in (["--players", "3"], ["--level", "manches"], ["--strategy", "random"], ["--option", "snap_chain=true"]):
        code, _, err = run_cli(capsys, "replay", "kamoul", "--index", "3", "--run", dirs / "run", *extra)
        assert code == 2 and extra[0] in one_line(err) and "with --run" in one_line(err)
    code, _, err = run_cli(capsys, "replay", "kamoul", "--index", str(2**63))
    assert code == 2 and one_line(err).startswith("Error: --index: ")


def test_report_pdf_into_an_unwritable_place_leaves_nothing(tmp_path, capsys, dirs):
    html = tmp_path / "r.html"
    code, _, err = run_cli(capsys, "report", dirs / "run", "--out", html, "--pdf", tmp_path / "a-dir-not-there" / "r.pdf")
    assert code == 2 and "--pdf" in one_line(err) and not html.exists()


# --- a full and a read-only file system: a small tmpfs -------------------------------------------------------


@pytest.fixture
def tmpfs(tmp_path):
    """Mount a 2 MiB tmpfs at ``tmp_path/fs`` (the tests run as root here and in CI); yields ``(dir, remount)``."""
    where = tmp_path / "fs"
    where.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(where)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip() or done.returncode}): the full-disk case is "
                    "covered by test_core_integrity's ENOSPC test")

    def remount(options: str) -> None:
        subprocess.run(["mount", "-o", f"remount,{options}", str(where)], check=True)

    try:
        yield where, remount
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def test_a_full_file_system_ends_in_one_line_and_the_run_resumes(tmp_path, capsys, tmpfs):
    where, remount = tmpfs
    out = where / "run"
    args = ["simulate", "kamoul", "-n", "200000", "--seed", "9", "--chunk-size", "25000", "--out", out, "--quiet"]
    code, _, err = run_cli(capsys, *args)
    line = one_line(err)
    assert code == 1 and "(ENOSPC)" in line and "re-run the same command" in line
    found = api.verify(out)
    assert {p["problem"] for p in found["problems"]} <= {"unlisted"} and not found["complete"]
    remount("size=64m")
    code, _, err = run_cli(capsys, *args)
    assert code == 0, err
    assert api.verify(out)["sound"]
    api.simulate("kamoul", out=tmp_path / "ref", n=200000, seed=9, chunk_size=25000, progress=False)
    assert read_table(out, "hands", lazy=False).equals(read_table(tmp_path / "ref", "hands", lazy=False))


def test_a_read_only_file_system_is_one_line(capsys, tmpfs):
    where, remount = tmpfs
    remount("ro")
    code, _, err = run_cli(capsys, "simulate", "kamoul", "-n", "30", "--out", where / "run", "--quiet")
    assert code == 1 and "(EROFS)" in one_line(err)


# --- a damaged real run: report, replay --run, resume; a lost manifest ----------------------------------------


def test_report_and_replay_refuse_a_damaged_run_and_resume_restores_it(tmp_path, capsys, dirs):
    run = tmp_path / "run"
    shutil.copytree(dirs / "run", run)
    part = next(iter(sorted((run / "hands").iterdir())))
    original = part.read_bytes()
    data = bytearray(original)
    data[len(data) // 3] ^= 0x01
    part.write_bytes(bytes(data))
    for args in (["report", run, "--out", tmp_path / "r.html"], ["replay", "kamoul", "--index", "1", "--run", run]):
        code, _, err = run_cli(capsys, *args)
        assert code == 1 and f"`cardsim verify {run}`" in one_line(err) and "is damaged" in one_line(err)
    assert not (tmp_path / "r.html").exists()
    code, _, err = run_cli(capsys, "simulate", "kamoul", "-n", "2000", "--seed", "5", "--chunk-size", "500", "--out",
                           run, "--quiet")
    assert code == 0, err
    assert part.read_bytes() == original  # played again, to the same bytes
    assert run_cli(capsys, "verify", run)[0] == 0


def test_a_lost_manifest_is_rebuilt_and_the_run_reports_as_before(tmp_path, capsys, dirs):
    from analysis.summary import format_summary, run_summary

    run = tmp_path / "run"
    shutil.copytree(dirs / "run", run)
    before = format_summary(run_summary(run))
    (run / "_manifest.json").unlink()
    code, out, _ = run_cli(capsys, "report", run, "--out", tmp_path / "r.html")
    assert code == 2
    code, out, _ = run_cli(capsys, "verify", run, "--repair", "--json")
    assert code == 0 and '"sound": true' in out
    assert format_summary(run_summary(run)) == before
    code, _, err = run_cli(capsys, "simulate", "kamoul", "-n", "2000", "--seed", "5", "--out", run, "--quiet")
    assert code == 0, err
    assert format_summary(run_summary(run)) == before
    assert run_cli(capsys, "report", run, "--out", tmp_path / "r.html")[0] == 0


def test_verify_walks_batches_and_studies(tmp_path, capsys, dirs):
    batch = tmp_path / "batch"
    shutil.copytree(dirs / "batch", batch)
    assert run_cli(capsys, "verify", batch)[0] == 0
    cell = sorted((batch / "cells").iterdir())[0]
    victim = sorted((cell / "hands").iterdir())[0]
    victim.write_bytes(victim.read_bytes()[:-1] + b"X")
    (batch / "cells" / "cell=intruder").mkdir()
    code, out, _ = run_cli(capsys, "verify", batch)
    assert code == 1 and f"damaged   cells/{cell.name}/hands/{victim.name}" in out and "cells/cell=intruder" in out
    with pytest.raises(Exception, match="is damaged"):
        api.read_batch(batch).collect()
    study = tmp_path / "study"
    study.mkdir()
    (study / "_study.json").write_text('{"study": "rami-openings", "inputs": {}}')
    shutil.copytree(batch, study / "tournament-2p")
    code, out, _ = run_cli(capsys, "verify", study)
    assert code == 1 and f"tournament-2p/cells/{cell.name}/hands/{victim.name}" in out
