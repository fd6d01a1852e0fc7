"""Kem's sign exposure: counts and rates from a constructed manches table, and the model's rates on a run."""

from __future__ import annotations

import math

import polars as pl

from analysis.kems_signals import sign_exposure
from simulator.core.contract.seats import Seat, params_array
from simulator.kems.engines.engine import raw_kernel, to_frames
from simulator.kems.vocabulary.rules import Rules
from strategies.kems import STRATEGIES


def _table(rows):
    cols = ["outcome", "caller", "signs_A", "signs_B", "seen_partner_A", "seen_partner_B", "seen_opp_A", "seen_opp_B"]
    return pl.DataFrame([dict(zip(cols, r)) for r in rows]).lazy()


def test_sign_exposure_counts_each_teams_signs_sightings_and_contres():
    #   outcome  caller  signs A/B  partner A/B  opponents A/B
    frame = _table([
        ("kems", 2, 4, 0, 1, 0, 2, 0),     # A signed 4, partner saw 1, opponents 2 sightings; A's Kem's
        ("contre", 1, 2, 0, 0, 0, 1, 0),   # A signed, B (seat 1) contred: A was caught
        ("contre", 0, 0, 3, 0, 0, 0, 1),   # B signed, A contred B
        ("wrong kems", 3, 0, 0, 0, 0, 0, 0),
    ])
    out = {r["team"]: r for r in sign_exposure(frame, 4).iter_rows(named=True)}
    a, b = out["A"], out["B"]
    assert (a["signs"], a["contred"], b["signs"], b["contred"]) == (6, 1, 3, 1)
    assert math.isclose(a["partner_rate"], 1 / 6) and math.isclose(a["opponent_rate"], 3 / 12)  # 2 opponents
    assert math.isclose(a["contred_rate"], 1 / 2) and math.isclose(a["kems_rate"], 1 / 2)
    assert math.isclose(b["opponent_rate"], 1 / 6) and b["kems_rate"] == 0
    assert a["partner_low"] < a["partner_rate"] < a["partner_high"]
    assert math.isclose(a["per_manche"], 6 / 4)


def _seat(**params):
    sdef = STRATEGIES["balanced"]
    return Seat(sdef.kernel_id, params_array(sdef, sdef.params.resolve(params)))


def test_more_visible_signs_are_seen_more_by_partner_and_opponents_and_match_the_model():
    """On simulated manches the partner's sighting rate is a_p·v (the model) within an n-derived band, and each
    sign of a more visible team is seen more by opponents (whether more manches are lost to a contre is another
    matter: the partner also sees it sooner)."""
    rates = {}
    for v in (0.3, 0.9):
        seats = [_seat(visibility=v)] * 4
        raw = raw_kernel(Rules(), seats, 21, 0, 20000, "manches", threads=1)
        manches = to_frames(raw, 4, ["b"] * 4, "manches")["manches"].lazy()
        rates[v] = {r["team"]: r for r in sign_exposure(manches, 4).iter_rows(named=True)}
        for team in ("A", "B"):
            r = rates[v][team]
            p, n = 0.4 * v, r["signs"]
            assert abs(r["partner_rate"] - p) < 4 * math.sqrt(p * (1 - p) / n), (v, team, r["partner_rate"], p)
    for team in ("A", "B"):
        assert rates[0.9][team]["opponent_low"] > rates[0.3][team]["opponent_high"]
        assert rates[0.9][team]["per_manche"] < rates[0.3][team]["per_manche"]   # seen sooner: fewer signs needed
