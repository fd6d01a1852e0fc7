"""Kem's: the numba kernel against the reference engine, manche for manche (rows and event traces)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from simulator.core.contract.game import seats_of
from simulator.core.storage.spec import build_spec
from simulator.kems.engines.engine import raw_kernel, raw_reference, to_frames
from simulator.kems.vocabulary import records
from simulator.kems.vocabulary.rules import OPTIONS, Rules
from strategies.kems import STRATEGIES
from registry import registry_seatings

# Four non-default option sets that together move every option of simulator/kems/vocabulary/rules.py off its default
# (and use every value of every choice). Random play ends a manche mostly on a false alarm, so the sets
# that keep a manche going raise the false-alarm rates a little to keep the reference engine's time down.
OPTION_SETS = {
    "default": {},
    "calls": {"multi_swap": "true", "sweep_on_all_pass": "true", "double_mode": "second_call",
              "contre_target": "player", "wrong_contre": "ban_show2", "negative_points": "true",
              "false_kems_rate": "0.0006", "false_contre_rate": "0.0003"},
    "fast": {"lag_ticks": "0", "race_policy": "uniform", "wrong_contre": "opponents_plus1",
             "signs_change_each_manche": "true", "deck": "32", "false_kems_rate": "0.003",
             "false_contre_rate": "0.002"},
    "turn_order": {"race_policy": "turn_order", "lag_ticks": "3", "turn_up_time": "0", "sweep_time": "0",
                   "tick": "0.1", "quiet_time": "1", "reaction_min": "1", "reaction_max": "8",
                   "false_kems_rate": "0.0004", "false_contre_rate": "0.0002"},
    "misc": {"target": "3", "double_mode": "second_call", "double_window": "0.6", "sign_delay": "0",
             "kappa0": "0.6", "rho": "0.5", "max_ticks": "400", "lag_ticks": "6", "multi_swap": "true",
             "wrong_kems_ends": "false", "negative_points": "true", "wrong_contre": "opponents_plus1",
             "false_kems_rate": "0.001", "false_contre_rate": "0.0005"},
}
# whole games need a variant where points come in (negative_points in "misc" can keep a game going to the
# 1,000-manche guard): the 32-card deck with signs changing each manche, to three points
OPTION_SETS["short_games"] = {**OPTION_SETS["fast"], "target": "3"}
# every registered strategy (presets, shipped presets such as tuned-4p) and each family with drawn parameters
SEATINGS = {"random": ["random"], **registry_seatings(STRATEGIES, "balanced")}
REGISTRY_TABLES = [name for name in SEATINGS if name != "random"]
SEED = 2026
# (seating, chunks): every registry table plays 3,600 manches per option set (4 x 900), in chunks that pytest-xdist
# spreads over its workers. ``random`` plays 1,800 (1,200 on the default rules): its manches run three times as
# many ticks as the presets' (ten times on the default rules, whose false alarms are rare), so each of its
# manches already takes the reference engine through more decisions than a preset's, and its windows were
# 40% of the suite's time (shrunk again from 3,000 / 2,000 when the strategy-contract tests pushed CI past 15
# minutes).
CHUNKS = {"random": (3, 600), **{table: (4, 900) for table in REGISTRY_TABLES}}
CHUNKS_OF = {("default", "random"): (2, 600)}
CASES = [(o, s, start, start + size)
         for o in OPTION_SETS if o != "short_games" for s, chunks in CHUNKS.items()
         for k, size in [CHUNKS_OF.get((o, s), chunks)]
         for start in (7919 * i for i in range(k))]


def setup(option_set: str, seating, players: int = 4, level: str = "manches"):
    strategies = SEATINGS[seating] if isinstance(seating, str) else seating
    spec = build_spec("kems", n=1, seed=SEED, players=players, level=level, strategies=strategies,
                      options=OPTION_SETS[option_set])
    return Rules.from_options(dict(spec.options)), seats_of(spec), spec


def assert_same(ref: dict, fast: dict, players: int) -> None:
    """Identical arrays; on a difference, names the game index and the first differing columns."""
    assert set(ref) == set(fast) == {"manches", "games", "traces"}
    for key in ref:
        assert ref[key].dtype == fast[key].dtype and ref[key].shape == fast[key].shape, key
        if not len(ref[key]):
            continue
        diff = (ref[key] != fast[key]).reshape(len(ref[key]), -1)
        bad = np.flatnonzero(diff.any(axis=1))
        if bad.size:
            row = bad[0]
            table = "games" if key == "games" else "manches"
            cols = records.column_names(table, players) if key != "traces" else ["trace"]
            game = (ref["games"] if key == "games" else ref["manches"])[row, 0]
            raise AssertionError(f"{key}: first differing row {row} (game {game}), columns "
                                 f"{[cols[c] for c in np.flatnonzero(diff[row])]}: {ref[key][row]} vs {fast[key][row]}")


def compare(rules, seats, start, stop, level):
    ref = raw_reference(rules, seats, SEED, start, stop, level)
    fast = raw_kernel(rules, seats, SEED, start, stop, level)
    assert_same(ref, fast, len(seats))
    return ref


def test_option_sets_cover_every_option_and_choice():
    defaults = {p.name: p.default for p in OPTIONS.params}
    changed = {name for opts in OPTION_SETS.values() for name in opts
               if OPTIONS.resolve(dict(opts))[name] != defaults[name]}
    assert changed == set(defaults)
    for p in OPTIONS.params:
        if p.kind == "choice":
            used = {p.default} | {o[p.name] for o in OPTION_SETS.values() if p.name in o}
            assert used == set(p.choices), p.name


@pytest.mark.slow
@pytest.mark.parametrize("option_set,seating,start,stop", CASES)
def test_engines_agree_manche_for_manche(option_set, seating, start, stop):
    rules, seats, _ = setup(option_set, seating)
    ref = compare(rules, seats, start, stop, "manches")
    m = ref["manches"]
    assert len(m) == stop - start and m[:, records.MANCHE.game].tolist() == list(range(start, stop))
    assert len(ref["games"]) == 0 and len(ref["traces"]) == len(m) and len(np.unique(ref["traces"])) == len(m)


GAME_CASES = [(o, table, 150) for o in ("default", "short_games") for table in REGISTRY_TABLES] + [
    ("default", "random", 60), ("short_games", "random", 100)]


@pytest.mark.parametrize("option_set,seating,n", GAME_CASES)
def test_engines_agree_on_whole_games(option_set, seating, n):
    """Games to the target (KM1) with the deal rotating: every manche row, trace and game row."""
    rules, seats, _ = setup(option_set, seating, level="games")
    ref = compare(rules, seats, 1000, 1000 + n, "games")
    g, m = ref["games"], ref["manches"]
    assert len(g) == n and g[:, records.GAME.manches].sum() == len(m) > n
    totals = g[:, len(records.GAME_FIXED):]
    assert (totals.max(axis=1) >= rules.target).all()


SIX_PLAYERS = ["balanced", "discreet", "blocker", "watcher", "sprinter", "balanced"]
SIX_CASES = [(o, s, "manches", 300) for o in ("default", "fast", "misc") for s in ("random", "six")] + [
    ("default", "six", "games", 40), ("short_games", "six", "games", 40), ("short_games", "random", "games", 20)]


@pytest.mark.parametrize("option_set,seating,level,n", SIX_CASES)
def test_engines_agree_with_six_players(option_set, seating, level, n):
    rules, seats, _ = setup(option_set, SIX_PLAYERS if seating == "six" else seating, players=6, level=level)
    ref = compare(rules, seats, 50, 50 + n, level)
    assert ref["manches"].shape[1] == records.n_cols("manches", 6)
    assert set(ref["manches"][:, records.MANCHE.dealer].tolist()) == set(range(6))
    if level == "games":
        assert len(ref["games"]) == n and ref["games"].shape[1] == records.n_cols("games", 6)


def test_kernel_is_independent_of_threads_and_blocks():
    rules, seats, _ = setup("default", "table0", level="games")
    one = raw_kernel(rules, seats, SEED, 0, 300, "games", threads=1)
    two = raw_kernel(rules, seats, SEED, 0, 300, "games", threads=2)
    parts = [raw_kernel(rules, seats, SEED, a, b, "games", threads=t) for a, b, t in ((0, 1, 2), (1, 120, 1), (120, 300, 2))]
    split = {k: np.concatenate([p[k] for p in parts]) for k in one}
    for key in one:
        assert len(one[key]) and np.array_equal(one[key], two[key]), key
        assert np.array_equal(one[key], split[key]), key
    assert one["games"][:, 0].tolist() == list(range(300))


def test_kernel_rows_make_the_typed_tables():
    rules, seats, spec = setup("default", "table1", level="games")
    raw = raw_kernel(rules, seats, SEED, 0, 50, "games")
    labels = [s.label() for s in spec.strategies]
    frames = to_frames(raw, 4, labels, "games")
    assert set(frames) == {"manches", "games"}
    m, g = frames["manches"], frames["games"]
    assert m.columns[: len(records.MANCHE_FIXED)] == list(records.MANCHE_FIXED)
    assert m.height == len(raw["manches"]) and g.height == 50
    assert m["outcome"].dtype == records.OUTCOME_ENUM and m["why"].dtype == records.WHY_ENUM
    assert m["trace"].dtype == pl.UInt64 and m["trace"].to_numpy().tolist() == raw["traces"].tolist()
    assert m["ticks"].to_numpy().tolist() == raw["manches"][:, records.MANCHE.ticks].tolist()
    outcomes = raw["manches"][:, records.MANCHE.outcome]
    assert m["outcome"].to_list() == [("kems", "double", "wrong kems", "contre", "cap")[o] for o in outcomes]
    assert m["why"].is_null().to_list() == (raw["manches"][:, records.MANCHE.why] < 0).tolist()
    for p in range(4):
        assert set(m[f"strategy_{p}"]) == {labels[p]}
    assert g["total_A"].to_list() == raw["games"][:, len(records.GAME_FIXED)].tolist()
    assert [c for c in g.columns if not c.startswith("strategy_")] == records.column_names("games", 4)


def test_trace_folds_every_event_field_whole(monkeypatch):
    """Issue 18 item 6: no event field reaches the trace cut or packed. A manche that runs to a 70,000-tick cap
    (past 16 bits) hashes its Top and sweep ticks and its length whole, each dealt card is an event of its own
    (seat, hand slot, card), and the kernel folds the very same events."""
    from simulator.kems.engines import reference
    from simulator.kems.vocabulary.codes import EV_DEAL, EV_END, EV_TOP, OUT_CAP

    events = []
    original = reference.trace_py

    def record(h, ev, a, b, c):
        events.append((ev, a, b, c))
        return original(h, ev, a, b, c)

    monkeypatch.setattr(reference, "trace_py", record)
    options = {"max_ticks": "70000", "false_kems_rate": "0", "false_contre_rate": "0"}
    spec = build_spec("kems", n=1, seed=SEED, players=4, level="manches", strategies=["heuristic:speed=0"],
                      options=options)
    rules, seats = Rules.from_options(dict(spec.options)), seats_of(spec)
    ref = raw_reference(rules, seats, SEED, 0, 1, "manches")
    assert ref["manches"][0, records.MANCHE.outcome] == OUT_CAP and ref["manches"][0, records.MANCHE.ticks] == 70000
    assert events[-1] == (EV_END, OUT_CAP, -1, 70000)
    tops = [a for ev, a, _, _ in events if ev == EV_TOP]
    assert max(tops) > 65536 and len(set(tops)) == len(tops)
    deal = [e[1:] for e in events if e[0] == EV_DEAL]
    assert len(deal) >= 16 and {(p, k) for p, k, _ in deal} == {(p, k) for p in range(4) for k in range(4)}
    assert len({c for _, _, c in deal}) == len(deal) and all(0 <= c < 52 for _, _, c in deal)
    assert_same(ref, raw_kernel(rules, seats, SEED, 0, 1, "manches"), 4)


@pytest.mark.slow
@pytest.mark.parametrize("lag", range(7))
@pytest.mark.parametrize("seating", ["table1", "table2"])
def test_engines_agree_at_every_perception_lag(lag, seating):
    """M-perception: every allowed lag_ticks (0-6), on the default rules and with multi_swap and all-pass sweeps."""
    for extra in ({}, {"multi_swap": "true", "sweep_on_all_pass": "true"}):
        spec = build_spec("kems", n=1, seed=SEED, players=4, level="manches", strategies=SEATINGS[seating],
                          options={"lag_ticks": str(lag), **extra})
        rules, seats = Rules.from_options(dict(spec.options)), seats_of(spec)
        compare(rules, seats, 300 * lag, 300 * lag + 300, "manches")
