"""Agreement panel: the figures of `persian-tui agreement`, overall and per category."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Static

from ... import bidi
from ...eval.agreement import agreement_report
from ..widgets.key_bar import KeyBar


def _f(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


class AgreementScreen(Screen):
    BINDINGS = [Binding("escape,q", "app.pop_screen", "Back"), Binding("r", "refresh_figures", "Refresh")]
    DEFAULT_CSS = """
    AgreementScreen #scopes { height: auto; max-height: 60%; }
    AgreementScreen #people { height: 1fr; }
    AgreementScreen .title { padding: 1 1 0 1; color: $text-muted; }
    """

    def compose(self) -> ComposeResult:
        yield Static("Agreement between annotators (items rated by 2+ people) and majority vs key",
                     classes="title")
        yield DataTable(id="scopes", cursor_type="row", zebra_stripes=True)
        yield Static("Each annotator's accuracy against the key (the human baseline), Wilson 95 %",
                     classes="title")
        yield DataTable(id="people", cursor_type="row", zebra_stripes=True)
        yield KeyBar()

    def on_mount(self) -> None:
        self.action_refresh_figures()

    def action_refresh_figures(self) -> None:
        report = agreement_report(self.app.store)
        mode = self.app.bidi_mode
        scopes = self.query_one("#scopes", DataTable)
        scopes.clear(columns=True)
        scopes.add_columns("scope", "items", "labelled", "2+ votes", "majority = key", "≠ key",
                           "Cohen κ (mean)", "Fleiss κ (n)", "Krippendorff α (n)")
        for a in report:
            scopes.add_row(bidi.display_line(a.scope, 24, mode), a.items, a.labelled, a.multi,
                           a.majority_agrees, a.majority_disagrees, _f(a.cohen_mean),
                           f"{_f(a.fleiss)} ({a.fleiss_items})", f"{_f(a.alpha)} ({a.alpha_items})")
        people = self.query_one("#people", DataTable)
        people.clear(columns=True)
        people.add_columns("annotator", "correct", "answered", "accuracy", "95 % interval")
        for acc in report[0].annotators:
            ci = f"{acc.low:.2f}–{acc.high:.2f}" if acc.low is not None else "—"
            people.add_row(bidi.display_line(acc.annotator, 24, mode), acc.correct, acc.total,
                           _f(acc.accuracy), ci)
