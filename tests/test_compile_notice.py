"""The first run on a machine says that it compiles, at once, and `cardsim warm` compiles ahead: with an empty
cache directory the compile notice is the first line on stderr (before any compiling), `--quiet` silences it,
and after `cardsim warm` the same command prints no notice (its kernels load from the cache)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from simulator.core.kernels.compiling import compile_notice, needs_compile

CARDSIM = shutil.which("cardsim") or str(Path(sys.executable).with_name("cardsim"))


def test_the_notice_is_the_first_line_and_comes_before_the_compile(tmp_path):
    env = {**os.environ, "CARDSIM_CACHE_DIR": str(tmp_path / "empty-cache")}
    begin = time.perf_counter()
    child = subprocess.Popen([CARDSIM, "simulate", "kamoul", "-n", "1000", "--out", str(tmp_path / "r")],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    try:
        first = child.stderr.readline()
        seconds = time.perf_counter() - begin
    finally:
        child.kill()
        child.wait()
    assert first.startswith("compiling the Kamoul kernels (first run on this machine, about "), first
    # measured 0.56 s on a quiet machine (the start-up imports); the compile itself takes a minute. The bound
    # leaves room for a loaded CI machine running two test workers.
    assert seconds < 5, seconds


def test_quiet_silences_the_notice(tmp_path):
    env = {**os.environ, "CARDSIM_CACHE_DIR": str(tmp_path / "empty-cache")}
    child = subprocess.Popen([CARDSIM, "simulate", "kamoul", "-n", "1000", "--quiet", "--out", str(tmp_path / "r")],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    time.sleep(8)
    child.kill()
    assert child.communicate()[1] == ""


def test_a_cached_kernel_gives_no_notice(tmp_path, capsys):
    """Once warmed (scripts/dev.py warms the suite's cache before the tests), warm only loads and says it is
    ready, and a run prints no notice."""
    from test_cli import run_cli

    assert run_cli(capsys, "warm", "rami")[0] == 0  # compiles only if the cache is cold
    code, out, err = run_cli(capsys, "warm", "rami")
    assert code == 0 and out.startswith("ready: rami (") and "compiling" not in err, err
    code, out, err = run_cli(capsys, "simulate", "rami", "-n", "20", "--out", str(tmp_path / "r"))
    assert code == 0 and "compiling" not in err, err
    code, out, err = run_cli(capsys, "warm", "chess")
    assert code == 2 and err.startswith("Error: ") and "chess" in err


def test_needs_compile_reads_the_cache_index(tmp_path, capsys, monkeypatch):
    import numba

    from simulator.core.kernels import jit
    from simulator.core.kernels.compiling import NOTICES

    monkeypatch.setitem(NOTICES, "enabled", True)
    monkeypatch.setenv("CARDSIM_CACHE_DIR", str(tmp_path / "cache"))  # its own compile-seconds.json
    numba.config.CACHE_DIR = str(tmp_path)

    @numba.njit(cache=True)
    def twice(x):
        return 2 * x

    assert needs_compile(twice)
    with compile_notice(twice, "Test", 1):
        twice(3)
    err = capsys.readouterr().err
    assert err.splitlines()[0] == "compiling the Test kernels (first run on this machine, about 1 s)…" and err.splitlines()[1].startswith(
        "compiled in ")
    assert not needs_compile(twice)  # compiled in this process and saved to its cache
    monkeypatch.undo()
    numba.config.CACHE_DIR = str(jit.cache_root())


def test_the_estimate_is_what_the_last_compile_took_on_this_machine(tmp_path, capsys, monkeypatch):
    """The first notice on a machine says the reference machine's time; each compile keeps its own time beside the
    cache (compile-seconds.json), and the next notice of the same kernels says that instead."""
    import time as clock

    import numba

    from simulator.core.kernels import compiling, jit

    monkeypatch.setitem(compiling.NOTICES, "enabled", True)
    monkeypatch.setenv("CARDSIM_CACHE_DIR", str(tmp_path / "cache"))
    previous, numba.config.CACHE_DIR = numba.config.CACHE_DIR, str(tmp_path / "numba")
    try:
        assert compiling.estimate("Test", 40) == 40 and compiling.last_seconds("Test") is None

        def slow(x, seconds):
            clock.sleep(seconds)
            return x

        # a first call under MIN_COMPILE_SECONDS loaded what another process compiled meanwhile: not kept (it made
        # a notice say "about 0 s"); a longer one is the next notice's estimate
        for expected, seconds in ((40, 0.1), (40, 2.2), (2, 0.1)):
            fresh = numba.njit(cache=False)(lambda x: x + 1)  # never compiled: the notice is said
            with compiling.compile_notice(fresh, "Test", 40):
                slow(fresh(1), seconds)
            assert capsys.readouterr().err.splitlines()[0] == (
                f"compiling the Test kernels (first run on this machine, about {expected} s)…")
        code = compiling.code_of(fresh)  # the digest of this file's code: the times are kept by code
        assert code and 2.2 <= compiling.last_seconds("Test", code) < 4
        assert (jit.cache_root() / compiling.TIMES_FILE).is_file()
        assert compiling.last_seconds("Other", code) is None  # by label
        # after an upgrade or an edit (other code), the time measured for the old code is not said: it was 169 s
        # for a 65 s compile the day the Kamoul kernels got faster to compile
        assert compiling.estimate("Test", 40, "other code") == 40
        compiling.remember_seconds("Test", 169, "old code")
        assert compiling.estimate("Test", 40, code) == 40 and compiling.estimate("Test", 40, "old code") == 169
    finally:
        numba.config.CACHE_DIR = previous


def test_makespan_places_the_longest_first_on_the_first_free_core():
    from simulator.core.kernels.compile_apart import makespan

    assert makespan([62, 68], 2) == 68
    assert makespan([62, 68, 75, 55], 2) == 130  # 75 + 55 | 68 + 62
    assert makespan([10, 10, 10], 1) == 30


def test_families_not_compiled_are_compiled_side_by_side_with_one_notice(capsys, monkeypatch):
    """Two families to compile on two cores: one child process each, at the same time, one notice whose estimate
    is the longer of the two; a child that fails is left to the caller's own first call."""
    import time as clock

    from simulator.core.kernels import compile_apart as apart
    from simulator.core.kernels.compiling import NOTICES, KernelFamily

    monkeypatch.setitem(NOTICES, "enabled", True)
    monkeypatch.setattr(apart, "cores", lambda: 2)
    monkeypatch.setattr(apart, "_CHILD", "import sys, time\ntime.sleep(1.5)\nsys.exit(3 if sys.argv[2] == 'bad' else 0)")

    def family(name, seconds):
        return KernelFamily("g", name, name.title(), kernel=lambda: object(), seconds=lambda: seconds, compile=None)

    good, bad = family("good", 40), family("bad", 70)
    began = clock.perf_counter()
    done = apart.compile_apart([good, bad])
    took = clock.perf_counter() - began
    assert done == [good]  # in the order started: the longest first
    assert took < 2.9, took  # side by side: 1.5 s each, not 3 s one after the other
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "compiling the Good and Bad kernels, 2 at once (first run on this machine, about 70 s)…"
    assert lines[1].startswith("compiled in ") and len(lines) == 2
    # one family, or one core: nothing here (the first call compiles it, with its own notice)
    assert apart.compile_apart([good]) == []
    monkeypatch.setattr(apart, "cores", lambda: 1)
    assert apart.compile_apart([good, bad]) == []
    assert capsys.readouterr().err == ""


def test_warm_of_cached_families_starts_no_process(capsys, monkeypatch):
    """With the kernels in the cache (the suite's warm-up), warm loads them in this process: no child, no notice."""
    import subprocess as sp

    import cardsim as api

    def refuse(*args, **kwargs):
        raise AssertionError("a compile process was started for cached kernels")

    monkeypatch.setattr(sp, "Popen", refuse)
    assert api.warm(["kamoul"]) == ["kamoul", "kamoul rollouts"]
    assert "compiling" not in capsys.readouterr().err
