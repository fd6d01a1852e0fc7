"""``cardsim verify DIR [--repair]``: is a run, batch or study directory what its manifests say?

For a run, every part the manifest lists must be on disk with the size and sha256 the manifest recorded,
and the table folders must hold nothing else: each finding is ``missing``, ``damaged``, ``foreign`` (not a
part of this run: another run's part under a listed name, any other file), ``unlisted`` (a whole part of
this run the manifest does not list yet: a kill came before the manifest caught up) or ``stray`` (a part
of a chunk not every table finished), plus ``manifest`` when ``_manifest.json`` is missing or unreadable. A
batch is checked cell by cell (and ``cells/`` must hold only its cells), a study run by run and batch by
batch through its sub-directories. The dataset is *sound* when nothing is found; it may still be
incomplete (an interrupted run), which the same command that wrote it resumes.

``repair=True`` (holding each run's lock) moves damaged and foreign files to ``_quarantine/``, removes
strays, adopts unlisted whole parts and drops what is missing from the manifest, so that re-running the
command plays exactly what is gone; a missing or unreadable manifest is rebuilt from the parts' own
key-value metadata (``cardsim.spec``, ``cardsim.table``, ``cardsim.chunk``): the run then resumes and
reports as before. Verification reads everything and writes nothing; repair writes only what it says.
"""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from pathlib import Path

from simulator.core.errors import DatasetError, MetadataError, SpecError, field_text
from simulator.core.run.batch import load_batch
from simulator.core.run.plan import STUDY_BACKUP, repair_study_file, study_file_problem
from simulator.core.run.plan import STUDY_FILE as STUDY_NAME
from simulator.core.storage.dirlock import DirLock
from simulator.core.storage.ledger import LEDGER_NAME, ledger_problem, read_ledger, salvage_ledger, write_ledger
from simulator.core.storage.spec import RunSpec
from simulator.core.storage.store import (
    FORMAT, Finding, MANIFEST_NAME, QUARANTINE_NAME, RunStore, SYMLINK_DETAIL, TMP_NAME, _part_meta, apply_inspection,
    inspect_run, load_manifest_file, manifest_chunks, parse_part_name, part_problem, quarantine,
)

BATCH_NAME, CELLS = "_batch.json", "cells"
DIR_ALLOWED = "a run, tournament, sweep or study directory (holding _manifest.json, _batch.json or _study.json)"
MAX_DEPTH = 4  # how deep a study's sub-directories are searched for runs and batches


def kind_of(path: Path) -> str | None:
    """``run``, ``batch`` or ``study`` by the file ``path`` holds; ``None`` when it holds none of them. A
    directory whose ``_batch.json`` a repair set aside (it is in ``_quarantine/``) is still a batch, one with only
    the twin ``_study.backup.json`` still a study."""
    for name, kind in ((STUDY_NAME, "study"), (STUDY_BACKUP, "study"), (BATCH_NAME, "batch"), (MANIFEST_NAME, "run")):
        if (path / name).is_file():
            return kind
    if (path / QUARANTINE_NAME / BATCH_NAME).exists():
        return "batch"
    return None


def _has_parts(path: Path) -> bool:
    return any(parse_part_name(f.name) for d in _table_dirs(path) for f in d.iterdir())


def _table_dirs(path: Path) -> list[Path]:
    """The sub-directories of ``path`` verify looks into; a symbolic link is never one (it is not followed)."""
    return [d for d in sorted(path.iterdir()) if d.is_dir() and not d.is_symlink() and not d.name.startswith((".", "_"))]


