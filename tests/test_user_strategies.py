"""Strategies from users' files: loading and validation, the spec's record of the file, both engines, the CLI,
and the compiled kernel's cache keyed by the file's content."""

from __future__ import annotations

import hashlib
import json
import re
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import cli
from simulator.core.contract.game import seats_of
from simulator.core.contract.inlined import ENV, InlinedStrategies
from simulator.core.contract.seats import kernel_seats
from simulator.core.errors import SpecError
from simulator.core.storage.spec import RunSpec, build_spec
import simulator.games  # noqa: F401
from simulator.kamoul.engines.engine import raw_kernel, raw_reference
from simulator.kamoul.engines.kernels import simulate as KERNEL
from simulator.kamoul.vocabulary.answers import D, StrategyError
from strategies.kamoul.policy import HEURISTIC
from contract_checks import assert_both_engines_name_the_raise, assert_both_engines_stop_with_one_line

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
COPY = f"{EXAMPLES}/kamoul_balanced_copy.py:balanced-copy"
NEVER_CONTRE = f"{EXAMPLES}/kamoul_never_contre.py:never-contre"
MISBEHAVING = f"{ROOT}/tests/strategies/kamoul_misbehaving.py:misbehaving"
# one seating for most compiled tests of this file (the misbehaving seat's `bad` parameter is data, so each
# decision's fault runs on the same functions)
SEATING = [COPY, NEVER_CONTRE, "random", "aggressive", MISBEHAVING]
pytestmark = pytest.mark.xdist_group("user-strategies")


@pytest.fixture(params=["table", pytest.param("inlined", marks=pytest.mark.slow)])
def kernel(request, monkeypatch):
    """The compiled engine calls the files through the function table, or in a kernel compiled for them
    (simulator.core.contract.inlined: one compile for SEATING's files, about two minutes, then shared by these tests)."""
    monkeypatch.setenv(ENV, request.param)
    return request.param


def spec_of(strategies, n=1, **kw):
    return build_spec("kamoul", n=n, seed=11, players=max(len(strategies), 2), strategies=strategies, **kw)


def test_a_file_copy_of_balanced_plays_the_built_in_rows_and_both_engines_agree(kernel):
    spec = spec_of(SEATING)
    seats = kernel_seats(seats_of(spec), KERNEL)
    assert isinstance(seats.user, InlinedStrategies) == (kernel == "inlined")
    builtin = seats._replace(sids=np.array([HEURISTIC, *seats.sids[1:]]))  # seat 0: the built-in balanced
    fast = raw_kernel(spec, 0, 400)
    same = raw_kernel(spec, 0, 400, seats=builtin)
    for key in fast:  # the copy is the built-in, decision for decision: every row, estimate and trace
        assert np.array_equal(fast[key], same[key], equal_nan=key == "estimates"), key
    ref = raw_reference(spec, 0, 400)
    for key in fast:
        assert np.array_equal(fast[key], ref[key], equal_nan=key == "estimates"), key


NEXT_PROCESS = """
import json, sys
import simulator.games
from simulator.core.storage.spec import build_spec
from simulator.kamoul import kernels
from simulator.kamoul.engines.engine import raw_kernel
seating = json.loads(sys.argv[1])
raw_kernel(build_spec("kamoul", n=1, seed=11, players=len(seating), strategies=seating), 0, 10)
stats = kernels.simulate.stats
print(json.dumps({"hits": sum(stats.cache_hits.values()), "misses": sum(stats.cache_misses.values())}))
"""


@pytest.mark.slow
def test_the_kernel_compiled_for_the_files_is_loaded_from_the_cache_by_the_next_process(monkeypatch):
    monkeypatch.setenv(ENV, "inlined")
    raw_kernel(spec_of(SEATING), 0, 10)  # compiled for these files (or loaded), and cached on disk
    monkeypatch.setenv(ENV, "auto")  # a short run: it takes the compiled kernel because it exists
    done = subprocess.run([sys.executable, "-c", NEXT_PROCESS, json.dumps(SEATING)], cwd=ROOT, env=dict(os.environ),
                          capture_output=True, text=True, check=True)
    assert json.loads(done.stdout.splitlines()[-1]) == {"hits": 1, "misses": 0}, done.stderr


@pytest.mark.parametrize("options", [{"snap_chain": "true", "snap_others": "true", "race_policy": "uniform"},
                                     {"false_call_mode": "tamalou", "swap_scope": "own_vs_opponent",
                                      "discard_pick_face_up": "true", "swap_observed_prob": "0.5"}])
