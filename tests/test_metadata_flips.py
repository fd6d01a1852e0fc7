"""Recoverable metadata (issue "nothing a user types can damage a run", step 2): a run's ``_manifest.json``, a
batch's ``_batch.json``, a study's ``_study.json`` and a batch's or study's ``_checksums.json`` carry their own
checksum. Of 100 single-byte flips in each (positions and bit masks from a fixed seed), every one is either
caught by ``verify`` or harmless (what the file says is unchanged), and after ``verify --repair`` the command
that wrote the dataset resumes to identical rows and frames. A field of the wrong kind, sealed again so that
only the field check can see it, is one line naming the file and the field."""

from __future__ import annotations

import json
import random
from pathlib import Path

import polars as pl
import pytest

import cli
import fakegame
from simulator.core.errors import MetadataError
from simulator.core.run.batch import BATCH_NAME, Batch, Cell, load_batch, read_batch, run_batch
from simulator.core.run.plan import STUDY_BACKUP, STUDY_FILE, Part, Plan, Step, execute, read_study_file
from simulator.core.run.runner import run
from simulator.core.run.verify import verify
from simulator.core.storage.ledger import LEDGER_NAME, frame_is_recorded, read_ledger, write_frame
from simulator.core.storage.sealed import sealed, unsealed
from simulator.core.storage.store import MANIFEST_NAME, load_manifest_file, read_table

FLIPS = 100


@pytest.fixture(autouse=True)
def fake(monkeypatch):
    fakegame.patch(monkeypatch)


def flips(path: Path, seed: int):
    """``FLIPS`` (position, xor mask) pairs over the bytes of ``path``, drawn from ``seed``."""
    size = path.stat().st_size
    draw = random.Random(seed)
    return [(draw.randrange(size), 1 << draw.randrange(8)) for _ in range(FLIPS)]


def flipped(original: bytes, position: int, mask: int) -> bytes:
    data = bytearray(original)
    data[position] ^= mask
    return bytes(data)


