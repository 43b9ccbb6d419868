"""A recall run's probes: a table of the couplets probed (question, option, score, character
error rate, status; filter: all, recalled, not recalled, invalid/errors) and, for the highlighted
one, its cue, the gold second hemistich, the choices (format choose) and the reply, Persian read
right to left. For reviewers and admins: the core refuses the probes to annotators
(Access.run_probes), since which couplets a model remembers points at the key."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.message import Message
from textual.widgets import DataTable, Static

from ... import bidi
from ...access import Access, AccessDenied
from ...bidi import Mode
from ...models import Run
from ...models.recall import Probe
from ...store import Store, StoreError
from ..guard import access
from ..keys import Key, bindings, help_key
from ..render import LABEL, Line, couplet_lines, fa
from .rows_pane import RowsPaneScreen
from .run_detail import clip_text, field_lines, mixed_lines

FILTERS = {"all": "all", "recalled": "recalled", "none": "not recalled", "invalid": "invalid/errors"}
COLUMNS = [("question", 14), ("option", 6), ("score", 8), ("CER", 6), ("status", 9)]


def keep(p: Probe, which: str) -> bool:
    if which == "recalled":
        return p.recalled
    if which == "none":
        return p.score == "none"
    if which == "invalid":
        return p.status != "ok"
    return True


def probe_cells(p: Probe) -> list[str]:
    return [p.uid, str(p.position), p.score or "—", "—" if p.cer is None else f"{p.cer:.2f}", p.status]


def probe_head(run: Run, probes: list[Probe]) -> str:
    """What the run is (model, cue, format) and its recall rates over the probes with a score."""
    scored = [p for p in probes if p.score is not None]
    counts = {s: sum(p.score == s for p in scored) for s in ("complete", "partial", "none")}
    rates = " · ".join(f"{s} {counts[s]}" + (f" ({counts[s] / len(scored):.0%})" if scored else "")
                       for s in counts)
    errors = sum(p.status == "api_error" for p in probes)
    p = run.params
    return (f"run {run.id} · recall · {run.model} · cue {p.get('cue', '?')} · format {p.get('format', '?')} · "
            f"{run.shown_status} │ {len(probes)}/{run.total} probed · {rates} · errors {errors}")


def probe_lines(run: Run | None, p: Probe | None, width: int, mode: Mode) -> list[Line]:
    """Everything the pane shows for one probe at ``width`` cells."""
    width = max(width, 20)
    if p is None or run is None:
        return [Line("no probe selected", "dim")]
    style = {"complete": "bold $text-success", "partial": "bold $text-warning", "none": "bold $text-error"}
    out = field_lines("couplet", f"{p.uid} option {p.position}", width)
    if p.poet:  # Persian: shown right to left as the mode shows it
        lines = bidi.display_lines(p.poet, max(width - LABEL, 1), mode, align="left")
        out += [Line(t, "", "poet" if i == 0 else " ") for i, t in enumerate(lines)]
    else:
        out += field_lines("poet", "unknown (not linked to the corpus)", width)
    if p.poem is not None and p.couplet is not None:
        out += field_lines("corpus", f"{p.poem} couplet {p.couplet + 1}", width)
    out += field_lines("format", str(run.params.get("format", "?")), width)
    out += field_lines("score", p.score or f"none scored ({p.status})", width, style.get(p.score or "", ""))
    if p.cer is not None:
        out += field_lines("CER", f"{p.cer:.3f} (character edits / gold length)", width)
    if p.choices:
        picked = fa(p.predicted) if p.predicted else "none"
        out += field_lines("picked", f"{picked} (the true one: {fa(p.answer) if p.answer else '?'})", width)
    out += [Line(""), Line("", "", "cue")]
    out += [Line(t) for t in mixed_lines(clip_text(p.cue), width, mode)]
    out += [Line(""), Line("", "", "gold")]
    out += [Line(t) for t in mixed_lines(p.gold, width, mode)]
    for n, choice in enumerate(p.choices or (), 1):
        out += couplet_lines(n, choice, "", width, mode, is_key=n == p.answer)
    if p.error:
        out += [Line(""), Line("", "", "error")]
        out += [Line(t, "$text-error") for t in mixed_lines(clip_text(p.error), width, mode)]
    out += [Line(""), Line("", "", "reply")]
    if p.reply:
        out += [Line(t) for t in mixed_lines(clip_text(p.reply), width, mode)]
    else:
        out.append(Line("(none)" if p.reply is None else "(empty)", "dim"))
    return out


@dataclass
class ProbesLoaded(Message):
    """A worker read the run and its probes (or why not)."""

    run: Run | None
    probes: list[Probe]
    error: str | None = None


def load_probes(db_path: str | Path, run_id: int, who: Access) -> ProbesLoaded:
    """Read on a worker thread with its own connection; the refusal of the core as the error."""
    try:
        with Store(db_path) as store:
            run = store.runs.get_run(run_id)
            probes = who.run_probes(store, run_id) if run is not None else []
    except AccessDenied as e:
        return ProbesLoaded(None, [], str(e))
    except (StoreError, OSError) as e:
        return ProbesLoaded(None, [], str(e))
    return ProbesLoaded(run, probes)


class RunProbesScreen(RowsPaneScreen):
    KEYS_TITLE = "recall probes"
    KEY_TABLE = (
        Key("escape,q", "back", "Back", "back to the runs", palette="Back"),
        Key("a", "filter('all')", "All", "show every probe", palette="Show all probes"),
        Key("c", "filter('recalled')", "Recalled", "show the couplets recalled (complete or partial)",
            palette="Show recalled couplets"),
        Key("w", "filter('none')", "Not recalled", "show the couplets not recalled",
            palette="Show couplets not recalled"),
        Key("i", "filter('invalid')", "Invalid/errors", "show the unusable replies and API errors",
            palette="Show invalid replies and errors"),
        Key("r", "reload", "Reload", "reload the run's probes", palette="Reload"),
        help_key(),
    )
    BINDINGS = bindings(KEY_TABLE)

    def __init__(self, run_id: int) -> None:
        super().__init__()
        self.run_id = run_id
        self.run: Run | None = None
        self.probes: list[Probe] = []
        self.which = "all"
        self.shown: list[str] = []  # row keys in the table: "uid/position"

    def on_mount(self) -> None:
        self._apply_layout()
        self.query_one("#rd-head", Static).update(f"run {self.run_id} · loading…")
        table = self.query_one(DataTable)
        for label, width in COLUMNS:
            table.add_column(label, width=width)
        self.reload()
        table.focus()

    def reload(self) -> None:
        self._load(access(self))

    @work(thread=True, exclusive=True, group="run-probes", exit_on_error=False)
    def _load(self, who: Access) -> None:
        self.post_message(load_probes(self.app.db_path, self.run_id, who))

    @on(ProbesLoaded)
    def _loaded(self, event: ProbesLoaded) -> None:
        head = self.query_one("#rd-head", Static)
        if event.error:
            head.update(f"run {self.run_id}: {event.error}")
            return
        self.run, self.probes = event.run, event.probes
        if self.run is None:
            head.update(f"no run {self.run_id}")
            return
        head.update(probe_head(self.run, self.probes))
        self.fill()

    def fill(self) -> None:
        table = self.query_one(DataTable)
        current = self.current_key
        table.clear()
        rows = [p for p in self.probes if keep(p, self.which)]
        self.shown = [f"{p.uid}/{p.position}" for p in rows]
        for p, key in zip(rows, self.shown):
            table.add_row(*(Text(c, no_wrap=True) for c in probe_cells(p)), key=key)
        if current in self.shown:
            table.move_cursor(row=self.shown.index(current), animate=False)
        counts = {w: sum(keep(p, w) for p in self.probes) for w in FILTERS}
        self.show_filters(FILTERS, counts, {"all": "a", "recalled": "c", "none": "w", "invalid": "i"})
        self.show(self.current_key)

    def show(self, key: str | None) -> None:
        probe = next((p for p in self.probes if f"{p.uid}/{p.position}" == key), None) if key else None
        run, mode = self.run, self.mode
        self.show_lines(lambda width: probe_lines(run, probe, width, mode))
