"""The error types the CLI turns into one line each.

* :class:`SpecError` — bad user input (exit 2): the field, the value and what is allowed.
* :class:`DatasetError` — a dataset on disk that cannot be trusted (a damaged, missing or foreign part, a
  broken manifest); says what and where, and what to run (``cardsim verify DIR``, or the same command to
  resume). Exit 1.
  :class:`MetadataError` is the one about a metadata file (a manifest, ``_batch.json``, ``_study.json``,
  ``_checksums.json``): unreadable, failing its own checksum, or a field of the wrong kind.
* :class:`ClusterError` — the cluster failed a run (exit 3).
* :class:`StrategyCodeError` — the code of a user's strategy file failed during a run (exit 1, the run kept);
  :class:`StrategyFileError`, the same before anything was written (exit 2).
"""

from __future__ import annotations
import difflib


LISTED = 100  # characters of allowed names listed in full; beyond, the closest ones and where to see them all


class SpecError(ValueError):
    """Bad user input. ``str(err)`` is one line: ``<field>: <value!r> is not allowed; <allowed>``.

    ``choices``: the names ``value`` should have been one of. The line then says the closest ones ("did you mean
    balanced?", by :func:`difflib.get_close_matches`), and when listing them all would pass :data:`LISTED`
    characters, only how many there are and ``see`` (the command that lists them)."""

    def __init__(self, field: str, value, allowed: str, reason: str | None = None, *, choices=None, see: str = ""):
        self.field = field
        self.value = value
        guess = ""
        if choices is not None:
            guess, allowed = closest(value, list(choices), allowed, see)
        self.allowed = allowed
        if value is None:
            super().__init__(f"{field}: {reason or 'is missing'}; allowed: {allowed}")
        else:
            super().__init__(f"{field}: {value!r} {reason or 'is not allowed'}; {guess}allowed: {allowed}")


def closest(value, choices: list[str], allowed: str, see: str = "") -> tuple[str, str]:
    """For a name among ``choices``: ``("did you mean X? ", allowed)``, the closest names (empty when none is
    close), and ``allowed`` itself when short, else how many names there are and ``see``."""
    close = difflib.get_close_matches(str(value), [str(c) for c in choices], n=3, cutoff=0.6)
    guess = f"did you mean {' or '.join(close)}? " if close else ""
    if len(allowed) <= LISTED:
        return guess, allowed
    return guess, f"{len(choices)} names" + (f", listed by `{see}`" if see else "")


class DatasetError(RuntimeError):
    """A run, batch or study directory whose data cannot be trusted as it is. ``str(err)`` is one line naming
    the directory, what is wrong and what to run. The CLI prints it and exits 1."""


class MetadataError(DatasetError):
    """A metadata file that cannot be read as it is: ``file`` (its path), ``field`` (the key at fault, dotted,
    or ``""`` for the whole file), ``reason`` and ``hint`` (what to run). One line, exit 1."""

    def __init__(self, file, field: str, reason: str, hint: str):
        self.file, self.field, self.reason, self.hint = str(file), field, reason, hint
        super().__init__(f"{file}: {self.what}; {hint}" if field else f"{file} {self.what}; {hint}")

    @property
    def what(self) -> str:
        """What is wrong, without the file: ``field F <reason>`` or the whole file's ``<reason>``."""
        return field_text(self.field, self.reason)


def field_text(field: str, reason: str) -> str:
    """``"field F <reason>"``, or ``reason`` alone when ``field`` is ``""`` (the whole file)."""
    return f"field {field} {reason}" if field else reason


class ClusterError(RuntimeError):
    """The cluster running a run failed it (the Dask scheduler went away, a chunk killed every worker
    it ran on). ``str(err)`` is one line; what was finished is on disk and the same command resumes.
    The CLI prints it and exits 3."""


class StrategyCodeError(RuntimeError):
    """The code of a user's strategy file raised, exited or ran too long while a run played it. ``str(err)`` is one
    line naming the file, the decision, the line and what happened (:mod:`simulator.core.contract.file_code`); what the run
    finished is kept. The CLI prints it and exits 1."""


class StrategyFileError(SpecError):
    """A user's strategy file failed when loaded or tried, before anything was written. ``str(err)`` is the one
    line of its :class:`StrategyCodeError`; the CLI exits 2."""

    def __init__(self, line: str, field: str = "--strategy"):
        ValueError.__init__(self, line)
        self.field, self.value, self.allowed = field, None, ""
