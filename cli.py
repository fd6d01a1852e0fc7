"""``cardsim``: the command line, thin click commands over ``cardsim``.

Every failure is one line on stderr. Bad input of any kind (and a directory another process is writing)
names the field, the value and what is allowed, and exits 2; a dataset that cannot be trusted
(:class:`DatasetError`), an operating-system or resource failure (no space, permission, not a directory, a
name too long, a read-only file system, out of memory) says what happened and where, and exits 1, the
dataset left resumable; a failed cluster exits 3; Ctrl-C 130.
"""

from __future__ import annotations

import contextvars
import errno
import json
import os
import shlex
import shutil
import sys
import textwrap
import time
import warnings
from pathlib import Path

import click
import polars as pl

import cardsim as api
from simulator import __version__
from simulator.core.contract.presets import default_player
from simulator.core.errors import ClusterError, DatasetError, SpecError, StrategyCodeError
from simulator.core.i18n import LANGUAGES, _, set_language
from simulator.core.kernels.compiling import NOTICES
from simulator.core.run.dask_backend import quiet_dask_logs
from simulator.core.run.verify import format_verify
from simulator.core.storage.store import write_bytes_atomic
from simulator.games import GAMES

GAME_HELP = ", ".join(GAMES)


def _complete_game(ctx, param, incomplete):
    """Shell completion of GAME (click's ``shell_complete``)."""
    return [name for name in GAMES if name.startswith(incomplete)]


def _game_of(ctx):
    """The game typed before the word being completed: the parsed GAME, or (when click stopped parsing at the
    option still waiting for its value) the first word of the command's own arguments that names a game."""
    words = [ctx.params.get("game"), *ctx.args, *(ctx.parent.args if ctx.parent is not None else [])]
    return next((GAMES[w] for w in words if isinstance(w, str) and w in GAMES), None)


def _complete_strategy(ctx, param, incomplete):
    """Shell completion of --strategy: the game's registered strategy names."""
    plugin = _game_of(ctx)
    return [] if plugin is None else [name for name in plugin.strategies if name.startswith(incomplete)]


def _complete_option(ctx, param, incomplete):
    """Shell completion of --option: the game's rule option names, each followed by ``=``."""
    plugin = _game_of(ctx)
    return [] if plugin is None else [f"{name}=" for name in plugin.options.names() if name.startswith(incomplete)]


def _notices(quiet: bool) -> None:
    """``--quiet`` also silences the compile notices (simulator/core/kernels/compiling.py)."""
    NOTICES["enabled"] = not quiet


def _quiet_option(f):
    """``--quiet`` on a command whose output is its answer: nothing on stderr (no compile notice, no note), the
    answer still printed."""
    return click.option("--quiet", is_flag=True, help="Nothing on stderr (the answer is still printed).")(f)


def _seat_options(f):
    f = click.option("--option", "options", multiple=True, shell_complete=_complete_option, metavar="K=V",
                     help="A rule option, repeatable (see `cardsim rules GAME`).")(f)
    f = click.option("--strategy", "strategies", multiple=True, shell_complete=_complete_strategy, metavar="NAME[:k=v,...]",
                     help="Strategy for all seats, or repeat once per seat (see `cardsim strategies GAME`; default: "
                          "the tuned player for the table size, tuned-2p at 2 players, tuned-4p from 3).")(f)
    f = click.option("--level", default=None, metavar="LEVEL",
                     help="What one game is: hands | manches | parties | tops (Kamoul; default hands); "
                          "rounds | games (Rami; default rounds); manches | games (Kem's; default manches).")(f)
    f = click.option("--players", type=int, default=None, help="Number of players (Kamoul: 2-6, Rami: 2-8, Kem's: 4 or 6; default 4).")(f)
    return f


def _terminal_width() -> int | None:
    """The terminal's width in columns when stdout is one, else ``None`` (a pipe or a file: lines kept whole)."""
    return max(40, shutil.get_terminal_size((100, 24)).columns - 1) if sys.stdout.isatty() else None


def _echo_wrapped(text: str) -> None:
    """``text`` with each long line wrapped to the terminal's width, its continuation indented under it; written to
    a pipe or a file, as it is."""
    width = _terminal_width()
    if width is None:
        click.echo(text)
        return
    for line in text.splitlines():
        indent = " " * (len(line) - len(line.lstrip()))
        click.echo(textwrap.fill(line, width, subsequent_indent=indent + "    ", break_on_hyphens=False,
                                 break_long_words=False) if len(line) > width else line)


def _choose_language(ctx, param, value):
    if value is not None:
        set_language(value)  # for this call of main() only: it runs in a context of its own
    return value


LANG_OPTION = dict(type=click.Choice(LANGUAGES), default=None, expose_value=False, is_eager=True,
                   callback=_choose_language,
                   help="Language of the verdicts, reports and summaries: en or fr (default: $CARDSIM_LANG, else "
                        "the locale, else en). The game's own words stay French.")


COMMAND_GROUPS = (
    ("The answers", ("study", "advise", "duel")),
    ("Simulating", ("simulate", "replay", "tournament", "sweep")),
    ("Strong play", ("tune", "metagame", "new-strategy")),
    ("Data and reports", ("report", "verify", "plan")),
    ("Tools", ("strategies", "rules", "rami", "warm")),
)
"""How ``cardsim --help`` lists the commands: by what a user comes for, the answers first."""


class GroupedCommands(click.Group):
    """A group whose help lists its commands under the headings of :data:`COMMAND_GROUPS`, in that order."""

    def list_commands(self, ctx):
        ordered = [name for _heading, names in COMMAND_GROUPS for name in names if name in self.commands]
        return ordered + sorted(set(self.commands) - set(ordered))

    def format_commands(self, ctx, formatter):
        limit = formatter.width - 6 - max(len(name) for name in self.commands)
        listed = set()
        for heading, names in COMMAND_GROUPS + (("Other", tuple(sorted(self.commands))),):
            rows = [(name, self.commands[name].get_short_help_str(limit)) for name in names
                    if name in self.commands and name not in listed and not self.commands[name].hidden]
            listed.update(name for name, _help in rows)
            if rows:
                with formatter.section(heading):
                    formatter.write_dl(rows)


@click.group(cls=GroupedCommands, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
             invoke_without_command=True)