@pytest.mark.slow
def test_the_engines_agree_with_file_strategies_under_other_rules(options, kernel):
    spec = spec_of(SEATING, options=options)
    fast, ref = raw_kernel(spec, 1000, 1600), raw_reference(spec, 1000, 1600)
    for key in fast:
        assert np.array_equal(fast[key], ref[key], equal_nan=key == "estimates"), key


def test_never_contre_never_contres_and_calls_only_on_a_known_low_layout():
    spec = spec_of(SEATING, options={"min_turns_before_call": "0"})
    raw = raw_kernel(spec, 0, 3000)
    from simulator.kamoul.vocabulary.records import column_names

    cols = column_names("hands", len(SEATING))
    hands = raw["hands"]
    caller = hands[:, cols.index("caller")]
    assert (caller == 1).sum() > 50  # it does call
    # its calls are made on a fully known layout worth at most call_at = 2
    unknown = hands[:, cols.index("call_unknown")]
    estimate = raw["estimates"]
    assert (unknown[caller == 1] == 0).all() and (estimate[caller == 1] <= 2.0).all()
    assert (hands[:, cols.index("contre_seats")] & 2 == 0).all()  # seat 1 never contres
    assert (hands[:, cols.index("contre_seats")] & 8 != 0).sum() > 0  # while aggressive (seat 3) does


def test_the_spec_records_the_file_and_its_hash_and_refuses_a_changed_file(tmp_path):
    path = tmp_path / "mine.py"
    shutil.copy(EXAMPLES / "kamoul_balanced_copy.py", path)
    spec = spec_of([f"{path}:balanced-copy:call_threshold=2"])
    stored = spec.to_dict()["strategies"][0]
    assert stored["source"] == str(path.resolve()) and len(stored["sha256"]) == 64
    assert stored["label"] == "balanced-copy:call_threshold=2.0"
    assert RunSpec.from_dict(json.loads(spec.to_json())) == spec
    path.write_text(path.read_text() + "\n# edited\n")
    with pytest.raises(SpecError, match="has changed since"):
        RunSpec.from_dict(json.loads(spec.to_json()))


@pytest.mark.parametrize("text, match", [
    ("nowhere/none.py:x", "is not a file"),
    (f"{EXAMPLES}/kamoul_never_contre.py:nope", "'nope' is not a strategy of kamoul_never_contre.py"),
    (f"{EXAMPLES}/kamoul_never_contre.py:never-contre:call_at=99", "call_at"),
])
def test_a_bad_strategy_reference_is_one_clear_error(text, match):
    with pytest.raises(SpecError, match=match):
        spec_of([text])


def _write(tmp_path, body: str, name="bad.py") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return path


def test_a_file_missing_decisions_or_for_another_game_is_refused(tmp_path):
    missing = _write(tmp_path, """
        from simulator.core.contract.user_strategies import strategy
        from strategies.kamoul.heuristic import PARAMS
        S = strategy(game="kamoul", name="half", params=PARAMS, doc="", turn=lambda *a: 2)
    """)
    with pytest.raises(SpecError, match="decisions: .*peeks.* are missing"):
        spec_of([f"{missing}:half"])
    other = _write(tmp_path, """
        from simulator.core.contract.user_strategies import strategy
        from strategies.kamoul.heuristic import PARAMS
        S = strategy(game="rami", name="x", params=PARAMS, doc="")
    """, "other.py")
    with pytest.raises(SpecError, match="game: 'rami' is another game"):
        spec_of([f"{other}:x"])
    broken = _write(tmp_path, "import no_such_module_here\n", "broken.py")
    with pytest.raises(SpecError, match=r"^strategy file broken\.py, import \(line 1\): ModuleNotFoundError: No module "
                                        "named 'no_such_module_here'$"):
        spec_of([f"{broken}:x"])


