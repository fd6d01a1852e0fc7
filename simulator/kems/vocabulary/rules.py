"""Kem's variant options and discrete-time model settings (docs/rules/kems.md), each with its rule number.

``OPTIONS`` validates user input; :class:`Rules` is the frozen object the reference engine reads;
:func:`rules_arrays` packs the same values, durations already converted to ticks, into the ``int64`` and
``float64`` arrays the kernel reads (slots ``INT_RULE.<name>`` and ``FLOAT_RULE.<name>``), so both engines share
one conversion.
"""

from __future__ import annotations

import math

import numpy as np

from simulator.core.errors import SpecError
from simulator.core.kernels.named import choice_codes, indices, kernel_value, rules_class
from simulator.core.params import Param, ParamSet

PLAYERS = (4, 6)
HAND = 4          # KM3: cards per hand, always (KM5 exchanges are one for one)
TABLE = 4         # KM4: face-up slots in the centre
MAX_LAG = 6       # §3.2 L: the kernel keeps the last MAX_LAG + 2 public states (kernel_state.REC)
ATTENTION_REF = 0.4
"""§3.2: the table share of attention at which a player's grab rate equals its ``speed`` (the default 4-player
budget 1 − a_p − a_o); watching the table more raises the rate in proportion, watching it less lowers it."""

OPTIONS = ParamSet((
    Param("target", "int", 5, "a team that reaches this many points wins the game", 1, 1000, rule="KM1"),
    Param("deck", "choice", "52", "52 cards, or the 32-card piquet deck (7 to ace)", choices=("52", "32"), rule="KM2"),
    Param("multi_swap", "bool", False, "a player may exchange several cards in one move (each still one for one)", rule="KM5"),
    Param("sweep_on_all_pass", "bool", False, "the dealer also sweeps as soon as no player wants any table card", rule="KM6"),
    Param("double_mode", "choice", "auto", "double Kem's: auto = the caller also holds four of a kind at the call; "
          "second_call = the holder must see the caller's sign and call again within double_window",
          choices=("auto", "second_call"), rule="KM8"),
    Param("double_window", "float", 2.0, "seconds the second partner has to call double (second_call)", 0.0, 60.0, rule="KM8"),
    Param("wrong_kems_ends", "bool", True, "a wrong Kem's ends the manche (the hands have been shown)", rule="KM9"),
    Param("contre_target", "choice", "team", "a contre-kem's names an opposing team (either member may hold) or one player",
          choices=("team", "player"), rule="KM10"),
    Param("wrong_contre", "choice", "ban", "after a wrong contre: the caller is banned from contre for the manche; "
          "ban_show2: and shows two of its cards; opponents_plus1: and the accused team scores 1",
          choices=("ban", "ban_show2", "opponents_plus1"), rule="KM11"),
    Param("negative_points", "bool", False, "penalties take a point off the offending team instead of giving points "
          "to the others (English Kemps)", rule="KM12"),
    Param("signs_change_each_manche", "bool", False, "teams change their sign between manches: opponents' "
          "recognition starts again from kappa0", rule="KM12"),
    Param("tick", "float", 0.2, "seconds per tick (Δ)", 0.05, 1.0, rule="M-time"),
    Param("lag_ticks", "int", 1, "perception lag L: players perceive everything public (the centre, where cards went, silences) as it was this many ticks earlier", 0, MAX_LAG, rule="M-perception"),
    Param("turn_up_time", "float", 1.0, "seconds from turning up the centre to \"Top\" (no exchanges meanwhile)", 0.0, 10.0, rule="M-phases"),
    Param("sweep_time", "float", 1.5, "seconds the dealer takes to sweep the centre", 0.0, 10.0, rule="M-phases"),
    Param("quiet_time", "float", 3.0, "seconds without an exchange before the dealer sweeps (Q)", 0.2, 60.0, rule="M-sweep"),
    Param("sign_delay", "float", 1.0, "mean seconds from holding four of a kind to the first sign (d_s, geometric)", 0.0, 30.0, rule="M-signal"),
    Param("kappa0", "float", 0.1, "how recognisable a team's sign is to an opponent who has seen none (κ₀; KM13: never 0)", 0.001, 1.0, rule="KM13"),
    Param("rho", "float", 0.25, "learning: each sign an opponent sees makes the next one this much more recognisable (ρ)", 0.0, 1.0, rule="M-signal"),
    Param("reaction_min", "int", 2, "fewest ticks from noticing to calling (R)", 1, 50, rule="M-calls"),
    Param("reaction_max", "int", 5, "most ticks from noticing to calling (R ~ uniform integer)", 1, 50, rule="M-calls"),
    Param("false_kems_rate", "float", 0.0002, "per tick: a player misreads noise as the partner's sign (f_p)", 0.0, 1.0, rule="M-calls"),
    Param("false_contre_rate", "float", 0.00005, "per tick: a player calls contre on an opposing team at random (f_o)", 0.0, 1.0, rule="M-calls"),
    Param("race_policy", "choice", "speed_weighted", "who wins two grabs of the same card in a tick: the earlier of "
          "Exp(λ) times, a uniform draw, or seat order from the dealer's left",
          choices=("speed_weighted", "uniform", "turn_order"), rule="M-exchange"),
    Param("max_ticks", "int", 3000, "guard: a manche ends with no score after this many ticks", 50, 1_000_000, rule="M-time"),
), what="")