@click.version_option(__version__, prog_name="cardsim")
@click.option("--lang", **LANG_OPTION)
@click.pass_context
def cli(ctx):
    """Monte-Carlo strategy simulator for Kamoul, Rami "Kracouil" and Kem's.

    Simulate millions of games with pluggable strategies, store every result as Parquet, replay any
    game from its seed, and read the answers with their 95% intervals. Start with the first example:
    it answers "when should I call KAMOUL?" (the first run compiles the kernels, a few minutes).

    \b
    Examples:
      cardsim study kamoul-call -n 5000 --seed 1 --out runs/kamoul-call
      cardsim advise kamoul --known "2 3 RK" --unknown 1 --turn 6 --players 4
      cardsim study rami-openings -n 200 --out runs/rami-openings
      cardsim study balance kems -n 1000 --out runs/balance-kems
      cardsim duel kamoul --strategy aggressive
      cardsim simulate kamoul -n 1000000 --seed 1 --out runs/k1
      cardsim replay kamoul --index 42 --run runs/k1
      cardsim strategies kamoul
      cardsim rules kamoul
      cardsim rami opening --hand "7H 8H 9H KS KH KD JK"
      cardsim report runs/k1 --out runs/k1/report.html
    """
    if ctx.invoked_subcommand is None:  # `cardsim` alone: the help, not an error
        click.echo(ctx.get_help())


@cli.command()
@click.argument("game", metavar="GAME", shell_complete=_complete_game)
@click.option("-n", "n", type=int, default=None, help="Number of games at --level (e.g. hands). Required unless in --spec.")
@click.option("--seed", type=int, default=None, help="Run seed (default 0). Game i depends only on (seed, i).")
@click.option("--out", type=click.Path(), required=True,
              help="Run directory (new, empty, or the same run to resume).")
@_seat_options
@click.option("--threads", type=int, default=None, help="Worker threads (default: all cores; with --scheduler, numba threads per task, default 1). "
                   "Never changes results.")
@click.option("--chunk-size", type=int, default=None, help="Games per Parquet part file. Never changes results.")
@click.option("--spec", "spec_file", type=click.Path(path_type=Path), default=None,
              help="A TOML run spec; options given on the command line override it.")
@click.option("--scheduler", default=None, envvar="DASK_SCHEDULER_ADDRESS", metavar="ADDR",
              help="Play the chunks on a Dask cluster: its scheduler's address, tcp://HOST:PORT "
                   "(default: $DASK_SCHEDULER_ADDRESS, else this machine; 'local' forces this machine). "
                   "Needs pip install 'cardsim[dask]'; see docs/scale-out.md. Never changes results.")
@click.option("--collect", type=click.Choice(["workers", "client"]), default="workers", show_default=True,
              help="With --scheduler: who writes the part files; 'workers' needs --out on storage shared "
                   "by the workers and this machine (same path), 'client' brings results back here.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary's tables as JSON instead of text.")
@click.option("--quiet", is_flag=True, help="No progress bar and no summary printed (summary.md and .png are written).")
@click.option("--restart", is_flag=True, help="Clear the run already in --out (of any spec, e.g. made with a "
              "strategy file you have edited since) and play it afresh.")
def simulate(game, n, seed, out, players, level, strategies, options, threads, chunk_size, spec_file, scheduler,
             collect, as_json, quiet, restart):
    """Play N games of GAME and write them to a run directory.

    The run directory holds one folder per table (Kamoul: hands/, and manches/, parties/, tops/ at higher
    levels; Rami: rounds/, and games/), each readable as it is with pandas.read_parquet(DIR/"hands") or
    polars.scan_parquet(DIR/"hands"), plus _manifest.json with the full spec, and summary.md/.png.
    Re-running the same command resumes an interrupted run; Ctrl-C stops cleanly after the chunk in
    flight. With --scheduler, a lost cluster stops the run with exit code 3, finished chunks kept.
    """
    _notices(quiet)

    if scheduler and scheduler != "local":
        quiet_dask_logs()  # the command prints one line of its own when the cluster fails
    result = api.simulate(game, out=out, n=n, seed=seed, players=players, level=level, strategies=list(strategies),
                          options=list(options), spec_file=spec_file, threads=threads, chunk_size=chunk_size,
                          progress=not quiet, scheduler=scheduler, collect=collect, restart=restart)
    if result.interrupted:
        click.echo(f"interrupted: the finished chunks are kept in {out}; re-run the same command to resume", err=True)
        sys.exit(130)
    if quiet and not as_json:  # the same files as without --quiet
        from analysis.summary import summarisable

        if summarisable(Path(out)):
            _write_summary(Path(out))
        return
    text, summary = _write_summary(Path(out))
    if as_json:
        click.echo(json.dumps(_frames_json(summary)))
    else:
        click.echo(text)


def _frames_json(frames: dict) -> dict:
    """The polars frames of a result as JSON-ready row lists (other values as they are, a spec as its dict)."""
    return {k: (v.to_dicts() if isinstance(v, pl.DataFrame) else v.to_dict() if hasattr(v, "to_dict") else v)
            for k, v in frames.items()}


def _write_summary(out: Path) -> tuple[str, dict]:
    from analysis.summary import format_summary, run_summary
    from reports.summary import save_summary_figure

    summary = run_summary(out)
    text = format_summary(summary)

    write_bytes_atomic(Path(out) / "summary.md", (text + "\n").encode("utf-8"))
    save_summary_figure(summary, out / "summary.png")
    where = _("run directory: {path}  (summary.md, summary.png, {table}/ …)").format(path=out,
                                                                                     table=summary.get("table", "hands"))
    return text + "\n\n" + where, summary


@cli.command()
@click.argument("game", metavar="GAME", shell_complete=_complete_game)
@click.option("--seed", type=int, default=None, help="The run seed (default: the run's, or 0).")
@click.option("--index", "index", type=int, default=None, help="Index of the game to replay (0 = the first).")
@click.option("--game", "old_index", type=int, default=None, hidden=True,
              help="Deprecated spelling of --index (GAME is the game's name).")
@click.option("--run", "run_dir", type=click.Path(path_type=Path), default=None,
              help="A run directory: replay with its spec and check the replay against it.")
@_seat_options
@click.option("--json", "as_json", is_flag=True,
              help="Print JSON: the seats, the legend, the play-by-play's lines and, with --run, the check.")
@click.option("--quiet", is_flag=True, help="No notices on stderr (the play-by-play is still printed).")
def replay(game, seed, index, old_index, run_dir, players, level, strategies, options, as_json, quiet):
    """Print the play-by-play of one game: every card, peek, swap, snap, call and score.

    Without --run, the game is played from --seed and the same seat and rule options as `simulate`.

    \b
    Example:
      cardsim replay kamoul --index 42 --run runs/k1
    """
    _notices(quiet)
    if old_index is not None:
        if index is not None and index != old_index:
            raise SpecError("--game", old_index, "--index alone (--game is its old spelling)", "differs from --index")
        if not quiet:
            click.echo("note: --game is deprecated, use --index (GAME is the game's name)", err=True)
        index = old_index
    if index is None:
        raise SpecError("--index", None, "the index of the game to replay, e.g. --index 42")
    if run_dir is not None:
        given = [name for name, value in (("--players", players), ("--level", level), ("--strategy", strategies),
                                          ("--option", options)) if value]
        if given:
            raise SpecError(given[0], None, "nothing with --run (the run's own spec is replayed); drop it, or drop "
                            "--run to replay with other settings", "is given with --run")
    settings = dict(seed=seed, index=index, run_dir=run_dir, players=players, level=level,
                    strategies=list(strategies), options=list(options))
    if as_json:
        click.echo(json.dumps(api.replay_data(game, **settings)))
        return
    click.echo(api.replay(game, **settings))


