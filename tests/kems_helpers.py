"""Kem's test helpers: answer some decisions of the reference engine with test functions."""

from __future__ import annotations

from simulator.kems.engines import reference
from simulator.kems.vocabulary.contract import DECISIONS
from strategies.kems.dispatch import BUILTIN


def answer_with(monkeypatch, **answers) -> None:
    """The reference engine asks ``answers[name](sid, prm, *c)`` for each decision named (``c``: the decision's
    context, its fields in order) and checks the answer like any strategy's; the other decisions as before."""
    original, checked = reference.policy.ask, reference.policy.checked

    def ask(name, seat, c):
        answer = answers.get(name)
        if answer is None:
            return original(name, seat, c)
        return checked(name, seat, answer(seat.sid, seat.prm, *c), c)

    monkeypatch.setattr(reference.policy, "ask", ask)


def builtin(name: str):
    """The built-in families' answer to decision ``name`` as ``(sid, prm, *fields)``: the context's fields in
    order (``strategies.kems.dispatch``)."""
    context = DECISIONS[name].context

    def answer(sid, prm, *fields):
        return BUILTIN[name](sid, prm, context(*fields))

    return answer
