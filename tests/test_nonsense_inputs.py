"""Inputs that make no sense are refused, not half-read: wrong TOML types, both strategy forms, an option given
twice with two values, advise states no deal can reach, a --samples beyond
what advise plays; and ``rami opening`` says how it read the hand and why a hand cannot open."""

from __future__ import annotations

import json

import pytest

from test_cli import run_cli


def one_line(code: int, out: str, err: str, starts: str) -> None:
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and err.startswith(starts), err


@pytest.mark.parametrize("toml, starts", [
    ('players = "4"\n', "Error: --spec s.toml: players: '4' is a TOML str"),
    ("n = 1.5\n", "Error: --spec s.toml: n"),
    ("seed = true\n", "Error: --spec s.toml: seed"),
    ('strategies = ["balanced"]\n[[strategy]]\nname = "cautious"\n', "Error: --spec s.toml: strategy"),
])
def test_a_spec_file_of_the_wrong_shape_is_refused(tmp_path, capsys, toml, starts):
    (tmp_path / "s.toml").write_text("n = 10\n" + toml if not toml.startswith("n =") else toml)
    one_line(*run_cli(capsys, "simulate", "kamoul", "--spec", str(tmp_path / "s.toml"), "--out", str(tmp_path / "r")),
             starts)
    assert not (tmp_path / "r").exists()


def test_an_option_given_twice_must_agree(tmp_path, capsys):
    one_line(*run_cli(capsys, "simulate", "kamoul", "-n", "5", "--option", "hand_size=3", "--option", "hand_size=5",
                      "--out", str(tmp_path / "r")), "Error: --option hand_size: '5' is given twice")
    code, _, err = run_cli(capsys, "simulate", "kamoul", "-n", "5", "--option", "hand_size=5", "--option",
                           "hand_size=5", "--out", str(tmp_path / "r"), "--quiet")
    assert code == 0, err


@pytest.mark.parametrize("args, starts", [
    (["--known", "RK RK RK"], "Error: --known: 'RK RK RK' holds 3; allowed: at most 2 RK with 1 deck(s)"),
    (["--known", "A A A A A", "--option", "hand_size=6"], "Error: --known: 'A A A A A' holds 5"),
    (["--known", "2 3", "--unknown", "3"], "Error: --known/--unknown: '2+3 cards'"),
    (["--known", "2 3", "--samples", str(10**15)], "Error: --samples: 1000000000000000"),
])
def test_advise_refuses_a_situation_no_deal_can_reach(capsys, args, starts):
    one_line(*run_cli(capsys, "advise", "kamoul", "--turn", "2", *args), starts)


def test_rami_opening_says_how_it_read_the_hand_and_why_it_cannot_open(capsys):
    code, out, _ = run_cli(capsys, "rami", "opening", "--hand", "7H 8H 9H")
    assert code == 0 and "no tierce franche" not in out
    assert "holds a tierce franche but no second combination" in out.splitlines()[0]
    code, out, _ = run_cli(capsys, "rami", "opening", "--hand", "7H 8H 9H 2C 2D 2S")
    assert "the best opening is worth 30 points, short of 51" in out
    code, out, _ = run_cli(capsys, "rami", "opening", "--hand", "1h 2♥ 3H 5C 6C", "--json")
    result = json.loads(out)
    assert result["hand"] == ["AH", "2H", "3H", "5C", "6C"] and result["read"] == ["1h as AH", "2♥ as 2H"]
    code, out, _ = run_cli(capsys, "rami", "opening", "--hand", "2C 5D 9S KH")
    assert "holds no tierce franche" in out