@cli.command()
@click.argument("game", metavar="GAME", shell_complete=_complete_game)
@click.option("--all", "full", is_flag=True, help="Every parameter of every strategy, presets included.")
@click.option("--json", "as_json", is_flag=True, help="Every strategy and parameter as JSON.")
@_quiet_option
def strategies(game, full, as_json, quiet):
    """List GAME's strategies: each family's parameters (default, range, meaning) once, and what each preset
    changes.

    \b
    Example:
      cardsim strategies kamoul
    """
    _notices(quiet)
    if as_json:
        click.echo(json.dumps(api.strategies_data(game)))
        return
    _echo_wrapped(api.strategies_text(game, full=full))


@cli.command("new-strategy")
@click.argument("game", metavar="GAME", shell_complete=_complete_game)
@click.argument("name", metavar="NAME")
@click.option("--out", type=click.Path(), default=".", show_default=True,
              help="Directory to write NAME.py and test_NAME.py into (created if needed; existing files are kept).")
@click.option("--quiet", is_flag=True, help="Print nothing (the files are written all the same).")
def new_strategy(game, name, out, quiet):
    """Write a strategy module for GAME that plays like the default strategy, and a test file for it.

    Every decision of GAME's contract is a documented numba function (what it sees, what it may answer),
    whose body you edit. Then: cardsim tournament GAME --strategy OUT/NAME.py:NAME --strategy balanced ...,
    and python -m pytest OUT/test_NAME.py.
    """
    written = api.new_strategy(game, name, out)
    if quiet:
        return
    click.echo(f"wrote {written.module} and {written.test}\n"
               f"  try it:  cardsim tournament {game} --strategy {written.module}:{name} --strategy "
               f"{default_player(api.get_game(game))} -n 20000 --out runs/{name}\n"
               f"  test it: python -m pytest {written.test}")


@cli.command()
@click.argument("games", metavar="[GAME]...", nargs=-1)
@click.option("--quiet", is_flag=True, help="No compile notices, no summary line.")
def warm(games, quiet):
    """Compile the kernels of GAME (default: every game) ahead, so that later commands start at once.

    The first run of a kernel on a machine compiles it (about a minute per game, said by a notice); the
    compiled code is kept in ~/.cache/cardsim (CARDSIM_CACHE_DIR moves it). Kamoul also compiles its
    rollout kernels (study kamoul-call, advise). A kernel already compiled is only loaded.

    \b
    Example:
      cardsim warm kamoul
    """
    begin = time.perf_counter()
    done = api.warm(list(games), quiet=quiet)
    if not quiet:
        click.echo(f"ready: {', '.join(done)} ({time.perf_counter() - begin:.0f} s)")


@cli.command()
@click.argument("game", metavar="GAME", shell_complete=_complete_game)
@click.option("--json", "as_json", is_flag=True, help="Every rule option as JSON.")
@_quiet_option
def rules(game, as_json, quiet):
    """List GAME's rule options with their defaults, allowed values and rule numbers.

    \b
    Example:
      cardsim rules kamoul
    """
    _notices(quiet)
    if as_json:
        click.echo(json.dumps(api.rules_data(game)))
        return
    _echo_wrapped(api.rules_text(game))


@cli.command()
@click.argument("run_dir", metavar="RUN", type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(), required=True, help="The HTML file to write (its folder must exist).")
@click.option("--pdf", type=click.Path(), default=None,
              help="Also print the report to this PDF (needs Chromium: apt-get install chromium).")
@click.option("--title", default=None, help="The report's title (default: game and run name).")
@click.option("--quiet", is_flag=True, help="Print nothing (the files are written all the same).")
def report(run_dir, out, pdf, title, quiet):
    """Write one self-contained HTML report of the run directory RUN: its spec, the summary tables with
    95% intervals, and the charts (win rates, points, outcome kinds, length of each level) embedded.
    RUN may also be a tournament or sweep directory: win-rate matrix, points gap and ratings, or the
    per-cell sweep summary, with their charts.
    """
    result = api.report(run_dir, out, pdf=pdf, title=title)
    if not quiet:
        click.echo(_("report: {html} and {pdf}").format(html=result["html"], pdf=result["pdf"]) if result["pdf"]
                   else _("report: {path}").format(path=result["html"]))


@cli.command()
@click.option("--p1", type=float, required=True, help="Win rate of A you want to be able to detect, e.g. 0.55.")
@click.option("--p2", type=float, default=0.5, show_default=True, help="Win rate of B (or the reference).")
@click.option("--alpha", type=float, default=0.05, show_default=True, help="Two-sided significance level.")
@click.option("--power", type=float, default=0.8, show_default=True, help="Chance of detecting the difference.")
@click.option("--rho", "paired_rho", type=float, default=0.0, show_default=True,
              help="Correlation of A's and B's results on the same deal (paired designs gain from it).")
@click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON.")
@_quiet_option
def plan(p1, p2, alpha, power, paired_rho, as_json, quiet):
    """How many games do I need to tell win rates P1 and P2 apart?

    A fixed-size two-sided test at ALPHA with POWER. With common random numbers (tournaments and sweeps play
    every cell on the same deals) the results are correlated, which `--rho` takes into account. To stop as
    soon as the answer is known instead, use `cardsim duel`.

    \b
    Example:
      cardsim plan --p1 0.55 --p2 0.50
    """
    _notices(quiet)
    r = api.plan(p1=p1, p2=p2, alpha=alpha, power=power, paired_rho=paired_rho)
    if as_json:
        click.echo(json.dumps(r))
        return
    click.echo(f"games per strategy: {r['games']:,}  (to tell {p1:.1%} from {p2:.1%}, two-sided alpha {alpha}, "
               f"power {power:.0%}, paired correlation {paired_rho}; independent samples: {r['games_unpaired']:,})")


@cli.command()
@click.argument("game", metavar="GAME", shell_complete=_complete_game)
@click.option("--strategy", required=True, shell_complete=_complete_strategy, metavar="FAMILY[:k=v,...]",
              help="The family to tune (e.g. heuristic, or a preset of it); k=v fixes a parameter.")
@click.option("--param", "params", multiple=True, metavar="NAME[=LO:HI]",
              help="A parameter to search, in its declared range or LO:HI inside it (repeatable; default: every "
                   "decision parameter, not abilities such as speed or memory).")
