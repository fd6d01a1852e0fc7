"""A working directory a long command owns: a tuning's, a growth's. It is refused before anything is written when
it holds something else, locked while the command runs, and opens with the command's sealed inputs file, so the
same command resumes it and another is refused."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

from simulator.core.storage.dirlock import DirLock
from simulator.core.storage.sealed import sealed
from simulator.core.storage.store import check_own_directory, write_json_atomic


def check_workdir(out: str | Path, meta: str, inputs: dict, what: str, allowed: str) -> None:
    """Refuse (:class:`~simulator.core.errors.SpecError` on ``--out``, nothing written) a directory that cannot
    hold the ``what`` whose sealed inputs file is ``meta`` with content ``inputs``."""
    check_own_directory(Path(out), meta, inputs, what, allowed)


@contextmanager
def owned_workdir(out: str | Path, meta: str, inputs: dict, what: str, allowed: str):
    """The directory ``out``, checked (:func:`check_workdir`), made, locked (checked again under the lock: another
    process may have written it meanwhile) and holding ``meta``, the sealed ``inputs``, written once; yields its
    ``Path`` and releases the lock on leaving."""
    path = Path(out)
    check_workdir(path, meta, inputs, what, allowed)
    path.mkdir(parents=True, exist_ok=True)
    with DirLock(path, "--out"):
        check_workdir(path, meta, inputs, what, allowed)
        if not (path / meta).exists():
            write_json_atomic(path / meta, sealed(inputs))
        yield path
