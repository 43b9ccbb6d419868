"""One key table per screen: `?` (or F1) on each screen lists that screen's keys, the command
palette offers the current screen's actions, and the user guide's key tables (docs/guide/) agree
with the tables."""

from __future__ import annotations

import re

import pytest
import tui_helpers
from factories import ROOT

from persian_tui.tui.keys import APP_KEYS, BROWSER_ONLY, bindings, help_rows, key_tokens
from persian_tui.tui.screens.adjudicate import AdjudicationScreen
from persian_tui.tui.screens.agreement import AgreementScreen
from persian_tui.tui.screens.author import AuthorScreen
from persian_tui.tui.screens.bank import BankScreen
from persian_tui.tui.screens.candidates import CandidatesScreen
from persian_tui.tui.screens.corpus import CorpusScreen
from persian_tui.tui.screens.help import HelpScreen
from persian_tui.tui.screens.label import LabelScreen
from persian_tui.tui.screens.release import ReleaseScreen
from persian_tui.tui.screens.report import ReportScreen
from persian_tui.tui.screens.review import ReviewScreen
from persian_tui.tui.screens.run_detail import RunDetailScreen
from persian_tui.tui.screens.run_probes import RunProbesScreen
from persian_tui.tui.screens.runs import RunsScreen
from persian_tui.tui.screens.sweep import SweepScreen
from persian_tui.tui.screens.taxonomy import TaxonomyScreen

GUIDE = ROOT / "docs" / "guide"
SIZE = (120, 40)

# the user guide's page and section (its heading) whose `| key | what it does |` table lists each
# screen's keys (docs/reference/keys.md is generated from the tables; these are written by hand)
SECTIONS = {
    ("tour.md", "The bank"): BankScreen,
    ("authoring.md", "The editor's keys"): AuthorScreen,
    ("authoring.md", "The corpus pane"): CorpusScreen,
    ("labelling.md", "The labelling screen"): LabelScreen,
    ("labelling.md", "Agreement"): AgreementScreen,
    ("adjudication.md", "The adjudication screen"): AdjudicationScreen,
    ("runs.md", "The runs screen"): RunsScreen,
    ("runs.md", "A run's answers"): RunDetailScreen,
    ("memory.md", "A recall run's probes"): RunProbesScreen,
    ("sweeps.md", "From the app"): SweepScreen,
    ("judge.md", "Reviewing the judge"): ReviewScreen,
    ("judge.md", "The error taxonomy screen"): TaxonomyScreen,
    ("reports.md", "The report in the TUI"): ReportScreen,
    ("releases.md", "From the app"): ReleaseScreen,
    ("fresh.md", "The candidates queue"): CandidatesScreen,
}


def key_tables(text: str) -> dict[str, set[str]]:
    """{section heading: the keys its `| key | what it does |` table names}: every backticked
    name in the key column ("`f` / `x`" names f and x)."""
    out: dict[str, set[str]] = {}
    heading = ""
    lines = text.split("\n")
    for n, line in enumerate(lines):
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
        if line.strip() != "| key | what it does |":
            continue
        keys: set[str] = set()
        for row in lines[n + 2:]:
            if not row.startswith("|"):
                break
            cell = row.split(" | ")[0].removeprefix("| ")
            keys |= {part.strip() for name in re.findall(r"`([^`]+)`", cell) for part in name.split(" / ")}
        assert heading not in out, f"two key tables under {heading!r}"
        out[heading] = keys
    return out


def guide_key_tables() -> dict[tuple[str, str], set[str]]:
    """{(page, heading): keys} of every key table in the user guide's pages."""
    return {(page.name, heading): keys for page in sorted(GUIDE.glob("*.md"))
            for heading, keys in key_tables(page.read_text(encoding="utf-8")).items()}


def test_guide_key_tables_agree_with_the_screens():
    tables = guide_key_tables()
    assert set(tables) == set(SECTIONS), "a guide key table under an unexpected heading, or one missing"
    app_keys = key_tokens(APP_KEYS)
    for section, screen in SECTIONS.items():
        declared = key_tokens(screen.KEY_TABLE)
        assert declared <= tables[section], (section, "not in the guide", declared - tables[section])
        assert tables[section] <= declared | app_keys, (section, "not a key of the screen",
                                                       tables[section] - declared - app_keys)


def test_key_table_parser_sees_a_missing_key():
    text = "## Agreement\n\n| key | what it does |\n|---|---|\n| `r` | refresh |\n| `Escape` / `q` | back |\n"
    assert key_tables(text) == {"Agreement": {"r", "Escape", "q"}}
    assert key_tokens(AgreementScreen.KEY_TABLE) - key_tables(text)["Agreement"] == {"?", "F1"}


