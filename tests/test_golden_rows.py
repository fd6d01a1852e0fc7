"""Rows are identical to those of the code the stored fingerprints were made with (issues 11 and 13): every
game's kernel, at its finest and coarsest level, several strategies and option sets (``tests/golden_rows.py``)."""

from __future__ import annotations

import json

import pytest

from golden_rows import CASES, GOLDEN, case_fingerprints

STORED = json.loads(GOLDEN.read_text())


def test_every_case_has_a_stored_fingerprint():
    assert sorted(STORED) == sorted(name for name, _, _ in CASES)


@pytest.mark.parametrize("name, game, kwargs", CASES, ids=[c[0] for c in CASES])
def test_rows_are_identical_to_the_stored_ones(name, game, kwargs):
    assert case_fingerprints(game, kwargs) == STORED[name]