def said(path: Path):
    """What a metadata file says (its seal left out), or ``None`` when it is not JSON."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    return unsealed(data) if isinstance(data, dict) else data


def check_flips(root: Path, victim: Path, resume, read, seed: int) -> dict:
    """Flip each byte of ``victim`` in turn (the dataset rebuilt from its finished bytes in between): caught by
    ``verify`` or harmless; after ``verify --repair``, ``resume()`` leaves ``read()`` as it was."""
    expected, original = read(), victim.read_bytes()
    pristine = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    meaning = said(victim)
    tally = {"caught": 0, "harmless": 0}
    for position, mask in flips(victim, seed):
        for p in list(root.rglob("*")):
            if p.is_file() and p not in pristine:
                p.unlink()
        for p, data in pristine.items():
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
        victim.write_bytes(flipped(original, position, mask))
        result = verify(root)
        if result["sound"]:
            assert said(victim) == meaning, f"byte {position} ^ {mask:#x}: changed what the file says, verify saw nothing"
            tally["harmless"] += 1
            continue
        tally["caught"] += 1
        assert verify(root, repair=True)["repairs"], f"byte {position} ^ {mask:#x}: nothing repaired"
        resume()
        after = verify(root)
        assert after["sound"] and after["complete"], (position, mask, after["problems"])
        assert all(a.equals(b) for a, b in zip(read(), expected)), f"byte {position} ^ {mask:#x}: rows differ"
    assert tally["caught"] + tally["harmless"] == FLIPS and tally["caught"] > FLIPS // 2
    return tally


def test_flips_in_a_run_manifest(tmp_path):
    spec, out = fakegame.fake_spec(n=40, seed=3), tmp_path / "run"
    run(spec, out, chunk_size=10, progress=False)

    def read():
        return [read_table(out, t, lazy=False) for t in ("hands", "manches")]

    check_flips(out, out / MANIFEST_NAME, lambda: run(spec, out, chunk_size=10, progress=False), read, seed=1)


def fake_batch() -> Batch:
    cells = tuple(Cell(f"c00{k}", {"bonus": bonus}, fakegame.fake_spec(n=20, seed=5, bonus=bonus))
                  for k, bonus in enumerate((0, 7)))
    return Batch("sweep", {"bonus": [0, 7]}, cells)


def sweep_frames(path: Path) -> dict:
    totals = read_batch(path, "manches").group_by("bonus").agg(pl.col("total").sum()).sort("bonus").collect()
    return {"summary": totals, "outcomes": totals.select("bonus")}


def test_flips_in_a_batch_file(tmp_path):
    from simulator.core.run.batch import result_writer

    batch, out = fake_batch(), tmp_path / "sweep"

    def resume():
        run_batch(batch, out, chunk_size=10, progress=False, on_complete=result_writer("sweep", sweep_frames))

    resume()

    def read():
        return [read_batch(out, t).collect().sort("cell", "game", maintain_order=True) for t in ("hands", "manches")]

    check_flips(out, out / BATCH_NAME, resume, read, seed=2)


def fake_plan(out: Path) -> Plan:
    """A study of the fake game: a run, then a step writing part files into the ledger, then its frames."""
    spec = fakegame.fake_spec(n=30, seed=9)

    def sample():
        for k in range(3):
            path = out / "samples" / f"part-{k}.parquet"
            if not frame_is_recorded(path):
                path.parent.mkdir(parents=True, exist_ok=True)
                write_frame(path, pl.DataFrame({"k": [k] * 5, "x": list(range(5 * k, 5 * k + 5))}))
        return True

    def frames(path):
        manches = read_table(path / "games", "manches", lazy=False)
        return {"totals": manches.select(pl.col("total").sum()), "winners": manches.group_by("winner").len().sort("winner")}

    return Plan("fake-study", "fake", {"n": 30, "seed": 9}, "same -n and --seed",
                [Part("games", lambda: spec), Part("samples", lambda: Step(lambda progress: sample()))], frames,
                after=lambda name: {"seen": name} if name == "games" else None)


def study_read(out: Path):
    def read():
        own = sorted(read_ledger(out))
        return [pl.read_parquet(out / name) for name in own] + [pl.DataFrame({"files": own})]
    return read


def test_flips_in_a_study_file(tmp_path):
    out = tmp_path / "study"
    execute(fake_plan(out), out, chunk_size=10, progress=False)
    assert said(out / STUDY_FILE) == said(out / STUDY_BACKUP)
    check_flips(out, out / STUDY_FILE, lambda: execute(fake_plan(out), out, chunk_size=10, progress=False),
                study_read(out), seed=3)


def test_flips_in_a_ledger(tmp_path):
    out = tmp_path / "study"
    execute(fake_plan(out), out, chunk_size=10, progress=False)
    assert len(read_ledger(out)) == 5  # three samples, two frames
    check_flips(out, out / LEDGER_NAME, lambda: execute(fake_plan(out), out, chunk_size=10, progress=False),
                study_read(out), seed=4)


def test_flips_in_a_study_file_s_twin_are_repaired_too(tmp_path):
    out = tmp_path / "study"
    execute(fake_plan(out), out, chunk_size=10, progress=False)
    check_flips(out, out / STUDY_BACKUP, lambda: execute(fake_plan(out), out, chunk_size=10, progress=False),
                study_read(out), seed=5)


# --- a field of the wrong kind, the seal intact: one line naming the file and the field -------------------------

def reseal(path: Path, change) -> None:
    data = unsealed(json.loads(path.read_text()))
    change(data)
    path.write_text(json.dumps(sealed(data)))


def test_a_manifest_field_of_the_wrong_kind_names_file_and_field(tmp_path, capsys):
    spec, out = fakegame.fake_spec(n=20, seed=3), tmp_path / "run"
    run(spec, out, chunk_size=10, progress=False)
    reseal(out / MANIFEST_NAME, lambda d: d["spec"].update(n="twenty"))
    with pytest.raises(MetadataError) as err:
        load_manifest_file(out / MANIFEST_NAME)
    assert err.value.field == "spec.n" and str(out / MANIFEST_NAME) in str(err.value)
    assert "\n" not in str(err.value) and "--repair" in str(err.value)
    problems = verify(out)["problems"]
    assert [(p["problem"], p["path"]) for p in problems] == [("manifest", MANIFEST_NAME)]
    assert "field spec.n" in problems[0]["detail"]
    assert cli.main(["verify", str(out), "--repair"]) == 0
    capsys.readouterr()
    assert load_manifest_file(out / MANIFEST_NAME)["spec"]["n"] == 20  # rebuilt from the parts' own metadata


def test_a_batch_cell_with_edited_labels_names_the_cell(tmp_path, capsys):
    batch, out = fake_batch(), tmp_path / "sweep"
    run_batch(batch, out, chunk_size=10, progress=False)
    reseal(out / BATCH_NAME, lambda d: d["cells"][1].update(labels={"renamed": 7}))
    with pytest.raises(MetadataError, match=r"_batch.json: field cells\[1\] is not a cell"):
        load_batch(out)
    code = cli.main(["report", str(out), "--out", str(tmp_path / "r.html")])
    err = capsys.readouterr().err
    assert code == 1 and "field cells[1]" in err and "Traceback" not in err and "internal error" not in err
    assert not (tmp_path / "r.html").exists()


def test_a_study_file_field_of_the_wrong_kind_names_the_field_and_the_twin_restores_it(tmp_path):
    out = tmp_path / "study"
    execute(fake_plan(out), out, chunk_size=10, progress=False)
    reseal(out / STUDY_FILE, lambda d: d.update(inputs=["n", 30]))
    with pytest.raises(MetadataError, match="_study.json: field inputs is"):
        read_study_file(out)
    assert [p["path"] for p in verify(out)["problems"]] == [STUDY_FILE]
    repaired = verify(out, repair=True)
    assert repaired["sound"] and repaired["repairs"] == [f"{STUDY_FILE}: field inputs is ['n', 30], not an object; "
                                                         f"written again from {STUDY_BACKUP}"]
    assert read_study_file(out)["inputs"] == {"n": 30, "seed": 9}


def test_a_study_whose_file_and_twin_are_both_damaged_says_its_inputs_are_lost(tmp_path):
    out = tmp_path / "study"
    execute(fake_plan(out), out, chunk_size=10, progress=False)
    for name in (STUDY_FILE, STUDY_BACKUP):
        (out / name).write_text("{")
    result = verify(out, repair=True)
    assert not result["sound"] and "inputs are lost" in result["problems"][0]["detail"]


def test_a_ledger_naming_a_file_outside_its_directory_is_not_trusted(tmp_path):
    """A ledger entry ``../x`` would make verify hash (and a reader trust) a file outside the study."""
    out = tmp_path / "study"
    execute(fake_plan(out), out, chunk_size=10, progress=False)
    outside = tmp_path / "secret.parquet"
    pl.DataFrame({"a": [1]}).write_parquet(outside)
    reseal(out / LEDGER_NAME, lambda d: d.update({"../secret.parquet": {"size": outside.stat().st_size, "sha256": "0"}}))
    problems = verify(out)["problems"]
    assert [(p["problem"], p["path"]) for p in problems] == [("manifest", LEDGER_NAME)]
    assert "outside its directory" in problems[0]["detail"]
    verify(out, repair=True)
    assert "../secret.parquet" not in read_ledger(out) and verify(out)["sound"]