@click.option("--against", required=True, metavar="A,B,...", help="The population: strategies, comma-separated.")
@click.option("--weights", default=None, metavar="W1,W2,...",
              help="The population as a mixture, one weight per member of --against (summing to 1): the best "
                   "response to it is sought, instead of the player that holds its own against every member.")
@click.option("--players", type=int, default=None, help="Number of players (default: the game's).")
@click.option("--budget", type=int, required=True, help="Trials (parameter sets tried).")
@click.option("--deals", type=int, default=None,
              help="Deals per opponent and trial, each in every seating [default: 1000].")
@click.option("--confirm-deals", type=int, default=None,
              help="Most deals of each confirmation duel against a member of AGAINST [default: 20000].")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the deals and of the optimiser.")
@click.option("--option", "options", multiple=True, shell_complete=_complete_option, metavar="K=V",
              help="A rule option, repeatable.")
@click.option("--out", type=click.Path(), required=True, help="Tuning directory (new, empty, or the same to resume).")
@click.option("--threads", type=int, default=None, help="Worker threads (default: all cores). Never changes results.")
@click.option("--scheduler", default=None, envvar="DASK_SCHEDULER_ADDRESS", metavar="ADDR",
              help="Play every evaluation on a Dask cluster: its scheduler's address, tcp://HOST:PORT (or "
                   "$DASK_SCHEDULER_ADDRESS). The same trials and result as on this machine.")
@click.option("--json", "as_json", is_flag=True, help="Print the answer and the tuned parameters as JSON.")
@click.option("--quiet", is_flag=True, help="No progress and no notices; the answer is still printed.")
def tune(game, strategy, params, against, weights, players, budget, deals, confirm_deals, seed, options, out,
         threads, scheduler, as_json, quiet):
    """Find the parameters of a strategy family that hold their own best against every member of a population.

    optuna's TPE sampler proposes parameters; each trial plays the same deals against every member of AGAINST
    (each deal in every seating, judged by whole manches in Kamoul, whole games in Rami and Kem's) and scores its
    smallest share of deals. The five best trials are played again on fresh deals, and the best of them meets
    each opponent in `duel`'s paired sequential test on unseen deals. Writes OUT/report.html, OUT/best.toml (the
    tuned player as a preset: --strategy OUT/best.toml plays it), trials.parquet, race.parquet, confirm.parquet;
    re-running the same command resumes.

    \b
    Example:
      cardsim tune kamoul --strategy heuristic --against balanced,cautious,aggressive --players 4 \\
          --budget 200 --out runs/tune-k4
    """
    _notices(quiet)
    if scheduler and scheduler != "local":
        quiet_dask_logs()  # the command prints one line of its own when the cluster fails
    result = api.tune(game, strategy=strategy, params=list(params), against=against, budget=budget, out=out,
                      players=players, seed=seed, deals=deals, options=list(options), threads=threads,
                      progress=not quiet, command=_command_line(), confirm_deals=confirm_deals, scheduler=scheduler,
                      weights=weights)
    if result.interrupted:
        click.echo(f"interrupted: the finished trials are kept in {result.path}; re-run the same command to resume",
                   err=True)
        sys.exit(130)
    from analysis.tune import verdict

    lines = verdict(result.path)
    if as_json:
        click.echo(json.dumps({"verdict": lines, "best": result.best,
                               **{k: v.to_dicts() for k, v in result.frames.items() if v is not None}}, default=str))
        return
    click.echo("\n".join(lines))
    click.echo("\n" + _("tuning directory: {path}").format(path=result.path) + "  (report.html, best.toml, trials.parquet, race.parquet, "
               "confirm.parquet)")


def _command_line() -> str:
    """The command as typed (recorded with a tuned preset, to reproduce it)."""
    return "cardsim " + " ".join(shlex.quote(a) for a in sys.argv[1:])


@cli.command()
@click.argument("game", shell_complete=_complete_game)
@click.option("--strategy", "strategies", multiple=True, shell_complete=_complete_strategy, metavar="NAME[:k=v,...]", required=True,
              help="Strategy A, then strategy B (give --strategy twice; once: A against the default player, the "
                   "tuned player for the table size).")
@click.option("--delta", type=float, default=0.05, show_default=True,
              help="Smallest edge worth detecting: A's share of won duels away from 50% by this much.")
@click.option("--alpha", type=float, default=0.05, show_default=True, help="Chance of a false 'beats'.")
@click.option("--beta", type=float, default=0.05, show_default=True, help="Chance of missing a real edge of delta.")
@click.option("--max-games", type=int, default=200_000, show_default=True, help="Give up after this many deals.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the deals.")
@click.option("--players", type=int, default=None, help="Number of players (default: the game's).")
@click.option("--level", default=None, metavar="LEVEL",
              help="What one game is (default: what the game is won by: Kamoul manches, Rami and Kem's games).")