def verify(path: str | Path, repair: bool = False) -> dict:
    """Verify (and with ``repair`` repair) the directory ``path``; see the module doc. Returns ``{"path",
    "kind", "sound", "complete", "runs", "parts", "problems": [{"problem", "path", "detail"}], "repairs":
    [str]}`` with paths relative to ``path``. :class:`SpecError` when ``path`` is none of these directories."""
    path = Path(path)
    if not path.is_dir():
        raise SpecError("DIR", str(path), DIR_ALLOWED, "is not a directory")
    kind = kind_of(path)
    if kind is None and _has_parts(path):
        kind = "run"  # a run whose manifest is gone: the parts say what it was
    if kind is None:
        raise SpecError("DIR", str(path), DIR_ALLOWED, "is none of them")
    totals = {"runs": 0, "parts": 0, "complete": True, "problems": [], "repairs": []}
    {"run": _verify_run, "batch": _verify_batch, "study": _verify_study}[kind](path, "", repair, totals)
    return {"path": str(path), "kind": kind, "sound": not totals["problems"], **totals}


def _add(totals: dict, prefix: str, findings: list[Finding]) -> None:
    totals["problems"] += [{"problem": f.problem, "path": prefix + f.path, "detail": f.detail} for f in findings]


def _verify_run(path: Path, prefix: str, repair: bool, totals: dict) -> None:
    totals["runs"] += 1
    try:
        manifest = load_manifest_file(path / MANIFEST_NAME, "DIR") if (path / MANIFEST_NAME).exists() else None
        why = "is missing" if manifest is None else None
    except MetadataError as err:
        manifest, why = None, err.what
    if manifest is None:
        if not repair:
            _add(totals, prefix, [Finding("manifest", MANIFEST_NAME, f"{why}; `cardsim verify --repair` rebuilds it "
                                          "from the parts' metadata")])
            totals["complete"] = False
            return
        with DirLock(path, "DIR"):
            kept = quarantine(path, MANIFEST_NAME) if (path / MANIFEST_NAME).exists() else None
            manifest = rebuild_manifest(path)
            shutil.rmtree(path / TMP_NAME, ignore_errors=True)
        totals["repairs"].append(f"{prefix}{MANIFEST_NAME}: rebuilt from the parts' metadata "
                                 f"({len(manifest['chunks'])} chunks)" + (f"; the damaged one kept as {kept}" if kept else ""))
    spec_json = json.dumps(manifest["spec"], sort_keys=True, separators=(",", ":"))
    tables = list(manifest["tables"])
    records = manifest.get("parts") if manifest["format"] == FORMAT else None
    if repair:
        with DirLock(path, "DIR"):
            found = inspect_run(path, spec_json, tables, manifest_chunks(manifest), records)
            changes = apply_inspection(path, tables, found)
            if changes or records is None:
                _rewrite_manifest(path, manifest, found.kept, found.records)
                changes = changes or [f"{MANIFEST_NAME}: part checksums recorded"]
            totals["repairs"] += [prefix + line for line in changes]
            manifest = load_manifest_file(path / MANIFEST_NAME, "DIR")
            records = manifest["parts"]
            shutil.rmtree(path / TMP_NAME, ignore_errors=True)
    found = inspect_run(path, spec_json, tables, manifest_chunks(manifest), records, adopt=False)
    _add(totals, prefix, found.findings)
    totals["parts"] += len(found.records)
    covered = sum(b - a for a, b in manifest_chunks(manifest))
    totals["complete"] = totals["complete"] and covered >= int(manifest["spec"].get("n", 0))


def _rewrite_manifest(path: Path, manifest: dict, kept, records) -> None:
    spec = RunSpec.from_dict(manifest["spec"])
    store = RunStore(path, spec, tuple(manifest["tables"]), list(kept), str(manifest.get("created") or ""),
                     parts=dict(records))
    store.complete = not store.missing_ranges()
    store.write_manifest()


