"""The Kem's strategy contract: strategies from users' files play in both engines, every illegal answer is
stopped in both with the same one line (KM5, KM10), and the checks accept exactly the legal choices
(simulator/kems/vocabulary/legal.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import cli
from simulator.core.contract.game import seats_of
from simulator.core.kernels.faults import new_fault
from simulator.core.storage.spec import build_spec
import simulator.games  # noqa: F401
from simulator.kems.engines.engine import raw_kernel, raw_reference
from simulator.kems.vocabulary import legal
from simulator.kems.vocabulary import answers as A
from simulator.kems.vocabulary.answers import D
from simulator.kems.vocabulary.codes import EMPTY
from simulator.kems.vocabulary.rules import Rules
from contract_checks import accepts, assert_both_engines_name_the_raise, assert_both_engines_stop_with_one_line

ROOT = Path(__file__).resolve().parents[1]
MISBEHAVING = f"{ROOT}/tests/strategies/kems_misbehaving.py:misbehaving"
# its parameters as a built-in: the file with bad=0 must play these rows
AS_BUILT_IN = "heuristic:attention_opponents=0.35,attention_partner=0.3"
OTHERS = ["watcher", "random", "blocker"]
OPTIONS = {"false_kems_rate": "0.001", "false_contre_rate": "0.0005"}
pytestmark = pytest.mark.xdist_group("kems-contract")


def seats_for(strategies, **options):
    spec = build_spec("kems", n=1, seed=5, players=len(strategies), strategies=strategies,
                      options={**OPTIONS, **options})
    return Rules.from_options(dict(spec.options)), seats_of(spec)


@pytest.mark.rule("KM5")
def test_a_file_strategy_plays_the_built_in_rows_in_both_engines():
    """The file's seat is asked at every chance (no reused proposal, no idle skip, contre horizon 0) and still
    plays the built-in's games: the kernel's shortcuts change no result."""
    rules, seats = seats_for([MISBEHAVING, *OTHERS])
    fast = raw_kernel(rules, seats, 5, 0, 300, "manches")
    ref = raw_reference(rules, seats, 5, 0, 150, "manches")
    builtin = raw_kernel(rules, seats_for([AS_BUILT_IN, *OTHERS])[1], 5, 0, 300, "manches")
    for key in fast:
        assert np.array_equal(fast[key], builtin[key]), key
        assert np.array_equal(fast[key][: len(ref[key])], ref[key]), key


ILLEGAL = [
    ("propose", r"propose with 5, which is not a number of exchanges allowed; legal: 0 to 1 pairs"),
    ("infer_contre", r"infer_contre with (\d), which is not -1 or an opponent's seat; legal: -1 or an opponent's"),
    ("contre", r"contre with True, which calls contre while it cannot \(banned by a wrong contre, or a contre "
               r"already pending\); legal: False"),
]


@pytest.mark.rule("KM10")
@pytest.mark.parametrize("decision, says", ILLEGAL, ids=[case[0] for case in ILLEGAL])
def test_an_illegal_answer_stops_both_engines_with_the_same_one_line(decision, says):
    rules, seats = seats_for([f"{MISBEHAVING}:bad={D[decision]}", *OTHERS])
    assert_both_engines_stop_with_one_line(lambda: raw_kernel(rules, seats, 5, 0, 200, "manches"),
                                           lambda: raw_reference(rules, seats, 5, 0, 200, "manches"),
                                           f"misbehaving:bad={D[decision]}", 0, says)


def test_a_decision_that_raises_stops_both_engines_naming_it():
    rules, seats = seats_for([f"{MISBEHAVING}:bad=99", *OTHERS])
    assert_both_engines_name_the_raise(lambda: raw_kernel(rules, seats, 5, 0, 40, "manches"),
                                       lambda: raw_reference(rules, seats, 5, 0, 40, "manches"),
                                       "misbehaving:bad=99", 0, "propose", "kems_misbehaving.py")


def test_the_cli_stops_an_illegal_answer_with_exit_2(tmp_path, capsys):
    code = cli.main(["simulate", "kems", "-n", "50", "--seed", "5", "--quiet", "--out", str(tmp_path / "run"),
                     "--strategy", f"{MISBEHAVING}:bad={D['propose']}",
                     *sum((["--strategy", s] for s in OTHERS), [])])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "answered propose with 5" in err


def test_a_file_without_the_common_parameters_first_is_refused_in_one_line(tmp_path, capsys):
    """The example file with its own parameter declared alone: the model could not read its rates."""
    source = (ROOT / "examples/kems_no_contre.py").read_text()
    declared = "PARAMS = heuristic.PARAMS  # the common parameters first (the model reads them), balanced's values"
    assert declared in source
    (tmp_path / "uncommon.py").write_text(source.replace(declared, (
        "from simulator.core.params import Param, ParamSet\n"
        "PARAMS = ParamSet((Param('patience', 'float', 0.5, 'its own, declared first', 0.0, 1.0),), 'parameter')")))
    code = cli.main(["simulate", "kems", "-n", "5", "--quiet", "--out", str(tmp_path / "run"),
                     "--strategy", f"{tmp_path / 'uncommon.py'}:no-contre", *sum((["--strategy", s] for s in OTHERS), [])])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "params: 'patience'" in err and "begin with speed, sigma, visibility" in err
    assert not (tmp_path / "run").exists()


# ------------------------------------------------------------------------------------------ the checks
def _legal_proposals(seen, multi):
    """Every legal proposal, by brute force over the listed pairs: sets of at most max_exchanges pairs with no
    slot twice, in every order."""
    buf = np.zeros(16, dtype=np.int64)
    pairs = [divmod(int(x), 4) for x in buf[: legal.pair_choices(seen, buf)]]
    found = {()}
    frontier = [()]
    for _ in range(legal.max_exchanges(multi)):
        frontier = [p + (q,) for p in frontier for q in pairs
                    if all(q[0] != r[0] and q[1] != r[1] for r in p)]
        found |= set(frontier)
    return found


@pytest.mark.rule("KM5")
@pytest.mark.parametrize("multi", [False, True])
def test_the_proposal_check_accepts_exactly_the_listed_exchanges(multi):
    rng = np.random.default_rng(7)
    candidates = [()] + [((h, s),) for h in range(-1, 5) for s in range(-1, 5)]
    for _ in range(40):
        seen = np.where(rng.random(4) < 0.7, rng.integers(0, 52, 4), EMPTY).astype(np.int64)
        allowed = _legal_proposals(seen, multi)
        tried = candidates + [tuple(map(tuple, rng.integers(0, 4, (k, 2)))) for k in (2, 3, 4, 5) for _ in range(30)]
        tried += list(allowed)
        for proposal in tried:
            out = np.zeros((5, 2), dtype=np.int64)
            for i, pair in enumerate(proposal):
                out[i] = pair
            assert accepts(A.legal_propose, len(proposal), out, seen, multi) == (proposal in allowed), (seen, proposal)


@pytest.mark.rule("KM10")
@pytest.mark.parametrize("players", [4, 6])
def test_the_accusation_and_contre_checks_accept_exactly_the_listed_choices(players):
    buf = np.zeros(16, dtype=np.int64)
    for me in range(players):
        listed = set(buf[: legal.accuse_choices(me, players, buf)].tolist())
        assert -1 in listed and len(listed) == 1 + players - 2  # every seat but its own and its partner's
        for a in range(-2, players + 1):
            fault = new_fault()
            assert A.legal_accuse.py_func(fault, me, a, players) == (a in listed), (me, a)
    for can_call in (False, True):
        listed = set(buf[: legal.contre_choices(can_call, buf)].tolist())
        for a in (False, True):
            assert accepts(A.legal_contre, a, can_call) == (int(a) in listed)
    assert buf[: legal.yes_no_choices(buf)].tolist() == [0, 1]
