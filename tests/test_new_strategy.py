"""`cardsim new-strategy`: the module it writes plays like the default strategy and its test file passes as
written (both engines, every answer checked); bad names, games without a contract and existing files are
refused in one line, with nothing written."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import cardsim as api
import cli
from simulator.core.contract.game import trace_hashes
from simulator.core.contract.registry import registered_games
from simulator.games import get_game
import fakegame

ROOT = Path(__file__).resolve().parents[1]


def run_cli(capsys, *args):
    code = cli.main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.slow
@pytest.mark.parametrize("game", ["kamoul", "rami", "kems"])
def test_the_module_documents_every_decision_and_its_test_passes_as_written(tmp_path, capsys, game):
    plugin = get_game(game)
    code, out, err = run_cli(capsys, "new-strategy", game, "my-player", "--out", tmp_path / "mine")
    assert code == 0, err
    module, test = tmp_path / "mine" / "my_player.py", tmp_path / "mine" / "test_my_player.py"
    assert f"--strategy {module}:my-player" in out and str(test) in out
    tree = ast.parse(module.read_text())
    functions = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}
    assert set(functions) == set(plugin.decisions)
    for name, decision in plugin.decisions.items():  # each one documented: what it answers and what is legal
        doc = ast.get_docstring(functions[name])
        assert doc.split("\n")[0] == decision.answers.split("\n")[0][:len(doc.split("\n")[0])] and "Legal: " in doc
    assert max(len(line) for line in module.read_text().splitlines()) <= 120
    # the generated test file, run as a user would: the reference engine checks every answer, then both engines
    # must play the same games
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0 and "2 passed" in done.stdout, done.stdout + done.stderr
    # and, as generated, it plays the default strategy: the built-in's games, on the reference engine
    players, default = plugin.default_players, plugin.default_strategy
    generated = api.make_spec(game, n=6, seed=4, players=players,
                              strategies=[f"{module}:my-player"] + [default] * (players - 1))
    builtin = api.make_spec(game, n=6, seed=4, players=players, strategies=[default] * players)
    assert [trace_hashes(generated, i) for i in range(6)] == [trace_hashes(builtin, i) for i in range(6)]


@pytest.mark.parametrize("args, says", [
    (["kamoul", "My Player"], "NAME: 'My Player'"),
    (["kamoul", "balanced"], "NAME: 'balanced'"),
    (["nogame", "x"], "nogame"),
])
def test_a_bad_name_or_game_is_one_line_and_writes_nothing(tmp_path, capsys, args, says):
    code, _, err = run_cli(capsys, "new-strategy", *args, "--out", tmp_path / "out")
    assert code == 2 and says in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_a_game_without_a_contract_yet_is_refused(tmp_path, capsys, monkeypatch):
    fakegame.patch(monkeypatch)  # every cardsim game has a contract now: a game without one
    without = [p.name for p in registered_games() if p.strategy_template is None]
    assert without == ["fake"]
    for game in without:
        code, _, err = run_cli(capsys, "new-strategy", game, "x", "--out", tmp_path / game)
        assert code == 2 and "kamoul" in err and "has no strategy contract yet" in err
        assert not (tmp_path / game).exists()


def test_existing_files_are_never_overwritten(tmp_path, capsys):
    target = tmp_path / "out"
    target.mkdir()
    (target / "test_mine.py").write_text("# mine\n")
    code, _, err = run_cli(capsys, "new-strategy", "kamoul", "mine", "--out", target)
    assert code == 2 and "already holds test_mine.py" in err
    assert (target / "test_mine.py").read_text() == "# mine\n" and not (target / "mine.py").exists()