def rebuild_manifest(path: Path) -> dict:
    """Write a manifest for the run at ``path`` from its parts' key-value metadata: the spec most parts name,
    the game's tables for its level, and every whole chunk (decodable, in every table, not overlapping); the
    other files stay where they are for :func:`apply_inspection`. :class:`DatasetError` when no part names a
    spec this cardsim can read."""
    specs = Counter()
    for folder in _table_dirs(path):
        for file in folder.iterdir():
            meta = _part_meta(file) if parse_part_name(file.name) and file.is_file() else None
            if meta and meta.get("cardsim.spec") and meta.get("cardsim.table") == folder.name:
                specs[meta["cardsim.spec"]] += 1
    if not specs:
        raise DatasetError(f"{path}: no part carries a cardsim spec in its metadata: the manifest cannot be rebuilt")
    spec_json = specs.most_common(1)[0][0]
    try:
        spec = RunSpec.from_dict(json.loads(spec_json))
    except (SpecError, ValueError, KeyError, TypeError) as err:
        raise DatasetError(f"{path}: the parts name a spec this cardsim cannot use ({err}); "
                           "the manifest cannot be rebuilt") from None
    tables = tuple(spec.plugin.tables(spec.level))
    found = inspect_run(path, spec.to_json(), tables, [], {})
    apply_inspection(path, tables, found)
    store = RunStore(path, spec, tables, list(found.kept), parts=dict(found.records))
    store.complete = not store.missing_ranges()
    store.write_manifest()
    return load_manifest_file(path / MANIFEST_NAME, "DIR")


def _verify_ledger(path: Path, prefix: str, repair: bool, totals: dict) -> None:
    """The batch's or study's own files (frames, samples) against ``_checksums.json``. A damaged ledger is a
    ``manifest`` finding; its repair keeps the entries whose file still has the recorded bytes (a resume writes
    the others again)."""
    damaged = ledger_problem(path)
    if damaged and repair:
        with DirLock(path, "DIR"):
            kept = salvage_ledger(path)
            write_ledger(path, kept)
        totals["repairs"].append(f"{prefix}{LEDGER_NAME}: {damaged}; rebuilt with the {len(kept)} file(s) whose "
                                 "bytes still match (the command that wrote them writes the others again)")
        totals["complete"] = False
    elif damaged:
        _add(totals, prefix, [Finding("manifest", LEDGER_NAME, damaged + "; `cardsim verify --repair` keeps the "
                                      "entries whose files still match")])
        totals["complete"] = False
        return
    for relative, record in sorted((read_ledger(path) or {}).items()):
        problem = part_problem(path / relative, record)
        if problem is not None:
            kind = problem if problem in ("missing", "damaged") else "damaged"
            detail = ("listed in _checksums.json, not on disk" if kind == "missing"
                      else "its bytes differ from _checksums.json")
            _add(totals, prefix, [Finding(kind, relative, detail)])
        else:
            totals["parts"] += 1


def _verify_batch(path: Path, prefix: str, repair: bool, totals: dict) -> None:
    _verify_ledger(path, prefix, repair, totals)
    data = None
    try:
        data = load_batch(path, "DIR") if (path / BATCH_NAME).is_file() else None
        if data is None:
            totals["complete"] = False  # set aside by a repair: the command that wrote the batch writes it again
    except MetadataError as err:
        if repair:
            with DirLock(path, "DIR"):
                kept = quarantine(path, BATCH_NAME)
            totals["repairs"].append(f"{prefix}{BATCH_NAME}: {err.reason}; set aside as {kept}: the command that "
                                     "wrote the batch writes it again")
        else:
            _add(totals, prefix, [Finding("manifest", BATCH_NAME, err.what + "; `cardsim verify --repair` sets it aside")])
        totals["complete"] = False
    ids = {cell["id"] for cell in data["cells"]} if data else None
    cells = path / CELLS
    for entry in sorted(cells.iterdir()) if cells.is_dir() else []:
        if not entry.name.startswith("cell=") or (ids is not None and entry.name[5:] not in ids):
            _add(totals, prefix, [Finding("foreign", f"{CELLS}/{entry.name}", "not a cell of this batch (not read)")])
        elif ids is None and entry.is_dir() and not entry.is_symlink() and any(entry.iterdir()):
            _verify_run(entry, f"{prefix}{CELLS}/{entry.name}/", repair, totals)
    for cell in data["cells"] if data else []:
        folder = cells / f"cell={cell['id']}"
        if folder.is_dir() and any(folder.iterdir()):
            _verify_run(folder, f"{prefix}{CELLS}/{folder.name}/", repair, totals)
        else:
            totals["complete"] = False  # not started yet: the same command plays it


