#!/usr/bin/env python3
"""The French catalog of cardsim's messages (``simulator/core/locale/fr.po``), kept in step with the code.

    python3 scripts/catalog.py update   # extract every _()/N_()/ngettext() message of the code and the report
                                        # templates, add the new ones to fr.po (empty), drop the gone ones
    python3 scripts/catalog.py check    # list the messages fr.po does not translate (exit 1 if any)

Extraction is babel's (its Python extractor and Jinja2's own ``babel_extract``); ``tests/test_i18n.py`` runs the
same check, so a message added without its translation fails the tests.
"""

from __future__ import annotations

import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1]
CATALOG = ROOT / "simulator" / "core" / "locale" / "fr.po"
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2)}
METHODS = [("**/templates/**.j2", "jinja2.ext:babel_extract"), ("**.py", "python")]
SOURCES = ("simulator", "analysis", "reports", "strategies")


def extract() -> Catalog:
    """Every message of the code (``cli.py`` and the packages) and of the report templates."""
    catalog = Catalog(project="cardsim", locale="en")
    found = [(name, *message) for name in SOURCES for message in
             extract_from_dir(ROOT / name, METHODS, keywords=KEYWORDS, options_map={"**/templates/**.j2": {
                 "extensions": "jinja2.ext.i18n", "trimmed": "false"}})]
    with open(ROOT / "cli.py", "rb") as source:
        from babel.messages.extract import extract as extract_file

        found += [("", "cli.py", lineno, message, comments, context)
                  for lineno, message, comments, context in extract_file("python", source, keywords=KEYWORDS)]
    for folder, filename, lineno, message, comments, context in found:
        catalog.add(message, locations=[(f"{folder}/{filename}".lstrip("/"), lineno)], auto_comments=comments,
                    context=context)
    return catalog


def read(path: Path = CATALOG) -> Catalog:
    with open(path, "rb") as po:
        return read_po(po, locale="fr")


def missing(catalog: Catalog | None = None) -> list[str]:
    """The messages of the code that the French catalog leaves untranslated (or marks fuzzy)."""
    french = read() if CATALOG.exists() else Catalog(locale="fr")
    out = []
    for message in (catalog or extract()):
        if not message.id:
            continue
        known = french.get(message.id)
        if known is None or known.fuzzy or not (known.string if isinstance(known.string, str) else all(known.string)):
            out.append(message.id if isinstance(message.id, str) else message.id[0])
    return out


def update() -> None:
    """Add the code's new messages to fr.po (untranslated) and drop those the code no longer has."""
    template = extract()
    french = read() if CATALOG.exists() else Catalog(locale="fr", project="cardsim")
    french.update(template, no_fuzzy_matching=True)
    french.obsolete.clear()
    with open(CATALOG, "wb") as po:
        write_po(po, french, width=120, omit_header=False, sort_output=False)


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "check"
    if what == "update":
        update()
        print(f"{CATALOG}: {len(missing())} message(s) to translate")
    else:
        gaps = missing()
        print("\n".join(gaps) or "every message is translated")
        sys.exit(1 if gaps else 0)
