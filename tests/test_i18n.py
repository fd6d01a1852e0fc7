"""French and English (``--lang``, ``CARDSIM_LANG``, the locale): every message of the code has its French
translation with the same placeholders; numbers are written as each language writes them; the CLI's summaries and
the report's headings come out in French with ``--lang fr``. The studies' verdicts in French are tested beside
each study (tests/test_study_*.py), on the study they run."""

from __future__ import annotations

import importlib.util
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

import cardsim as api
import cli
from simulator.core.i18n import current_language, default_language, language, number, percent, translations

ROOT = Path(__file__).resolve().parents[1]
PLACEHOLDER = re.compile(r"\{(\w*)\}")


def _catalog_module():
    spec = importlib.util.spec_from_file_location("catalog", ROOT / "scripts" / "catalog.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def french(message: str) -> str:
    return translations("fr").gettext(message)


def test_every_message_of_the_code_is_translated_with_the_same_placeholders():
    catalog = _catalog_module()
    extracted = catalog.extract()
    assert len(extracted) > 300  # the extraction reads the code and the templates
    assert catalog.missing(extracted) == []
    for message in catalog.read():
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for text in strings:
            assert sorted(PLACEHOLDER.findall(text)) == sorted(PLACEHOLDER.findall(ids[-1])), (ids, text)


def test_numbers_follow_the_language():
    with language("en"):
        assert (number(1234.5, 2), percent(0.523), number(-0.25, 2, True)) == ("1,234.50", "52.3%", "-0.25")
    with language("fr"):
        assert (number(1234.5, 2), percent(0.523), number(-0.25, 2, True)) == ("1\u202f234,50", "52,3\u202f%", "-0,25")


@pytest.mark.parametrize("env, expected", [
    ({"CARDSIM_LANG": "fr"}, "fr"), ({"CARDSIM_LANG": "en", "LANG": "fr_FR.UTF-8"}, "en"),
    ({"LANG": "fr_FR.UTF-8"}, "fr"), ({"LC_ALL": "fr_CA.UTF-8", "LANG": "en_US.UTF-8"}, "fr"),
    ({"LANG": "de_DE.UTF-8"}, "en"), ({"CARDSIM_LANG": "xx", "LANG": "C"}, "en"), ({}, "en")])
def test_the_default_language_comes_from_cardsim_lang_then_the_locale(monkeypatch, env, expected):
    for name in ("CARDSIM_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert default_language() == expected == current_language()


class Headings(HTMLParser):
    def __init__(self):
        super().__init__()
        self.headings, self._in = [], False

    def handle_starttag(self, tag, attrs):
        self._in = tag in ("h1", "h2", "h3")
        if self._in:
            self.headings.append("")

    def handle_endtag(self, tag):
        self._in = False

    def handle_data(self, data):
        if self._in:
            self.headings[-1] += data


def _headings(path: Path) -> list[str]:
    parser = Headings()
    parser.feed(path.read_text(encoding="utf-8"))
    return [h.strip() for h in parser.headings]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("i18n") / "run"
    api.simulate("kamoul", out=out, n=30, level="manches", seed=2, progress=False)
    return out


@pytest.mark.parametrize("where", ["before the command", "after it"])
def test_the_cli_speaks_french_with_lang_fr_and_english_by_default(run, capsys, where):
    args = ["simulate", "kamoul", "-n", "30", "--level", "manches", "--seed", "2", "--out", str(run)]
    code = cli.main(["--lang", "fr", *args] if where == "before the command" else [*args, "--lang", "fr"])
    out = capsys.readouterr().out
    lead = french("Over {n} {level}, {side} ({strategy}) won the most: {share}").split("{")[0]
    assert code == 0 and lead and lead != "Over " and out.startswith(lead), out
    assert re.search(r"\d,\d\u202f% \[\d+,\d ; \d+,\d\]", out), out  # 52,3 % [51,0 ; 53,6]
    assert french("Mean points per {unit} ({better}): {points}.").split("{")[0] in out
    code = cli.main(["simulate", "kamoul", "-n", "30", "--level", "manches", "--seed", "2", "--out", str(run)])
    out = capsys.readouterr().out
    assert code == 0 and out.startswith("Over 30 manches, ") and current_language() == "en"  # --lang did not stick


def test_report_headings_are_french_with_lang_fr(run, tmp_path):
    with language("fr"):
        page = api.report(run, tmp_path / "fr.html")["html"]
    english = _headings(api.report(run, tmp_path / "en.html")["html"])
    translated = _headings(page)
    assert len(translated) == len(english) > 6
    fixed = {"Verdict", "Contents", "Who wins", "Length", "Appendix"}
    for en, fr in zip(english, translated):
        if en in fixed:
            assert fr == french(en) and (fr != en or en == "Verdict"), (en, fr)
    assert 'lang="fr"' in page.read_text(encoding="utf-8")
    assert _headings(page)[2] == french("Contents") != "Contents"


def test_a_language_cardsim_does_not_speak_is_one_line_exit_2(run, capsys):
    code = cli.main(["report", str(run), "--out", str(run / "x.html"), "--lang", "de"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "--lang" in err and "'en', 'fr'" in err
    assert not (run / "x.html").exists()


def test_a_tournament_answers_in_french_on_the_command_line(tmp_path, capsys):
    code = cli.main(["tournament", "kamoul", "--strategy", "balanced", "--strategy", "random", "-n", "8", "--seed", "1",
                     "--out", str(tmp_path / "t"), "--lang", "fr"])
    out = capsys.readouterr().out
    lead = french("verdict, by whole {level}: {best} is the strongest of {count}, {how}; it wins {share} of its "
                  "{games} decided {level}.").split("{")[0]
    assert code == 0 and lead != "verdict, by whole " and out.startswith(lead), out
    assert french("Bradley–Terry ratings from {decided} decided {level} (log-strength, mean 0; Elo scale; 95% "
                  "interval):").split("{")[0] in out
