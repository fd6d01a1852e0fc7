"""Presets as data (issue "strong play, found not hand-set", step 2): a preset TOML file plays wherever a strategy
is accepted, as its family with the file's values; presets shipped in ``strategies/<game>/presets/`` are named
strategies listed with their provenance; a bad preset file is one line naming it, exit 2, nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import cardsim as api
from simulator.core.contract.presets import shipped_presets
from simulator.core.contract.registry import get_game
from simulator.core.errors import SpecError
from simulator.core.storage.spec import parse_strategy
from simulator.core.storage.store import read_table
from test_cli import run_cli

PRESET = """game = "kamoul"
family = "heuristic"
doc = "a test preset"
[params]
call_threshold = 4.5
snap = 0.5
au_score = false
[provenance]
against = ["balanced", "cautious"]
players = 2
budget = 7
seed = 1
date = "2026-12-04"
command = "cardsim tune kamoul --budget 7"
"""


@pytest.fixture
def preset(tmp_path) -> Path:
    path = tmp_path / "mine.toml"
    path.write_text(PRESET)
    return path


def test_a_preset_file_plays_as_its_family_with_its_values(tmp_path, preset):
    seat = parse_strategy(get_game("kamoul"), str(preset))
    assert seat.name == "heuristic" and dict(seat.params)["call_threshold"] == 4.5 and not dict(seat.params)["au_score"]
    assert seat == parse_strategy(get_game("kamoul"), "heuristic:call_threshold=4.5,snap=0.5,au_score=false")
    api.simulate("kamoul", n=150, seed=2, strategies=[str(preset)], out=tmp_path / "a", progress=False)
    api.simulate("kamoul", n=150, seed=2, strategies=["heuristic:call_threshold=4.5,snap=0.5,au_score=false"],
                 out=tmp_path / "b", progress=False)
    assert read_table(tmp_path / "a", "hands", lazy=False).equals(read_table(tmp_path / "b", "hands", lazy=False))
    manifest = json.loads((tmp_path / "a" / "_manifest.json").read_text())
    assert manifest["spec"]["strategies"][0]["name"] == "heuristic"  # the run never needs the file again


def test_a_preset_file_takes_overrides(preset):
    seat = parse_strategy(get_game("kamoul"), f"{preset}:snap=0.25")
    assert dict(seat.params)["snap"] == 0.25 and dict(seat.params)["call_threshold"] == 4.5


@pytest.mark.parametrize("content,said", [
    (None, "is not a file"),
    ("game = [", "is not valid TOML"),
    ('game = "kamoul"\n[params]\n', "has no family text"),
    ('game = "rami"\nfamily = "opening"\n[params]\n', "is a preset of rami"),
    ('game = "kamoul"\nfamily = "balanced"\n[params]\n', "names family 'balanced'"),
    ('game = "kamoul"\nfamily = "heuristic"\n[params]\ncall_threshold = 99\n', "call_threshold"),
    ('game = "kamoul"\nfamily = "heuristic"\n[params]\nno_such = 1\n', "no_such"),
    ('game = "kamoul"\nfamily = "heuristic"\nparams = 3\n', "has params = 3, not a table"),
])
def test_a_bad_preset_file_is_one_line_exit_2(tmp_path, capsys, content, said):
    path = tmp_path / "bad.toml"
    if content is not None:
        path.write_text(content)
    code, out, err = run_cli(capsys, "simulate", "kamoul", "-n", "10", "--strategy", str(path), "--out",
                             str(tmp_path / "r"))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and said in err and str(path) in err, err
    assert not (tmp_path / "r").exists()


def test_shipped_presets_are_named_after_their_files_and_keep_their_provenance(tmp_path):
    folder = tmp_path / "presets"
    folder.mkdir()
    (folder / "tuned-9p.toml").write_text(PRESET)
    strategies = dict(get_game("kamoul").strategies)
    [found] = shipped_presets(folder, strategies, "kamoul")
    assert found.name == "tuned-9p" and found.family == "heuristic" and found.provenance["budget"] == 7
    assert found.params.by_name["call_threshold"].default == 4.5 and found.kernel_id == strategies["heuristic"].kernel_id
    (folder / "balanced.toml").write_text(PRESET)
    with pytest.raises(ValueError, match="named like built-in strategies: balanced"):
        shipped_presets(folder, strategies, "kamoul")


def test_strategies_lists_a_preset_with_its_provenance(tmp_path, monkeypatch):
    folder = tmp_path / "presets"
    folder.mkdir()
    (folder / "tuned-9p.toml").write_text(PRESET)
    plugin = get_game("kamoul")
    [found] = shipped_presets(folder, dict(plugin.strategies), "kamoul")
    monkeypatch.setitem(plugin.strategies, found.name, found)
    text = api.strategies_text("kamoul")
    assert ("tuned-9p: a test preset\n    = heuristic with call_threshold=4.5, snap=0.5, au_score=false\n"
            "    tuned against balanced, cautious at 2 players (budget 7, seed 1, 2026-12-04); reproduce: cardsim tune "
            "kamoul --budget 7") in text
    data = {s["name"]: s for s in api.strategies_data("kamoul")}
    assert data["tuned-9p"]["provenance"]["against"] == ["balanced", "cautious"]


def test_a_preset_is_refused_where_its_game_is_not(preset):
    with pytest.raises(SpecError, match="is a preset of kamoul"):
        parse_strategy(get_game("rami"), str(preset))


SHIPPED = {"kamoul": ("tuned-2p", "tuned-4p"), "kems": ("tuned-4p",)}


@pytest.mark.parametrize("game", sorted(SHIPPED))
def test_the_tuned_presets_ship_with_their_provenance_and_play(tmp_path, capsys, game):
    code, text, _ = run_cli(capsys, "strategies", game)
    assert code == 0
    for name in SHIPPED[game]:
        sdef = get_game(game).strategies[name]
        prov = sdef.provenance
        assert prov["players"] == int(name[len("tuned-"):-1]) and prov["command"].startswith(f"cardsim tune {game} ")
        assert f"\n{name}: " in text and f"reproduce: {prov['command']}" in text
        assert all(r["decision"] in ("A beats B", "within delta", "B beats A", "undecided")
                   for r in prov["confirmed"].values())
    name = SHIPPED[game][-1]
    code, _, err = run_cli(capsys, "simulate", game, "-n", "20", "--strategy", name, "--out", str(tmp_path / "r"),
                           "--quiet")
    assert code == 0, err


@pytest.mark.parametrize("game", ["kamoul", "rami", "kems"])
def test_every_command_that_plays_defaults_to_the_tuned_player_for_the_table_size(game):
    from simulator.core.run.designs import tournament_batch
    from simulator.core.contract.presets import default_player, tuned_preset
    from simulator.core.storage.spec import build_spec
    from simulator.games import get_game

    plugin = get_game(game)
    for players in ((2, 3, 4, 6) if game != "kems" else (4, 6)):
        tuned = tuned_preset(plugin.strategies, players)
        assert tuned and default_player(plugin, players) == tuned
        spec = build_spec(game, n=1, seed=0, players=players)
        assert {s.label() for s in spec.strategies} == {tuned}  # simulate
        batch = tournament_batch(game, strategies=["random"], n=1, players=players)
        assert batch.inputs["strategies"] == ["random", tuned]  # a tournament of one strategy
    assert default_player(plugin) == tuned_preset(plugin.strategies, plugin.default_players)
