"""Compiling kernel families side by side, one process each.

numba compiles a kernel on one core, holding the interpreter, so a command that needs two families (the
kamoul-call study: the Kamoul kernels and their rollout kernels) used to wait for one and then the other while the
second core idled. :func:`compile_apart` compiles the families that are not in numba's on-disk cache yet in child
processes, at most one per core at once, and says so in one notice; the caller's first calls then load them
from the cache. A child that fails changes nothing: the caller's own first call compiles that family again, with
its usual notice, and shows the error there.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from simulator.core.kernels.compiling import KernelFamily, say

_ROOT = Path(__file__).resolve().parents[3]
_CHILD = "import sys\nfrom cardsim import compile_family\ncompile_family(sys.argv[1], sys.argv[2])\n"


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def makespan(seconds: list[float], workers: int) -> float:
    """How long jobs of ``seconds`` take on ``workers`` cores, each started on the first core free, longest first
    (the order :func:`compile_apart` starts them in)."""
    loads = [0.0] * max(1, workers)
    for s in sorted(seconds, reverse=True):
        loads[loads.index(min(loads))] += s
    return max(loads)


def _and(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def compile_apart(families: list[KernelFamily]) -> list[KernelFamily]:
    """Compile those of ``families`` not compiled yet, side by side in child processes. Returns the families
    compiled so. Nothing is done (an empty
    list) when fewer than two need compiling or there is one core: their first calls compile them in this process,
    one after the other, each with its notice."""
    todo = [f for f in families if not f.compiled()]
    workers = min(cores(), len(todo))
    if len(todo) < 2 or workers < 2:
        return []
    seconds = {f.name: f.seconds() for f in todo}
    say(f"compiling the {_and([f.label for f in todo])} kernels, {workers} at once (first run on this machine, "
        f"about {makespan(list(seconds.values()), workers):.0f} s)…")
    todo.sort(key=lambda f: -seconds[f.name])  # longest first: what makespan() assumes
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(_ROOT), os.environ.get("PYTHONPATH"))))}
    children: list[subprocess.Popen] = []
    stopping = []

    def child(family: KernelFamily) -> bool:
        if stopping:
            return False
        process = subprocess.Popen([sys.executable, "-c", _CHILD, family.game, family.name], env=env,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        children.append(process)
        if stopping:  # started while the caller was stopping them
            process.kill()
        return process.wait() == 0

    began = time.perf_counter()
    pool = ThreadPoolExecutor(workers)
    try:
        done = list(pool.map(child, todo))
    finally:  # interrupted: no compile goes on behind the user's back
        stopping.append(True)
        for process in children:
            if process.poll() is None:
                process.kill()
        pool.shutdown(wait=True, cancel_futures=True)
    say(f"compiled in {time.perf_counter() - began:.0f} s")
    return [f for f, ok in zip(todo, done) if ok]