@click.option("--option", "options", multiple=True, shell_complete=_complete_option, metavar="K=V", help="A rule option, repeatable.")
@click.option("--threads", type=int, default=None, help="Worker threads (default: all cores). Never changes results.")
@click.option("--json", "as_json", is_flag=True, help="Print the full answer as JSON.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def duel(game, strategies, delta, alpha, beta, max_games, seed, players, level, options, threads, as_json, quiet):
    """Does A beat B? Plays paired deals until a sequential test knows, and stops there.

    Every deal is played in each seating of the pair (ABAB... and BABA...), so both strategies hold every
    position on the same cards; a deal goes to the strategy whose seats won more of its games (by default
    whole manches in Kamoul, whole games in Rami and Kem's; mean points per hand beside). Wald's
    sequential test stops as soon as "A beats B", "B beats A" (by at least DELTA) or "within DELTA" is
    decided, with error rates ALPHA and BETA; it prints the decision, the deals it took and A's share of
    decided deals with its 95% interval.

    \b
    Example:
      cardsim duel kamoul --strategy aggressive --strategy balanced --delta 0.03
    """
    _notices(quiet)

    result = api.duel(game, strategies=list(strategies), delta=delta, alpha=alpha, beta=beta, max_games=max_games,
                      seed=seed, players=players, level=level, options=list(options), threads=threads,
                      progress=not quiet)
    if as_json:
        click.echo(json.dumps(result))
        return
    from analysis.duel import format_duel

    click.echo(format_duel(result))


@cli.command()
@click.argument("game", shell_complete=_complete_game)
@click.option("--known", required=True, metavar="CARDS",
              help='The own cards you know, by rank: "2 3 RK" (A 2-10 J Q, RK red king = 0, BK black king = 15).')
@click.option("--unknown", type=int, default=0, show_default=True, help="Own cards you have not seen.")
@click.option("--turn", type=int, required=True, help="Your own turn number in this hand (1 = your first turn).")
@click.option("--players", type=int, default=None, help="Number of players (2-6) [default: 4].")
@click.option("--cumulative", type=int, default=0, show_default=True,
              help="Your cumulative score in the manche (-15 or less / 15 or more: au-score zones).")
@click.option("--strategy", default=None, shell_complete=_complete_strategy, metavar="NAME[:k=v,...]",
              help="How everyone plays (and how you play on if you do not call) [default: the tuned player for "
                   "the table size, as in the study: tuned-2p at 2 players, tuned-4p from 3].")
@click.option("--option", "options", multiple=True, shell_complete=_complete_option, metavar="K=V", help="A rule option, repeatable.")
@click.option("--spec", "spec_file", type=click.Path(path_type=Path), default=None,
              help="A TOML file with any of players, seed, strategies (one) and [options] (flags override it).")
@click.option("--samples", type=int, default=20_000, show_default=True,
              help="Situations to sample (precision: the intervals shrink as 1/sqrt of this).")
@click.option("--seed", type=int, default=None, help="Seed of the sampled hands [default: 0].")
@click.option("--threads", type=int, default=None, help="Worker threads (default: all cores). Never changes results.")
@click.option("--json", "as_json", is_flag=True, help="Print the full answer as JSON.")
@click.option("--quiet", is_flag=True, help="No notices on stderr (the answer is still printed).")
def advise(game, known, unknown, turn, players, cumulative, strategy, options, spec_file, samples, seed, threads,
           as_json, quiet):
    """Call KAMOUL now or play on? One situation, answered by rollouts of both choices on the same deals.

    \b
    GAME: kamoul.
    Samples hands of STRATEGY at every seat in which your own turn TURN comes with nobody having
    called yet, gives you the KNOWN cards and UNKNOWN unseen ones there, and plays the rest of the
    hand both ways on the same future. Prints the win probability and expected hand points either
    way and the points calling saves, each with its 95% interval, and the advice. A situation that
    rarely arises (late turns at a big table) is sampled from at most 1,000,000 hands and says so.

    \b
    Examples:
      cardsim advise kamoul --known "2 3 RK" --unknown 1 --turn 6 --players 4
      cardsim advise kamoul --known "A 2 RK" --turn 3 --players 2 --json
      cardsim advise kamoul --known "2 3" --unknown 1 --turn 8 --strategy cautious
    """
    _notices(quiet)
    result = api.advise(game, known=known, unknown=unknown, turn=turn, players=players, cumulative=cumulative,
                        strategy=strategy, options=list(options), samples=samples, seed=seed, threads=threads,
                        spec_file=spec_file)
    if as_json:
        click.echo(json.dumps(result))
        return
    from analysis.studies.kamoul_call.study import format_advice

    click.echo(format_advice(result))


@cli.group()
def rami():
    """Rami "Kracouil" tools (rules in docs/rules/rami.md)."""


@rami.command()
@click.option("--hand", "hand", required=True, metavar="CARDS",
              help='The hand, card names separated by spaces: "7H 8H 9H KS KH KD JK" (JK = joker, 10H or TH).')
@click.option("--decks", type=int, default=2, show_default=True,
              help="54-card decks in play (1-3): at most that many copies of a card, twice that many jokers.")
@click.option("--opening-points", type=int, default=51, show_default=True, help="Points an opening must total (R7).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: can_open, points, threshold, melds, hand, decks.")
@_quiet_option
def opening(hand, decks, opening_points, as_json, quiet):
    """Can HAND open (R7), for how many points, with which melds? Exact search.

    Melds must include a tierce franche (a pure run of three); a joker counts zero toward the opening.
    A joker is shown as JK=<card it stands for>.
    """
    _notices(quiet)
    result = api.rami_opening(hand, decks=decks, opening_points=opening_points)
    if as_json:
        click.echo(json.dumps(result))
        return
    verdict = "yes" if result["can_open"] else f"no: {result['why_not']}"
    click.echo(f"can open: {verdict} (best opening {result['points']} points; {result['threshold']} needed)")
    click.echo(f"hand: {' '.join(result['hand'])} ({len(result['hand'])} cards, {result['decks']} deck(s))"
               + (f"; read {', '.join(result['read'])}" if result["read"] else ""))
    if result["melds"]:
        click.echo("melds:")
        for meld in result["melds"]:
            click.echo("  " + " ".join(meld))
    else:
        click.echo("melds: none")


def _batch_options(f):
    f = click.option("--json", "as_json", is_flag=True, help="Print the verdict and tables as JSON instead of text.")(f)
    f = click.option("--quiet", is_flag=True, help="No progress bars and no printed table.")(f)
    f = click.option("--chunk-size", type=int, default=None, help="Games per Parquet part file. Never changes results.")(f)
    f = click.option("--threads", type=int, default=None, help="Worker threads (default: all cores). Never changes results.")(f)
    f = click.option("--option", "options", multiple=True, shell_complete=_complete_option, metavar="K=V",
                     help="A rule option for every cell, repeatable (see `cardsim rules GAME`).")(f)
    f = click.option("--level", default=None, metavar="LEVEL", help="What one game is (as in `simulate`). Default: "
                     "for a tournament, what the game is won by (Kamoul manches, Rami and Kem's games); for a sweep, "
                     "the finest level (hands | rounds | manches).")(f)
    f = click.option("--players", type=int, default=None, help="Number of players (default 4).")(f)
    f = click.option("--out", type=click.Path(), required=True,
                     help="Batch directory (new, empty, or the same batch to resume).")(f)
    f = click.option("--seed", type=int, default=0, show_default=True,
                     help="The seed of every cell: game i is dealt from (seed, i) in every cell.")(f)
    f = click.option("-n", "n", type=int, required=True, help="Games per cell (seating or grid point) at --level.")(f)
    return f


def _finish_batch(result, text_of, quiet: bool, as_json: bool = False) -> None:
    if result.interrupted:
        click.echo(f"interrupted: the finished chunks are kept in {result.path}; re-run the same command to resume",
                   err=True)
        sys.exit(130)
    if as_json:
        payload = {"kind": result.batch.kind, "inputs": result.batch.inputs, **_frames_json(result.frames)}
        if result.batch.kind == "tournament":
            from analysis.batches import tournament_verdict

            payload["verdict"] = tournament_verdict(result.frames, result.batch.inputs).splitlines()
        click.echo(json.dumps(payload, default=str))
    elif not quiet:
        click.echo(text_of(result.frames, result.batch.inputs))
        click.echo("\n" + _("batch directory: {path}").format(path=result.path) + "  (_batch.json, cells/cell=<id>/, "
                   + ("matrix.parquet, ratings.parquet)" if result.batch.kind == "tournament"
                      else "summary.parquet, outcomes.parquet)"))


@cli.command()
@click.argument("tournament_dir", metavar="DIR", type=click.Path())
@click.option("--bootstrap", type=int, default=None,
              help="Bootstrap replicates of the tournament's games, for the 95% intervals [default: 1000].")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap (and, with --grow, of "
              "the tunings).")
@click.option("--grow", is_flag=True, help="Grow the population by best responses (PSRO): each round tunes the "
              "best reply to the equilibrium, adds it, plays the tournament again and solves it anew.")
@click.option("--rounds", type=int, default=3, show_default=True, help="With --grow: at most this many rounds.")
@click.option("--budget", type=int, default=None, help="With --grow: trials of each round's tuning (required).")
@click.option("--family", default=None, metavar="FAMILY[:k=v,...]",
              help="With --grow: the family the best replies are tuned in (default: the tournament's first "
                   "strategy with parameters, e.g. heuristic).")
@click.option("--param", "params", multiple=True, metavar="NAME[=LO:HI]",
              help="With --grow: a parameter to search (as in cardsim tune; default: every decision parameter).")
@click.option("--deals", type=int, default=None, help="With --grow: deals per opponent and trial [default: 1000].")
@click.option("--out", type=click.Path(), default=None,
              help="With --grow: the growth's directory [default: DIR.grow, beside DIR]; re-running resumes.")
@click.option("--threads", type=int, default=None, help="Worker threads (default: all cores). Never changes results.")
@click.option("--json", "as_json", is_flag=True, help="Print the answer, the mixture and every member as JSON.")
@click.option("--quiet", is_flag=True, help="No progress and no notices; the answer is still printed.")
def metagame(tournament_dir, bootstrap, seed, grow, rounds, budget, family, params, deals, out, threads, as_json,
             quiet):
    """Which strategy, or mixture of strategies, can no member of a tournament beat?

    Reads the win-rate matrix of the tournament in DIR (cardsim tournament ... --out DIR) as a symmetric
    zero-sum game between two sides and solves its Nash equilibrium by linear programming: the mixture of
    strategies that no strategy of the tournament beats, which strategies are in it, and how much the best reply
    beats each member (its exploitability). A bootstrap over the tournament's games gives 95% intervals and how
    often each strategy is in the equilibrium. Writes the report DIR/metagame.html (verdict, the matrix as a
    heatmap, the mixture and every member with their intervals); the tournament's own report has the same
    section.

    \b
    Example:
      cardsim tournament kamoul -n 20000 --strategy balanced --strategy cautious --strategy aggressive \\
          --strategy tuned-4p --out runs/t4
      cardsim metagame runs/t4
    """
    from analysis.metagame import to_dict, verdict

    _notices(quiet)
    if grow:
        _grow(tournament_dir, bootstrap, seed, rounds, budget, family, params, deals, out, threads, as_json, quiet)
        return
    for name, value in (("--budget", budget), ("--family", family), ("--deals", deals), ("--out", out),
                        ("--param", params or None), ("--threads", threads)):
        if value is not None:
            raise SpecError(name, value, "only with --grow")
    result = api.metagame(tournament_dir, bootstrap=bootstrap, seed=seed)
    if as_json:
        click.echo(json.dumps({**to_dict(result), "html": str(result.html)}))
        return
    click.echo("\n".join(verdict(result)))
    click.echo("")
    click.echo(_metagame_table(result))
    if not quiet:
        click.echo("\n" + _("report: {path}").format(path=result.html))


def _grow(tournament_dir, bootstrap, seed, rounds, budget, family, params, deals, out, threads, as_json, quiet):
    """``cardsim metagame DIR --grow``: see ``analysis.psro``."""
    from analysis.metagame import to_dict, verdict
    from analysis.psro import aliases, grow_verdict

    if budget is None:
        raise SpecError("--budget", None, "trials of each round's tuning, with --grow")
    result = api.metagame_grow(tournament_dir, rounds=rounds, budget=budget, out=out, family=family,
                               params=list(params), deals=deals, bootstrap=bootstrap, seed=seed, threads=threads,
                               progress=not quiet)
    if result.interrupted:
        click.echo(f"interrupted: the finished rounds are kept in {result.path}; re-run the same command to resume",
                   err=True)
        sys.exit(130)
    lines = grow_verdict(result) + (verdict(result.final, aliases(result)) if result.final else [])
    if as_json:
        click.echo(json.dumps({"verdict": lines, "rounds": result.rounds.to_dicts(),
                               "final": to_dict(result.final) if result.final else None}, default=str))
        return
    click.echo("\n".join(lines))
    click.echo(f"\ngrowth directory: {result.path}  (rounds.parquet, round-<k>/tune/, round-<k>/tournament/)")


def _metagame_table(result) -> str:
    """The mixture and the members, one line each."""
    lines = [f"{'strategy':<28} {'weight [95%]':>20} {'in eq.':>7} {'vs mixture [95%]':>24} "
             f"{'best reply beats it [95%]':>34}"]
    members = {r["strategy"]: r for r in result.members.iter_rows(named=True)}
    for r in result.mixture.sort("weight", descending=True).iter_rows(named=True):
        m = members[r["strategy"]]
        lines.append(
            f"{r['strategy']:<28} {r['weight']:>6.2f} [{r['weight_low']:.2f}, {r['weight_high']:.2f}] "
            f"{100 * r['in_support']:>6.0f}% {100 * (0.5 + m['value']):>6.1f}% [{100 * (0.5 + m['value_low']):.1f}, "
            f"{100 * (0.5 + m['value_high']):.1f}] {100 * (0.5 + m['exploitability']):>6.1f}% "
            f"[{100 * (0.5 + m['exploit_low']):.1f}, {100 * (0.5 + m['exploit_high']):.1f}] "
            + (f"by {m['best_reply']}" if m["best_reply"] else "(no member beats it)"))
    return "\n".join(lines)


@cli.command()
@click.argument("game", metavar="GAME", shell_complete=_complete_game)
@click.option("--strategy", "strategies", multiple=True, shell_complete=_complete_strategy, required=True, metavar="NAME[:k=v,...]",
              help="A strategy of the tournament; repeat for each (given once: it plays the default player, the "
                   "tuned player for the table size).")
@_batch_options
def tournament(game, strategies, n, seed, out, players, level, options, threads, chunk_size, quiet, as_json):
    """Play every pair of strategies against each other, seats rotated, on identical deals.

    For each pair (A, B) the strategies take turns over the seats (Kem's: over the teams): the distinct
    rotations of ABAB… and BABA… (2 players: AB, BA; 4: ABAB, BABA; 3: ABA, BAA, AAB, BAB, ABB, BBA),
    each seating N games with the same seed, so every pair and seating plays the same deals. A game (by
    default what the game is won by: a whole manche in Kamoul, a whole game in Rami and Kem's) is won by the
    strategy of its winner; games with no winner are left out and counted. It opens with its verdict: the
    strongest strategy, its share of won games and how it fares against the next best, with 95% intervals.

    Prints and stores (OUT/matrix.parquet, OUT/ratings.parquet) the win rate of each strategy against
    each other one with its 95% Wilson interval, and Bradley–Terry ratings with 95% intervals. Every
    seating is an ordinary run in OUT/cells/cell=<id>/; re-running the same command resumes.

    \b
    Example:
      cardsim tournament kamoul -n 20000 --strategy balanced --strategy cautious \\
          --strategy aggressive --strategy random --out runs/t1
    """
    from analysis.batches import format_tournament

    _notices(quiet)

    result = api.tournament(game, strategies=list(strategies), out=out, n=n, seed=seed, players=players, level=level,
                            options=list(options), threads=threads, chunk_size=chunk_size, progress=not quiet)
    _finish_batch(result, format_tournament, quiet, as_json)


@cli.command()
@click.argument("game", metavar="GAME", shell_complete=_complete_game)
@click.option("--grid", "grids", multiple=True, metavar='"PARAM=V1,V2,..."',
              help="Values of a strategy parameter to sweep, on the seats of --seat; repeatable.")
@click.option("--option-grid", "option_grids", multiple=True, metavar='"OPTION=V1,V2,..."',
              help="Values of a rule option to sweep (overrides the same --option); repeatable.")
@click.option("--seat", "seats", multiple=True, type=int, metavar="K",
              help="Apply --grid to seat K only (repeatable; default: every seat).")
@click.option("--strategy", "strategies", multiple=True, shell_complete=_complete_strategy, metavar="NAME[:k=v,...]",
              help="The seats' strategies, one for all or one per seat, as in `simulate`.")
@_batch_options
def sweep(game, grids, option_grids, seats, strategies, n, seed, out, players, level, options, threads, chunk_size,
          quiet, as_json):
    """Run a grid of strategy parameters and rule options as one dataset, every cell on the same deals.

    The cells are every combination of the grids' values (first grid slowest); each is an ordinary run
    in OUT/cells/cell=<id>/ with the same seed. A --grid parameter must be declared by the strategy of
    every seat it applies to. Prints, and stores in OUT/summary.parquet, each cell's win rate and mean
    points per swept seat (Kem's: per team) with 95% intervals; OUT/outcomes.parquet holds the outcome
    shares per cell. Re-running the same command resumes.

    \b
    Examples:
      cardsim sweep kamoul -n 20000 --grid "call_threshold=1,3,5,7" --seat 0 --out runs/s1
      cardsim sweep kamoul -n 20000 --option-grid "snap_chain=false,true" --out runs/s2
    """
    from analysis.batches import format_sweep

    _notices(quiet)

    result = api.sweep(game, out=out, n=n, grids=list(grids), option_grids=list(option_grids), seats=list(seats),
                       seed=seed, players=players, level=level, strategies=list(strategies), options=list(options),
                       threads=threads, chunk_size=chunk_size, progress=not quiet)
    _finish_batch(result, format_sweep, quiet, as_json)


@cli.command()
@click.argument("directory", metavar="DIR", type=click.Path(path_type=Path))
@click.option("--repair", is_flag=True,
              help="Set it right: damaged and foreign files to DIR/_quarantine/, strays removed, whole unlisted parts "
                   "adopted, a lost manifest rebuilt from the parts' metadata; then re-run the command that wrote DIR "
                   "to play again what is missing.")
@click.option("--json", "as_json", is_flag=True, help="Print the full answer as JSON.")
@_quiet_option
def verify(directory, repair, as_json, quiet):
    """Check a run, tournament, sweep or study directory against its manifests.

    Every part the manifest lists must be there with the size and sha256 recorded when it was written, and
    the table folders must hold nothing else. Lists what is missing, damaged, foreign (another run's part,
    any other file) or unlisted; exit code 0 only when all is sound, 1 otherwise. Batches are checked cell
    by cell, studies through every run and batch they hold. Takes no lock and writes nothing (--repair
    takes each run's lock).

    \b
    Examples:
      cardsim verify runs/k1
      cardsim verify runs/k1 --repair
    """
    _notices(quiet)
    result = api.verify(directory, repair=repair)
    if as_json:
        click.echo(json.dumps(result))
    else:
        click.echo(format_verify(result))
    if not result["sound"]:
        raise click.exceptions.Exit(1)


@cli.command()
@click.argument("name", metavar="STUDY")
@click.argument("game", required=False, shell_complete=_complete_game)
@click.option("--out", type=click.Path(), required=True,
              help="Study directory (new, empty, or the same study to resume).")
@click.option("-n", "n", type=int, default=None,
              help="How much each part plays (required unless in --spec). rami-openings: whole games per seating "
                   "or grid point; kamoul-call: "
                   "manches sampled per player count (one decision per hand) and manches per seating of its "
                   "tournaments; balance: games per cell of its sweeps (the game's finest level), per seating "
                   "of its skill tournament (what the game is won by: Kamoul manches, Rami and Kem's games) and of "
                   "its seats run (the coarsest level).")
@click.option("--seed", type=int, default=None, help="The seed of every cell [default: 0].")
@click.option("--players", default=None,
              help="Player counts, comma-separated [rami-openings: 2,3,4,6; kamoul-call: 2,3,4,6; "
                   "balance: the game's default].")
@click.option("--option", "options", multiple=True, shell_complete=_complete_option, metavar="K=V",
              help="A rule option every part is played under, repeatable (see `cardsim rules GAME`); the balance "
                   "study sweeps each option around these.")
@click.option("--strategy", "strategies", multiple=True, shell_complete=_complete_strategy, metavar="NAME[:k=v,...]",
              help="Who plays. kamoul-call: one strategy, whose play the states are sampled from and which plays on "
                   "(default tuned: tuned-2p at 2 players, tuned-4p at 3, 4 and 6); rami-openings: two or more, the "
                   "tournaments' strategies, played as given (the first also plays the sweeps; default: every opening "
                   "style with the rest of the play tuned); balance: two or more, the skill tournament's (the first "
                   "also plays the seats run and the rule sweeps; default: random, the tuned player and the presets, "
                   "the tuned player everywhere else).")
@click.option("--spec", "spec_file", type=click.Path(path_type=Path), default=None,
              help="A TOML file with any of n, seed, players, strategies and [options] (flags override it).")
@click.option("--threads", type=int, default=None, help="Worker threads (default: all cores). Never changes results.")
@click.option("--chunk-size", type=int, default=None, help="Games per Parquet part file. Never changes results.")
@click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON (OUT/answer.json) instead of text.")
@click.option("--quiet", is_flag=True, help="No progress bars.")
def study(name, game, out, n, seed, players, options, strategies, spec_file, threads, chunk_size, as_json, quiet):
    """Run a study and write its dataset and OUT/report.html (GAME may be omitted for one-game studies).

    \b
    STUDY [GAME]:
      kamoul-call    when to call KAMOUL: from states sampled in real play, "call now" against
                     "play on" on the same future deals, by known points x unseen cards x turn x
                     players x cumulative zone; the call policy that follows and its measured gain
                     over each preset in paired tournaments.
      rami-openings  every named Rami opening strategy (open-asap, open-big, rami-sec-hunter,
                     joker-keeper, open-small, open-all, joker-saver, meld-holder), each with the
                     rest of the play tuned, against the others at each --players count
                     (OUT/tournament-<P>p/) and the mix of styles no style can exploit,
                     the opening threshold (OUT/threshold/: opening_points 40, 51, 61, 71) and the
                     joker rules (OUT/jokers/: joker_swap x joker_opening_value) at 4 players; frames
                     OUT/opening_turns.parquet (turn of opening) and OUT/rami_sec.parquet (rami sec
                     frequency and payoff), with 95% intervals.
      balance GAME   is the rule set balanced (kamoul, rami or kems), on tuned play: seat advantage,
                     luck vs skill, game lengths, one sweep per rule option, and the game's own
                     questions.

    It ends by printing its answer: at most three short sentences as a player would say them, then
    a small table of the key numbers with their 95% intervals (a cell marked "even" is break-even,
    one marked "tentative" rests on too few units, with how many more would settle it). Every
    number is in OUT/answer.md and OUT/answer.json (--json prints the latter), and the answer opens
    OUT/report.html. Every part is resumable: re-running the same command resumes. The study's inputs
    are in OUT/_study.json; `cardsim report OUT --out X.html` rebuilds its report.

    \b
    Examples:
      cardsim study kamoul-call -n 20000 --out runs/kamoul-call
      cardsim study rami-openings -n 2000 --out runs/study2
      cardsim study balance kems -n 2000 --out runs/balance-kems
    """
    _notices(quiet)

    result = api.study(name, game, out=out, n=n, seed=seed, players=players, options=list(options),
                       strategies=list(strategies), spec_file=spec_file, threads=threads, chunk_size=chunk_size,
                       progress=not quiet)
    if result["interrupted"]:
        click.echo(f"interrupted: the finished chunks are kept in {result['path']}; re-run the same command to resume",
                   err=True)
        sys.exit(130)
    if as_json:
        click.echo(result["answer"].json())
        return
    click.echo(result["answer"].text())
    click.echo("\n" + _("study: {path}  (answer.md, answer.json, report: {html})").format(path=result["path"],
                                                                                       html=result["html"]))


HINTS = {
    errno.ENOSPC: "free some space, then re-run the same command: what is finished is kept",
    errno.EDQUOT: "free some space, then re-run the same command: what is finished is kept",
    errno.EACCES: "choose a place you may write to",
    errno.EPERM: "choose a place you may write to",
    errno.EROFS: "choose a writable file system",
    errno.ENOTDIR: "a parent of this path is a file, not a directory",
    errno.ENAMETOOLONG: "use a shorter name (at most 255 bytes per name)",
    errno.EISDIR: "this path is a directory",
    errno.ENOENT: "a folder on the way does not exist",
    errno.EIO: "the storage failed: check it, then re-run the same command",
}


def os_error_line(err: OSError) -> str:
    """One line for an operating-system failure: what, where, and what to do."""
    what = err.strerror or str(err) or type(err).__name__
    code = errno.errorcode.get(err.errno or 0, "")
    where = f" at {err.filename}" if err.filename else ""
    hint = HINTS.get(err.errno, "check the path and the machine, then re-run the same command")
    return f"Error: {what}{f' ({code})' if code else ''}{where}; {hint}"


def _one_line_warnings(message, category, filename, lineno, file=None, line=None):
    click.echo(f"warning: {message}", err=True)


def _with_lang_option(group: click.Group) -> None:
    """Give every command of ``group`` (and of its subgroups) the ``--lang`` option, so that it may come last."""
    for command in group.commands.values():
        if isinstance(command, click.Group):
            _with_lang_option(command)
        if not any(param.name == "lang" for param in command.params):
            command.params.append(click.Option(["--lang"], **LANG_OPTION))


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``cardsim`` command: one line on stderr for every failure; exit 2 on bad input, 1 on
    an untrustworthy dataset or an operating-system or resource failure, 3 on a failed cluster, 130 on Ctrl-C.
    ``--lang`` holds for this call only (it runs in a copy of the caller's context)."""
    return contextvars.copy_context().run(_main, argv)


def _main(argv: list[str] | None) -> int:
    previous = warnings.showwarning
    warnings.showwarning = _one_line_warnings
    _notices(False)  # a previous in-process call's --quiet does not carry over
    try:
        code = cli.main(args=argv, prog_name="cardsim", standalone_mode=False)
        if isinstance(code, int):  # click returns an Exit's code when not standalone
            return code
    except SpecError as err:
        click.echo(f"Error: {err}", err=True)
        return 2
    except (DatasetError, ClusterError) as err:
        click.echo(f"Error: {err}", err=True)
        return 3 if isinstance(err, ClusterError) else 1
    except StrategyCodeError as err:
        click.echo(f"Error: {err}", err=True)
        return 1
    except click.UsageError as err:
        hint = f" (see `cardsim {err.ctx.command_path.split(' ', 1)[1]} --help`)" if err.ctx and " " in err.ctx.command_path else ""
        click.echo(f"Error: {err.format_message()}{hint}", err=True)
        return 2
    except (click.exceptions.Abort, KeyboardInterrupt):
        click.echo("aborted", err=True)
        return 130
    except click.exceptions.Exit as err:
        return err.exit_code
    except OSError as err:
        click.echo(os_error_line(err), err=True)
        return 1
    except MemoryError:
        click.echo("Error: out of memory; use a smaller --chunk-size (and fewer --threads), then re-run the same "
                   "command: what is finished is kept", err=True)
        return 1
    except ImportError as err:  # a library loaded on first use (pyarrow's Parquet, numba) failed to load
        first = (str(err).strip().splitlines() or [""])[0][:160]
        click.echo(f"Error: a library could not be loaded ({first}): too little memory or a broken installation; "
                   "raise the memory limit, or reinstall with python3 scripts/dev.py setup", err=True)
        return 1
    except Exception as err:  # noqa: BLE001 - a bug: one line by default, the traceback when asked for
        if os.environ.get("CARDSIM_DEBUG"):
            raise
        first = (str(err).strip().splitlines() or [""])[0][:300]
        click.echo(f"Error: internal error ({type(err).__name__}: {first}); this is a bug, please report it "
                   "(CARDSIM_DEBUG=1 shows the traceback)", err=True)
        return 1
    finally:
        warnings.showwarning = previous
        _notices(False)
    return 0


_with_lang_option(cli)


def console() -> None:
    """Console-script wrapper: exit with :func:`main`'s code."""
    sys.exit(main())


if __name__ == "__main__":
    console()
