"""How long the small commands make a user wait: each timed as a whole process, first call then again.

    .venv/bin/python bench/small_commands.py [--repeats 3]

Makes a small Kamoul and a small Rami run (``simulate -n 20``), then times, each as a fresh ``cardsim`` process:
``replay kamoul --index 3``, ``replay rami --index 3`` and ``rami opening --hand ...``. The first call of each
pays whatever is not cached yet (on a fresh cache: the reference engine's built-in decisions, compiled once and
cached since issue 59); the later calls are what a user waits every other time. The issue's bar: at most 2 s for
the second call. Prints every timing; a script, not a test: nothing is asserted.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CARDSIM = Path(sys.executable).with_name("cardsim")


def timed(*args: str) -> float:
    began = time.perf_counter()
    done = subprocess.run([str(CARDSIM), *args], cwd=ROOT, capture_output=True, text=True)
    elapsed = time.perf_counter() - began
    if done.returncode != 0:
        sys.exit(f"cardsim {' '.join(args)} failed ({done.returncode}): {done.stderr.strip()}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="calls after the first (default 3)")
    repeats = parser.parse_args().repeats
    with tempfile.TemporaryDirectory() as tmp:
        for game in ("kamoul", "rami"):
            timed("simulate", game, "-n", "20", "--seed", "1", "--out", f"{tmp}/{game}", "--quiet")
        commands = {
            "replay kamoul --index 3": ["replay", "kamoul", "--index", "3", "--run", f"{tmp}/kamoul"],
            "replay rami --index 3": ["replay", "rami", "--index", "3", "--run", f"{tmp}/rami"],
            "rami opening --hand ...": ["rami", "opening", "--hand", "7H 8H 9H KS KH KD JK 5C 5D"],
        }
        for label, args in commands.items():
            first = timed(*args)
            again = [timed(*args) for _ in range(repeats)]
            print(f"{label:28s} first call {first:6.1f} s   then {min(again):5.2f} s (best of {repeats}; "
                  f"worst {max(again):.2f} s)")


if __name__ == "__main__":
    main()
