"""Where a Rami round calls the exact meld solver, how often the hand had not changed, and what each call costs.

    .venv/bin/python bench/rami_solver_calls.py [--rounds 300] [--seed 12345] [--timing-calls 20000]

Plays ``--rounds`` rounds (4 players ``open-asap``, default rules, the workload of ``bench/rami_throughput.py``)
with the reference engine, which calls the same compiled solver functions as the kernel (``best_opening_nb``,
``least_left_nb``, ``opening_choices``, ``opening_nb``, ``layoffs_nb``) from readable Python, and wraps each of
them to record, per call: the function, the engine step that called it (``take_plan``, ``unopened_phase``,
``rami_sec_plan``, ``meld_with``, ``lay_phase``, ...) and the call's full input (the hand's count vector and the
other arguments; the table for lay-offs). Per function and step it prints:

* calls per round;
* ``repeat``: the share of calls whose input was already seen earlier in the same round (what a memo keyed by the
  input, cleared each round, would answer without solving);
* ``same as last``: the share whose input equals that function's previous call from the same step (what a
  one-entry cache per call site would answer);
* the mean cost of one call (µs), timed by calling the compiled function on the recorded inputs in a loop after
  a warm-up, and its share of the round's solver time.

The kernel plays the same rounds move for move (the agreement tests), so the counts are the kernel's. A script,
not a test: nothing is asserted.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict

import numpy as np

from common import ROOT  # noqa: F401  (puts the checkout on sys.path)

import simulator.games  # noqa: E402,F401  (registers the games)
from simulator.rami.engines import table  # noqa: E402
from simulator.rami.engines.engine import raw_reference  # noqa: E402
from simulator.rami.vocabulary.rules import Rules  # noqa: E402
from simulator.rami.vocabulary.screens import dead_cards, franche_possible  # noqa: E402

SEATS = ["open-asap"] * 4
INPUTS = {"best_opening_nb": 5, "least_left_nb": 3, "opening_choices": 6, "opening_nb": 6, "layoffs_nb": 3}
"""Each solver function's leading arguments that are its input (the rest are scratch and output buffers)."""
STEPS = ("take_plan", "take_discard", "unopened_phase", "rami_sec_plan", "meld_with", "lay_phase", "layoff_phase",
         "claim_window", "card_moves", "joker_reusable_after", "do_move", "going_out")


def _step() -> str:
    """The engine step that called the solver: the nearest caller frame named in :data:`STEPS`."""
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_name in STEPS:
            return frame.f_code.co_name
        frame = frame.f_back
    return "other"


def _key(args) -> bytes:
    return b"|".join(a.tobytes() if isinstance(a, np.ndarray) else repr(a).encode() for a in args)


class Recorder:
    """Wraps the solver functions in :mod:`simulator.rami.engines.table`'s namespace; ``calls[(fn, step)]`` lists the
    recorded inputs (copies), ``repeat``/``last`` count the calls a per-round memo / per-site cache would answer."""

    def __init__(self):
        self.calls = defaultdict(list)
        self.repeat = defaultdict(int)
        self.last_hits = defaultdict(int)
        self.screened = defaultdict(int)
        self.seen: set = set()
        self.last: dict = {}

    def new_round(self):
        self.seen.clear()
        self.last.clear()

    def wrap(self, name, fn):
        def recorded(*args):
            step = _step()
            k = INPUTS[name]
            key = (name, _key(args[:k]))
            self.repeat[(name, step)] += key in self.seen
            self.last_hits[(name, step)] += self.last.get((name, step)) == key
            self.seen.add(key)
            self.last[(name, step)] = key
            if screened_by_kernel(name, step, args):
                self.screened[(name, step)] += 1
            self.calls[(name, step)].append(tuple(a.copy() if isinstance(a, np.ndarray) and i < k else a
                                                  for i, a in enumerate(args)))
            return fn(*args)
        return recorded


def screened_by_kernel(name: str, step: str, args) -> bool:
    """Whether the kernel answers this opening search without searching (:mod:`simulator.rami.vocabulary.screens`): a hand
    without a tierce franche. (The rami-sec plan's searches are counted per plan, in :func:`main`.)"""
    if name == "best_opening_nb" and step in ("take_plan", "unopened_phase", "take_discard"):
        return not franche_possible(args[0])
    return False


def kernel_sec_searches(counts) -> int | None:
    """How many searches the kernel's rami-sec plan makes for ``counts``: 0 (no tierce franche, or two dead
    cards), 1 (one dead card: the hand without it), None (as many as the plain search)."""
    if not franche_possible(counts):
        return 0
    dead, _first = dead_cards(counts)
    return 0 if dead >= 2 else 1 if dead == 1 else None


def cost_us(fn, inputs: list, limit: int) -> float:
    """Mean µs of ``fn`` over (up to ``limit`` of) the recorded ``inputs``, compiled code only."""
    sample = inputs[:limit]
    for args in sample[:50]:
        fn(*args)
    began = time.perf_counter()
    for args in sample:
        fn(*args)
    return (time.perf_counter() - began) / len(sample) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--seed", type=int, default=12345)
    parser.add_argument("--timing-calls", type=int, default=20_000)
    args = parser.parse_args()
    recorder = Recorder()
    originals = {name: getattr(table, name) for name in INPUTS}
    for name, fn in originals.items():
        setattr(table, name, recorder.wrap(name, fn))
    import simulator.rami.engines.reference as reference

    original_play = reference.Round.play

    def play(self, dealer, scores):
        recorder.new_round()
        return original_play(self, dealer, scores)

    reference.Round.play = play
    original_sec = reference.Round.rami_sec_plan
    key = ("least_left_nb", "rami_sec_plan")

    def rami_sec_plan(self, p):
        before = len(recorder.calls[key])
        result = original_sec(self, p)
        made = len(recorder.calls[key]) - before
        kernel = kernel_sec_searches(self.hands[p]) if made else None
        recorder.screened[key] += made - kernel if kernel is not None else 0
        return result

    reference.Round.rami_sec_plan = rami_sec_plan
    raw_reference(Rules(), SEATS, args.seed, 0, args.rounds, "rounds")
    rounds = args.rounds
    rows, total = [], 0.0
    for (name, step), inputs in sorted(recorder.calls.items()):
        us = cost_us(originals[name], inputs, args.timing_calls)
        n = len(inputs)
        rows.append((name, step, n / rounds, recorder.repeat[(name, step)] / n, recorder.last_hits[(name, step)] / n,
                     us, us * n / rounds, recorder.screened[(name, step)] / n))
        total += us * n / rounds
    print(f"Rami solver calls, {rounds} rounds, 4 x open-asap, default rules (reference engine; compiled solver)")
    print(f"{'function':<18}{'step':<16}{'calls/round':>12}{'repeat':>9}{'same as last':>14}{'µs/call':>10}"
          f"{'µs/round':>10}{'share':>8}{'screened':>10}")
    for name, step, per_round, repeat, last, us, us_round, screened in sorted(rows, key=lambda r: -r[6]):
        print(f"{name:<18}{step:<16}{per_round:>12.1f}{repeat:>9.1%}{last:>14.1%}{us:>10.2f}{us_round:>10.1f}"
              f"{us_round / total:>8.1%}{screened:>10.1%}")
    calls = sum(r[2] for r in rows)
    print(f"{'all':<34}{calls:>12.1f}{'':>23}{'':>10}{total:>10.1f}")


if __name__ == "__main__":
    main()
