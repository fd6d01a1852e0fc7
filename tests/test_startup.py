"""Start-up is as quiet as the rest: Ctrl-C at any moment of a command's imports is one line and exit 130 (or the
command finishes), and a memory limit that breaks the imports is one line and exit 1, never a traceback
(simulator/launch.py). The interpreter's own first ~50 ms (site.py, before any program code runs) are out of
any program's reach and are not tested."""

from __future__ import annotations

import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CARDSIM = shutil.which("cardsim") or str(Path(sys.executable).with_name("cardsim"))


def _loading_libraries(pid: int) -> bool:
    """The child is past the interpreter's own start (site.py: no program can catch a Ctrl-C there) and inside
    cardsim's imports: numpy's extension is mapped."""
    try:
        return "numpy" in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


@pytest.mark.parametrize("delay", [0.0, 0.1, 0.3, 0.6, 1.0])
def test_ctrl_c_during_start_up_is_one_line(delay):
    child = subprocess.Popen([CARDSIM, "strategies", "kamoul"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True)
    deadline = time.monotonic() + 30
    while not _loading_libraries(child.pid) and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    time.sleep(delay)
    child.send_signal(signal.SIGINT)
    err = child.communicate(timeout=60)[1]
    assert "Traceback" not in err and len(err.strip().splitlines()) <= 1, err
    # aborted (130), or it had finished: exit 0, or the signal landed in the interpreter's shutdown, which
    # then ends by the signal (-SIGINT) without a word
    ended = (child.returncode, err.strip())
    assert ended in ((130, "aborted"), (0, ""), (-signal.SIGINT, "")), ended


def test_a_memory_limit_at_start_up_is_one_line_exit_1():
    """450 MB of address space is too little to load numba's LLVM (measured: 350-700 MB fail in the imports;
    lower, polars' own allocator aborts the process, which no Python code can catch): the launcher says so before
    importing anything (the floor, 1.8 GB, is measured: simulator.launch.ADDRESS_SPACE_FLOOR)."""
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (450 * 2**20, 450 * 2**20))

    child = subprocess.run([CARDSIM, "strategies", "kamoul"], capture_output=True, text=True, preexec_fn=limit,
                           timeout=120)
    assert child.returncode == 1 and "Traceback" not in child.stderr, child.stderr
    assert len(child.stderr.strip().splitlines()) == 1
    assert child.stderr.startswith("Error: the address-space limit (ulimit -v) is 460,800 KB")


def _launch_with_fake_cli(fake_dir: Path, launch: str) -> subprocess.CompletedProcess:
    """Run the launcher's code ``launch`` in a fresh interpreter whose ``cli`` module is ``fake_dir/cli.py``."""
    code = f"import sys; sys.path.insert(0, {str(fake_dir)!r}); sys.path.insert(1, {str(ROOT)!r})\n" + launch
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)


def test_a_ctrl_c_swallowed_by_an_import_callback_is_still_one_line_and_exit_130(tmp_path):
    """A Ctrl-C landing in a callback of the import machinery cannot propagate (Python prints "Exception ignored"
    with a traceback and goes on): the launcher reports it as the interruption it is. The fake ``cli`` raises it
    in a weakref callback, which is what a module lock's cleanup does."""
    (tmp_path / "cli.py").write_text(
        "import weakref\n"
        "class Held:\n    pass\n"
        "def interrupt(_):\n    raise KeyboardInterrupt\n"
        "held = Held()\nref = weakref.ref(held, interrupt)\ndel held\n"
        "def main(argv):\n    print('ran')\n    return 0\n")
    done = _launch_with_fake_cli(tmp_path, "from simulator.launch import start\nsys.exit(start([]))")
    assert (done.returncode, done.stderr.strip(), done.stdout) == (130, "aborted", "")


def test_a_ctrl_c_during_the_interpreters_shutdown_is_silent(tmp_path):
    """A Ctrl-C after the command has finished lands in the interpreter's shutdown, which waits for threads in
    ``threading._shutdown``; Python would print it as "Exception ignored" with a traceback (CI caught it at one
    timing of test_ctrl_c_during_start_up_is_one_line). The fake ``cli`` leaves a thread that sends the signal
    while the interpreter waits for it."""
    (tmp_path / "cli.py").write_text(
        "import os, signal, threading, time\n"
        "def late():\n    time.sleep(0.3)\n    os.kill(os.getpid(), signal.SIGINT)\n    time.sleep(0.3)\n"
        "def main(argv):\n    threading.Thread(target=late).start()\n    print('ran')\n    return 0\n")
    done = _launch_with_fake_cli(tmp_path, "from simulator.launch import console\nconsole()")
    assert (done.returncode, done.stderr, done.stdout) == (0, "", "ran\n")
