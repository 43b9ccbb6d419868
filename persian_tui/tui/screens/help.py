"""The help screen: the keys of the bank screen."""

from __future__ import annotations

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

KEYS = [
    ("/", "search (incremental; Arabic ي/ك find Persian ی/ک)"),
    ("Escape", "clear the search, back to the table"),
    ("Enter", "from the search: back to the table"),
    ("↑ ↓ PgUp PgDn", "move in the table; the detail pane follows"),
    ("Tab", "next pane (search, table, detail)"),
    ("s", "status filter: all, draft, ready, curated, retired"),
    ("c", "category filter: all, then each category"),
    ("b", "bidi mode: app (reorder here), terminal (a bidi terminal reorders), off"),
    ("r", "reload from the database (others may write it)"),
    ("l", "label: the blind labelling queue (your name is asked once)"),
    ("L", "label the highlighted question first, then the queue"),
    ("n / e", "new question / edit the selected one"),
    ("a", "adjudicate: disagreements, flags, bulk accept"),
    ("g", "agreement: kappas, alpha, accuracy against the key"),
    ("m", "runs: n new, c cancel, u resume (U at a new URL), e retry errors, Enter its answers"),
    ("v", "review the LLM judge's verdicts and error categories (t: the taxonomy)"),
    ("p", "report: leaderboard with intervals, paired tests, breakdowns, position bias"),
    ("Ctrl+P", "command palette"),
    ("?", "this help"),
    ("q", "quit"),
]


def help_body(width: int) -> Content:
    """The key list in ``width`` cells (pure): each description wrapped under itself, never
    cut."""
    from ... import bidi

    key_width = max(cell_len(k) for k, _ in KEYS) + 2
    room = max(width - key_width, 12)
    lines = []
    for key, what in KEYS:
        for n, part in enumerate(bidi.wrap(what, room) or [""]):
            head = (key.ljust(key_width), "bold $text-accent") if n == 0 else " " * key_width
            lines.append(Content.assemble(head, part))
    return Content("\n").join(lines)


class HelpScreen(ModalScreen[None]):
    """A modal list of the keys; any of Escape, q, ? or Enter closes it."""

    BINDINGS = [
        Binding("escape,q,question_mark,enter", "dismiss", "Close", show=False),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box"):
            yield Static(Content.assemble(("Keys", "bold")), id="help-title")
            with VerticalScroll(id="help-scroll"):
                yield Static(self._body(), id="help-keys")
            yield Static(Content("Escape, q or ? closes this help (↑ ↓ scroll)"), id="help-hint")

    def _body(self) -> Content:
        # the box takes at most 90 % of the screen, less its border and padding
        return help_body(int(self.app.size.width * 0.9) - 6)

    def on_mount(self) -> None:
        self._fit()

    def on_resize(self, _event: events.Resize) -> None:
        self._fit()

    def _fit(self) -> None:
        self.query_one("#help-keys", Static).update(self._body())
        # border 2, padding 2, title 2, hint 2: the rest scrolls
        self.query_one("#help-scroll").styles.max_height = max(self.app.size.height - 8, 3)

    def action_dismiss(self) -> None:
        self.dismiss(None)
