"""A user's strategy file cannot hurt a run: whatever its code does (raise, exit, loop, write its parameters, answer
illegally) is one line naming the file and the decision; before the run it is exit 2 with nothing written, during
play exit 1 with what was finished kept, and ``--restart`` plays the run afresh once the file is fixed."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import polars as pl
import pytest

import cardsim as api
import cli
from simulator.core.contract import file_code

ROOT = Path(__file__).resolve().parents[1]
FIRST_DECISION = {"kamoul": "turn", "rami": "draw", "kems": "propose"}  # asked in every game's first turn


def run_cli(capsys, *args):
    code = cli.main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def plain_file(tmp_path: Path, game: str, name: str, body: str = "", decision: str | None = None,
               head: str = "") -> Path:
    """``cardsim new-strategy``'s module for ``game`` as plain Python (no ``@njit``: the reference engine plays it),
    ``head`` run at import first and, with ``decision``, that decision replaced by ``def bad(*args): <body>``."""
    folder = tmp_path / name
    api.new_strategy(game, name, folder)
    path = folder / f"{name}.py"
    text = head + path.read_text().replace("@njit\n", "")
    if decision:
        variable = re.search(r"^(\w+) = strategy\(", text, re.M).group(1)
        text += (f"\n\nimport dataclasses as _dataclasses\n\n\ndef bad(*args):\n    {body}\n\n\n"
                 f"{variable} = _dataclasses.replace({variable}, functions={{**{variable}.functions, "
                 f"{decision!r}: bad}})\n")
    path.write_text(text)
    return path


def assert_refused_before_writing(capsys, tmp_path, game: str, path: Path, says: str, *more) -> str:
    out = tmp_path / "run"
    code, printed, err = run_cli(capsys, "simulate", game, "-n", "4", "--seed", "1", "--strategy", path,
                                 "--out", out, "--quiet", *more)
    lines = [line for line in err.strip().splitlines() if not line.startswith("note:")]
    assert code == 2 and "Traceback" not in err + printed and len(lines) == 1, err
    assert re.search(says, lines[0]), lines[0]
    assert not out.exists()
    return lines[0]


@pytest.mark.parametrize("game", ["kamoul", "rami", "kems"])
def test_a_decision_that_raises_is_named_in_one_line_before_anything_is_written(tmp_path, capsys, game):
    decision = FIRST_DECISION[game]
    path = plain_file(tmp_path, game, "raiser", "return 1 / 0", decision)
    line = assert_refused_before_writing(capsys, tmp_path, game, path,
                                         rf"^Error: strategy file raiser\.py, {decision}\(\) \(line \d+\): "
                                         "ZeroDivisionError: division by zero$")
    assert "internal error" not in line


@pytest.mark.parametrize("game, where", [("kems", "import"), ("kamoul", "decision"), ("rami", "decision"),
                                         ("kems", "decision")])
def test_a_file_that_exits_never_decides_cardsims_exit_code(tmp_path, capsys, game, where):
    decision = FIRST_DECISION[game]
    if where == "import":
        path, says = plain_file(tmp_path, game, "quitter", head="import sys\nsys.exit(3)\n"), r"import \(line 2\)"
    else:
        path = plain_file(tmp_path, game, "quitter", "raise SystemExit(0)", decision)
        says = rf"{decision}\(\) \(line \d+\)"
    assert_refused_before_writing(capsys, tmp_path, game, path,
                                  rf"strategy file quitter\.py, {says}: SystemExit\((3|0)\): a strategy file may not "
                                  "end cardsim")


@pytest.mark.parametrize("game, decision, says", [
    ("kems", "infer_contre", r"answered infer_contre with 99, which is not -1 or an opponent's seat"),
    ("kamoul", "turn", r"answered turn with 99, which is no action"),
    ("rami", "draw", r"answered draw with 99, which is no choice"),
])
def test_an_illegal_answer_is_refused_before_the_run_directory_exists(tmp_path, capsys, game, decision, says):
    path = plain_file(tmp_path, game, "accuser", "return 99", decision)
    assert_refused_before_writing(capsys, tmp_path, game, path,
                                  says + r".*\(in a trial game before the run: nothing was written\)$")


def test_a_looping_decision_or_import_is_stopped_and_named(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(file_code, "DECISION_SECONDS", 1)
    monkeypatch.setattr(file_code, "IMPORT_SECONDS", 1)
    path = plain_file(tmp_path, "kamoul", "looper", "while True:\n        pass", "turn")
    assert_refused_before_writing(capsys, tmp_path, "kamoul", path,
                                  r"looper\.py, turn\(\) \(line \d+\): still running after 1 s \(a loop that never "
                                  r"ends\?\); a decision may take 1 s at most")
    path = plain_file(tmp_path, "kamoul", "hanger", head="while True:\n    pass\n")
    assert_refused_before_writing(capsys, tmp_path, "kamoul", path,
                                  r"hanger\.py, import \(line [12]\): still running after 1 s .*an import may take")


@pytest.mark.parametrize("game, decision, chunk_size", [("kems", "sign", "40"), ("kems", "sign", "5"),
                                                         ("kamoul", "turn", "5"), ("rami", "draw", "5")])
def test_a_file_that_writes_its_parameters_is_refused_whatever_the_chunk_size(tmp_path, capsys, game, decision,
                                                                             chunk_size):
    """Its rows would otherwise depend on the games before them in their chunk (the parameters are read-only)."""
    path = plain_file(tmp_path, game, "writer", "args[0][0] = args[0][0] * 0.5 + 0.01\n    return 0", decision)
    assert_refused_before_writing(capsys, tmp_path, game, path,
                                  rf"writer\.py, {decision}\(\) \(line \d+\): writes into prm, its parameters, which "
                                  "are read-only during a run$", "--chunk-size", chunk_size)


def test_a_numba_file_that_writes_its_parameters_does_not_compile(tmp_path, capsys):
    folder = tmp_path / "nwriter"
    api.new_strategy("kems", "nwriter", folder)
    path = folder / "nwriter.py"
    text = path.read_text()
    sign = "def sign(prm, view, rng):\n"
    assert sign in text
    path.write_text(text.replace(sign, sign + "    prm[0] = 1.0\n"))
    assert_refused_before_writing(capsys, tmp_path, "kems", path,
                                  r"sign: 'writes into prm, its parameters, which are read-only during a run' does "
                                  r"not compile \(line \d+ of nwriter\.py\)")


def test_a_fault_during_play_keeps_the_run_and_restart_plays_it_afresh_once_fixed(tmp_path, capsys):
    """The trial plays four players; at six the file raises, during the run: exit 1, the run kept. Once fixed, the
    same command names the change and ``--restart`` plays the very rows of a fresh run."""
    path = plain_file(tmp_path, "kems", "six", "raise RuntimeError('six players')", "propose")
    text = path.read_text()
    fixed = text.replace("def bad(*args):\n    raise RuntimeError('six players')",
                         "def bad(*args):\n    return 0")
    path.write_text(text.replace("raise RuntimeError('six players')",
                                 "if args[1].players == 6:\n        raise RuntimeError('six players')\n    return 0"))
    args = ["simulate", "kems", "-n", "12", "--seed", "3", "--players", "6", "--chunk-size", "4", "--quiet",
            "--strategy", path, "--out", tmp_path / "run"]
    code, _, err = run_cli(capsys, *args)
    lines = [line for line in err.strip().splitlines() if not line.startswith("note:")]
    assert code == 1 and len(lines) == 1 and "Traceback" not in err, err
    assert re.search(r"strategy file six\.py, propose\(\) \(line \d+\): RuntimeError: six players; the games "
                     r"finished before it are kept in .*run: fix the file, then run the same command with --restart",
                     lines[0])
    assert (tmp_path / "run" / "_manifest.json").is_file()

    path.write_text(fixed)
    code, _, err = run_cli(capsys, *args)
    assert code == 2 and re.search(r"holds a run of strategy file six\.py as it was \(sha256 \w+…\); the file has "
                                   r"changed since \(sha256 \w+…\).*--restart to start this one afresh", err), err
    code, _, err = run_cli(capsys, *args, "--restart")
    assert code == 0, err
    code, _, err = run_cli(capsys, *args[:-1], tmp_path / "fresh")
    assert code == 0, err
    restarted, fresh = (pl.read_parquet(tmp_path / d / "manches").sort("game", "manche") for d in ("run", "fresh"))
    assert restarted.height > 0 and restarted.equals(fresh)


def test_restart_removes_only_a_run_and_refuses_what_cardsim_did_not_write(tmp_path, capsys):
    args = ["simulate", "kems", "-n", "8", "--seed", "1", "--quiet", "--out", tmp_path / "run"]
    assert run_cli(capsys, *args)[0] == 0
    (tmp_path / "run" / "notes.txt").write_text("mine")
    code, _, err = run_cli(capsys, *args[:3], "2", *args[4:], "--restart")
    assert code == 2 and "holds notes.txt, which --restart would not remove: move it first" in err
    assert (tmp_path / "run" / "notes.txt").read_text() == "mine"
    (tmp_path / "run" / "notes.txt").unlink()
    code, _, err = run_cli(capsys, *args[:3], "2", *args[4:], "--restart")
    assert code == 0, err
    assert api.run_spec(tmp_path / "run").n == 2


@pytest.mark.slow
def test_a_second_ctrl_c_ends_a_run_whose_compiled_decision_never_returns(tmp_path):
    """A numba file that spins at six players (the trial plays four): the kernel holds the main thread, so Python's
    handler never runs; the second Ctrl-C still ends the process within about a second, exit 130, the temporary
    folder removed, and the run opens again."""
    folder = tmp_path / "spinner"
    api.new_strategy("kems", "spinner", folder)
    path = folder / "spinner.py"
    head = "def propose(prm, view, seen, loc, pub, multi, mem, work, out, rng):\n"
    assert head in path.read_text()
    path.write_text(path.read_text().replace(head, head + "    while view.players == 6:\n        pass\n"))
    out = tmp_path / "run"
    command = (f"import sys; sys.path[:0] = [{str(ROOT)!r}]\nfrom simulator.launch import start\n"
               f"sys.exit(start(['simulate', 'kems', '-n', '8', '--players', '6', '--strategy', {str(path)!r}, "
               f"'--out', {str(out)!r}]))")
    process = subprocess.Popen([sys.executable, "-c", command], stderr=subprocess.PIPE, text=True)
    said: list[str] = []
    reader = threading.Thread(target=lambda: said.extend(process.stderr), daemon=True)
    reader.start()
    deadline = time.monotonic() + 900  # the first run on a machine compiles the kernel for files
    while process.poll() is None and time.monotonic() < deadline:
        compiling = any(line.startswith("compiling") for line in said)
        if (out / "_manifest.json").exists() and (not compiling or any("compiled in" in x for x in said)):
            break
        time.sleep(0.2)
    time.sleep(5)  # the kernel loaded from the cache, or just compiled: it spins now
    assert process.poll() is None, "".join(said)
    process.send_signal(signal.SIGINT)
    time.sleep(0.3)
    process.send_signal(signal.SIGINT)
    sent = time.monotonic()
    code = process.wait(timeout=30)
    reader.join(timeout=5)
    assert code == 130 and time.monotonic() - sent < 5, "".join(said)
    assert any("aborted: the chunk in flight was dropped" in line for line in said), "".join(said)
    assert not (out / ".tmp").exists() and (out / "_manifest.json").is_file()
