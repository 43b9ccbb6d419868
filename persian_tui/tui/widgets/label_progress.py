"""The labelling progress: mine (answered by me; a skip or a flag is not an answer), the queue left for
me, the whole bank. Each bar counts what the text beside it says."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Label, ProgressBar

from ...models import Progress


def progress_texts(p: Progress) -> dict[str, str]:
    """The text beside each bar (pure)."""
    labels = f"label{'s' if p.target > 1 else ''}"
    aside = ", ".join(f"{n} {what}" for n, what in ((p.skipped, "skipped"), (p.flagged, "flagged")) if n)
    return {
        "mine": f"{p.mine} answered{f' ({aside})' if aside else ''}, {p.queue_left} to go",  # the row is "mine"
        "queue": f"{p.queue_left} left for you (fewer than {p.target} {labels})",
        "bank": f"{p.complete} of {p.bank} open question{'s' if p.bank != 1 else ''} "
                f"have {p.target} {labels}",
    }


def bar_counts(p: Progress) -> tuple[tuple[int, int], tuple[int, int]]:
    """(done, total) of the mine and bank bars (pure). Mine: my answers out of my answers, my
    skips, my flags and what is left for me (a skipped or only flagged question stays short of
    full). Bank: questions
    at the target out of the scope's open questions. A total of 0 would make a bar pulse
    forever: at least 1."""
    return ((p.mine, max(p.mine + p.skipped + p.flagged + p.queue_left, 1)),
            (min(p.complete, p.bank), max(p.bank, 1)))


class LabelProgress(Vertical):
    ROWS = ("mine", "queue", "bank")

    def compose(self) -> ComposeResult:
        for row in self.ROWS:
            with Horizontal(classes="progress-row"):
                yield Label(row, classes="progress-name")
                if row != "queue":
                    yield ProgressBar(total=1, show_eta=False, id=f"progress-{row}-bar")
                yield Label(id=f"progress-{row}", classes="progress-text")

    def show(self, p: Progress) -> None:
        (mine_done, mine_total), (bank_done, bank_total) = bar_counts(p)
        for row, text in progress_texts(p).items():
            self.query_one(f"#progress-{row}", Label).update(text)
        # a total of 0 (or None) would make the bar pulse forever: at least 1
        self.query_one("#progress-mine-bar", ProgressBar).update(total=mine_total, progress=mine_done)
        self.query_one("#progress-bank-bar", ProgressBar).update(total=bank_total, progress=bank_done)
