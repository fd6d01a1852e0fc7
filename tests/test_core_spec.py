"""Run-spec validation and TOML spec files, over the fake game (see ``fakegame.py``)."""

from __future__ import annotations

import pickle

import pytest

import fakegame
from simulator.core.contract.registry import get_game
from simulator.core.errors import SpecError
from simulator.core.storage.spec import RunSpec, build_spec, read_spec_file


@pytest.fixture(autouse=True)
def fake(monkeypatch):
    fakegame.patch(monkeypatch)


def test_defaults_fill_everything():
    spec = build_spec("fake", n=10, seed=3)
    assert (spec.game, spec.n, spec.seed, spec.players, spec.level) == ("fake", 10, 3, 4, "manche")
    assert [s.name for s in spec.strategies] == ["random"] * 4
    assert dict(spec.options) == {"bonus": 0, "variant": "classic", "jokers": False}
    assert spec.plugin is fakegame.PLUGIN


def test_values_are_typed_and_per_seat_strategies_kept():
    spec = build_spec("fake", n="100", seed="5", players=3, level="partie",
                      strategies=["random", "greedy:threshold=4", "greedy"],
                      options={"bonus": "12", "jokers": "yes", "variant": "fast"})
    assert (spec.n, spec.seed, spec.players, spec.level) == (100, 5, 3, "partie")
    assert spec.option("bonus") == 12 and spec.option("jokers") is True and spec.option("variant") == "fast"
    labels = [s.label() for s in spec.strategies]
    assert labels == ["random", "greedy:threshold=4", "greedy"]
    assert dict(spec.strategies[1].params) == {"threshold": 4, "p": 0.5}


@pytest.mark.parametrize("kwargs,field,fragment", [
    ({"n": 0}, "n", "[1, 1000000000000]"),
    ({"n": "many"}, "n", "an integer"),
    ({"n": 2.5}, "n", "an integer"),
    ({"n": True}, "n", "an integer"),
    ({"seed": -1}, "seed", "[0, 9223372036854775807]"),
    ({"seed": 2**63}, "seed", "an integer"),
    ({"level": "tournoi"}, "--level", "manche | partie"),
    ({"players": 7}, "--players", "[2, 6]"),
    ({"players": "x"}, "--players", "an integer"),
    ({"options": {"colour": "red"}}, "--option option", "bonus, variant, jokers"),
    ({"options": {"bonus": 51}}, "--option bonus", "an integer in [0, 50]"),
    ({"options": {"bonus": "1.5"}}, "--option bonus", "an integer"),
    ({"options": {"jokers": "maybe"}}, "--option jokers", "true or false"),
    ({"options": {"variant": "slow"}}, "--option variant", "classic | fast"),
    ({"strategies": ["random", "greedy"]}, "--strategy", "1 (for every seat) or 4"),
    ({"strategies": ["chess"]}, "--strategy", "random, greedy"),
    ({"strategies": ["greedy:threshold=99"]}, "--strategy greedy: threshold", "[0, 50]"),
    ({"strategies": ["greedy:p=2"]}, "--strategy greedy: p", "[0.0, 1.0]"),
    ({"strategies": ["greedy:depth=2"]}, "--strategy greedy: parameter", "threshold, p"),
    ({"strategies": ["greedy:threshold"]}, "--strategy", "key=value pairs"),
])
def test_bad_input_is_one_line_naming_field_value_and_allowed(kwargs, field, fragment):
    args = {"n": 10, "seed": 1, **kwargs}
    with pytest.raises(SpecError) as err:
        build_spec("fake", **args)
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(field + ": ")
    assert "allowed: " in message and fragment in message.split("allowed: ", 1)[1]


def test_unknown_game():
    with pytest.raises(SpecError, match="^game: 'poker' is not allowed; allowed: kamoul, rami, kems"):
        get_game("poker")


def test_json_is_canonical_and_digest_stable():
    a = build_spec("fake", n=10, seed=1, options={"bonus": 2, "jokers": "true"})
    b = build_spec("fake", n=10, seed=1, options={"jokers": True, "bonus": "2"})
    assert a == b and a.to_json() == b.to_json() and a.digest() == b.digest()
    assert len(a.digest()) == 16
    assert a.to_json().startswith('{"game":"fake","level":"manche","n":10,')
    assert build_spec("fake", n=11, seed=1).digest() != build_spec("fake", n=10, seed=1).digest()
    assert a.with_n(11).to_json() == build_spec("fake", n=11, seed=1, options={"bonus": 2, "jokers": True}).to_json()


def test_from_dict_round_trips_and_revalidates():
    spec = build_spec("fake", n=10, seed=9, players=2, strategies=["greedy:p=0.25", "random"],
                      options={"jokers": True, "variant": "fast"})
    again = RunSpec.from_dict(spec.to_dict())
    assert again == spec and again.to_json() == spec.to_json()
    assert [s.label() for s in again.strategies] == ["greedy:p=0.25", "random"]
    broken = spec.to_dict() | {"options": {"bonus": 99}}
    with pytest.raises(SpecError, match="bonus"):
        RunSpec.from_dict(broken)


def test_spec_pickles():
    spec = build_spec("fake", n=10, seed=9, strategies=["greedy:threshold=3"])
    again = pickle.loads(pickle.dumps(spec))
    assert again == spec and again.to_json() == spec.to_json()


def write(tmp_path, text):
    path = tmp_path / "run.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_toml_spec_file_gives_the_cli_spec(tmp_path):
    path = write(tmp_path, """
game = "fake"
n = 1000
seed = 42
players = 3
level = "partie"
strategies = ["random", "greedy:threshold=4", "greedy"]

[options]
bonus = 5
jokers = true
""")
    from_file = build_spec(**read_spec_file(path))
    from_cli = build_spec("fake", n=1000, seed=42, players=3, level="partie",
                          strategies=["random", "greedy:threshold=4", "greedy"],
                          options={"bonus": "5", "jokers": "true"})
    assert from_file == from_cli and from_file.to_json() == from_cli.to_json()


def test_toml_strategy_tables(tmp_path):
    path = write(tmp_path, """
game = "fake"
n = 10
seed = 1
players = 2

[[strategy]]
name = "greedy"
params = { threshold = 7, p = 0.75 }

[[strategy]]
name = "random"
""")
    spec = build_spec(**read_spec_file(path))
    assert [s.label() for s in spec.strategies] == ["greedy:threshold=7,p=0.75", "random"]


@pytest.mark.parametrize("text,fragment", [
    ('game = "fake"\nn = 10\nseed = 1\ncolour = "red"\n', "'colour' is not a spec key"),
    ('game = "fake"\nn = = 10\n', "is not valid TOML"),
    ('game = "fake"\nn = 10\nseed = 1\noptions = 3\n', "a table of option = value"),
    ('game = "fake"\nn = 10\nseed = 1\nstrategies = [3]\n', '"name:k=v" strings'),
])
def test_bad_toml_is_refused_with_one_line(tmp_path, text, fragment):
    with pytest.raises(SpecError) as err:
        read_spec_file(write(tmp_path, text))
    assert fragment in str(err.value) and "\n" not in str(err.value)


def test_missing_toml_file(tmp_path):
    with pytest.raises(SpecError, match="does not exist"):
        read_spec_file(tmp_path / "nope.toml")


def test_bad_value_in_toml_names_the_field(tmp_path):
    path = write(tmp_path, 'game = "fake"\nn = 10\nseed = 1\n[options]\nbonus = 99\n')
    with pytest.raises(SpecError, match=r"^--option bonus: 99 is not allowed"):
        build_spec(**read_spec_file(path))
