"""A game's kernel throughput on two commits, measured in turn in one run: the before/after figure of a refactor.

    .venv/bin/python bench/compare_commits.py kamoul --base main [--rounds 3] [-- --hands 400000]

Checks ``--base`` out into a temporary worktree, then runs ``bench/<game>_throughput.py`` of the base and of this
checkout alternately (base, this, base, this, ...) with the same arguments (those after ``--``), reads the kernel
figures each prints (``kernel, 1 thread: N unit/s`` and ``kernel, T threads: ...``) and prints, per figure, the
median of each side and the ratio this / base. Alternating keeps the machine's drift out of the ratio. For Kamoul
each round also runs the yardstick (``bench/common.YARDSTICK``, the simplified numba Kamoul the speed target is
set against), and the kernel's ratio to it is printed for both sides, measured in the same run. A script, not a
test: nothing is asserted.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from common import YARDSTICK, yardstick_rates

ROOT = Path(__file__).resolve().parents[1]
FIGURE = re.compile(r"^kernel, (\d+) threads?: ([\d,]+) (\w+)/s", re.MULTILINE)


def figures(tree: Path, game: str, extra: list[str]) -> dict[str, float]:
    """``{"1 thread": rate, ...}`` printed by ``tree``'s throughput script for ``game``."""
    out = subprocess.run([sys.executable, str(tree / "bench" / f"{game}_throughput.py"), *extra], cwd=tree,
                         capture_output=True, text=True, check=True).stdout
    return {f"{threads} thread{'s' if threads != '1' else ''} ({unit}/s)": float(rate.replace(",", ""))
            for threads, rate, unit in FIGURE.findall(out)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", choices=("kamoul", "rami", "kems"))
    parser.add_argument("--base", required=True, help="the commit to compare against (any git revision)")
    parser.add_argument("--rounds", type=int, default=3, help="alternations (each side runs this many times)")
    argv = sys.argv[1:]
    split = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:split])
    args.extra = argv[split + 1:]  # for the throughput script
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        subprocess.run(["git", "worktree", "add", "--detach", str(base), args.base], cwd=ROOT, check=True,
                       capture_output=True)
        try:
            runs: dict[str, list[dict[str, float]]] = {"base": [], "this": []}
            yardstick: list[dict[int, float]] = []
            for k in range(args.rounds):
                if args.game == "kamoul" and YARDSTICK.is_file():
                    yardstick.append(yardstick_rates(1_000_000))
                    print(f"round {k + 1} yardstick: " + ", ".join(f"{t} thread(s) {rate:,.0f} rounds/s"
                                                                 for t, rate in yardstick[-1].items()), flush=True)
                for side, tree in (("base", base), ("this", ROOT)):
                    runs[side].append(figures(tree, args.game, args.extra))
                    print(f"round {k + 1} {side}: " + ", ".join(f"{name} {rate:,.0f}"
                                                              for name, rate in runs[side][-1].items()), flush=True)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT, capture_output=True)
    print(f"{args.game}: this checkout against {args.base}, medians of {args.rounds} alternated runs")
    for name in runs["this"][0]:
        old = statistics.median(r[name] for r in runs["base"])
        new = statistics.median(r[name] for r in runs["this"])
        print(f"  kernel {name}: base {old:,.0f}, this {new:,.0f}, this / base {new / old:.3f}")
        threads = int(name.split()[0])
        if yardstick and all(threads in y for y in yardstick):
            ruler = statistics.median(y[threads] for y in yardstick)
            print(f"  kernel {name} / yardstick ({ruler:,.0f} rounds/s): base {old / ruler:.3f}x, "
                  f"this {new / ruler:.3f}x")


if __name__ == "__main__":
    main()
