"""Kem's test helpers: answer some decisions of the reference engine with test functions."""

from __future__ import annotations

from simulator.kems.engines import reference


def answer_with(monkeypatch, **answers) -> None:
    """The reference engine asks ``answers[name](sid, prm, me, *rest)`` for each decision named (the built-in
    dispatch's signature, ``strategies.kems.policy.<name>``) and checks the answer like any strategy's; the other
    decisions as before."""
    original, checked = reference.policy.ask, reference.policy.checked

    def ask(name, seat, me, *rest):
        answer = answers.get(name)
        if answer is None:
            return original(name, seat, me, *rest)
        return checked(name, seat, me, answer(seat.sid, seat.prm, me, *rest), *rest)

    monkeypatch.setattr(reference.policy, "ask", ask)
