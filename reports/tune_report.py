"""The report of a tuning directory (``cardsim tune``): the verdict beside the tuned player's share against each
opponent, then how the search converged and which parameters mattered, each chart beside its numbers; the tuned
parameters, the race and the best trials folded."""

from __future__ import annotations

import math
import tomllib
from pathlib import Path

import matplotlib.pyplot as plt
import polars as pl

from analysis.tune import BEST, CONFIRM, RACE, STORAGE, TRIALS, verdict
from reports import formats as fmt
from reports.layout import Block, Page, Section, figure, write_page
from reports.output import check_output
from reports.tables import table
from simulator.core.i18n import _


def parameter_importance(out: Path) -> dict[str, float]:
    """optuna's importance of each searched parameter for reaching the best trials' shares (PED-ANOVA, which needs
    no scikit-learn, unlike fANOVA): ``{name: importance}``, summing to 1; empty with too few finished trials."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.load_study(study_name="tune", storage=f"sqlite:///{out / STORAGE}")
    done = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
    if len(done) < 2 or len({t.value for t in done}) < 2:
        return {}
    evaluator = optuna.importance.PedAnovaImportanceEvaluator()
    return dict(optuna.importance.get_param_importances(study, evaluator=evaluator))


def plot_convergence(trials: pl.DataFrame, *, ax=None):
    """Every trial's share against the opponent it did worst against (``trials.parquet``, 95% interval bars) and
    the best so far."""
    ax = ax or plt.gca()
    x, share = trials["trial"].to_numpy(), 100 * trials["share"].to_numpy()
    low, high = 100 * trials["low"].to_numpy(), 100 * trials["high"].to_numpy()
    ax.errorbar(x, share, yerr=[share - low, high - share], fmt="o", ms=3, alpha=0.45, lw=0.8,
                label=_("trial (95% interval)"))
    ax.plot(x, [share[: k + 1].max() for k in range(len(share))], color="C3", lw=1.5, label=_("best so far"))
    ax.axhline(50, color="grey", lw=0.8, ls="--")
    ax.set_xlabel(_("trial"))
    ax.set_ylabel(_("smallest share of deals won (%)"))
    ax.legend(loc="lower right", fontsize=8)
    return ax


def plot_versus(confirm: pl.DataFrame, *, ax=None):
    """The tuned player's share of decided deals against each opponent (``confirm.parquet``), 95% interval."""
    ax = ax or plt.gca()
    rows = [r for r in confirm.to_dicts() if r["rate"] is not None and not math.isnan(r["rate"])]
    rate = [100 * r["rate"] for r in rows]
    ax.barh([r["opponent"] for r in rows], rate, capsize=4, color="C0",
            xerr=[[100 * (r["rate"] - r["low"]) for r in rows], [100 * (r["high"] - r["rate"]) for r in rows]])
    ax.axvline(50, color="grey", lw=0.8, ls="--")
    ax.set_xlabel(_("share of decided deals won by the tuned player (%), 95% interval"))
    ax.invert_yaxis()
    return ax


def plot_importance(importance: pl.DataFrame, *, ax=None):
    """Each parameter's importance (``parameter``, ``importance`` summing to 1), largest first."""
    ax = ax or plt.gca()
    ax.barh(importance["parameter"].to_list(), [100 * v for v in importance["importance"]], color="C2")
    ax.set_xlabel(_("importance for reaching the best trials (%, PED-ANOVA)"))
    ax.invert_yaxis()
    return ax


def build_tune_report(out_dir: str | Path, out_html: str | Path, *, title: str | None = None) -> Path:
    """Write the report of the tuning at ``out_dir`` to ``out_html`` (atomically)."""
    out_dir = Path(out_dir)
    out = check_output(out_html, "--out")
    best = tomllib.loads((out_dir / BEST).read_text(encoding="utf-8"))
    trials, race, confirm = (pl.read_parquet(out_dir / name) for name in (TRIALS, RACE, CONFIRM))
    importance = pl.DataFrame(list(parameter_importance(out_dir).items()), schema=["parameter", "importance"],
                              orient="row")
    headline = figure("fig-versus", _("The tuned player against each opponent: share of decided deals won, 95% "
                                      "interval."),
                      lambda ax: plot_versus(confirm, ax=ax), figsize=(7.0, 0.6 + 0.5 * max(1, confirm.height)))
    convergence = figure("fig-convergence", _("Every trial's share of deals against the opponent it did worst against "
                                              "(95% interval), and the best so far."),
                         lambda ax: plot_convergence(trials, ax=ax))
    top = trials.sort("share", descending=True).head(20)
    best_trials = table([_("trial"), _("share (95% interval)")],
                        [[str(r["trial"]), fmt.share_cell(r["share"], r["low"], r["high"], 2)] for r in top.to_dicts()],
                        id="trials", caption=_("the 20 best trials (trials.parquet)"), numeric={1}, drop_constant=False)
    sections = [Section("convergence", _("How the search converged"), blocks=[Block(convergence, best_trials)])]
    if importance.height:
        chart = figure("fig-importance", _("Which parameters mattered: optuna's PED-ANOVA importance for reaching the "
                                           "best trials."), lambda ax: plot_importance(importance, ax=ax),
                       figsize=(7.0, 0.6 + 0.35 * importance.height))
        sections.append(Section("importance", _("Which parameters mattered"), blocks=[Block(chart)]))
    params = table([_("parameter"), _("value")], [[k, str(v)] for k, v in best["params"].items()], id="best",
                   caption="best.toml", drop_constant=False)
    race_table = table([_("trial"), _("opponent"), _("deals"), _("share (95% interval)")],
                       [[str(r["trial"]), r["opponent"], fmt.count(r["deals"]), fmt.share_cell(r["share"], r["low"], r["high"], 2)]
                        for r in race.to_dicts()], id="race", caption="race.parquet", numeric={2, 3}, drop_constant=False)
    title = title or _("cardsim tune: {family} ({game}), {name}").format(family=best["family"], game=best["game"],
                                                                         name=out_dir.name)
    page = Page(title, verdict(out_dir), sections, headline=headline,
                appendix=[(_("The tuned parameters"), params), (_("The race of the best trials (fresh deals)"), race_table)],
                note=_("Shares are of deals, each played in every seating of the pair; the confirmation counts decided "
                       "deals only (paired sequential test on unseen deals). Every share carries its 95% interval. From "
                       "{path}.").format(path=out_dir.resolve()))
    return write_page(out, page)
