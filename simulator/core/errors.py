"""The one error type for bad input: a single line naming the field, the value and what is allowed."""

from __future__ import annotations


class SpecError(ValueError):
    """Bad user input. ``str(err)`` is one line: ``<field>: <value!r> is not allowed; <allowed>``."""

    def __init__(self, field: str, value, allowed: str, reason: str | None = None):
        self.field = field
        self.value = value
        self.allowed = allowed
        if value is None:
            super().__init__(f"{field}: {reason or 'is missing'}; allowed: {allowed}")
        else:
            super().__init__(f"{field}: {value!r} {reason or 'is not allowed'}; allowed: {allowed}")


class ClusterError(RuntimeError):
    """The cluster running a run failed it (the Dask scheduler went away, a chunk killed every worker
    it ran on). ``str(err)`` is one line; what was finished is on disk and the same command resumes.
    The CLI prints it and exits 3."""
