"""Metadata files that carry their own checksum: a run's ``_manifest.json``, a batch's ``_batch.json``, a study's
``_study.json`` and the ``_checksums.json`` ledger of a batch or study.

A sealed document is a JSON object with one more key, ``"checksum": "sha256:<hex>"``, the sha256 of the
document's canonical form without that key (sorted keys, no spaces, UTF-8). A byte that changes on disk either
breaks the JSON, changes what it says (the checksum no longer matches) or changes nothing a reader sees
(white space, an escape spelled otherwise): never a silent change. A document without the key and without a
top-level value that looks like a seal (``"sha256:…"``) was written before seals existed and is read as it is;
one with such a value under another key had its key changed, and is damaged (a byte cannot change both).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

SEAL = "checksum"
SEAL_PREFIX = "sha256:"
DAMAGED = "is damaged (its checksum does not match its contents)"


def _digest(data: dict) -> str:
    body = {k: v for k, v in data.items() if k != SEAL}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=True)
    return SEAL_PREFIX + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def sealed(data: dict) -> dict:
    """``data`` with its ``checksum`` key (any previous one replaced), ready to be written as JSON."""
    return {**{k: v for k, v in data.items() if k != SEAL}, SEAL: _digest(data)}


def seal_problem(data) -> str | None:
    """``None`` when ``data`` (a parsed document) is intact or carries no seal; otherwise what is wrong."""
    if not isinstance(data, dict):
        return "is not a JSON object"
    if SEAL not in data:
        if any(isinstance(v, str) and v.startswith(SEAL_PREFIX) for v in data.values()):
            return DAMAGED
        return None
    if data[SEAL] != _digest(data):
        return DAMAGED
    return None


def unsealed(data: dict) -> dict:
    """``data`` without its ``checksum`` key: what the document says."""
    return {k: v for k, v in data.items() if k != SEAL}


def read_sealed(file: str | Path) -> tuple[dict | None, str | None]:
    """Read one sealed document: ``(what it says, None)``, or ``(None, why it cannot be trusted)`` (unreadable,
    not a JSON object, or failing its seal); a missing file is unreadable too."""
    try:
        data = json.loads(Path(file).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as err:
        return None, f"is unreadable ({err})"
    problem = seal_problem(data)
    return (None, problem) if problem else (unsealed(data), None)
