"""Named kernel state from one declaration (issue 11): index records, choice codes, kernel rules, and the block
driver. Each is checked in compiled code too: a name must cost nothing and mean the declared position."""

from __future__ import annotations

import numpy as np
import pytest

from simulator.core.kernels.blocks import gather, play_in_blocks
from simulator.core.kernels.jit import njit
from simulator.core.kernels.named import choice_codes, identifier, indices, kernel_rules, rules_class, rules_dtype
from simulator.core.params import Param, ParamSet

OPTIONS = ParamSet((
    Param("hand_size", "int", 4, "cards", 1, 8, rule="K2"),
    Param("snap_chain", "bool", False, "chain", rule="K6"),
    Param("mode", "choice", "sum", "mode", choices=("sum", "tamalou", "dutch"), rule="K12"),
    Param("deck", "choice", "52", "deck", choices=("52", "32"), rule="KM2"),
    Param("p_stick", "float", 0.25, "stick", 0.0, 1.0, rule="K13"),
))
COLUMNS = indices("Columns", ("game", "winner", "turns"))
MODE = choice_codes(OPTIONS.by_name["mode"])
KERNEL_RULES = rules_dtype(OPTIONS, derived=(("ticks", int),))


def test_indices_and_choice_codes_follow_the_declared_order():
    assert (COLUMNS.game, COLUMNS.winner, COLUMNS.turns) == (0, 1, 2)
    assert (MODE.sum, MODE.tamalou, MODE.dutch) == (0, 1, 2)
    assert choice_codes(OPTIONS.by_name["deck"]).v32 == 1
    assert identifier("ban_show2") == "ban_show2" and identifier("class") == "vclass"
    with pytest.raises(TypeError):
        choice_codes(OPTIONS.by_name["hand_size"])


def test_kernel_rules_hold_every_option_with_choices_as_indices():
    values = OPTIONS.resolve({"mode": "dutch", "snap_chain": "true"})
    table = kernel_rules(KERNEL_RULES, OPTIONS, values, ticks=7)
    assert table.shape == (1,) and table[0].tolist() == (4, 1, 2, 0, 0.25, 7)
    assert table[0]["mode"] == MODE.dutch and KERNEL_RULES["p_stick"] == np.float64 and KERNEL_RULES["mode"] == np.int64


def test_rules_class_is_frozen_with_the_declared_defaults():
    Rules = rules_class("Rules", OPTIONS)
    r = Rules(mode="tamalou")
    assert (r.hand_size, r.snap_chain, r.mode, r.deck, r.p_stick) == (4, False, "tamalou", "52", 0.25)
    with pytest.raises(Exception):
        r.hand_size = 5


@njit(cache=False)
def _write(rows, rules_table):
    rules = rules_table[0]
    rows[0, COLUMNS.winner] = rules.hand_size * 10 + rules.mode
    rows[0, COLUMNS.turns] = rules.ticks if rules.mode == MODE.dutch else -1
    return rows


def test_names_compile_to_their_positions():
    table = kernel_rules(KERNEL_RULES, OPTIONS, OPTIONS.resolve({"mode": "dutch"}), ticks=9)
    rows = _write(np.zeros((1, 3), dtype=np.int64), table)
    assert rows.tolist() == [[0, 42, 9]]


def test_play_in_blocks_grows_an_overflowing_block_until_every_row_fits():
    calls = []

    def kernel(n_blocks, caps):  # block b makes 3 rows per game of table 0, 1 of table 1
        calls.append(int(caps[0]))
        per = -(-10 // n_blocks)
        counts = np.array([[3 * min(per, 10 - b * per), min(per, 10 - b * per)] for b in range(n_blocks)])
        out0 = np.zeros((n_blocks, caps[0]), dtype=np.int64)
        out1 = np.zeros((n_blocks, caps[1]), dtype=np.int64)
        for b in range(n_blocks):
            k = min(counts[b, 0], caps[0])
            out0[b, :k] = np.arange(k) + 100 * b
            out1[b, :min(counts[b, 1], caps[1])] = b
        return out0, out1, counts

    (out0, out1), counts = play_in_blocks(kernel, 10, 1, (1, 1))
    assert calls[0] < 3 * 3 <= calls[-1]  # grown until 3 rows per game fit
    rows0, rows1 = gather((out0, out1), counts, (0, 1))
    assert len(rows0) == 30 and len(rows1) == 10
    assert rows0[:9].tolist() == list(range(9)) and rows1.tolist() == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3]
