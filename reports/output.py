"""What a report reads and writes, checked before anything is drawn: a run directory (:func:`check_run`), the
page's path (:func:`check_output`), and the PDF printed by headless Chromium (:func:`print_pdf`). Every refusal is a
:class:`SpecError` naming the field, the value and what is allowed."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from simulator.core.errors import SpecError
from simulator.core.storage.spec import RunSpec
from simulator.core.storage.store import read_manifest

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync")


def check_run(run_dir: str | Path, field: str = "RUN") -> tuple[dict, RunSpec]:
    """The manifest and spec of the run at ``run_dir``; :class:`SpecError` naming ``field`` if it is not one."""
    manifest = read_manifest(run_dir, field)
    try:
        spec = RunSpec.from_dict(manifest["spec"])
    except (KeyError, TypeError, ValueError) as err:
        if isinstance(err, SpecError):
            raise
        raise SpecError(field, str(run_dir), "a cardsim run directory", f"has an unreadable spec ({err})") from None
    return manifest, spec


def check_output(path: str | Path, field: str) -> Path:
    """``path`` as a file to write: its folder must exist and be writable, and it must not be a directory."""
    path = Path(path)
    if not path.parent.is_dir():
        raise SpecError(field, str(path), "a file in an existing directory", f"is in a missing directory ({path.parent})")
    if path.is_dir():
        raise SpecError(field, str(path), "a file path", "is a directory")
    if not os.access(path.parent, os.W_OK | os.X_OK):
        raise SpecError(field, str(path), "a file in a directory you may write to", f"is in a directory that is not "
                        f"writable ({path.parent})")
    return path


def find_chromium() -> str | None:
    """Path of a Chromium (or Chrome) executable on PATH, or ``None``."""
    return next((p for p in map(shutil.which, CHROMIUM_NAMES) if p), None)


def require_chromium(pdf_path: str | Path) -> str:
    """The Chromium executable for ``--pdf``; :class:`SpecError` when there is none."""
    chromium = find_chromium()
    if chromium is None:
        raise SpecError("--pdf", str(pdf_path), "a machine with Chromium installed (apt-get install chromium)",
                        "needs Chromium, which is not installed")
    return chromium


def print_pdf(html_path: str | Path, pdf_path: str | Path, *, timeout: float = 120.0) -> Path:
    """Print the HTML file to PDF with headless Chromium (atomically); :class:`SpecError` when Chromium is
    missing or fails."""
    pdf = check_output(pdf_path, "--pdf")
    chromium = require_chromium(pdf_path)
    tmp = pdf.with_name(f".{pdf.name}.{os.getpid()}.tmp")
    with tempfile.TemporaryDirectory(prefix="cardsim-chromium-") as profile:
        cmd = [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--no-pdf-header-footer",
               f"--print-to-pdf={tmp}", Path(html_path).resolve().as_uri()]
        # Chromium also writes under $HOME (.config/chromium, crash reports) whatever --user-data-dir says: give it
        # the temporary profile as its home so that the user's is left untouched
        env = {**os.environ, "HOME": profile, "XDG_CONFIG_HOME": str(Path(profile) / "config"),
               "XDG_CACHE_HOME": str(Path(profile) / "cache")}
        try:
            done = subprocess.run(cmd, capture_output=True, timeout=timeout, check=False, env=env)
            ok = done.returncode == 0 and tmp.is_file() and tmp.stat().st_size > 0
            if not ok:
                last = (done.stderr.decode(errors="replace").strip().splitlines() or ["no output"])[-1]
                raise SpecError("--pdf", str(pdf_path), "a PDF printed by Chromium",
                                f"could not be printed (exit {done.returncode}: {last})")
            os.replace(tmp, pdf)
        except subprocess.TimeoutExpired:
            raise SpecError("--pdf", str(pdf_path), "a PDF printed by Chromium",
                            f"could not be printed (Chromium took more than {timeout:.0f} s)") from None
        finally:
            tmp.unlink(missing_ok=True)
    return pdf
