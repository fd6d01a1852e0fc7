"""Kem's: how a team's signs fare — seen by the partner, intercepted by opponents — and what it costs.

Pure functions over a run's ``manches`` table (a polars LazyFrame, e.g. ``store.read_table(run, "manches")``),
computed lazily so they work on runs larger than memory. Team of seat ``p``: ``p mod (P/2)`` (KM1).
"""

from __future__ import annotations

import polars as pl

from analysis.stats import wilson
from simulator.core.contract.game import TEAM_KEYS as TEAM_NAMES


def sign_exposure(manches: pl.LazyFrame, players: int) -> pl.DataFrame:
    """One row per team: its signs and where they went, with Wilson 95% intervals.

    Columns: ``team`` (String), ``manches`` (Int64), ``signs`` (Int64, signs made), ``per_manche`` (Float64),
    ``partner_rate``/``partner_low``/``partner_high`` (share of its signs the partner saw),
    ``opponent_rate``/``opponent_low``/``opponent_high`` (sightings by opponents per sign and per opponent: the
    chance that one given opponent sees one given sign), ``contred``/``contred_rate``/``contred_low``/
    ``contred_high`` (manches in which the team signed and an opponent's right contre ended the manche, among
    the manches in which it signed), ``kems_rate``/``kems_low``/``kems_high`` (its Kem's or double among the
    same manches).
    """
    teams = players // 2
    opponents = players - 2
    caller_team = pl.col("caller").cast(pl.Int64) % teams
    aggs = [pl.len().alias("n")]
    for t, name in enumerate(TEAM_NAMES[:teams]):
        signed = pl.col(f"signs_{name}") > 0
        aggs += [
            pl.col(f"signs_{name}").cast(pl.Int64).sum().alias(f"signs{t}"),
            pl.col(f"seen_partner_{name}").cast(pl.Int64).sum().alias(f"partner{t}"),
            pl.col(f"seen_opp_{name}").cast(pl.Int64).sum().alias(f"opp{t}"),
            signed.sum().alias(f"signed{t}"),
            (signed & (pl.col("outcome") == "contre") & (caller_team != t)).sum().alias(f"contred{t}"),
            (signed & pl.col("outcome").is_in(["kems", "double"]) & (caller_team == t)).sum().alias(f"kems{t}"),
        ]
    row = manches.select(aggs).collect().row(0, named=True)
    out = []
    for t, name in enumerate(TEAM_NAMES[:teams]):
        signs, signed = row[f"signs{t}"], row[f"signed{t}"]
        partner = wilson(row[f"partner{t}"], signs)
        opponent = wilson(row[f"opp{t}"], signs * opponents)
        contred = wilson(row[f"contred{t}"], signed)
        kems = wilson(row[f"kems{t}"], signed)
        out.append({"team": name, "manches": row["n"], "signs": signs,
                    "per_manche": signs / row["n"] if row["n"] else float("nan"),
                    "partner_rate": partner[0], "partner_low": partner[1], "partner_high": partner[2],
                    "opponent_rate": opponent[0], "opponent_low": opponent[1], "opponent_high": opponent[2],
                    "contred": row[f"contred{t}"], "contred_rate": contred[0], "contred_low": contred[1],
                    "contred_high": contred[2], "kems_rate": kems[0], "kems_low": kems[1], "kems_high": kems[2]})
    return pl.DataFrame(out)
