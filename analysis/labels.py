"""Short names for the strategies a person reads: in verdicts, tables and charts, a strategy's whole text
(``call-table:unknown_value=13.874798239277984,max_unknown_at_call=0,…``) wraps a table's cells to a few letters.

* Study 1's derived policy (a ``call-table`` text) is named by its rule: ``call rule ≤4`` (``, 1 unseen ≤1`` when it
  calls with unseen cards too).
* A name or text of at most :data:`MAX_LABEL` characters is shown as it is (the presets, ``tuned-4p``).
* A longer text gets a stable short label, its head and four hex digits of its SHA-1 (``tuned-4p:call_t…~3fa2``),
  the same in every report; :func:`legend` lists each short label with its whole text once, for a folded table.

The frames keep the whole texts (they are data); only what is shown is shortened.
"""

from __future__ import annotations

import hashlib
from pathlib import PurePath
import polars as pl

MAX_LABEL = 24
CALL_TABLE = "call-table"
LIMIT_PREFIX = "call_known_"


def _call_rule(params: str) -> str | None:
    """``call rule ≤4[, 1 unseen ≤1]`` from a call-table text's parameters (``None`` when it sets no limit)."""
    limits = {}
    for pair in params.split(","):
        key, _, value = pair.partition("=")
        if key.startswith(LIMIT_PREFIX) and key[len(LIMIT_PREFIX):].isdigit():
            try:
                limits[int(key[len(LIMIT_PREFIX):])] = int(float(value))
            except ValueError:
                return None
    if not limits:
        return None
    seen = limits.get(0, -1)
    parts = [f"call rule ≤{seen}" if seen >= 0 else "call rule: never"]
    parts += [f"{u} unseen ≤{t}" for u, t in sorted(limits.items()) if u > 0 and t >= 0]
    return ", ".join(parts)


def short_label(text: str) -> str:
    """What a person reads for the strategy text ``text`` (see the module's description)."""
    text = str(text)
    head, _, params = text.partition(":")
    if head.endswith((".py", ".toml")):  # a user's file: named by its strategy (a preset: its file's) name
        if head.endswith(".py"):
            name, _, params = params.partition(":")
            head = name or PurePath(head).stem
        else:
            head = PurePath(head).stem
        text = head + (f":{params}" if params else "")
    if head == CALL_TABLE and params:
        rule = _call_rule(params)
        if rule is not None:
            return rule
    if len(text) <= MAX_LABEL:
        return text
    digest = hashlib.sha1(text.encode("utf-8")).hexdigest()[:4]
    return text[:MAX_LABEL - 6] + "…~" + digest


def short_labels(texts) -> dict[str, str]:
    """``{text: short label}`` for ``texts``, each label unique among them (two texts that shorten alike are told
    apart by their digest)."""
    labels = {t: short_label(t) for t in dict.fromkeys(map(str, texts))}
    taken: dict[str, int] = {}
    for label in labels.values():
        taken[label] = taken.get(label, 0) + 1
    for text, label in labels.items():
        if taken[label] > 1:
            labels[text] = f"{label} ~{hashlib.sha1(text.encode('utf-8')).hexdigest()[:4]}"
    return labels


def legend(labels: dict[str, str]) -> list[list[str]]:
    """The rows ``[short label, whole text]`` of the labels that shorten a text, for a folded legend."""
    return [[short, text] for text, short in labels.items() if short != text]


def relabelled(frame, labels: dict[str, str], columns=("strategy", "opponent", "best_reply")):
    """``frame`` (polars) with each of ``columns`` it has shown by its short label (texts not in ``labels`` stay)."""
    return frame.with_columns(pl.col(c).replace(labels) for c in columns if c in frame.columns)


def shown(frames: dict, inputs: dict, names: dict | None = None) -> tuple[dict, dict, dict]:
    """A tournament's ``frames`` and ``inputs`` as a person reads them: every strategy by its short label (or by
    ``names``, a study's names for what it played); returns ``(frames, inputs, labels)``."""
    labels = short_labels(inputs["strategies"]) | (names or {})
    frames = {name: relabelled(frame, labels) for name, frame in frames.items()}
    return frames, {**inputs, "strategies": [labels.get(s, s) for s in inputs["strategies"]]}, labels
