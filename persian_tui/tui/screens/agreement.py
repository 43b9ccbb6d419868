"""Agreement panel: the figures of `persian-tui agreement`, overall and per category, with
Cohen's kappa for every pair of annotators (as the CLI gives them)."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import DataTable, Static

from ... import bidi, display, settings
from ...annotation.agreement import agreement_report
from ..base import AppState
from ..keys import Key, bindings, help_key
from ..widgets.key_bar import KeyBar
from ..widgets.rows_table import RowsTable

# (wide header, narrow header): under NARROW_BELOW columns the short ones keep every figure on screen
SCOPE_COLUMNS = [("scope", "scope"), ("items", "items"), ("labelled", "lab."), ("2+ votes", "2+"),
                 ("majority = key", "=key"), ("≠ key", "≠key"), ("Cohen κ (mean)", "κ mean"),
                 ("Fleiss κ (n)", "Fleiss (n)"), ("Krippendorff α (n)", "α (n)")]
NARROW_BELOW = 100



class AgreementScreen(AppState, Screen[None]):
    KEYS_TITLE = "agreement"
    KEY_TABLE = (
        Key("escape,q", "app.pop_screen", "Back", "back to the bank", palette="Back"),
        Key("r", "refresh_figures", "Refresh", "compute the figures again", palette="Refresh"),
        help_key(),
    )
    BINDINGS = bindings(KEY_TABLE)

    def __init__(self) -> None:
        super().__init__()
        self._narrow: bool | None = None

    def compose(self) -> ComposeResult:
        yield Static("Agreement between annotators (items rated by 2+ people) and majority vs key",
                     classes="title")
        yield RowsTable(id="scopes", cursor_type="row", zebra_stripes=True)
        yield Static("Cohen's κ of every pair of annotators (n: the items both labelled)",
                     classes="title")
        yield RowsTable(id="pairs", cursor_type="row", zebra_stripes=True)
        yield Static("Each annotator: answers, accuracy against the key (the human baseline, Wilson 95 %), "
                     "answers faster than the minimum (kept, marked fast)", classes="title")
        yield RowsTable(id="people", cursor_type="row", zebra_stripes=True)
        yield KeyBar()

    def on_mount(self) -> None:
        self.action_refresh_figures()

    def on_resize(self, event: events.Resize) -> None:
        if (event.size.width < NARROW_BELOW) != self._narrow:
            self.action_refresh_figures()

    def action_refresh_figures(self) -> None:
        report = agreement_report(self.store)
        mode = self.mode
        self._narrow = narrow = self.app.size.width < NARROW_BELOW
        scope_width = 12 if narrow else 24
        scopes = self.query_one("#scopes", DataTable)
        scopes.clear(columns=True)
        scopes.add_columns(*(short if narrow else wide for wide, short in SCOPE_COLUMNS))
        for a in report:
            scopes.add_row(bidi.display_line(a.scope, scope_width, mode), a.items, a.labelled, a.multi,
                           a.majority_agrees, a.majority_disagrees, display.figure(a.cohen_mean, "{:.3f}"),
                           f"{display.figure(a.fleiss, '{:.3f}')} ({a.fleiss_items})",
                           f"{display.figure(a.alpha, '{:.3f}')} ({a.alpha_items})")
        pairs = self.query_one("#pairs", DataTable)
        pairs.clear(columns=True)
        pairs.add_columns("annotator", "annotator", "Cohen κ", "n")
        overall = report[0] if report else None
        for p in (overall.cohen_pairs if overall else []):
            # undefined (one category only, or no item in common): "—", never a made-up 1.00
            pairs.add_row(bidi.display_line(p["a"], 24, mode), bidi.display_line(p["b"], 24, mode),
                          display.figure(p["kappa"], "{:.3f}"), p["items"])
        people = self.query_one("#people", DataTable)
        people.clear(columns=True)
        people.add_columns("annotator", "answers", "keyed", "correct", "accuracy", "95 % interval",
                           f"fast (< {settings.label_min_seconds(self.store.labels):g} s)")
        for acc in (overall.annotators if overall else []):
            ci = f"{acc.low:.2f}–{acc.high:.2f}" if acc.low is not None else "—"
            people.add_row(bidi.display_line(acc.annotator, 24, mode), acc.answered, acc.total, acc.correct,
                           display.figure(acc.accuracy, "{:.3f}"), ci, acc.fast)