def test_an_optional_decision_a_file_leaves_out_gets_the_contract_s_answer(tmp_path):
    """A Rami file written before ``open_with`` existed (examples/rami_patient.py defines no ``open_with``) is
    accepted and lays the best opening: the contract's ``optional`` function; a decision the contract does not have
    is still refused, and the required ones are still required."""
    from simulator.rami.vocabulary.contract import first_offered_opening

    def rami_spec(strategy):
        return build_spec("rami", n=1, seed=11, players=2, strategies=[strategy, "open-asap"])

    assert "def open_with" not in (EXAMPLES / "rami_patient.py").read_text()
    seat = seats_of(rami_spec(f"{EXAMPLES}/rami_patient.py:patient"))[0]
    assert seat.user.functions["open_with"] is first_offered_opening
    misspelt = _write(tmp_path, """
        from simulator.core.contract.user_strategies import strategy
        from strategies.rami.opening import PARAMS
        S = strategy(game="rami", name="x", params=PARAMS, doc="", open_wth=lambda *a: 0)
    """)
    with pytest.raises(SpecError, match="decisions: .*draw.* are missing") as err:
        rami_spec(f"{misspelt}:x")
    assert "open_with" not in str(err.value).split("are missing")[0]  # not required, so not listed as missing
    extra = _write(tmp_path, """
        from simulator.core.contract.user_strategies import strategy
        from strategies.rami.opening import PARAMS
        from simulator.rami.vocabulary.contract import DECISIONS
        S = strategy(game="rami", name="x", params=PARAMS, doc="", open_wth=lambda *a: 0,
                     **{name: (lambda *a: 0) for name in DECISIONS if name != "open_with"})
    """, "extra.py")
    with pytest.raises(SpecError, match=r"decisions: 'open_wth' are not decisions of rami; allowed: .*open_with"):
        rami_spec(f"{extra}:x")


PLAIN_PYTHON = """
    from simulator.core.contract.user_strategies import strategy
    from simulator.kamoul.vocabulary.codes import ACT_STOCK
    from strategies.kamoul.heuristic import PARAMS


    def turn(prm, view, top, can_call, can_contre, can_take, cum_me, au_ge, rng):
        return ACT_STOCK  # never calls, never takes: draws every turn


    def peeks(prm, view, n, rng, out):
        k = 0
        for s in range(view.nslots[view.me]):
            if k < n and view.occ[view.me, s]:
                out[k] = s
                k += 1
        return k


    def first_own(view):
        for s in range(view.nslots[view.me]):
            if view.occ[view.me, s]:
                return s
        return -1


    S = strategy(game="kamoul", name="drawer", params=PARAMS, doc="always draws, keeps nothing",
                 peeks=peeks, turn=turn, take_slot=lambda prm, view, rng: first_own(view),
                 keep=lambda prm, view, drawn, rng: -1, power=lambda *a: False, king_swap=lambda *a: False,
                 snap=lambda *a: 0, estimate=lambda prm, view: (0.0, 0), forget=lambda prm: 0.0,
                 memory_noise=lambda prm: 0.0, speed=lambda prm: 1.0)
"""


def run_cli(capsys, *args):
    code = cli.main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_plain_python_strategy_plays_on_the_reference_engine_and_the_cli_says_so(tmp_path, capsys):
    path = _write(tmp_path, PLAIN_PYTHON, "drawer.py")
    out = tmp_path / "run"
    code, _, err = run_cli(capsys, "simulate", "kamoul", "-n", "40", "--seed", "3", "--players", "2", "--strategy",
                           f"{path}:drawer", "--strategy", "balanced", "--out", str(out), "--quiet")
    assert code == 0, err
    assert err.count("plays on the reference engine") == 1
    import polars as pl

    hands = pl.read_parquet(out / "hands")
    assert hands.height == 40 and (hands["caller"] != 0).all()  # seat 0 never calls
    assert set(hands["strategy_0"]) == {"drawer"}


def test_the_cli_runs_the_worked_example_in_simulate(tmp_path, capsys):
    out = tmp_path / "sim"
    code, _, err = run_cli(capsys, "simulate", "kamoul", "-n", "2000", "--seed", "3", "--players", "5",
                           *sum((["--strategy", s] for s in SEATING), []), "--out", str(out), "--quiet")
    assert code == 0, err
    assert "reference engine" not in err
    manifest = json.loads((out / "_manifest.json").read_text())
    assert manifest["spec"]["strategies"][1]["sha256"] == hashlib.sha256(
        (EXAMPLES / "kamoul_never_contre.py").read_bytes()).hexdigest()


