"""The help screen: the keys of the screen it was opened on (from that screen's key table)."""

from __future__ import annotations

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from ..keys import Key, bindings


def help_body(rows: list[tuple[str, str]], width: int) -> Content:
    """The (key, what it does) rows in ``width`` cells (pure): each description wrapped under
    itself, never cut."""
    from ... import bidi

    key_width = max((cell_len(k) for k, _ in rows), default=0) + 2
    room = max(width - key_width, 12)
    lines = []
    for key, what in rows:
        for n, part in enumerate(bidi.wrap(what, room) or [""]):
            head = (key.ljust(key_width), "bold $text-accent") if n == 0 else " " * key_width
            lines.append(Content.assemble(head, part))
    return Content("\n").join(lines)


class HelpScreen(ModalScreen[None]):
    """A modal list of a screen's keys, titled with the screen's name; any of Escape, q, ?, F1
    or Enter closes it."""

    KEYS_TITLE = "help"
    KEY_TABLE = (Key("escape,q,question_mark,f1,enter", "close", "Close", "close this help", footer=False),)
    BINDINGS = bindings(KEY_TABLE)

    def __init__(self, title: str, rows: list[tuple[str, str]]) -> None:
        super().__init__()
        self.title_text = title
        self.rows = rows

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box"):
            yield Static(Content.assemble((f"Keys: {self.title_text}", "bold")), id="help-title")
            with VerticalScroll(id="help-scroll"):
                yield Static(self._body(), id="help-keys")
            yield Static(Content("Escape, q or ? closes this help (↑ ↓ scroll)"), id="help-hint")

    def _body(self) -> Content:
        # the box takes at most 90 % of the screen, less its border and padding
        return help_body(self.rows, int(self.app.size.width * 0.9) - 6)

    def on_mount(self) -> None:
        self._fit()

    def on_resize(self, _event: events.Resize) -> None:
        self._fit()

    def _fit(self) -> None:
        self.query_one("#help-keys", Static).update(self._body())
        # border 2, padding 2, title 2, hint 2: the rest scrolls
        self.query_one("#help-scroll").styles.max_height = max(self.app.size.height - 8, 3)

    def action_close(self) -> None:
        self.dismiss(None)
