"""The report of a tuning directory (``cardsim tune``): the verdict first, then the tuned player against each
opponent, how the search converged and which parameters mattered, each chart beside its numbers; the tables
folded below."""

from __future__ import annotations

import math
import tomllib
from pathlib import Path

import polars as pl

from analysis.tune import BEST, CONFIRM, RACE, STORAGE, TRIALS, verdict
from reports.html import (_e, _figures_section, _page, _png, _table, write_atomic)
from reports.output import check_output
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


def _convergence(ax, trials: pl.DataFrame) -> None:
    x, share = trials["trial"].to_numpy(), 100 * trials["share"].to_numpy()
    low, high = 100 * trials["low"].to_numpy(), 100 * trials["high"].to_numpy()
    ax.errorbar(x, share, yerr=[share - low, high - share], fmt="o", ms=3, alpha=0.45, lw=0.8, label="trial (95% interval)")
    ax.plot(x, [share[: k + 1].max() for k in range(len(share))], color="C3", lw=1.5, label="best so far")
    ax.axhline(50, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("trial")
    ax.set_ylabel("smallest share of deals won (%)")
    ax.legend(loc="lower right", fontsize=8)


def _versus(ax, confirm: pl.DataFrame) -> None:
    rows = [r for r in confirm.to_dicts() if r["rate"] is not None and not math.isnan(r["rate"])]
    names = [r["opponent"] for r in rows]
    rate = [100 * r["rate"] for r in rows]
    ax.barh(names, rate, xerr=[[100 * (r["rate"] - r["low"]) for r in rows], [100 * (r["high"] - r["rate"]) for r in rows]],
            color="C0", capsize=4)
    ax.axvline(50, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("share of decided deals won by the tuned player (%), 95% interval")
    ax.invert_yaxis()


def _importance(ax, importance: dict[str, float]) -> None:
    names = list(importance)
    ax.barh(names, [100 * importance[n] for n in names], color="C2")
    ax.set_xlabel("importance for reaching the best trials (%, PED-ANOVA)")
    ax.invert_yaxis()


def build_tune_report(out_dir: str | Path, out_html: str | Path, *, title: str | None = None) -> Path:
    """Write the report of the tuning at ``out_dir`` to ``out_html`` (atomically)."""
    out_dir = Path(out_dir)
    out = check_output(out_html, "--out")
    best = tomllib.loads((out_dir / BEST).read_text(encoding="utf-8"))
    trials, race, confirm = (pl.read_parquet(out_dir / name) for name in (TRIALS, RACE, CONFIRM))
    importance = parameter_importance(out_dir)
    title = title or f"cardsim tune: {best['family']} ({best['game']}), {out_dir.name}"
    note = ("Shares are of deals, each played in every seating of the pair; the confirmation counts decided deals "
            f"only (paired sequential test on unseen deals). Every share carries its 95% interval. From {out_dir.resolve()}.")
    sentences = "".join(f'<p class="verdict">{_e(s)}</p>' for s in verdict(out_dir))
    body = f'<section id="verdict"><h2>Verdict</h2>{sentences}</section>'
    figs = [("fig-versus", "The tuned player against each opponent: share of decided deals won, 95% interval.",
             _png(lambda ax: _versus(ax, confirm), figsize=(7.0, 0.6 + 0.5 * max(1, confirm.height))))]
    figs.append(("fig-convergence", "Every trial's share of deals against the opponent it did worst against (95% "
                 "interval), and the best so far.", _png(lambda ax: _convergence(ax, trials))))
    if importance:
        figs.append(("fig-importance", "Which parameters mattered: optuna's PED-ANOVA importance for reaching the "
                     "best trials.",
                     _png(lambda ax: _importance(ax, importance), figsize=(7.0, 0.6 + 0.35 * len(importance)))))
    params = [[_e(k), _e(v)] for k, v in best["params"].items()]
    top = trials.sort("share", descending=True).head(20)
    details = (
        "<details><summary>The tuned parameters</summary>"
        + _table(["parameter", "value"], params, id="best", caption="best.toml") + "</details>"
        + "<details><summary>The race of the best trials (fresh deals)</summary>"
        + _table(["trial", "opponent", "deals", "share", "95% interval"],
                 [[str(r["trial"]), _e(r["opponent"]), f"{r['deals']:,}", f"{100 * r['share']:.2f}%",
                   f"[{100 * r['low']:.2f}, {100 * r['high']:.2f}]"] for r in race.to_dicts()],
                 id="race", caption="race.parquet", numeric={2, 3}) + "</details>"
        + "<details><summary>The 20 best trials</summary>"
        + _table(["trial", "share", "95% interval"],
                 [[str(r["trial"]), f"{100 * r['share']:.2f}%", f"[{100 * r['low']:.2f}, {100 * r['high']:.2f}]"]
                  for r in top.to_dicts()], id="trials", caption="trials.parquet", numeric={1}) + "</details>")
    return write_atomic(out, _page(title, note, body + _figures_section(figs) + details))
