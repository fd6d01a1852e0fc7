"""Peak memory of analysing a large Kamoul run (issue 5: 10,000,000 hands under 2 GiB).

    .venv/bin/python bench/analysis_memory.py [--hands 10000000] [--run runs/kamoul-10m]

Simulates the run once if ``--run`` does not hold it yet (4 players, balanced, seed 1), then measures, each in
a fresh process, the peak resident memory (``ru_maxrss``) and the time of: the run summary
(``analysis.summary.run_summary``: win rates, points, outcomes with intervals, from lazy scans), the game-length
distribution, and the full HTML report (``api.report``). The baseline is an empty process that imports the
same modules, measured the same way. A script, not a test: nothing is asserted.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

STEPS = {
    "baseline (imports only)": "import analysis.summary, cardsim",
    "run summary": "import analysis.summary as s; s.run_summary(RUN)",
    "length distribution": ("import analysis.lengths as l, cardsim as a; "
                            "l.length_distribution(a.open_table(RUN, 'hands'), 'turns')"),
    "HTML report": "import cardsim as a; a.report(RUN, OUT)",
}
MEASURE = """
import resource, sys, time
RUN, OUT = sys.argv[1], sys.argv[2]
t = time.perf_counter()
{code}
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, time.perf_counter() - t)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=10_000_000)
    parser.add_argument("--run", type=Path, default=ROOT / "runs" / "kamoul-10m")
    args = parser.parse_args()
    if not (args.run / "_manifest.json").exists():
        print(f"simulating {args.hands:,} hands into {args.run} …", flush=True)
        subprocess.run([str(ROOT / ".venv" / "bin" / "cardsim"), "simulate", "kamoul", "-n", str(args.hands),
                        "--seed", "1", "--out", str(args.run), "--quiet"], check=True, cwd=ROOT)
    out = args.run.parent / f"{args.run.name}-report.html"
    print(f"run: {args.run} ({sum(f.stat().st_size for f in args.run.rglob('*.parquet')) / 2**20:.0f} MiB Parquet)")
    for name, code in STEPS.items():
        done = subprocess.run([sys.executable, "-c", MEASURE.format(code=code), str(args.run), str(out)],
                              check=True, cwd=ROOT, capture_output=True, text=True)
        kib, seconds = done.stdout.split()[-2:]
        print(f"{name}: peak RSS {int(kib) / 1024:,.0f} MiB, {float(seconds):.1f} s")


if __name__ == "__main__":
    main()
