"""Where a command may write: the one check every command that writes makes on its output path, before anything
is written.

A cardsim dataset (a run: ``_manifest.json``; a tournament or sweep: ``_batch.json``; a study: ``_study.json``)
owns everything below its directory: its table folders, part files, quarantine and manifests. An output that
landed in there (``cardsim report k --out k/_manifest.json``, ``simulate --out k/hands/sub``) would overwrite a
file the dataset lists or add one it does not, and leave it unsound. So:

* a directory output (``simulate``, ``tournament``, ``sweep``, ``study``, ``new-strategy --out``) may be a dataset
  itself (the same command resumes it: the command's own check decides) but never lie inside one;
* a file output (``report --out``, ``--pdf``) never lies inside a dataset's sub-directories (table folders,
  cells, parts, quarantine); directly in a dataset's own directory it may only take a name the dataset does not
  use for its data (``report.html`` rebuilds a study's own report), never a ``.parquet``, ``.json`` or
  ``_``/``.`` name, nor the summary and answer files cardsim writes there;
* an empty name is refused (it would mean the current directory).
"""

from __future__ import annotations

from pathlib import Path

from simulator.core.errors import SpecError

MARKERS = {"_manifest.json": "run", "_batch.json": "tournament or sweep", "_study.json": "study",
           "_study.backup.json": "study", "_tune.json": "tuning", "_grow.json": "growth"}
DATA_SUFFIXES = (".parquet", ".json", ".sqlite3", ".toml")
OWN_FILES = ("answer.md", "summary.md", "summary.png")  # what cardsim writes beside a dataset's data (and
# report.html, but rebuilding that is the point)


def dataset_kind(path: Path) -> str | None:
    """The kind of cardsim dataset whose directory ``path`` is (``run``, ``tournament or sweep``, ``study``), or
    ``None``."""
    for marker, kind in MARKERS.items():
        try:
            if (path / marker).is_file():
                return kind
        except OSError:
            return None
    return None


def enclosing_datasets(path: Path) -> list[tuple[Path, str]]:
    """Every dataset directory strictly above ``path`` (symlinks resolved) with its kind, the nearest first (a
    study's runs and batches are datasets inside a dataset)."""
    resolved = path.resolve(strict=False)
    return [(parent, kind) for parent in resolved.parents if (kind := dataset_kind(parent)) is not None]


NAME_MAX, PATH_MAX = 255, 4096  # bytes of one path component and of a whole path (Linux, macOS: 1024)


def _empty(path, field: str, what: str) -> None:
    if path is None or str(path) == "":
        raise SpecError(field, "", what, "is empty (it would write into the current directory)")
    check_name(path, field)


def check_name(path, field: str) -> None:
    """A path cardsim can write and record: UTF-8 encodable (its manifests are UTF-8 JSON), each component at most
    :data:`NAME_MAX` bytes, the whole at most :data:`PATH_MAX`; checked before anything (a parent included) is
    created."""
    text = str(path)
    try:
        encoded = text.encode("utf-8")
    except UnicodeEncodeError:
        shown = text.encode("utf-8", "backslashreplace").decode("ascii", "backslashreplace")
        raise SpecError(field, shown, "a path whose every name is valid UTF-8 text",
                        "holds bytes that are not UTF-8") from None
    longest = max((len(part.encode("utf-8")) for part in Path(text).parts), default=0)
    if longest > NAME_MAX:
        raise SpecError(field, text[:60] + "…", f"a path whose every name is at most {NAME_MAX} bytes",
                        f"has a name of {longest} bytes")
    full = len(str(Path(text).resolve(strict=False)).encode("utf-8"))
    if full > PATH_MAX:
        raise SpecError(field, text[:60] + "…", f"a path of at most {PATH_MAX} bytes", f"is {full} bytes long")


def check_output_dir(path, field: str = "--out") -> Path:
    """``path`` as the directory a command writes its dataset (or files) into; :class:`SpecError` (nothing
    written) when it is empty or lies inside another cardsim dataset."""
    _empty(path, field, "a directory outside every cardsim run, batch and study")
    path = Path(path)
    inside = enclosing_datasets(path)
    if inside:
        root, kind = inside[-1]
        raise SpecError(field, str(path), "a directory outside every cardsim run, batch and study",
                        f"is inside the {kind} at {root}: writing there would damage it")
    return path


def check_output_file(path, field: str = "--out") -> Path:
    """``path`` as a file a command writes (a report, a PDF); :class:`SpecError` (nothing written) when it is empty
    or would land inside a dataset (see the module doc)."""
    allowed = ("a file outside every cardsim run, batch and study (or directly in its folder, a new name such as "
               "report.html)")
    _empty(path, field, allowed)
    path = Path(path)
    inside = enclosing_datasets(path)
    if not inside:
        return path
    root, kind = inside[-1]  # the outermost: a file beside a study's own batch is still inside the study
    own_folder = len(inside) == 1 and path.resolve(strict=False).parent == root
    if own_folder and not path.name.startswith(("_", ".")) and not path.name.endswith(DATA_SUFFIXES) and \
            path.name not in OWN_FILES:
        return path
    raise SpecError(field, str(path), allowed, f"is inside the {kind} at {root}: writing there would damage it")
