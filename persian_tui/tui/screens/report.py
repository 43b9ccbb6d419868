"""The report screen: the figures of `persian-tui report`, computed off the UI thread.

Tabs (each a widget of its own, in ``widgets/report_*.py``): 1 leaderboard (table + chart),
2 paired comparisons, 3 breakdowns, 4 behaviour (position bias, confusion, agreement between
runs), 5 hardest questions, 6 human baseline, 7 item analysis, 8 memory (recall runs). The screen computes the
report, shows it in every tab and holds the keys.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Static, TabbedContent
from textual.worker import get_current_worker

from ...access import AccessDenied
from ...bidi import OFF
from ...models import QUESTION_SETS
from ...reports.notes import no_shared_message, report_scope
from ..base import AppState
from ..guard import access
from ..keys import Key, bindings, help_key
from ..messages import ReportExported, ReportFailed, ReportReady  # noqa: F401 (re-exported)
from ..report.behaviour import BehaviourTab
from ..report.breakdowns import BreakdownsTab
from ..report.cells import ReportTab, RunNames, cursor_key, cut, right
from ..report.hardest import HardestTab, ItemsTab
from ..report.leaderboard import HumanTab, LeaderboardTab
from ..report.memory import MemoryTab
from ..report.pairs import PairsTab
from ..widgets.key_bar import KeyBar
from ..widgets.rows_table import RowsTable

if TYPE_CHECKING:
    from ...reports.figures import Report

TABS = ("leaderboard", "pairs", "breakdowns", "behaviour", "hardest", "human", "items", "memory")
MAIN_WIDGET = {"leaderboard": "#lb-table", "pairs": "#pairs-table", "breakdowns": "#bd-table",
               "behaviour": "#bh-run", "hardest": "#hard-table", "human": "#human-table",
               "items": "#items-table", "memory": "#memory-runs"}
TITLES = ("Leaderboard", "Pairs", "Breakdowns", "Behaviour", "Hardest", "Human", "Items", "Memory")
TAB_WIDGETS: tuple[type[ReportTab], ...] = (LeaderboardTab, PairsTab, BreakdownsTab, BehaviourTab, HardestTab,
                                            HumanTab, ItemsTab, MemoryTab)
EXPORT_DIR = Path("exports") / "report"  # beside the database
EXPORT_SETTING = "report.export_dir"  # the folder last exported to (the next prompt's default)


class ReportScreen(AppState, Screen[None]):
    KEYS_TITLE = "report"
    KEY_TABLE = (
        Key("escape,q", "back", "Back", "back", palette="Back"),
        Key("r", "recompute", "Recompute", "compute the report again", palette="Recompute"),
        Key("e", "export", "Export", "export the report (Markdown, CSV and JSON)", palette="Export"),
        Key("c", "cycle_questions", "Questions", "question set: all, ready, curated", palette="Question set"),
        Key("x", "exclude_run", "Exclude run", "leave the highlighted run out", palette="Exclude run"),
        Key("a", "all_runs", "All runs", "bring back every excluded run", footer=False, palette="All runs"),
        Key("d", "cycle_dimension", "Dimension", "breakdowns: the next dimension", footer=False,
            palette="Breakdown dimension"),
        Key("1", "tab(1)", TITLES[0], f"tabs: {', '.join(TITLES)}", footer=False, shown=f"1–{len(TITLES)}",
            palette=f"Tab: {TITLES[0]}"),
        *(Key(str(i), f"tab({i})", TITLES[i - 1], footer=False, help=False, palette=f"Tab: {TITLES[i - 1]}")
          for i in range(2, len(TITLES) + 1)),
        help_key(),
    )
    BINDINGS = bindings(KEY_TABLE)

    def __init__(self, *, run_ids: list[int] | None = None, questions: str = "all",
                 seed: int = 0, n_boot: int = 2000, export_dir: str | Path | None = None) -> None:
        super().__init__(id="report")
        self.export_dir = Path(export_dir) if export_dir is not None else None  # None: ask the store
        self.run_ids = list(run_ids) if run_ids is not None else None
        self.questions = questions
        self.seed = seed
        self.n_boot = n_boot
        self.excluded: set[int] = set()
        self.report: Report | None = None
        self.error: str | None = None
        self.computing = False
        self.generation = 0
        self._seen_runs: list[int] = []  # every run of the reports so far (x leaves some out)
        self.runs = RunNames()

    # ------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Static(id="report-head", markup=False)
        with Vertical(id="report-empty"):
            yield Static(id="empty-message", markup=False)
            yield RowsTable(id="empty-runs", cursor_type="row", zebra_stripes=True)
        with TabbedContent(id="report-tabs", initial="leaderboard"):
            for i, (tab, pane, title) in enumerate(zip(TAB_WIDGETS, TABS, TITLES), 1):
                yield tab(f"{i} {title}", id=pane)
        yield KeyBar()

    def on_mount(self) -> None:
        self._show_empty(None)
        self.action_recompute()

    # ------------------------------------------------------------ computing

    def action_recompute(self) -> None:
        self.generation += 1
        self.computing = True
        self.error = None
        run_ids = self.run_ids
        if self.excluded:
            run_ids = [r for r in (run_ids or self._seen_runs) if r not in self.excluded]
        tabs = self.query_one(TabbedContent)
        tabs.loading = self.report is None
        self._update_head()
        self._compute(run_ids, self.questions, self.seed, self.n_boot, self.generation)

    @work(thread=True, exclusive=True, group="report", exit_on_error=False)
    def _compute(self, run_ids: list[int] | None, questions: str, seed: int, n_boot: int, generation: int) -> None:
        from ...reports.figures import build_report
        from ...store import Store

        worker = get_current_worker()
        try:
            with Store(self.app.db_path) as store:
                report = build_report(store, run_ids=run_ids, questions=questions, seed=seed,
                                      n_boot=n_boot)
        except Exception as e:  # noqa: BLE001 -- shown to the user, the screen stays usable
            if not worker.is_cancelled:
                self.post_message(ReportFailed(f"{type(e).__name__}: {e}", generation))
            return
        if not worker.is_cancelled:
            self.post_message(ReportReady(report, generation))

    def on_report_ready(self, message: ReportReady) -> None:
        if message.generation != self.generation:
            return  # an older computation finished after a newer one started
        self.computing = False
        self.report = message.report
        self.query_one(TabbedContent).loading = False
        self._fill(message.report)

    def on_report_failed(self, message: ReportFailed) -> None:
        if message.generation != self.generation:
            return
        self.computing = False
        self.error = message.error
        self.query_one(TabbedContent).loading = False
        self._update_head()
        if self.report is None:
            self._show_empty(f"The report could not be computed:\n\n{message.error}\n\nr tries again.")
        self.notify(f"report failed: {message.error}", severity="error", timeout=10)

    # ------------------------------------------------------------ filling the tabs

    def _fill(self, report: Report) -> None:
        rows = list(report.leaderboard)
        self._seen_runs += [r for r in report.run_ids if r not in self._seen_runs]
        self.runs = RunNames({r.run_id: r.model for r in rows}, {r.run_id: i for i, r in enumerate(rows, 1)})
        self._update_head()
        if not report.run_ids:
            self._show_empty("No finished runs with predictions yet.\n\nLaunch one from the runs "
                             "screen (m on the bank) or import predictions with "
                             "`persian-tui import-predictions FILE.csv`, then press r here.")
            return
        if not report.questions:
            self._show_empty(no_shared_message(report, self.questions, self.excluded),
                             runs=report.keyed > 0)
            return
        self._show_empty(None)
        for tab in TAB_WIDGETS:
            self.query_one(tab).fill(report, self.runs)

    def _show_empty(self, message: str | None, *, runs: bool = False) -> None:
        """A message in place of the tabs (None: the tabs); ``runs`` lists the report's runs
        with how many keyed questions each answered, so one can be excluded (x)."""
        self.query_one("#empty-message", Static).update(message or "")
        self.query_one("#report-empty").display = message is not None
        tabs = self.query_one(TabbedContent)
        tabs.display = message is None
        table = self.query_one("#empty-runs", DataTable)
        table.display = runs
        if runs and self.report is not None:
            table.clear(columns=True)
            table.add_column("run", key="run")
            table.add_column("model", key="model")
            table.add_column(right("answered"), key="answered")
            for r in self.report.run_ids:
                run = self.store.runs.get_run(r)
                table.add_row(right(r), cut(run.model if run else "?", 40),
                              right(f"{self.report.answered.get(r, 0)}/{self.report.keyed}"), key=str(r))
            table.focus()
        elif message is None and self.report is not None:
            self._focus_tab(self.query_one(TabbedContent).active)

    def _update_head(self) -> None:
        label = self.app.db_label or str(self.app.db_path)
        parts = [f"report │ {label}"]
        if self.report is not None:
            parts.append(f"{len(self.report.run_ids)} run(s) on {self.report.questions} shared question(s)")
        parts.append(f"questions: {self.questions}")
        if self.excluded:
            parts.append(f"{len(self.excluded)} run(s) excluded (a: all)")
        if self.computing:
            parts.append("computing…")
        elif self.error:
            parts.append("failed (r: try again)")
        self.query_one("#report-head", Static).update(" │ ".join(parts))

    # ------------------------------------------------------------ keys

    def action_tab(self, number: int) -> None:
        tabs = self.query_one(TabbedContent)
        if 1 <= number <= len(TABS) and tabs.display:
            tabs.active = TABS[number - 1]

    @on(TabbedContent.TabActivated, "#report-tabs")
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        self._focus_tab(event.pane.id)

    def _focus_tab(self, pane: str | None) -> None:
        """Each tab's main widget takes the focus, so its keys work at once. The tab is not
        scrolled to it: a tab opens at its top (its note first), whether or not its tables were
        filled when the focus moved (that timing used to decide the scroll)."""
        target = MAIN_WIDGET.get(pane or "")
        if target:
            self.query_one(target).focus(scroll_visible=False)

    def action_cycle_dimension(self) -> None:
        self.query_one(BreakdownsTab).next_dimension()

    def action_back(self) -> None:
        self.dismiss()

    def action_cycle_questions(self) -> None:
        sets = list(QUESTION_SETS)  # ready -> curated -> all -> ready
        self.questions = sets[(sets.index(self.questions) + 1) % len(sets)] if self.questions in sets else "all"
        self.notify(f"questions: {report_scope(self.questions)}", timeout=2)
        self.action_recompute()

    def action_exclude_run(self) -> None:
        if self.report is None or self.computing:
            return
        empty = self.query_one("#empty-runs", DataTable)
        if empty.display and self.query_one("#report-empty").display:
            table = empty
        elif self.query_one(TabbedContent).active == "leaderboard":
            table = self.query_one("#lb-table", DataTable)
        else:
            self.notify("x excludes the highlighted run of the leaderboard (tab 1)", timeout=3)
            return
        key = cursor_key(table)
        if key is None:  # no row
            return
        run_id = int(key)
        if len(self.report.run_ids) < 2:
            self.notify("the last run cannot be excluded", timeout=3)
            return
        self.excluded.add(run_id)
        self.notify(f"run {run_id} excluded: comparing the others on the questions they share", timeout=3)
        self.action_recompute()

    def action_all_runs(self) -> None:
        if not self.excluded:
            return
        self.excluded.clear()
        self.action_recompute()

    def action_export(self) -> None:
        if self.report is None or self.computing:
            self.notify("the report is not ready yet", timeout=2)
            return
        if not self.report.questions:
            self.notify("nothing to export: no runs compared on shared questions", timeout=3)
            return
        from ...store import StoreError
        from ..dialogs.text_prompt import TextPrompt

        default = self.export_dir or self.store.labels.get_setting(EXPORT_SETTING) or \
            Path(self.app.db_path).resolve().parent / EXPORT_DIR
        report = self.report

        def chosen(folder: str | None) -> None:
            if not folder:
                return
            person = access(self)
            try:  # relative to the database, never to the working directory; a non-admin's under exports/
                directory = person.export_folder(self.app.db_path, folder)
            except AccessDenied as e:
                self.notify(str(e), severity="error", timeout=8)
                return
            self.export_dir = directory
            try:
                person.remember_export_folder(self.store, EXPORT_SETTING, directory)
            except StoreError:
                pass  # only the next prompt's default is lost
            self.notify(f"writing the report to {directory}/ …", timeout=2)
            self._export(report, directory)

        self.app.push_screen(TextPrompt("Export the report (Markdown, CSV, JSON, PNG) to the folder",
                                        str(default), hint="a relative folder is taken beside the database",
                                        required=True, mode=OFF), chosen)

    @work(thread=True, exclusive=True, group="report-export", exit_on_error=False)
    def _export(self, report: Report, directory: Path) -> None:
        """Markdown (with the PNG charts), CSV and JSON, as `persian-tui report -o DIR` writes them."""
        from ...reports.report_files import FORMATS, write_report

        try:
            paths = [path for fmt in FORMATS for path in write_report(report, directory, fmt)]
        except (OSError, ValueError) as e:
            self.post_message(ReportExported(error=str(e)))
            return
        self.post_message(ReportExported(path=str(directory.resolve()), files=[p.name for p in paths]))

    def on_report_exported(self, message: ReportExported) -> None:
        if message.error:
            self.notify(f"export failed: {message.error}", severity="error", timeout=8)
        else:
            self.notify(f"report written to {message.path}/: report.md (with its charts), "
                        f"{len(message.files)} file(s) in all", timeout=8)
