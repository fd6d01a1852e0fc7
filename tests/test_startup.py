"""Start-up is as quiet as the rest: Ctrl-C at any moment of a command's first seconds is one line and exit 130
(or the command finishes), and a memory limit that breaks the imports is one line and exit 1, never a
traceback (simulator/launch.py)."""

from __future__ import annotations

import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

CARDSIM = shutil.which("cardsim") or str(Path(sys.executable).with_name("cardsim"))


@pytest.mark.parametrize("delay", [0.05, 0.2, 0.4, 0.7, 1.0, 1.5])
def test_ctrl_c_during_start_up_is_one_line(delay):
    child = subprocess.Popen([CARDSIM, "strategies", "kamoul"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True)
    time.sleep(delay)
    child.send_signal(signal.SIGINT)
    err = child.communicate(timeout=60)[1]
    assert "Traceback" not in err and len(err.strip().splitlines()) <= 1, err
    assert (child.returncode, err.strip()) in ((130, "aborted"), (0, "")), (child.returncode, err)


def test_a_memory_limit_at_start_up_is_one_line_exit_1():
    """450 MB of address space is too little to load numba's LLVM (measured: 350-700 MB fail in the imports;
    lower, polars' own allocator aborts the process, which no Python code can catch)."""
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (450 * 2**20, 450 * 2**20))

    child = subprocess.run([CARDSIM, "strategies", "kamoul"], capture_output=True, text=True, preexec_fn=limit,
                           timeout=120)
    assert child.returncode == 1 and "Traceback" not in child.stderr, child.stderr
    assert len(child.stderr.strip().splitlines()) == 1 and child.stderr.startswith("Error: cardsim could not start")
