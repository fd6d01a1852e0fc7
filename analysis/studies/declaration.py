"""What a study is to the rest of cardsim: one declaration per study package (``analysis/studies/<study>/``), read
by the registry (:mod:`analysis.studies`), the library and the command line."""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Callable


@dataclass(frozen=True)
class StudyDef:
    """A study: ``name`` as users type it, the ``games`` it plays (``None``: every registered game with balance
    hints), the one-line ``summary`` of ``cardsim study --help``, and its two modules:

    * ``module`` (the package's ``study.py``): ``plan(out, *, game, n, seed, players, threads, chunk_size, rules,
      strategies, **settings) -> simulator.core.run.plan.Plan`` (every input validated first),
      ``study_frames(out) -> {name: frame}``, ``answer(out) -> analysis.answers.Answer`` and ``load_study(out)``;
      ``KERNEL_FAMILIES``, if it has one, names the kernel families compiled side by side before it runs;
    * ``report`` (the package's ``page.py``): ``build_report(out_dir, out_html, *, title=None, frames=None) -> Path``.
    """

    name: str
    games: tuple[str, ...] | None
    module: ModuleType
    report: Callable
    summary: str

    def accepts(self, game: str) -> bool:
        return self.games is None or game in self.games
