"""The runs screen: past runs with their figures, a launch form, live progress of the
runs started here (thread workers on the app: they go on when this screen is closed)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Button, DataTable, Static

from ... import display, redact
from ...judging.run import create_judge_run
from ...models import RunSummary, accuracy
from ...runs import (
    EmbedRunSpec,
    JudgeRunSpec,
    RecallRunSpec,
    RunError,
    check_base_url,
    create_embedding_run,
    create_llm_run,
    create_recall_run,
    resume_overrides,
)
from ...store import LeaseHeld, StoreError
from ..base import AppState
from ..dialogs.common import ReasonDialog
from ..dialogs.run_form import RunForm, Spec
from ..guard import access
from ..jobs import (
    FINAL,
    Job,
    Jobs,
    RunFailed,
    RunFigures,
    RunProgressed,
    jobs_for,
    start_embedding,
    start_llm,
)
from ..keys import Key, bindings, help_key
from ..widgets.key_bar import KeyBar
from ..widgets.rows_table import RowsTable
from ..widgets.run_panel import RunPanel, accuracy_text

COLUMNS = [("id", "id", 4), ("kind", "kind", 10), ("model", "model", 24), ("status", "status", 12),
           ("done", "done", 9), ("accuracy", "accuracy", 15), ("invalid", "invalid", 7),
           ("errors", "errors", 6), ("created", "created", 11)]  # 98 cells + 2 per column
# under 100 columns: the same figures, shorter (accuracy without its counts, invalid/errors in one)
NARROW_COLUMNS = [("id", "id", 4), ("kind", "kind", 10), ("model", "model", 15), ("status", "status", 11),
                  ("done", "done", 9), ("acc.", "acc", 6), ("inv/err", "inv_err", 7)]  # 62 + 14
NARROW_BELOW = 100
RIGHT = {"id", "done", "accuracy", "invalid", "errors", "acc", "inv_err"}


def status_cell(status: str, job: Job | None, archived: bool = False) -> str:
    """The store's status as shown (`interrupted`: its process is gone); ▶ for a run in
    progress in this window."""
    if job is not None and job.running and status not in FINAL + ("interrupted",):
        return "▶ cancelling" if job.cancel.is_set() else f"▶ {status}"
    return "archived" if archived else status


def columns_for(width: int) -> list[tuple[str, str, int]]:
    return NARROW_COLUMNS if width < NARROW_BELOW else COLUMNS


def _figures(status: str, done: int, total: int, correct: int | None, scored: int | None,
             invalid: int, errors: int) -> dict[str, str]:
    value = accuracy(correct, scored, done, errors)
    return {"status": status, "done": f"{done}/{total}", "accuracy": accuracy_text(correct, scored, done, errors),
            "acc": "—" if value is None else f"{value:.0%}",
            "invalid": str(invalid), "errors": str(errors), "inv_err": f"{invalid}/{errors}"}


def summary_cells(s: RunSummary, job: Job | None) -> dict[str, str]:
    """Every column's cell, wide and narrow (the model is cut to its column's width)."""
    r = s.run
    target = r.params.get("target_run") if r.kind == "judge" else None
    kind = f"judge #{target}" if target is not None else r.kind  # a judge run says which run it judged
    return {"id": str(r.id), "kind": kind, "model": r.label,
            **_figures(status_cell(r.shown_status, job, r.archived), s.done, r.total, s.correct, s.scored,
                       s.invalid, s.errors),
            "created": (r.created_at or "")[5:16].replace("T", " ")}


def figures_cells(f: RunFigures, job: Job | None) -> dict[str, str]:
    """The cells that live progress changes."""
    return _figures(status_cell(f.status, job), f.done, f.total, f.correct, f.scored, f.invalid, f.errors)


def judgeable(summaries: Iterable[RunSummary]) -> list[tuple[str, str]]:
    """(label, run id) of the runs a judge run can judge, newest first: LLM or imported runs
    with at least one answer that is not an API error; the label has the run's accuracy (the
    runs list's rule) and a model name cut with "…" so that no two read alike."""
    runs = sorted((s for s in summaries if s.run.kind in ("llm", "imported") and s.done > s.errors),
                  key=lambda s: -s.run.id)
    models = display.distinct_cuts([display.line(s.run.label) for s in runs], 32)
    return [(f"#{s.run.id} {s.run.kind} {model} · {accuracy_text(s.correct, s.scored, s.done, s.errors)}"
             f" · {s.done} answers", str(s.run.id)) for s, model in zip(runs, models)]


