"""Rami "Kracouil" (Rami 51 family): rules R1–R15 of ../shared/rules/INTERPRETATION.md.

* :mod:`simulator.rami.vocabulary.rules` — the variant options;
* :mod:`simulator.rami.vocabulary.melds` — the meld solver (numba core and Python API): best opening, least value
  left in hand, lay-offs and joker swaps;
* :mod:`simulator.rami.vocabulary.melds_ref` — one combination in plain Python (R6 check, R7 value) and the
  brute-force solver the core is tested against.
"""
