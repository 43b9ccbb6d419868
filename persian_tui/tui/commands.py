"""Command palette (Ctrl+P) entries for the app's commands."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from ..models import STATUSES


class BankCommands(Provider):
    """Every screen the bank opens, search, filters, bidi mode, reload, help and quit."""

    def _commands(self) -> list[tuple[str, str, Callable[[], object]]]:
        app = self.app
        bank = app.bank  # type: ignore[attr-defined]
        out: list[tuple[str, str, Callable[[], object]]] = [
            ("Search", "focus the search box (/)", bank.action_focus_search),
            ("Label", "the blind labelling queue (l)", app.action_label),  # type: ignore[attr-defined]
            ("Label this question", "the highlighted question first, then the queue (L)",
             bank.action_label_this),
            ("New question", "author a new question (n)", app.action_author),  # type: ignore[attr-defined]
            ("Edit question", "edit the highlighted question (e)", bank.action_edit),
            ("Adjudicate", "decide disagreements and flags (a)", app.action_adjudicate),  # type: ignore[attr-defined]
            ("Agreement", "kappas, alpha, accuracy against the key (g)", app.action_agreement),  # type: ignore[attr-defined]
            ("Runs", "launch, watch and cancel runs (m)", app.action_runs),  # type: ignore[attr-defined]
            ("Review", "review the LLM judge's verdicts (v)", app.action_review),  # type: ignore[attr-defined]
            ("Report", "leaderboard, paired tests, breakdowns (p)", app.action_report),  # type: ignore[attr-defined]
            ("Reload", "re-read the bank from the database (r)", bank.action_reload),
            ("Help", "list the keys (?)", app.action_help),  # type: ignore[attr-defined]
        ]
        for status in (None, *STATUSES):
            out.append((f"Filter status: {status or 'all'}", "show only questions with this status",
                        partial(bank.set_status, status)))
        for category in (None, *bank.counts.categories):
            out.append((f"Filter category: {category or 'all'}", "show only this category",
                        partial(bank.set_category, category)))
        for mode, what in (("app", "this app reorders right-to-left text"),
                           ("terminal", "a bidi terminal reorders (VTE, Konsole, mlterm)"),
                           ("off", "logical order, no reordering")):
            out.append((f"Bidi mode: {mode}", what, partial(bank.set_bidi, mode)))
        out.append(("Quit", "leave persian-tui (q)", app.exit))
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