# each checked decision answered illegally by seat 4, with what the line must say of it (after "answered")
ILLEGAL = [
    ("peeks", {}, r"peeks with 3 positions, which is not a count between 0 and the positions allowed; "
                  r"legal: at most 2 of own positions 0, 1, 2, 3"),
    ("turn", {}, r"turn with 9, which is no action; legal: (\d \(\w+\), )?2 \(draw from the stock\)"),
    ("take_slot", {}, r"take_slot with 99, which is not an own position holding a card; legal: own positions 0, 1, 2, 3$"),
    ("keep", {}, r"keep with 99, which is not an own position holding a card; legal: own positions .* or -1 "
                 r"\(discard the drawn card\)"),
    ("power", {}, r"power with (peek own|peek opponent|blind swap|king look-and-swap) on P4 position 99.*, which names "
                  r"a position holding no card; legal: pass, or "),
    ("snap", {}, r"snap with 7, which is no snap kind; legal: 0 \(none\), 1 \(own cards\), 2 \(an opponent's card\)"),
    ("forget", {}, r"forget with 1.5, which is not a probability in \[0, 1\]"),
    ("memory_noise", {}, r"memory_noise with -0.25, which is not a probability in \[0, 1\]"),
    ("speed", {"race_policy": "speed_weighted"}, r"speed with 0, which is not a rate > 0; legal: a finite rate > 0"),
]


@pytest.mark.parametrize("decision, options, says", ILLEGAL, ids=[case[0] for case in ILLEGAL])
def test_an_illegal_answer_stops_both_engines_with_the_same_one_line(decision, options, says, kernel):
    spec = spec_of([*SEATING[:-1], f"{MISBEHAVING}:bad={D[decision]}"], options=options)
    assert_both_engines_stop_with_one_line(lambda: raw_kernel(spec, 0, 600), lambda: raw_reference(spec, 0, 600),
                                           f"misbehaving:bad={D[decision]}", 4, says)


def test_a_decision_that_raises_stops_both_engines_naming_it(kernel):
    spec = spec_of([*SEATING[:-1], f"{MISBEHAVING}:bad=99"])
    assert_both_engines_name_the_raise(lambda: raw_kernel(spec, 0, 60), lambda: raw_reference(spec, 0, 60),
                                       "misbehaving:bad=99", 4, "turn", "kamoul_misbehaving.py")


