"""Kamoul's named state has one declaration per fact (issue 11): parameter positions come from each family's
``PARAMS``, kernel rule fields and choice codes from ``OPTIONS``, and the rule values are named once in
``codes.py`` (no bare 5, 15, 30 or 31 in the engines or the strategies)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from simulator.kamoul.vocabulary import codes
from simulator.kamoul.vocabulary.rules import FALSE_CALL, KERNEL_RULES, OPTIONS, RACE, Rules
from strategies.kamoul import call_table, heuristic, random_play

ROOT = Path(__file__).resolve().parents[1]
ENGINE_MODULES = sorted((ROOT / "simulator/kamoul").glob("*.py")) + sorted((ROOT / "strategies/kamoul").glob("*.py"))
RULE_VALUES = {5, 15, 30, 31}


def test_parameter_positions_follow_each_familys_declaration():
    assert list(heuristic.H._fields) == heuristic.PARAMS.names()
    assert list(heuristic.H) == list(range(len(heuristic.PARAMS.params)))
    assert list(random_play.RP._fields) == random_play.PARAMS.names()
    names = call_table.PARAMS.names()
    assert call_table.CT.call_known_0 == names.index("call_known_0") == len(heuristic.PARAMS.params)
    assert names[:len(heuristic.PARAMS.params)] == heuristic.PARAMS.names()  # H positions hold in call-table


def test_kernel_rules_have_one_field_per_option_with_choices_as_their_index():
    assert list(KERNEL_RULES.names) == OPTIONS.names()
    table = Rules.from_options({"false_call_mode": "dutch", "race_policy": "turn_order", "p_stick": "0.5"}).kernel()
    assert table.shape == (1,) and table.dtype == KERNEL_RULES
    kernel = table[0]
    assert kernel["false_call_mode"] == FALSE_CALL.dutch == OPTIONS.by_name["false_call_mode"].choices.index("dutch")
    assert kernel["race_policy"] == RACE.turn_order
    assert kernel["p_stick"] == 0.5 and kernel["hand_size"] == Rules().hand_size


@pytest.mark.rule("K11")
def test_K11_is_au_score_is_the_rule_as_written():
    """K11: at >= 15 a total equal to the cumulative; at <= -15 a total of exactly 30 (at least 30 with ``ge``)."""
    for cum in range(-40, 41):
        for total in range(0, 61):
            expected_eq = (cum >= 15 and total == cum) or (cum <= -15 and total == 30)
            expected_ge = (cum >= 15 and total == cum) or (cum <= -15 and total >= 30)
            assert codes.is_au_score(total, cum, False) == expected_eq
            assert codes.is_au_score(total, cum, True) == expected_ge


@pytest.mark.rule("K10")
def test_K10_announcement_class_normal_at_most_5_then_au_score_else_false():
    assert codes.announcement_class(5, 0, False) == codes.CLS_NORMAL
    assert codes.announcement_class(6, 0, False) == codes.CLS_FALSE
    assert codes.announcement_class(20, 20, False) == codes.CLS_AU
    assert codes.announcement_class(31, -15, False) == codes.CLS_FALSE
    assert codes.announcement_class(31, -15, True) == codes.CLS_AU


def _constant_names(target) -> bool:
    """``NAME`` or ``(NAME, OTHER, ...)``: a module-level constant declaration."""
    names = target.elts if isinstance(target, ast.Tuple) else [target]
    return all(isinstance(n, ast.Name) and n.id.isupper() for n in names)


def _bare_rule_values(path: Path) -> list[str]:
    """Integer literals among RULE_VALUES outside a module-level ``NAME = ...`` constant declaration."""
    tree = ast.parse(path.read_text())
    declared = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and all(_constant_names(t) for t in node.targets):
            declared |= {id(n) for n in ast.walk(node.value)}
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Constant) and type(node.value) is int and node.value in RULE_VALUES
                and id(node) not in declared):
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value}")
    return found


def test_rule_values_are_named_once_in_codes_not_written_in_the_engines_or_strategies():
    found = [hit for path in ENGINE_MODULES if path.name != "codes.py" for hit in _bare_rule_values(path)]
    assert found == []