class RulesMethods:
    """What the engines ask of a variant beyond its options (base of :class:`Rules`)."""

    def ticks(self, seconds: float) -> int:
        """A duration in whole ticks, rounded up (1.5 s at Δ = 0.2 s is 8 ticks)."""
        return int(math.ceil(seconds / self.tick - 1e-9))

    @property
    def quiet_ticks(self) -> int:
        return max(1, self.ticks(self.quiet_time))

    @property
    def turn_up_ticks(self) -> int:
        return self.ticks(self.turn_up_time)

    @property
    def sweep_ticks(self) -> int:
        return self.ticks(self.sweep_time)

    @property
    def double_ticks(self) -> int:
        return self.ticks(self.double_window)

    @property
    def sign_delay_p(self) -> float:
        """Per-tick probability of the geometric delay d_s (mean ``sign_delay`` seconds, at least one tick)."""
        return 1.0 if self.sign_delay <= self.tick else self.tick / self.sign_delay

    @property
    def ranks(self) -> tuple[int, ...]:
        """KM2: the ranks in the deck (rank 0 = ace; the 32-card deck keeps 7 to king and the ace)."""
        return tuple(range(13)) if self.deck == "52" else (0, 6, 7, 8, 9, 10, 11, 12)

    def cards(self) -> list[int]:
        """The deck's card ids in id order."""
        ranks = set(self.ranks)
        return [c for c in range(52) if c % 13 in ranks]


Rules = rules_class("Rules", OPTIONS, RulesMethods, check=lambda values: check_options(values))  # defined below
"""A validated Kem's variant (frozen dataclass); attribute names are the option names of :data:`OPTIONS`."""
Rules.__module__ = __name__  # so that pickle finds it here


def check_options(values: dict) -> None:
    """Checks between options: the reaction delay's range."""
    if values["reaction_max"] < values["reaction_min"]:
        raise SpecError("--option reaction_max", values["reaction_max"],
                        f"at least reaction_min ({values['reaction_min']})")


def check_players(players: int, values: dict) -> None:
    """KM1: 4 or 6 players, in teams of two with partners opposite."""
    if players not in PLAYERS:
        raise SpecError("--players", players, "4 or 6 (teams of two, partners opposite)")
    check_options({**{p.name: p.default for p in OPTIONS.params}, **values})


def team_of(seat: int, players: int) -> int:
    """KM1: partners sit opposite; seats alternate A-B-A-B or A-B-C-A-B-C."""
    return seat % (players // 2)


def partner_of(seat: int, players: int) -> int:
    return (seat + players // 2) % players


# --- the kernel's view: the options as int64 and float64 arrays, one slot per option, named -------------------
TICKS_OF = {"double_window": "double_ticks", "turn_up_time": "turn_up_ticks", "sweep_time": "sweep_ticks",
            "quiet_time": "quiet_ticks"}
"""Durations the kernel reads as whole ticks (M-time): the option's slot holds the :class:`Rules` attribute named
here, an integer."""
PER_TICK_OF = {"sign_delay": "sign_delay_p"}
"""Mean delays the kernel reads as a per-tick probability (M-signal): the slot holds this :class:`Rules` attribute."""


def _kernel_slots() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The names of the int64 and the float64 slots, in declaration order (choices and booleans are ints)."""
    ints, floats = [], []
    for param in OPTIONS.params:
        if param.name in TICKS_OF:
            ints.append(TICKS_OF[param.name])
        elif param.kind == "float":
            floats.append(PER_TICK_OF.get(param.name, param.name))
        else:
            ints.append(param.name)
    return tuple(ints), tuple(floats)


INT_SLOTS, FLOAT_SLOTS = _kernel_slots()
INT_RULE = indices("KemsIntRules", INT_SLOTS)            # int_rules[INT_RULE.lag_ticks]
FLOAT_RULE = indices("KemsFloatRules", FLOAT_SLOTS)      # float_rules[FLOAT_RULE.kappa0]
DOUBLE_MODE = choice_codes(OPTIONS.by_name["double_mode"])          # KM8
CONTRE_TARGET = choice_codes(OPTIONS.by_name["contre_target"])      # KM10
WRONG_CONTRE = choice_codes(OPTIONS.by_name["wrong_contre"])        # KM11
RACE = choice_codes(OPTIONS.by_name["race_policy"])                 # M-exchange


def rules_arrays(rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """``(int_rules int64[len(INT_SLOTS)], float_rules float64[len(FLOAT_SLOTS)])``: the variant as the kernel reads
    it (choices as their index, booleans as 0/1, durations in ticks), slot ``name`` at ``INT_RULE.name`` /
    ``FLOAT_RULE.name``."""
    by_name = OPTIONS.by_name

    def value(slot: str):
        raw = getattr(rules, slot)
        return kernel_value(by_name[slot], raw) if slot in by_name else raw

    return (np.array([value(slot) for slot in INT_SLOTS], dtype=np.int64),
            np.array([value(slot) for slot in FLOAT_SLOTS], dtype=np.float64))
