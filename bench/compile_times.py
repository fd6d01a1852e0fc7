"""Where the compile goes: each kernel family compiled alone, in a fresh process, from an empty cache, and the main job
from an empty cache to its printed verdict.

    python bench/compile_times.py                      # every family, then the main job
    python bench/compile_times.py kamoul rami          # some families
    python bench/compile_times.py --no-main --top 10

Per family: the wall time of its first call (what a user waits for) and, from numba's own compiler events
(``numba.core.event``, ``numba:run_pass``), the functions that cost the most to type (``nopython_type_inference``)
and to lower and optimise (``native_lowering``, which runs LLVM on the function's module), each as its own time
(the nested compiles of the functions it calls taken out). The families: ``kamoul`` (the simulation kernels),
``kamoul-rollouts`` (the counterfactual rollouts of ``advise`` and the kamoul-call study), ``rami``, ``kems`` and
``user-file`` (the Kem's kernel that plays a strategy file at every seat through the function table), each with
nothing else compiled before it in its process; ``rollouts-after-kamoul`` (the rollout kernels right after the Kamoul
kernels, in one process: only the rollouts are timed) and ``kamoul-file-inlined`` (the Kamoul kernel compiled for a
strategy file at every seat, ``CARDSIM_USER_KERNEL=inlined``) and ``kamoul-search`` (the Kamoul kernel for a table
with a searching seat: the loop with the search and the rollouts' loop). The default families are the first five. ``NUMBA_OPT`` is left as
a user has it (3). Prints a Markdown table for docs/architecture.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

FAMILIES = ("kamoul", "kamoul-rollouts", "rami", "kems", "user-file", "rollouts-after-kamoul", "kamoul-file-inlined",
            "kamoul-search")

CHILD = r'''
import json, sys, time
sys.path.insert(0, ROOT)
from numba.core import event
import simulator.games
from simulator.core.storage.spec import build_spec
from simulator.games import get_game

family = FAMILY
stack, own = [], {}


class Passes(event.Listener):
    def on_start(self, ev):
        name = ev.data["name"].split(" [")[0]  # numba names a pass "<pass> [<qualname>]"
        stack.append([name, ev.data["qualname"], time.perf_counter(), 0.0])

    def on_end(self, ev):
        name, qualname, began, children = stack.pop()
        spent = time.perf_counter() - began
        if stack:
            stack[-1][3] += spent
        key = (name, qualname)
        own[key] = own.get(key, 0.0) + spent - children


class LlvmLock(event.Listener):
    """Time spent holding numba's LLVM lock: optimising and emitting machine code, also outside any pass."""

    def __init__(self):
        self.began, self.seconds = [], 0.0

    def on_start(self, ev):
        self.began.append(time.perf_counter())

    def on_end(self, ev):
        began = self.began.pop()
        if not self.began:
            self.seconds += time.perf_counter() - began


llvm = LlvmLock()


def compile_family():
    if family in ("kamoul-rollouts", "rollouts-after-kamoul"):
        plugin = get_game("kamoul")
        if family == "rollouts-after-kamoul":
            plugin.kernels.compile()
        began = time.perf_counter()
        with event.install_listener("numba:run_pass", Passes()), event.install_listener("numba:llvm_lock", llvm):
            for extra in plugin.warm_extra:
                extra.compile()
        return time.perf_counter() - began
    game = {"user-file": "kems", "kamoul-file-inlined": "kamoul", "kamoul-search": "kamoul"}.get(family, family)
    plugin = get_game(game)
    strategies = [USER_FILE] if family in ("user-file", "kamoul-file-inlined") else None
    if family == "kamoul-search":
        strategies = ["search"]
    spec = build_spec(game, n=1, seed=0, level=plugin.levels[0], strategies=strategies)
    began = time.perf_counter()
    with event.install_listener("numba:run_pass", Passes()), event.install_listener("numba:llvm_lock", llvm):
        plugin.simulate_chunk(spec, 0, 1, 1)
    return time.perf_counter() - began


