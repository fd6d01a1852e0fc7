"""The language cardsim speaks to its users: English or French, for the verdicts, the reports and the CLI's
summaries. The game's own words (KAMOUL, CONTRE, rami sec, tierce franche) stay French in both.

The language is a context variable: :func:`language` sets it for a block (``with language("fr"): ...``), the CLI
sets it from ``--lang``; by default it comes from ``CARDSIM_LANG``, else the locale (``LC_ALL``, ``LC_MESSAGES``,
``LANG``), else English.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from contextvars import ContextVar

LANGUAGES = ("en", "fr")
_chosen: ContextVar[str | None] = ContextVar("cardsim_language", default=None)


def default_language() -> str:
    """``CARDSIM_LANG`` when it names a language cardsim speaks, else the locale's language, else English."""
    chosen = os.environ.get("CARDSIM_LANG", "").strip().lower()[:2]
    if chosen in LANGUAGES:
        return chosen
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(name, "")
        if value:
            return "fr" if value.lower().startswith("fr") else "en"
    return "en"


def current_language() -> str:
    """The language of what cardsim writes now."""
    return _chosen.get() or default_language()


@contextmanager
def language(lang: str | None):
    """Speak ``lang`` (``"en"``, ``"fr"``; ``None``: the default) inside the block."""
    if lang is not None and lang not in LANGUAGES:
        raise ValueError(f"language {lang!r} is not one of {LANGUAGES}")
    token = _chosen.set(lang)
    try:
        yield
    finally:
        _chosen.reset(token)
