"""A working directory a long command owns: a tuning's, a growth's, a study's part files. It is refused before
anything is written when it holds something else, locked while the command runs, and opens with the command's sealed
inputs file, so the same command resumes it and another is refused. What the command writes there goes through its
:class:`Workdir` (atomic, recorded in the directory's ledger when it has one): analysis/ computes, this layer writes."""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from simulator.core.storage.dirlock import DirLock
from simulator.core.storage.ledger import frame_is_recorded, write_frame
from simulator.core.storage.sealed import sealed
from simulator.core.storage.store import check_own_directory, write_bytes_atomic, write_json_atomic


@dataclass(frozen=True)
class Workdir:
    """The files of one command's directory ``path``, by name (a relative path inside it)."""

    path: Path

    def __truediv__(self, name: str) -> Path:
        return self.path / name

    def write_frame(self, name: str, frame: pl.DataFrame) -> None:
        """Write ``frame`` to ``name`` atomically (in the directory's ledger, when it has one)."""
        (self.path / name).parent.mkdir(parents=True, exist_ok=True)
        write_frame(self.path / name, frame)

    def write_bytes(self, name: str, data: bytes) -> None:
        write_bytes_atomic(self.path / name, data)

    def read_frame(self, name: str) -> pl.DataFrame | None:
        """``name`` as a frame, or ``None`` when it is not written yet."""
        file = self.path / name
        return pl.read_parquet(file) if file.is_file() else None

    def is_written(self, name: str) -> bool:
        """Whether ``name`` is whole (listed by the directory's ledger with these bytes; without a ledger: it
        exists): a resume writes again what is not."""
        return frame_is_recorded(self.path / name)


def check_workdir(out: str | Path, meta: str, inputs: dict, what: str, allowed: str) -> None:
    """Refuse (:class:`~simulator.core.errors.SpecError` on ``--out``, nothing written) a directory that cannot
    hold the ``what`` whose sealed inputs file is ``meta`` with content ``inputs``."""
    check_own_directory(Path(out), meta, inputs, what, allowed)


@contextmanager
def owned_workdir(out: str | Path, meta: str, inputs: dict, what: str, allowed: str):
    """The directory ``out``, checked (:func:`check_workdir`), made, locked (checked again under the lock: another
    process may have written it meanwhile) and holding ``meta``, the sealed ``inputs``, written once; yields its
    :class:`Workdir` and releases the lock on leaving."""
    path = Path(out)
    check_workdir(path, meta, inputs, what, allowed)
    path.mkdir(parents=True, exist_ok=True)
    with DirLock(path, "--out"):
        check_workdir(path, meta, inputs, what, allowed)
        if not (path / meta).exists():
            write_json_atomic(path / meta, sealed(inputs))
        yield Workdir(path)
