"""What screens and widgets read of the app: its typed face (``TuiApp``, which ``PersianTUI``
extends) and ``AppState``, the mixin that types ``self.app`` as it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import App

from ..bank.search import BankSearch
from ..bidi import Mode
from ..store import Store

if TYPE_CHECKING:
    from textual import getters
    from textual.widget import Widget

STACK_BELOW = 100  # columns: a narrower screen stacks its panes (table over detail, form over preview)


class TuiApp(App[int]):
    """The app as its screens see it: the attributes ``PersianTUI`` (app.py) sets and the actions
    screens call. Screens import this, never app.py (which imports the screens)."""

    db_path: Path
    db_label: str  # how the status line names the database
    bidi_mode: Mode  # resolved; the bank's `b` changes its name
    store: Store | None  # open from on_load until the app unmounts
    bank_search: BankSearch
    annotator: str | None  # who labels, authors and adjudicates (asked when None)

    def open_store(self) -> Store:
        """The store (RuntimeError once the app has stopped and closed it)."""
        if self.store is None:
            raise RuntimeError("the database is closed: the app has stopped")
        return self.store

    def action_label(self, uid: str | None = None) -> None:
        raise NotImplementedError

    def action_author(self, uid: str | None = None) -> None:
        raise NotImplementedError

    def action_help(self) -> None:
        raise NotImplementedError


if TYPE_CHECKING:
    class _OnApp(Widget):
        app = getters.app(TuiApp)  # how Textual types a node's app (MessagePump does the same)
else:
    _OnApp = object  # at run time a plain mixin: a screen's CSS and keys come from its own bases


class AppState(_OnApp):
    """Mixed into screens and widgets (first, before the Textual base): ``self.app`` typed as
    ``TuiApp``, the open store and the resolved bidi mode."""

    @property
    def stacked(self) -> bool:
        """Panes one over the other: below STACK_BELOW columns, and always in a bidi terminal,
        which reorders whole rows (never a right-to-left pane beside a table there)."""
        return self.mode.name == "terminal" or self.app.size.width < STACK_BELOW

    @property
    def store(self) -> Store:
        return self.app.open_store()

    @property
    def mode(self) -> Mode:
        return self.app.bidi_mode
