"""Command palette (Ctrl+P) entries: the current screen's actions and the app's, from their key
tables (``tui/keys.py``), and on the bank one entry per filter value and bidi mode."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from ..models import STATUSES
from .guard import access, offered
from .keys import APP_KEYS, Key, palette_entries, screen_table
from .screens.bank import BankScreen

Command = tuple[str, str, Callable[[], object]]


class ScreenCommands(Provider):
    """The screen's palette entries (its key table's), the app-wide ones, and the bank's filters:
    those the person's role allows (tui/guard.py)."""

    def _commands(self) -> list[Command]:
        screen = self.screen
        table = screen_table(screen)
        out: list[Command] = [(title, hint, partial(screen.run_action, action))
                              for title, hint, action in palette_entries(offered(screen, table + APP_KEYS))]
        if isinstance(screen, BankScreen):
            out[-2:-2] = bank_commands(screen, {k.action: k for k in table})
        return out

    async def discover(self) -> Hits:
        for title, help_text, callback in self._commands():
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, text=title, help=help_text)


def bank_commands(bank: BankScreen, keys: dict[str, Key]) -> list[Command]:
    """One entry per status (for who may see statuses), category and bidi mode; each hint is its
    cycling key's line."""
    def hint(action: str) -> str:
        key = keys[action]
        return f"{key.what} ({key.names} cycles)"

    out: list[Command] = []
    for status in (None, *STATUSES) if access(bank).may("see_answers") else ():  # a status tells the key
        out.append((f"Filter status: {status or 'all'}", hint("cycle_status"), partial(bank.set_status, status)))
    for category in (None, *bank.counts.categories):
        out.append((f"Filter category: {category or 'all'}", hint("cycle_category"),
                    partial(bank.set_category, category)))
    for mode in ("app", "terminal", "off"):
        out.append((f"Bidi mode: {mode}", hint("cycle_bidi"), partial(bank.set_bidi, mode)))
    return out