def _verify_study(path: Path, prefix: str, repair: bool, totals: dict, depth: int = 0) -> None:
    if depth == 0:
        _verify_study_file(path, prefix, repair, totals)
        _verify_ledger(path, prefix, repair, totals)
    for link in sorted(e for e in path.iterdir() if e.is_symlink()):
        if repair:
            os.unlink(link)  # the link, never its target
            totals["repairs"].append(f"{prefix}{link.name}: symbolic link removed (what it pointed to is untouched)")
        else:
            _add(totals, prefix, [Finding("symlink", link.name, SYMLINK_DETAIL)])
    for sub in _table_dirs(path) if depth < MAX_DEPTH else []:
        kind = kind_of(sub)
        name = f"{prefix}{sub.name}/"
        if kind == "run" or (kind is None and QUARANTINE_NAME not in sub.parts and _looks_like_run(sub)):
            _verify_run(sub, name, repair, totals)
        elif kind == "batch":
            _verify_batch(sub, name, repair, totals)
        elif kind is None:
            _verify_study(sub, name, repair, totals, depth + 1)


def _verify_study_file(path: Path, prefix: str, repair: bool, totals: dict) -> None:
    """``_study.json`` and its twin ``_study.backup.json``: each must be intact; a repair rewrites the damaged one
    from the other (:func:`simulator.core.run.plan.repair_study_file`)."""
    if repair:
        try:
            with DirLock(path, "DIR"):
                done = repair_study_file(path)
        except MetadataError as err:
            _add(totals, prefix, [Finding("manifest", STUDY_NAME, f"{err.what}; {err.hint}")])
            return
        if done:
            totals["repairs"].append(prefix + done)
        return
    for name in (STUDY_NAME, STUDY_BACKUP):
        file = path / name
        if name == STUDY_BACKUP and not file.exists() and (path / STUDY_NAME).exists():
            continue  # written before twins existed
        problem = study_file_problem(file) if file.exists() else ("", "is missing")
        if problem is not None:
            _add(totals, prefix, [Finding("manifest", name, field_text(*problem)
                                          + "; `cardsim verify --repair` writes it again from its twin")])


def _looks_like_run(path: Path) -> bool:
    """A directory without a manifest whose sub-folders hold parts with cardsim metadata (a lost manifest)."""
    for folder in _table_dirs(path):
        for file in folder.iterdir():
            if parse_part_name(file.name) and (_part_meta(file) or {}).get("cardsim.spec"):
                return True
    return False


def format_verify(result: dict) -> str:
    """The report of :func:`verify` as lines: every problem, every repair, and a verdict."""
    lines = [f"{p['problem']:<9} {p['path']}" + (f"  ({p['detail']})" if p["detail"] else "") for p in result["problems"]]
    lines += [f"repaired  {line}" for line in result["repairs"]]
    what = f"{result['runs']} run(s), {result['parts']} part(s) checked"
    state = "complete" if result["complete"] else "incomplete: re-run the command that wrote it to resume"
    if result["sound"]:
        lines.append(f"{result['path']}: sound ({result['kind']}; {what}; {state})")
    else:
        counts = Counter(p["problem"] for p in result["problems"])
        listed = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
        lines.append(f"{result['path']}: NOT sound ({listed}; {what}); `cardsim verify {result['path']} --repair` "
                     "sets it right, then the command that wrote it plays again what is missing")
    return "\n".join(lines)
