"""The live progress panel of one run: a bar, the counts, rate, ETA and the last message."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import ProgressBar, Static

from ...models import accuracy
from ..messages import RunFigures


def duration(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    s = int(round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


def accuracy_text(correct: int | None, scored: int | None, done: int | None = None,
                  errors: int | None = None) -> str:
    """"—" whenever the run has no accuracy (models.accuracy: nothing scored, a missing figure,
    or not one request succeeded), else "62.5% (5/8)"."""
    value = accuracy(correct, scored, done, errors)
    return "—" if value is None else f"{value:.1%} ({correct}/{scored})"


def panel_texts(f: RunFigures | None) -> tuple[str, str, str]:
    """(title, figures, last message) of the panel (pure)."""
    if f is None:
        return ("no run in progress", "n: launch a run   u: resume the selected run   "
                "e: retry its API errors", "")
    head = f"run {f.run_id}" if f.run_id is not None else "new run"
    title = f"{head} · {f.kind} · {f.model} · {f.status}"
    running = f.status in ("running", "starting")
    parts = [f"{f.done}/{f.total} done" if f.total else "—",
             f"accuracy {accuracy_text(f.correct, f.scored, f.done, f.errors)}",
             f"invalid {f.invalid}", f"API errors {f.errors}"]
    if running:
        parts += [f"{f.rate:.1f}/s", f"ETA {duration(f.eta)}"]
    return title, " · ".join(parts), f.message


class RunPanel(Vertical):
    """Shows a copy of one run's figures; ``show(None)`` when nothing runs."""

    figures: RunFigures | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="run-panel-title", markup=False)
        with Horizontal(id="run-panel-row"):
            yield ProgressBar(total=1, show_eta=False, id="run-panel-bar")
            yield Static(id="run-panel-figures", markup=False)
        yield Static(id="run-panel-message", markup=False)

    def on_mount(self) -> None:
        self.show(None)

    def show(self, figures: RunFigures | None) -> None:
        self.figures = figures
        title, text, message = panel_texts(figures)
        self.query_one("#run-panel-title", Static).update(title)
        self.query_one("#run-panel-figures", Static).update(text)
        self.query_one("#run-panel-message", Static).update(message)
        self.set_class(figures is not None and figures.status in ("running", "starting"), "-running")
        bar = self.query_one("#run-panel-bar", ProgressBar)
        if figures is None or not figures.total:
            bar.update(total=1, progress=0)  # a None total would pulse forever
        else:
            bar.update(total=figures.total, progress=min(figures.done, figures.total))

    @property
    def text(self) -> str:
        """The panel's text (for tests)."""
        return "\n".join(panel_texts(self.figures))
