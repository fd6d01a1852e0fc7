"""Module names from before the layered layout (cardsim 0.1) still import: a strategy file, its test or a notebook
written against them runs unchanged. Each old name is the new module itself (the same object), found by a finder
placed last on ``sys.meta_path`` (:func:`install`, called when ``simulator`` is imported), so it is asked only
for names no file answers."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

MOVED = {
    "analysis.balance": "analysis.studies.balance.study",
    "analysis.kamoul_call": "analysis.studies.kamoul_call.study",
    "analysis.rami_openings": "analysis.studies.rami_openings.study",
    "reports.balance": "analysis.studies.balance.charts",
    "reports.balance_report": "analysis.studies.balance.page",
    "reports.dispatch": "analysis.studies.dispatch",
    "reports.kamoul_call": "analysis.studies.kamoul_call.charts",
    "reports.kamoul_call_report": "analysis.studies.kamoul_call.page",
    "reports.rami_openings_report": "analysis.studies.rami_openings.page",
    "reports.studies": "analysis.studies.rami_openings.charts",
    "simulator.api": "cardsim",
    "simulator.core.backends": "simulator.core.run.backends",
    "simulator.core.batch": "simulator.core.run.batch",
    "simulator.core.block_kernel": "simulator.core.kernels.block_kernel",
    "simulator.core.blocks": "simulator.core.kernels.blocks",
    "simulator.core.buffers": "simulator.core.kernels.buffers",
    "simulator.core.compile_apart": "simulator.core.kernels.compile_apart",
    "simulator.core.compiling": "simulator.core.kernels.compiling",
    "simulator.core.dask_backend": "simulator.core.run.dask_backend",
    "simulator.core.decisions": "simulator.core.contract.decisions",
    "simulator.core.designs": "simulator.core.run.designs",
    "simulator.core.dirlock": "simulator.core.storage.dirlock",
    "simulator.core.faults": "simulator.core.kernels.faults",
    "simulator.core.file_code": "simulator.core.contract.file_code",
    "simulator.core.game": "simulator.core.contract.game",
    "simulator.core.inlined": "simulator.core.contract.inlined",
    "simulator.core.jit": "simulator.core.kernels.jit",
    "simulator.core.ledger": "simulator.core.storage.ledger",
    "simulator.core.named": "simulator.core.kernels.named",
    "simulator.core.outputs": "simulator.core.storage.outputs",
    "simulator.core.plan": "simulator.core.run.plan",
    "simulator.core.presets": "simulator.core.contract.presets",
    "simulator.core.reference": "simulator.core.kernels.reference",
    "simulator.core.registry": "simulator.core.contract.registry",
    "simulator.core.rng": "simulator.core.kernels.rng",
    "simulator.core.runner": "simulator.core.run.runner",
    "simulator.core.scaffold": "simulator.core.contract.scaffold",
    "simulator.core.sealed": "simulator.core.storage.sealed",
    "simulator.core.seats": "simulator.core.contract.seats",
    "simulator.core.spec": "simulator.core.storage.spec",
    "simulator.core.store": "simulator.core.storage.store",
    "simulator.core.strategy_trial": "simulator.core.contract.strategy_trial",
    "simulator.core.stuck": "simulator.core.run.stuck",
    "simulator.core.trace": "simulator.core.kernels.trace",
    "simulator.core.user_strategies": "simulator.core.contract.user_strategies",
    "simulator.core.user_table": "simulator.core.contract.user_table",
    "simulator.core.verify": "simulator.core.run.verify",
    "simulator.kamoul.beliefs": "simulator.kamoul.engines.beliefs",
    "simulator.kamoul.codes": "simulator.kamoul.vocabulary.codes",
    "simulator.kamoul.counterfactual": "simulator.kamoul.engines.counterfactual",
    "simulator.kamoul.engine": "simulator.kamoul.engines.engine",
    "simulator.kamoul.force_kernel": "simulator.kamoul.engines.force_kernel",
    "simulator.kamoul.hand": "simulator.kamoul.engines.hand",
    "simulator.kamoul.hand_kernel": "simulator.kamoul.engines.hand_kernel",
    "simulator.kamoul.kernel_state": "simulator.kamoul.engines.kernel_state",
    "simulator.kamoul.kernels": "simulator.kamoul.engines.kernels",
    "simulator.kamoul.legal": "simulator.kamoul.vocabulary.legal",
    "simulator.kamoul.match": "simulator.kamoul.engines.match",
    "simulator.kamoul.match_kernel": "simulator.kamoul.engines.match_kernel",
    "simulator.kamoul.plugin": "simulator.kamoul.engines.plugin",
    "simulator.kamoul.records": "simulator.kamoul.vocabulary.records",
    "simulator.kamoul.reference": "simulator.kamoul.engines.reference",
    "simulator.kamoul.rules": "simulator.kamoul.vocabulary.rules",
    "simulator.kamoul.score_kernel": "simulator.kamoul.engines.score_kernel",
    "simulator.kems.codes": "simulator.kems.vocabulary.codes",
    "simulator.kems.engine": "simulator.kems.engines.engine",
    "simulator.kems.kernel_calls": "simulator.kems.engines.kernel_calls",
    "simulator.kems.kernel_state": "simulator.kems.engines.kernel_state",
    "simulator.kems.kernel_view": "simulator.kems.engines.kernel_view",
    "simulator.kems.kernels": "simulator.kems.engines.kernels",
    "simulator.kems.legal": "simulator.kems.vocabulary.legal",
    "simulator.kems.plugin": "simulator.kems.engines.plugin",
    "simulator.kems.records": "simulator.kems.vocabulary.records",
    "simulator.kems.reference": "simulator.kems.engines.reference",
    "simulator.kems.rules": "simulator.kems.vocabulary.rules",
    "simulator.rami.codes": "simulator.rami.vocabulary.codes",
    "simulator.rami.engine": "simulator.rami.engines.engine",
    "simulator.rami.kernel_state": "simulator.rami.engines.kernel_state",
    "simulator.rami.kernels": "simulator.rami.engines.kernels",
    "simulator.rami.legal": "simulator.rami.vocabulary.legal",
    "simulator.rami.melds": "simulator.rami.vocabulary.melds",
    "simulator.rami.melds_ref": "simulator.rami.vocabulary.melds_ref",
    "simulator.rami.plugin": "simulator.rami.engines.plugin",
    "simulator.rami.records": "simulator.rami.vocabulary.records",
    "simulator.rami.reference": "simulator.rami.engines.reference",
    "simulator.rami.round_kernel": "simulator.rami.engines.round_kernel",
    "simulator.rami.rules": "simulator.rami.vocabulary.rules",
    "simulator.rami.screens": "simulator.rami.vocabulary.screens",
    "simulator.rami.table": "simulator.rami.engines.table",
    "simulator.rami.table_kernel": "simulator.rami.engines.table_kernel",
    "strategies.kamoul.answers": "simulator.kamoul.vocabulary.answers",
    "strategies.kamoul.contract": "simulator.kamoul.vocabulary.contract",
    "strategies.kamoul.views": "simulator.kamoul.vocabulary.views",
    "strategies.kems.answers": "simulator.kems.vocabulary.answers",
    "strategies.kems.contract": "simulator.kems.vocabulary.contract",
    "strategies.kems.views": "simulator.kems.vocabulary.views",
    "strategies.rami.answers": "simulator.rami.vocabulary.answers",
    "strategies.rami.contract": "simulator.rami.vocabulary.contract",
    "strategies.rami.views": "simulator.rami.vocabulary.views",
}
"""``{old module name: the module it is now}``."""


class _OldNames(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        return importlib.util.spec_from_loader(fullname, self) if fullname in MOVED else None

    def create_module(self, spec):
        return importlib.import_module(MOVED[spec.name])

    def exec_module(self, module):
        pass  # the new module ran when it was imported


def install() -> None:
    """Put the finder of old names on ``sys.meta_path`` (once)."""
    if not any(isinstance(finder, _OldNames) for finder in sys.meta_path):
        sys.meta_path.append(_OldNames())