def test_a_wrong_user_kernel_choice_is_one_line_exit_2_and_nothing_written(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv(ENV, "fast")
    code, out, err = run_cli(capsys, "simulate", "kamoul", "-n", "10", "--players", "2", "--quiet",
                             "--strategy", NEVER_CONTRE, "--strategy", "balanced", "--out", str(tmp_path / "run"))
    assert code == 2 and "Traceback" not in err + out and err.strip().count("\n") == 0
    assert f"{ENV}: 'fast' is not allowed; allowed: auto, table, inlined" in err
    assert not (tmp_path / "run").exists()


def test_the_legal_misbehaving_seat_plays_and_the_cli_stops_an_illegal_one_with_exit_2(tmp_path, capsys):
    args = ["simulate", "kamoul", "-n", "300", "--seed", "3", "--players", "5", "--quiet",
            *sum((["--strategy", s] for s in SEATING[:-1]), [])]
    code, _, err = run_cli(capsys, *args, "--strategy", MISBEHAVING, "--out", str(tmp_path / "fine"))
    assert code == 0, err
    code, out, err = run_cli(capsys, *args, "--strategy", f"{MISBEHAVING}:bad={D['keep']}",
                             "--out", str(tmp_path / "bad"))
    assert code == 2 and "Traceback" not in err and "Traceback" not in out
    assert err.strip().count("\n") == 0 and "answered keep with 99" in err


def test_a_plain_python_strategy_that_answers_illegally_or_with_a_wrong_type_is_stopped(tmp_path):
    """In the trial games its file gets when loaded, before any run (the reference engine's check of every answer)."""
    for body, says in [("return 9", "answered turn with 9, which is no action"),
                       ("return 'stock'", "answered turn with 'stock', which is not an integer; the answer is K4")]:
        path = _write(tmp_path, PLAIN_PYTHON.replace("return ACT_STOCK  # never calls, never takes: draws every turn",
                                                     body), "drawer.py")
        with pytest.raises(StrategyError, match=re.escape(says) + r".*\(in a trial game before the run"):
            spec_of([f"{path}:drawer", "balanced"])


PATIENT = f"{EXAMPLES}/rami_patient.py:patient"
NO_CONTRE = f"{EXAMPLES}/kems_no_contre.py:no-contre"


def test_an_installed_package_adds_strategies_that_users_name_like_built_ins(tmp_path, monkeypatch):
    """Entry-point group ``cardsim.strategies``: a package installed on the path (here a dist-info beside its
    module) adds its strategies by name; they play the rows of the same file named by path."""
    from simulator.core.contract.user_strategies import installed

    package = tmp_path / "cardsim_extra"
    package.mkdir()
    (package / "__init__.py").write_text((EXAMPLES / "kamoul_never_contre.py").read_text())
    info = tmp_path / "cardsim_extra-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: cardsim-extra\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[cardsim.strategies]\nextra = cardsim_extra\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    installed.cache_clear()
    try:
        by_name = spec_of(["never-contre", "balanced"], n=300)
        assert Path(by_name.strategies[0].source) == package / "__init__.py"
        by_path = spec_of([NEVER_CONTRE, "balanced"], n=300)
        one, two = raw_kernel(by_name, 0, 300), raw_kernel(by_path, 0, 300)
        for key in one:
            assert np.array_equal(one[key], two[key], equal_nan=key == "estimates"), key
    finally:
        installed.cache_clear()


@pytest.mark.parametrize("game, strategies", [("kamoul", [NEVER_CONTRE, "balanced"]), ("rami", [PATIENT, "open-asap"]),
                                              ("kems", [NO_CONTRE, "balanced"])])
def test_the_examples_play_a_tournament_through_the_cli(tmp_path, capsys, game, strategies):
    import polars as pl

    out = tmp_path / "t"
    code, stdout, err = run_cli(capsys, "tournament", game, "-n", "16" if game == "rami" else "40", "--seed", "2",
                                *sum((["--strategy", s] for s in strategies), []), "--out", str(out), "--quiet")
    assert code == 0, err
    assert "reference engine" not in err
    matrix = pl.read_parquet(out / "matrix.parquet")
    assert set(matrix["strategy"]) == {strategies[0].rpartition(":")[2], strategies[1]}
    assert matrix["decided"].sum() > 0


def test_an_example_plays_a_study_through_the_cli(tmp_path, capsys):
    out = tmp_path / "study"
    code, stdout, err = run_cli(capsys, "study", "balance", "kamoul", "-n", "30", "--seed", "2", "--players", "2",
                                "--strategy", NEVER_CONTRE, "--strategy", "balanced", "--out", str(out), "--quiet")
    assert code == 0, err
    assert (out / "answer.md").exists() and (out / "report.html").exists()
    assert "never-contre" in json.dumps(json.loads((out / "_study.json").read_text()))


BLIND = """
from numba import njit

from kamoul_balanced_copy import *  # noqa: F401,F403  (balanced's other decisions)
from simulator.kamoul.vocabulary.codes import SNAP_NONE, SNAP_OWN


@njit
def snap(prm, view, top_rank, allow_others, locked, rng, tmp, out):
    me = view.me
    for s in range(view.nslots[me]):  # its first face-down card, whatever the discard's rank
        if view.occ[me, s] and not view.faceup[me, s]:
            out[0] = 1
            out[1] = s
            return SNAP_OWN
    return SNAP_NONE


ASKED, DECLARED = (strategy(
    game="kamoul", name=name, params=PARAMS, doc="balanced, but it snaps blind", snaps_on_belief=declared,
    peeks=peeks, turn=turn, take_slot=take_slot, keep=keep, power=power, king_swap=king_swap, snap=snap,
    estimate=estimate, forget=forget, memory_noise=memory_noise, speed=speed,
) for name, declared in (("blind-asked", False), ("blind-declared", True)))
"""


def test_K6_a_file_declaring_snaps_on_belief_is_asked_only_on_a_believed_card_in_both_engines(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLES))
    path = tmp_path / "blind.py"
    path.write_text(BLIND)
    hands = {}
    for name in ("blind-asked", "blind-declared"):
        spec = spec_of([f"{path}:{name}", "balanced", "balanced", "balanced"])
        assert kernel_seats(seats_of(spec)).snaps_on_belief.tolist() == [name == "blind-declared", *[False] * 3]
        fast, ref = raw_kernel(spec, 0, 300), raw_reference(spec, 0, 300)
        for key in fast:  # both engines skip the declared seat in the same windows
            assert np.array_equal(fast[key], ref[key], equal_nan=key == "estimates"), (name, key)
        hands[name] = fast["hands"]
    # a blind snapper skipped where it believes no card of the rank plays other games than one always asked
    assert not np.array_equal(hands["blind-asked"], hands["blind-declared"])


def test_only_a_kamoul_file_may_declare_snaps_on_belief(tmp_path):
    text = (EXAMPLES / "rami_patient.py").read_text()
    head, call, tail = text.rpartition("strategy(")
    path = tmp_path / "rami_declares.py"
    path.write_text(head + call + "snaps_on_belief=True, " + tail)
    says = r"snaps_on_belief: True has no meaning in rami \(a Kamoul declaration\); allowed: False"
    with pytest.raises(SpecError, match=says):
        build_spec("rami", n=1, seed=1, players=2, strategies=[f"{path}:patient", "open-asap"])
