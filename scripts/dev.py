#!/usr/bin/env python3
"""Set up a fresh checkout and run its main job or its tests (only Python 3.11+ needed).

    python3 scripts/dev.py main    # venv + install, then the default study (when to call Kamoul) -> runs/kamoul-call
    python3 scripts/dev.py test    # venv + install, then the whole test suite
    python3 scripts/dev.py test --fast   # the fast tier: every test not marked slow (under 4 minutes)
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")


def run(*cmd: str, **kw) -> None:
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, cwd=ROOT, **kw)


def setup() -> None:
    if sys.version_info < (3, 11):
        sys.exit(f"cardsim needs Python 3.11 or newer (this is {sys.version.split()[0]})")
    if not (BIN / "python").exists():
        venv.EnvBuilder(with_pip=True).create(VENV)
    run(str(BIN / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-e", ".[test,dask]")


def main_job() -> None:
    out = ROOT / "runs" / "kamoul-call"
    run(str(BIN / "cardsim"), "study", "kamoul-call", "-n", "5000", "--seed", "1", "--out", str(out))
    print(f"\nthe answer: {out / 'answer.md'} (and answer.json)\nreport: {out / 'report.html'}\ndata: {out / 'samples'} (Parquet rollouts), {out / 'call_value.parquet'}, "
          f"{out / 'policy.parquet'}, {out / 'gain.parquet'}, tournaments in {out}/tournament-<P>p/")


def warm_up() -> None:
    """Compile every game's kernels into numba's on-disk cache: `cardsim warm` compiles the families side by side,
    one process per core, longest first. Kernels compiled for users' strategy files are not warmed up: each
    belongs to one xdist group, so one worker compiles it while the other runs tests."""
    print("+ compiling the kernels", flush=True)
    if subprocess.run([str(BIN / "cardsim"), "warm"], cwd=ROOT).returncode != 0:
        sys.exit("compiling the kernels failed (the error is printed above)")


CHROMIUM = Path("/usr/bin/chromium")


def ensure_chromium() -> None:
    """tests/test_reports.py opens the reports in headless Chromium: install Debian's package when missing.
    Fails loudly when it cannot (the test is never skipped)."""
    if CHROMIUM.is_file():
        return
    apt = shutil.which("apt-get")
    if apt is None:
        sys.exit(f"{CHROMIUM} is missing and there is no apt-get to install it: install Chromium there, then re-run")
    print(f"{CHROMIUM} is missing (needed by tests/test_reports.py): installing Debian's chromium", flush=True)
    sudo = [] if getattr(os, "geteuid", lambda: 0)() == 0 else ["sudo", "-n"]
    try:
        run(*sudo, apt, "update", "-qq")
        run(*sudo, apt, "install", "-y", "-qq", "chromium")
    except (subprocess.CalledProcessError, FileNotFoundError) as err:
        sys.exit(f"could not install chromium ({err}); install it (apt-get install chromium), then re-run")
    if not CHROMIUM.is_file():
        sys.exit(f"apt-get installed chromium but {CHROMIUM} is still missing")


def tests() -> None:
    ensure_chromium()
    # The suite spends its time compiling kernels (every strategy file is a kernel of its own) and in the
    # reference engines, not in compiled code: compile with LLVM's -O1, into a cache of its own so that a user's
    # cardsim runs never load these less optimised kernels.
    os.environ["NUMBA_OPT"] = os.environ.get("NUMBA_OPT", "1")
    root = Path(os.environ.get("CARDSIM_CACHE_DIR", Path.home() / ".cache" / "cardsim"))
    os.environ["CARDSIM_CACHE_DIR"] = str(root / f"tests-O{os.environ['NUMBA_OPT']}")
    # compile every game's kernels once (numba's on-disk cache) so the test workers load them instead of
    # compiling the same code twice in parallel
    warm_up()
    # loadgroup: tests marked xdist_group("dask") share one test worker, hence one Dask LocalCluster
    args = sys.argv[2:]
    if "--fast" in args:  # the tier to iterate with: unit and rule tests, the short agreement windows
        args = ["-m", "not slow", *(a for a in args if a != "--fast")]
    run(str(BIN / "python"), "-m", "pytest", "-q", "-n", "2", "--dist", "loadgroup", *args)


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    if what not in ("main", "test", "setup"):
        sys.exit(__doc__)
    setup()
    {"main": main_job, "test": tests, "setup": lambda: None}[what]()