def tui_screens() -> list[type]:
    """Every screen and dialog class the TUI defines."""
    import importlib
    import pkgutil

    from textual.screen import Screen

    import persian_tui.tui as tui

    out = []
    for info in pkgutil.walk_packages(tui.__path__, "persian_tui.tui."):  # screens, dialogs, report, ...
        module = importlib.import_module(info.name)
        out += [c for c in vars(module).values()
                if isinstance(c, type) and issubclass(c, Screen) and c.__module__ == module.__name__]
    # a base of screens (rows_pane.RowsPaneScreen) is never opened itself: its subclasses declare the keys
    return [c for c in out if "KEY_TABLE" in vars(c) or not any(o is not c and issubclass(o, c) for o in out)]


def test_every_screen_binds_its_keys_from_its_table_and_has_help():
    found = tui_screens()
    assert len(found) >= 20
    for screen in found:
        assert "KEY_TABLE" in vars(screen), f"{screen.__name__} declares no key table"
        assert screen.BINDINGS == bindings(screen.KEY_TABLE), f"{screen.__name__}: BINDINGS not from its table"
        assert screen.KEYS_TITLE, screen
        if screen is not HelpScreen:
            assert "app.help" in {k.action for k in screen.KEY_TABLE}, screen


async def bank_ready(pilot) -> None:
    await tui_helpers.wait_for(pilot, lambda: pilot.app.bank is not None and pilot.app.bank.loaded_at,
                               "the bank loaded")


async def help_of(pilot, key: str) -> tuple[str, str]:
    await pilot.press(key)
    await tui_helpers.wait_for(pilot, lambda: isinstance(pilot.app.screen, HelpScreen), "the help opened")
    screen = pilot.app.screen
    return str(screen.query_one("#help-title").render()), str(screen.query_one("#help-keys").render())


# how each screen is reached from the bank, and its help key (the label screen's ? is its guidelines)
OPEN = [((), BankScreen, "question_mark"), (("l",), LabelScreen, "f1"), (("n",), AuthorScreen, "f1"),
        (("n", "ctrl+o"), CorpusScreen, "f1"), (("a",), AdjudicationScreen, "question_mark"),
        (("g",), AgreementScreen, "question_mark"), (("m",), RunsScreen, "question_mark"),
        (("v",), ReviewScreen, "question_mark"), (("v", "t"), TaxonomyScreen, "question_mark"),
        (("p",), ReportScreen, "question_mark")]


@pytest.mark.parametrize(("keys", "screen_type", "help_key"), OPEN, ids=[s.__name__ for _, s, _ in OPEN])
async def test_help_lists_the_keys_of_the_screen_it_was_opened_on(db, keys, screen_type, help_key):
    app = tui_helpers.make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        await bank_ready(pilot)
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
        await tui_helpers.wait_for(pilot, lambda: isinstance(app.screen, screen_type), screen_type.__name__)
        title, body = await help_of(pilot, help_key)
        assert screen_type.KEYS_TITLE in title
        lines = body.split("\n")
        terminal = tuple(k for k in APP_KEYS if k.action not in BROWSER_ONLY)  # F10: a browser's
        for key, _what in help_rows(screen_type.KEY_TABLE + terminal):
            assert any(line.startswith(key + " ") for line in lines), (key, body)
        await pilot.press("escape")
        await tui_helpers.wait_for(pilot, lambda: isinstance(app.screen, screen_type), "back from the help")


async def test_palette_offers_the_current_screens_actions(db):
    app = tui_helpers.make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        await bank_ready(pilot)
        await pilot.press("v")
        await tui_helpers.wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review opened")
        await pilot.press("ctrl+p")
        await pilot.pause()
        for ch in "undo":
            await pilot.press(ch)

        def first_hit():
            from textual.command import CommandList

            found = app.screen.query(CommandList)
            if not found or not found.first().option_count:
                return ""
            return str(found.first().get_option_at_index(0).prompt)

        await tui_helpers.wait_for(pilot, lambda: first_hit().startswith("Undo"), "the palette lists Undo")
        assert "(u)" in first_hit()  # the hint comes from the key table
        await pilot.press("enter")
        await tui_helpers.wait_for(pilot, lambda: any("nothing to undo" in n for n in tui_helpers.notices(app)),
                                   "the review's undo ran")
        assert isinstance(app.screen, ReviewScreen)
        # the bank's entries are not offered here
        from persian_tui.tui.commands import ScreenCommands

        titles = [title for title, _, _ in ScreenCommands(app.screen)._commands()]
        assert "Undo" in titles and "Help" in titles and "Label this question" not in titles
