"""The language cardsim speaks to its users: English or French, for the verdicts, the reports and the CLI's
summaries. The game's own words (KAMOUL, CONTRE, rami sec, tierce franche) stay French in both.

The language is a context variable: :func:`language` sets it for a block (``with language("fr"): ...``), the CLI
sets it from ``--lang``; by default it comes from ``CARDSIM_LANG``, else the locale (``LC_ALL``, ``LC_MESSAGES``,
``LANG``), else English.

Messages are marked with :func:`_` (``_("won {share} of {level}").format(...)``: the placeholders are named so
that a translation may reorder them) and translated by gettext from the catalog ``locale/<lang>.po`` beside this
module, read with babel (no compiled ``.mo`` file to keep in step). Numbers are written by :func:`number` and
:func:`percent` as the language writes them (babel): ``0.52`` and ``52.3%`` in English, ``0,52`` and ``52,3 %``
in French.
"""

from __future__ import annotations

import functools
import gettext
import io
import math
import os
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

CATALOGS = Path(__file__).with_name("locale")

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


def set_language(lang: str | None):
    """Speak ``lang`` from now on in this context (the CLI's ``--lang``); returns the token that undoes it."""
    if lang is not None and lang not in LANGUAGES:
        raise ValueError(f"language {lang!r} is not one of {LANGUAGES}")
    return _chosen.set(lang)


def reset_language(token) -> None:
    _chosen.reset(token)


@functools.cache
def translations(lang: str) -> gettext.NullTranslations:
    """The gettext translations of ``lang`` (English: the messages as written)."""
    if lang == "en":
        return gettext.NullTranslations()
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with open(CATALOGS / f"{lang}.po", "rb") as po:
        catalog = read_po(po, locale=lang)
    compiled = io.BytesIO()
    write_mo(compiled, catalog)
    compiled.seek(0)
    return gettext.GNUTranslations(compiled)


def _(message: str) -> str:
    """``message`` in the current language."""
    return translations(current_language()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """``singular`` or ``plural`` by ``n``, in the current language."""
    return translations(current_language()).ngettext(singular, plural, n)


def N_(message: str) -> str:
    """Mark ``message`` for translation where it is defined; :func:`_` translates it where it is shown."""
    return message


#: the games' level and side names, shown inside sentences (``_(level)``); marked here so that the catalog holds them
GAME_WORDS = (N_("hands"), N_("hand"), N_("manches"), N_("manche"), N_("parties"), N_("partie"), N_("tops"), N_("top"),
              N_("rounds"), N_("round"), N_("games"), N_("game"), N_("seat"), N_("seats"), N_("team"), N_("teams"),
              N_("turns"), N_("ticks"), N_("deals"), N_("cells"), N_("parts"), N_("trials"))


def _missing(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def number(x, digits: int = 2, signed: bool = False) -> str:
    """``x`` with ``digits`` decimals and the language's separators (a sign when ``signed``); ``–`` if missing."""
    if _missing(x):
        return "–"
    from babel.numbers import format_decimal

    pattern = "#,##0" + ("." + "0" * digits if digits else "")
    if signed:
        pattern = f"+{pattern};-{pattern}"
    return format_decimal(x, pattern, locale=current_language())


def significant_figures(x, digits: int = 2) -> str:
    """``x`` to ``digits`` significant digits (``0.017``, ``1.2e-05``), with the language's decimal mark."""
    if _missing(x):
        return "–"
    text = f"{float(x):.{digits}g}"
    return text.replace(".", ",") if current_language() == "fr" else text


def percent(x, digits: int = 1, signed: bool = False) -> str:
    """A share as a percentage: ``52.3%`` / ``52,3 %``; ``–`` if missing."""
    if _missing(x):
        return "–"
    return number(100 * float(x), digits, signed) + ("\u202f%" if current_language() == "fr" else "%")


def share_interval(rate, low, high, digits: int = 1) -> str:
    """A share with its 95% interval, in points of percentage: ``52.3% [51.0, 53.6]`` / ``52,3 % [51,0 ; 53,6]``."""
    return f"{percent(rate, digits)} {bounds(number(100 * low, digits), number(100 * high, digits))}"


def bounds(low: str, high: str) -> str:
    """An interval from its written bounds: ``[1.20, 1.45]`` / ``[1,20 ; 1,45]``."""
    return f"[{low} ; {high}]" if current_language() == "fr" else f"[{low}, {high}]"


def spoken_list(items) -> str:
    """``items`` as a sentence lists them: ``2, 3 and 4`` / ``2, 3 et 4`` (babel)."""
    from babel.lists import format_list

    items = [str(i) for i in items]
    return format_list(items, locale=current_language()) if items else ""