def _cell(column: str, value: str) -> Text:
    return Text(display.line(value), justify="right" if column in RIGHT else "left", no_wrap=True)


class RunsScreen(AppState, Screen[None]):
    KEYS_TITLE = "runs"
    KEY_TABLE = (
        Key("escape,q", "back", "Back", "back to the bank", palette="Back"),
        Key("n", "new", "New run", "launch a new run (embedding, LLM, paraphrase, recall or judge)", palette="New run"),
        Key("w", "sweep", "Sweep", "launch or resume a sweep from its spec file (TOML), with its dashboard",
            footer=False, palette="Launch a sweep"),
        Key("enter", "open", "Predictions", "the highlighted run's answers", priority=True,
            palette="Open predictions"),
        Key("c", "cancel_run", "Cancel", "cancel the highlighted run", palette="Cancel run"),
        Key("u", "resume", "Resume", "resume an interrupted run", palette="Resume run"),
        Key("U", "resume_elsewhere", "Resume at…", "resume at another base URL (asks it)",
            palette="Resume run at another URL"),
        Key("e", "retry_errors", "Retry errors", "answer again the questions that got an API error",
            palette="Retry errors"),
        Key("r", "reload", "Reload", "reload the runs", palette="Reload"),
        Key("a", "archive", "Archive", "archive or unarchive the highlighted run", palette="Archive run"),
        Key("d", "delete", "Delete", "delete the highlighted run (after a confirm)", palette="Delete run"),
        Key("h", "toggle_archived", "Archived", "show or hide the archived runs", footer=False,
            palette="Show archived runs"),
        help_key(),
    )
    BINDINGS = bindings(KEY_TABLE)

    def __init__(self) -> None:
        super().__init__(id="runs")
        self.summaries: dict[int, RunSummary] = {}
        self.panel_job: int | None = None  # the job whose progress the panel shows
        self.show_archived = False
        self._highlighted_run: int | None = None
        self._columns: list[tuple[str, str, int]] | None = None  # the table's, set by reload

    @property
    def jobs(self) -> Jobs:
        return jobs_for(self.app)

    def compose(self) -> ComposeResult:
        with Horizontal(id="runs-bar"):
            yield Static(id="runs-head", markup=False)
            yield Button("New run (n)", id="runs-new", compact=True)
        yield RowsTable(id="runs-table", cursor_type="row", zebra_stripes=True)
        yield RunPanel(id="run-panel")
        yield KeyBar()

    def on_mount(self) -> None:
        self.jobs.listener = self
        for job in self.jobs.jobs.values():
            if job.active:
                job.figures = None  # missed while closed: the store's figures until the next message
        active = self.jobs.active()
        self.panel_job = active[-1].key if active else None
        self.reload()
        self.query_one(DataTable).focus()

    def on_unmount(self) -> None:
        if self.jobs.listener is self:
            self.jobs.listener = None

    # ------------------------------------------------------------ table

    def on_resize(self, event: events.Resize) -> None:
        if columns_for(event.size.width) is not self._columns:
            self.reload()

    def reload(self, select: int | None = None) -> None:
        """Re-read every run's figures from the store; keep (or move) the cursor. The
        columns follow the screen's width."""
        table = self.query_one(DataTable)
        current = select if select is not None else self.selected_id
        self.summaries = {s.run.id: s for s in self.store.runs.run_summaries(archived=self.show_archived)}
        columns = columns_for(self.app.size.width)
        if columns is not self._columns:
            table.clear(columns=True)
            for label, key, width in columns:
                table.add_column(label, key=key, width=width)
            self._columns = columns
        table.clear()
        order = sorted(self.summaries, reverse=True)  # newest first
        width = dict((k, w) for _, k, w in columns)["model"]
        models = dict(zip(order, display.distinct_cuts([self.summaries[r].run.label for r in order], width)))
        for run_id in order:
            cells = summary_cells(self.summaries[run_id], self.jobs.for_run(run_id)) | {"model": models[run_id]}
            table.add_row(*(_cell(k, display.cut(cells[k], w)) for _, k, w in columns), key=str(run_id))
        if current in self.summaries:
            table.move_cursor(row=table.get_row_index(str(current)), animate=False)
        self._update_head()
        self._update_panel()

    @property
    def selected_id(self) -> int | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
        return int(key.value) if key.value is not None else None

    def _update_head(self) -> None:
        active = sum(j.running for j in self.jobs.active())
        label = self.app.db_label or str(self.app.db_path)
        text = f"runs │ {label} │ {len(self.summaries)} run(s)" + (
            f", {active} in progress here" if active else "")
        if not self.summaries:
            text += " │ n: launch the first run"
        self.query_one("#runs-head", Static).update(text)

    def _update_row(self, f: RunFigures, job: Job | None) -> None:
        table = self.query_one(DataTable)
        shown = {key for _, key, _ in self._columns or ()}
        for column, value in figures_cells(f, job).items():
            if column in shown:
                table.update_cell(str(f.run_id), column, _cell(column, value))

    # ------------------------------------------------------------ panel

    def _panel_figures(self) -> RunFigures | None:
        job = self.jobs.jobs.get(self.panel_job) if self.panel_job is not None else None
        if job is None:
            return None
        if job.figures is not None:
            return job.figures
        s = self.summaries.get(job.run_id) if job.run_id is not None else None
        if s is None:
            return RunFigures(job.key, job.run_id, job.kind, job.model)
        return RunFigures(job.key, job.run_id, job.kind, job.model, s.run.total, s.done, s.correct,
                          s.scored, s.invalid, s.errors, status=s.run.status, message=s.run.reason or "")

    def _update_panel(self) -> None:
        self.query_one(RunPanel).show(self._panel_figures())

    @on(DataTable.RowHighlighted, "#runs-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        run_id = int(event.row_key.value) if event.row_key and event.row_key.value else None
        if run_id == self._highlighted_run:
            return  # the same row again (a reload refilled the table)
        self._highlighted_run = run_id
        jobs = [j for j in self.jobs.jobs.values() if run_id is not None and j.run_id == run_id]
        if jobs and jobs[-1].key != self.panel_job:  # this run ran here: show its progress
            self.panel_job = jobs[-1].key
            self._update_panel()

    # ------------------------------------------------------------ messages from the workers

    def on_run_progressed(self, message: RunProgressed) -> None:
        f = message.figures
        job = self.jobs.jobs.get(f.job)
        if job is None:
            return
        was_final = job.figures is not None and job.figures.status in FINAL
        job.figures = f
        select = None
        if job.run_id is None and f.run_id is not None:
            job.run_id = f.run_id  # an embedding run has created its row
            select = f.run_id if f.job == self.panel_job else None
        if f.run_id is not None:
            if f.status in FINAL or f.run_id not in self.summaries:
                self.reload(select=select)
                if f.status in FINAL and not was_final:
                    acc = f", accuracy {f.accuracy:.1%}" if f.accuracy is not None else ""
                    run = self.summaries.get(f.run_id)
                    why = f" — {run.run.reason}" if run and run.run.reason and f.status == "failed" else ""
                    errors = f", {f.errors} API errors" if f.errors and f.status == "done" else ""
                    self.notify(f"run {f.run_id} {f.status}: {f.done}/{f.total}{acc}{errors}{why}",
                                severity="error" if f.status == "failed" else
                                "warning" if errors else "information", timeout=6)
            else:
                self._update_row(f, job)
        if f.job == self.panel_job:
            self._update_panel()

    def on_run_failed(self, message: RunFailed) -> None:
        job = self.jobs.jobs.get(message.job)
        run_id = message.run_id or (job.run_id if job else None)
        if run_id is not None:
            run = self.store.runs.get_run(run_id)
            if run is not None and run.status == "running":
                self.store.runs.set_run_status(run_id, "failed")
        if job is not None:
            job.figures = RunFigures(job.key, run_id, job.kind, job.model, status="failed",
                                     message=message.error)
        self.notify(f"run {run_id or '(not created)'} failed: {message.error}", severity="error", timeout=10)
        self.reload()

    # ------------------------------------------------------------ launching

    def launch(self, spec: Spec, values: dict[str, str]) -> str | None:
        """Start a run of any kind from the form; an error message (shown in the form) or None.
        The run is created here (a bad spec fails at once), then executed in a worker."""
        try:
            if isinstance(spec, EmbedRunSpec):
                run = create_embedding_run(self.store, spec)
                job = start_embedding(self.app, run.id, spec)
            elif isinstance(spec, JudgeRunSpec):
                run = create_judge_run(self.store, spec, spec.target_run, only_wrong=spec.only_wrong)
                job = start_llm(self.app, run.id, spec.model, kind="judge",
                                overrides={"base_url": spec.base_url})
            elif isinstance(spec, RecallRunSpec):
                run, _ = create_recall_run(self.store, spec)  # (couplets left out: counted in its total)
                job = start_llm(self.app, run.id, spec.model, kind="recall",
                                overrides={"base_url": spec.base_url})
            else:
                run = create_llm_run(self.store, spec, kind=values.get("kind", "llm"))
                job = start_llm(self.app, run.id, spec.model, kind=run.kind,
                                overrides={"base_url": spec.base_url})
            select = run.id
        except (RunError, StoreError, ValueError) as e:
            return str(e)
        kind = values.get("kind") or "llm"
        self.jobs.last_forms[kind] = values
        self.jobs.last_kind = kind
        self.panel_job = job.key
        self.reload(select=select)
        return None

    def action_new(self) -> None:
        self.app.push_screen(RunForm(self.launch, self.jobs.last_forms, judgeable(self.summaries.values()),
                                     kind=self.jobs.last_kind))

    def action_sweep(self) -> None:
        """Ask for a sweep's spec file (checked on Enter: one line naming the field), then
        open its dashboard, which starts it (or goes on with the sweep of that name)."""
        from ...runs import sweep_spec
        from .sweep import SweepScreen

        checked: dict[str, sweep_spec.SweepSpec] = {}  # the spec Enter read: the one started

        def problem(path: str) -> str | None:
            try:
                checked[path] = sweep_spec.load_sweep_spec(Path(path).expanduser())
            except sweep_spec.SweepSpecError as e:
                return str(e)
            return None

        def chosen(path: str | None) -> None:
            if not path or path not in checked:
                return
            spec = checked[path]
            key = f"sweep:{spec.sweep.name}"  # its dashboard, kept while it is asked
            if self.app.is_screen_installed(key):
                if spec.sweep.name in self.jobs.sweeps:  # going in the background: its dashboard again
                    self.app.push_screen(key, lambda _: self.reload())
                    return
                self.app.uninstall_screen(key)
            self.app.install_screen(SweepScreen(spec), key)
            self.app.push_screen(key, lambda _: self.reload())

        self.app.push_screen(ReasonDialog("Sweep: the spec file (TOML; see the guide's Sweeps page)",
                                          required=True, what="spec file", check=problem), chosen)

    @on(Button.Pressed, "#runs-new")
    def _new_pressed(self) -> None:
        self.action_new()

    def _target_job(self) -> Job | None:
        """The job to cancel: the selected run's, else the panel's, else the only one."""
        job = self.jobs.for_run(self.selected_id)
        if job is None and self.panel_job in self.jobs.jobs and self.jobs.jobs[self.panel_job].running:
            job = self.jobs.jobs[self.panel_job]
        running = [j for j in self.jobs.active() if j.running]
        return job or (running[0] if len(running) == 1 else None)

    def action_cancel_run(self) -> None:
        job = self._target_job()
        if job is None:
            self.notify("no run in progress here to cancel (select a ▶ run)", timeout=3)
            return
        job.cancel.set()
        self.notify(f"cancelling run {job.run_id or ''}: waiting for the requests in flight", timeout=3)
        if job.run_id in self.summaries and job.figures is not None:
            self._update_row(job.figures, job)

    def _selected(self) -> RunSummary | None:
        run_id = self.selected_id
        return self.summaries.get(run_id) if run_id is not None else None

    def _resumable(self, retry_errors: bool) -> RunSummary | None:
        """The selected run when it can be resumed now, else None (the user is told why)."""
        s = self._selected()
        if s is None:
            self.notify("no run selected", timeout=2)
            return None
        r = s.run
        if r.kind not in ("llm", "paraphrase", "judge", "recall"):
            self.notify(f"run {r.id} is an {r.kind} run: only LLM, paraphrase, recall and judge runs resume "
                        "(an embedding run is quick to launch again with n)", timeout=4)
            return None
        if self.jobs.for_run(r.id):
            self.notify(f"run {r.id} is in progress already", timeout=3)
            return None
        if retry_errors and not s.errors:
            self.notify(f"run {r.id} has no API errors to retry", timeout=3)
            return None
        if not retry_errors and r.status == "done" and s.done >= r.total:
            self.notify(f"run {r.id} is complete (e asks its API errors again)", timeout=3)
            return None
        return s

    def _resume(self, retry_errors: bool, overrides: dict[str, Any] | None = None) -> None:
        s = self._resumable(retry_errors)
        if s is None:
            return
        r = s.run
        job = start_llm(self.app, r.id, r.model, retry_errors=retry_errors, kind=r.kind, overrides=overrides)
        self.panel_job = job.key
        where = f" at {redact.url(overrides['base_url'])}" if overrides and overrides.get("base_url") else ""
        self.notify(f"run {r.id}: {'retrying its API errors' if retry_errors else 'resuming'}{where}", timeout=3)
        self.reload()

    def action_resume_elsewhere(self) -> None:
        """Resume the selected run at another base URL (a run started with a wrong one, an
        endpoint that moved), asking its API errors again too: only how it is reached changes,
        recorded in the run's history."""
        s = self._resumable(False)
        if s is None:
            return
        run = s.run

        def chosen(url: str | None) -> None:
            if not url:
                return
            try:
                url = check_base_url(url)
                changes = resume_overrides(self.store, run, {"base_url": url})
            except ValueError as e:  # the URL itself
                self.notify(f"base URL {e}", severity="error", timeout=6)
                return
            except (RunError, StoreError) as e:
                self.notify(display.line(str(e)), severity="error", timeout=6)
                return
            # at the new endpoint, what failed at the old one is asked again too
            self._resume(bool(s.errors), {**changes, "base_url": url})

        def problem(url: str) -> str | None:
            try:
                check_base_url(url)
            except ValueError as e:
                return f"base URL {e}"
            return None

        stored = redact.url(run.params.get("base_url") or "") or "none"
        self.app.push_screen(ReasonDialog(f"Resume run {run.id} at another base URL (now {stored})",
                                          required=True, what="base URL", check=problem), chosen)

    def action_resume(self) -> None:
        self._resume(False)

    def action_retry_errors(self) -> None:
        self._resume(True)

    # ------------------------------------------------------------ other keys

    def action_open(self) -> None:
        if isinstance(self.focused, Button):  # Enter on the button presses it
            self.focused.press()
            return
        run_id = self.selected_id
        if run_id is None:
            self.notify("no run yet: n launches one", timeout=2)
            return
        s = self._selected()
        if s is not None and s.run.kind == "recall":  # probes, not answers (reviewers and admins)
            from .run_probes import RunProbesScreen

            if access(self).blind:
                self.notify(f"run {run_id} is a recall run: its probes point at the keys, and are for "
                            "reviewers and admins", severity="warning", timeout=4)
                return
            self.app.push_screen(RunProbesScreen(run_id))
            return
        if s is not None and s.run.kind == "paraphrase" and s.run.params.get("corpus"):
            self.notify(f"run {run_id} wrote the prose of corpus couplets, not answers: on the Candidates screen "
                        f"(C), t chooses it and P proposes fresh questions from it; or `persian-tui corpus "
                        f"propose --count N --paraphrases {run_id}` (see the fresh-questions guide)", timeout=8)
            return
        from .run_detail import RunDetailScreen

        self.app.push_screen(RunDetailScreen(run_id))

    def action_reload(self) -> None:
        self.reload()
        self.notify(f"reloaded: {len(self.summaries)} run(s)", timeout=2)

    def action_archive(self) -> None:
        s = self._selected()
        if s is None:
            self.notify("no run selected", timeout=2)
            return
        self.store.runs.archive_run(s.run.id, not s.run.archived)
        self.notify(f"run {s.run.id} " + ("unarchived" if s.run.archived else
                                          "archived: hidden here and in default reports (h shows archived runs)"),
                    timeout=4)
        self.reload()

    def action_delete(self) -> None:
        s = self._selected()
        if s is None:
            self.notify("no run selected", timeout=2)
            return
        if self.jobs.for_run(s.run.id):
            self.notify(f"run {s.run.id} is in progress: cancel it first (c)", severity="warning", timeout=4)
            return
        from ..dialogs.common import ConfirmDialog

        def answered(yes: bool | None) -> None:
            if yes:
                try:
                    ids = self.store.runs.delete_run(s.run.id)
                except LeaseHeld as e:  # another process works on it
                    self.notify(str(e), severity="warning", timeout=6)
                    return
                self.notify(f"deleted run {', '.join(map(str, ids))} (logged in its history)", timeout=4)
                self.reload()

        self.app.push_screen(ConfirmDialog(
            f"Delete run {s.run.id} ({s.run.kind}, {display.line(s.run.model)[:40]}) with its "
            f"{s.done} predictions, its judgments and the judge runs of it?"), answered)

    def action_toggle_archived(self) -> None:
        self.show_archived = not self.show_archived
        self.notify("showing archived runs too" if self.show_archived else "archived runs hidden", timeout=2)
        self.reload()

    def action_back(self) -> None:
        self.dismiss()