seconds = compile_family()
rows = [{"pass": k[0], "function": k[1], "seconds": v} for k, v in own.items()]
print("RESULT " + json.dumps({"seconds": seconds, "passes": rows, "llvm": llvm.seconds}))
'''


def user_file(folder: Path, game: str) -> str:
    """A strategy file of ``game`` as ``cardsim new-strategy`` writes it (numba functions)."""
    subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {str(ROOT)!r}); from simulator import api; "
                    f"api.new_strategy({game!r}, 'bench-file', {str(folder)!r})"], check=True, capture_output=True)
    return str(folder / "bench_file.py")


def measure(family: str, work: Path) -> dict:
    """One family compiled in a fresh process with an empty cache."""
    cache = work / f"cache-{family}"
    env = {**os.environ, "CARDSIM_CACHE_DIR": str(cache)}
    env.pop("NUMBA_OPT", None)
    script = CHILD.replace("ROOT", repr(str(ROOT)), 1).replace("FAMILY", repr(family), 1)
    if family == "kamoul-file-inlined":  # the kernel compiled for the files, not the table's
        env["CARDSIM_USER_KERNEL"] = "inlined"
    game = {"user-file": "kems", "kamoul-file-inlined": "kamoul"}.get(family)
    script = script.replace("USER_FILE", repr(user_file(work / f"file-{family}", game)) if game else "None")
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - began
    if done.returncode != 0:
        raise SystemExit(f"{family}: the compile failed\n{done.stderr[-2000:]}")
    result = json.loads(next(line for line in done.stdout.splitlines() if line.startswith("RESULT "))[7:])
    result["process"] = wall
    return result


def main_job(work: Path) -> float:
    """The README's main job (the kamoul-call study, -n 5000) from an empty cache to its printed verdict."""
    env = {**os.environ, "CARDSIM_CACHE_DIR": str(work / "cache-main")}
    env.pop("NUMBA_OPT", None)
    cardsim = Path(sys.executable).with_name("cardsim")
    began = time.perf_counter()
    subprocess.run([str(cardsim), "study", "kamoul-call", "-n", "5000", "--seed", "1", "--out", str(work / "main"),
                    "--quiet"], env=env, check=True, capture_output=True)
    return time.perf_counter() - began


def table(results: dict, top: int) -> str:
    lines = ["| family | first call (s) | process (s) | typing (s) | lowering pass (s) | all passes (s) | "
             "holding the LLVM lock (s) |", "|---|---|---|---|---|---|---|"]
    for family, r in results.items():
        typing = sum(p["seconds"] for p in r["passes"] if p["pass"] == "nopython_type_inference")
        lowering = sum(p["seconds"] for p in r["passes"] if p["pass"] == "native_lowering")
        passes = sum(p["seconds"] for p in r["passes"])
        lines.append(f"| {family} | {r['seconds']:.1f} | {r['process']:.1f} | {typing:.1f} | {lowering:.1f} | "
                     f"{passes:.1f} | {r['llvm']:.1f} |")
    for family, r in results.items():
        by_pass: dict[str, float] = {}
        for p in r["passes"]:
            by_pass[p["pass"]] = by_pass.get(p["pass"], 0.0) + p["seconds"]
        costly = sorted(by_pass.items(), key=lambda kv: -kv[1])[:top]
        lines += ["", f"{family}: the {top} costliest compiler passes (own time, every function)", "",
                  "| pass | seconds |", "|---|---|"] + [f"| {name} | {sec:.1f} |" for name, sec in costly]
    for family, r in results.items():
        for name, label in (("nopython_type_inference", "to type"), ("native_lowering", "to lower and optimise")):
            costly = sorted((p for p in r["passes"] if p["pass"] == name), key=lambda p: -p["seconds"])[:top]
            lines += ["", f"{family}: the {top} functions that cost the most {label}", "",
                      "| function | seconds |", "|---|---|"]
            lines += [f"| `{p['function']}` | {p['seconds']:.2f} |" for p in costly]
    return "\n".join(lines)


def run() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("families", nargs="*", metavar="FAMILY", help=f"among {', '.join(FAMILIES)} (default: all)")
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("--no-main", action="store_true", help="leave out the main job")
    args = parser.parse_args()
    unknown = sorted(set(args.families) - set(FAMILIES))
    if unknown:
        parser.error(f"unknown family {', '.join(unknown)}; allowed: {', '.join(FAMILIES)}")
    with tempfile.TemporaryDirectory(prefix="cardsim-compile-") as folder:
        work = Path(folder)
        results = {}
        for family in args.families or FAMILIES[:5]:
            results[family] = measure(family, work)
            print(f"{family}: first call {results[family]['seconds']:.1f} s", flush=True)
        if not args.no_main:
            print(f"main job, empty cache to verdict: {main_job(work):.1f} s", flush=True)
        print()
        print(table(results, args.top))


if __name__ == "__main__":
    run()
