"""The report screen: the figures of `persian-tui report`, computed off the UI thread.

Tabs: 1 leaderboard (table + chart), 2 paired comparisons, 3 breakdowns, 4 behaviour
(position bias, confusion, agreement between runs), 5 hardest questions, 6 human baseline.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Label, Select, Static, TabbedContent, TabPane
from textual.worker import get_current_worker

from ... import bidi, display
from ..keys import Key, bindings, help_key
from ..messages import ReportExported, ReportFailed, ReportReady  # noqa: F401 (re-exported)
from ..widgets.item_table import fill_items, item_note
from ..widgets.key_bar import KeyBar
from ..widgets.report_charts import Bar, LeaderChart, PositionChart, short_model
from ..widgets.report_groups import RunGroups

TABS = ("leaderboard", "pairs", "breakdowns", "behaviour", "hardest", "human", "items")
MAIN_WIDGET = {"leaderboard": "#lb-table", "pairs": "#pairs-table", "breakdowns": "#bd-table",
               "behaviour": "#bh-run", "hardest": "#hard-table", "human": "#human-table",
               "items": "#items-table"}
TITLES = ("Leaderboard", "Pairs", "Breakdowns", "Behaviour", "Hardest", "Human", "Items")
DIMENSIONS = (("category", "category"), ("source", "source"), ("poet", "poet"),
              ("difficulty", "difficulty"), ("key poet (corpus)", "key poet"),
              ("key form (corpus)", "key form"), ("key metre (corpus)", "key metre"),
              ("question poet (corpus)", "question poet"), ("question form (corpus)", "question form"),
              ("question metre (corpus)", "question metre"))
QUESTION_SETS = ("all", "ready", "curated")
_CELLS = "Each cell: the run's accuracy and correct/total on those questions; each header: how many questions."
BREAKDOWN_HELP = {
    "category": f"By the question's category. {_CELLS}",
    "source": f"By the source the question was imported from. {_CELLS}",
    "poet": f"By the question's poet (else its couplets' poets joined with +). {_CELLS}",
    "difficulty": ("By difficulty tier, from the share of these runs that solve the question: easy ≥ 70 %, "
                   f"medium 50–70 %, hard 30–50 %, very hard < 30 %. {_CELLS}"),
    **{f"key {w}": (f"By the {w} of the key couplet's corpus poem (persian-tui corpus link); "
                    f"(unlinked) when it has no link. {_CELLS}") for w in ("poet", "form", "metre")},
    **{f"question {w}": (f"By the {w} all four couplets share in the corpus; (mixed) when they "
                         f"differ, (unlinked) when one has no link. {_CELLS}") for w in ("poet", "form", "metre")},
}
ALPHA = 0.05
MODEL_WIDTH = 25
VALUE_WIDTH = 18  # a breakdown value (column header)
EXPORT_DIR = Path("exports") / "report"


# ------------------------------------------------------------------ formatting


def pct(x: float | None, digits: int = 1) -> str:
    return "—" if x is None else f"{100 * x:.{digits}f}%"


def interval(low: float | None, high: float | None) -> str:
    """A 95 % interval of a proportion, in %: '58.2–71.0'."""
    if low is None or high is None:
        return "—"
    return f"{100 * low:.1f}–{100 * high:.1f}"


def signed_interval(low: float | None, high: float | None) -> str:
    """A 95 % interval of a difference, in points: '−5.1…+25.6'."""
    if low is None or high is None:
        return "—"
    return f"{100 * low:+.1f}…{100 * high:+.1f}".replace("-", "−")


def p_value(p: float | None) -> str:
    from ...io.report_files import format_p  # one p-value format for the screen and the files

    return format_p(p)


def tokens(n_in: int | None, n_out: int | None) -> str:
    if n_in is None and n_out is None:
        return "—"
    return f"{_k(n_in)}/{_k(n_out)}"


def _k(n: int | float | None) -> str:
    if n is None:
        return "—"
    if not n:
        return "0"
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f}M"
    if n >= 10_000:
        return f"{n / 1000:.0f}k"
    if n >= 1000:
        return f"{n / 1000:.1f}k"
    return str(int(n))


def seconds(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f} s"


def dollars(x: float | None) -> str:
    if not x:
        return "—"
    return f"${x:.4f}" if x < 1 else f"${x:.2f}"


def cut(text: str, width: int) -> str:
    text = display.line(text)  # model names and ids come from data
    return text if len(text) <= width else text[: width - 1] + "…"


def right(value) -> Text:
    return Text(str(value), justify="right", no_wrap=True)


# ------------------------------------------------------------------ messages from the worker


# ------------------------------------------------------------------ the question pop-up


class HardQuestionScreen(ModalScreen):
    """One of the hardest questions: its couplets (key in green) and what the runs chose."""

    KEYS_TITLE = "question"
    KEY_TABLE = (Key("escape,enter,q", "app.pop_screen", "Close", "close", palette="Close"), help_key())
    BINDINGS = bindings(KEY_TABLE)
    DEFAULT_CSS = """
    HardQuestionScreen { align: center middle; }
    HardQuestionScreen > Vertical {
        width: 90; max-width: 95%; height: 90%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    HardQuestionScreen #hq-note { color: $text-muted; height: auto; }
    HardQuestionScreen QuestionDetail { height: 1fr; }
    """

    def __init__(self, question, note: str, mode: str) -> None:
        super().__init__()
        self.question = question
        self.note = note
        self.mode = mode

    def compose(self) -> ComposeResult:
        from ..widgets.couplets import QuestionDetail

        with Vertical():
            yield Static(self.note, id="hq-note", markup=False)
            yield QuestionDetail(self.mode, id="hq-detail")

    def on_mount(self) -> None:
        from ..widgets.couplets import QuestionDetail

        self.query_one(QuestionDetail).show(self.question)


# ------------------------------------------------------------------ the screen


class ReportScreen(Screen):
    KEYS_TITLE = "report"
    KEY_TABLE = (
        Key("escape", "back", "Back", "back", palette="Back"),
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
        self.export_dir = Path(export_dir) if export_dir is not None else EXPORT_DIR
        self.run_ids = list(run_ids) if run_ids is not None else None
        self.questions = questions
        self.seed = seed
        self.n_boot = n_boot
        self.excluded: set[int] = set()
        self.report = None
        self.error: str | None = None
        self.computing = False
        self.generation = 0
        self._seen_runs: list[int] = []  # every run of the reports so far (x leaves some out)
        self._models: dict[int, str] = {}
        self._ranks: dict[int, int] = {}
        self._behaviour_run: int | None = None

    # ------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Static(id="report-head", markup=False)
        with Vertical(id="report-empty"):
            yield Static(id="empty-message", markup=False)
            yield DataTable(id="empty-runs", cursor_type="row", zebra_stripes=True)
        with TabbedContent(id="report-tabs", initial="leaderboard"):
            with TabPane(f"1 {TITLES[0]}", id="leaderboard"):
                yield Static(id="lb-note", markup=False, classes="report-note")
                yield DataTable(id="lb-table", cursor_type="row", zebra_stripes=True)
                yield LeaderChart(id="lb-chart")
            with TabPane(f"2 {TITLES[1]}", id="pairs"):
                yield Static(id="pairs-note", markup=False, classes="report-note")
                yield DataTable(id="pairs-table", cursor_type="row", zebra_stripes=True)
                yield RunGroups(id="pairs-groups")
            with TabPane(f"3 {TITLES[2]}", id="breakdowns"):
                with Horizontal(classes="report-bar"):
                    yield Label("by ")
                    yield Select(DIMENSIONS, value="category", allow_blank=False, compact=True,
                                 id="bd-dimension")
                    yield Static(id="bd-note", markup=False, classes="bar-note")
                yield Static(id="bd-help", markup=False, classes="report-note")
                yield DataTable(id="bd-table", cursor_type="row", zebra_stripes=True)
            with TabPane(f"4 {TITLES[3]}", id="behaviour"):
                with Horizontal(classes="report-bar"):
                    yield Label("run ")
                    yield Select([], allow_blank=True, compact=True, id="bh-run")
                    yield Static(id="bh-note", markup=False, classes="bar-note")
                with Horizontal(id="bh-top"):
                    yield PositionChart(id="bh-chart")
                    with Vertical(id="bh-confusion-box"):
                        yield Static("confusion: key (rows) × chosen", classes="report-note")
                        yield DataTable(id="bh-confusion", cursor_type="none")
                yield Static(id="bh-agreement-note", markup=False, classes="report-note")
                yield DataTable(id="bh-agreement", cursor_type="cell")
            with TabPane(f"5 {TITLES[4]}", id="hardest"):
                yield Static(id="hard-note", markup=False, classes="report-note")
                yield DataTable(id="hard-table", cursor_type="row", zebra_stripes=True)
            with TabPane(f"6 {TITLES[5]}", id="human"):
                yield Static(id="human-note", markup=False, classes="report-note")
                yield DataTable(id="human-table", cursor_type="row", zebra_stripes=True)
            with TabPane(f"7 {TITLES[6]}", id="items"):
                yield Static(id="items-note", markup=False, classes="report-note")
                yield DataTable(id="items-table", cursor_type="row", zebra_stripes=True)
        yield KeyBar()

    def on_mount(self) -> None:
        self._show_empty(None)
        self.action_recompute()

    @property
    def mode(self) -> str:
        return self.app.bidi_mode

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
    def _compute(self, run_ids, questions: str, seed: int, n_boot: int, generation: int) -> None:
        from ...eval.report import build_report
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
        self._fill()

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

    def _fill(self) -> None:
        report = self.report
        rows = list(report.leaderboard)
        self._seen_runs += [r for r in report.run_ids if r not in self._seen_runs]
        self._models = {r.run_id: r.model for r in rows}
        self._ranks = {r.run_id: i for i, r in enumerate(rows, 1)}
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
        self._fill_leaderboard()
        self._fill_pairs()
        self._fill_breakdowns()
        self._fill_behaviour_runs()
        self._fill_behaviour()
        self._fill_hardest()
        self._fill_human()
        fill_items(self.query_one("#items-table", DataTable), self.query_one("#items-note", Static),
                   self.report.items)

    def _show_empty(self, message: str | None, *, runs: bool = False) -> None:
        """A message in place of the tabs (None: the tabs); ``runs`` lists the report's runs
        with how many keyed questions each answered, so one can be excluded (x)."""
        self.query_one("#empty-message", Static).update(message or "")
        self.query_one("#report-empty").display = message is not None
        tabs = self.query_one(TabbedContent)
        tabs.display = message is None
        table = self.query_one("#empty-runs", DataTable)
        table.display = runs
        if runs:
            table.clear(columns=True)
            table.add_column("run", key="run")
            table.add_column("model", key="model")
            table.add_column(right("answered"), key="answered")
            for r in self.report.run_ids:
                run = self.app.store.get_run(r)
                table.add_row(right(r), cut(run.model if run else "?", 40),
                              right(f"{self.report.answered.get(r, 0)}/{self.report.keyed}"), key=str(r))
            table.focus()
        elif message is None and self.report is not None:
            self._focus_tab(self.query_one(TabbedContent).active)

    def _update_head(self) -> None:
        label = getattr(self.app, "db_label", None) or str(self.app.db_path)
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

    def run_name(self, run_id: int, width: int = 22) -> str:
        model = short_model(self._models.get(run_id, "?"))
        return cut(f"{run_id} {model}", width)

    # leaderboard

    def _fill_leaderboard(self) -> None:
        report = self.report
        rows = report.leaderboard
        table = self.query_one("#lb-table", DataTable)
        current = self._cursor_key(table)
        table.clear(columns=True)
        table.add_column("#", key="rank")
        table.add_column("run", key="run")
        table.add_column("model", key="model")
        for label, key in (("accuracy", "accuracy"), ("correct", "correct"), ("Wilson", "wilson"),
                           ("bootstrap", "boot"), ("invalid", "invalid"), ("tokens i/o", "tokens"),
                           ("latency", "latency"), ("cost", "cost"), ("all answered", "all")):
            table.add_column(right(label), key=key)
        for rank, r in enumerate(rows, 1):
            invalid = str(r.invalid) if not r.invalid or not r.total else f"{r.invalid} ({r.invalid / r.total:.0%})"
            table.add_row(right(rank), right(r.run_id), cut(r.model, MODEL_WIDTH), right(pct(r.accuracy)),
                          right(f"{r.correct}/{r.total}"), right(interval(r.wilson_low, r.wilson_high)),
                          right(interval(r.boot_low, r.boot_high)), right(invalid),
                          right(tokens(r.tokens_in, r.tokens_out)), right(seconds(r.latency_mean)),
                          right(dollars(r.cost)),
                          right(f"{pct(r.answered_accuracy)} {r.answered_correct}/{r.answered}"),
                          key=str(r.run_id))
        self._restore_cursor(table, current)
        self.query_one("#lb-note", Static).update(leader_note(report))
        bars = [Bar(rank, short_model(r.model), 100 * (r.accuracy or 0.0),
                    None if r.wilson_low is None else 100 * r.wilson_low,
                    None if r.wilson_high is None else 100 * r.wilson_high)
                for rank, r in enumerate(rows, 1)]
        self.query_one(LeaderChart).show(bars, "Wilson 95 %")

    # pairs

    def _fill_pairs(self) -> None:
        report = self.report
        table = self.query_one("#pairs-table", DataTable)
        table.clear(columns=True)
        table.add_column("run A", key="a")
        table.add_column("run B", key="b")
        for label, key in (("only A", "a_only"), ("only B", "b_only"), ("McNemar p", "p"),
                           ("Holm p", "holm"), ("A − B", "diff"), ("95 % (unadjusted)", "ci"),
                           ("MDE", "mde")):
            table.add_column(right(label), key=key)
        table.add_column("", key="verdict")
        pairs = sorted(report.pairs, key=lambda p: (self._ranks.get(p.a, 0), self._ranks.get(p.b, 0)))
        for p in pairs:
            differ = p.p_holm is not None and p.p_holm < ALPHA
            verdict = Text("differ", style=f"bold {self._color('success')}") if differ else Text("—", style="dim")
            table.add_row(self.run_name(p.a, 20), self.run_name(p.b, 20), right(p.a_only),
                          right(p.b_only), right(p_value(p.p_exact)), right(p_value(p.p_holm)),
                          right(_points(p.diff)), right(signed_interval(p.diff_low, p.diff_high)),
                          right("—" if p.mde is None else f"{100 * p.mde:.1f}"), verdict, key=f"{p.a}-{p.b}")
        differ = sum(p.p_holm is not None and p.p_holm < ALPHA for p in pairs)
        self.query_one("#pairs-note", Static).update(
            f"Each pair on the same {report.questions} questions, A ranked above B. Only A / only B: "
            f"questions just one of them got right; exact McNemar p on those, Holm-corrected for the "
            f"{len(pairs)} comparison(s). A − B: accuracy difference in points, with its paired bootstrap "
            f"95 % interval NOT adjusted for the comparisons (trust Holm p); MDE: the smallest "
            f"difference these questions detect with 80 % power. {differ} pair(s) differ (Holm p < {ALPHA}).")
        groups = [[self.run_name(r, 40) for r in g] for g in (report.groups or [])]
        title = (f"Groups that cannot be told apart: from the top, each group's first run and every run "
                 f"below it that it does not beat (Holm p ≥ {ALPHA})")
        if len(self._models) < 2:
            title, groups = "One run: nothing to compare.", []
        self.query_one(RunGroups).show(title, groups)

    # breakdowns

    @on(Select.Changed, "#bd-dimension")
    def _dimension_changed(self) -> None:
        if self.report is not None:
            self._fill_breakdowns()

    @property
    def dimension(self) -> str:
        value = self.query_one("#bd-dimension", Select).value
        return value if isinstance(value, str) else "category"

    def _fill_breakdowns(self) -> None:
        dim = self.dimension
        rows = [b for b in self.report.breakdowns if b.dimension == dim]
        values: list[str] = []
        totals: dict[str, int] = {}
        cells: dict[tuple[int, str], object] = {}
        for b in rows:
            v = "—" if b.value in (None, "") else str(b.value)
            if v not in totals:
                values.append(v)
            totals[v] = max(totals.get(v, 0), b.total)
            cells[(b.run_id, v)] = b
        if dim != "difficulty":  # tiers keep the core's order (easy → hard)
            values.sort(key=lambda v: (-totals[v], v))
        table = self.query_one("#bd-table", DataTable)
        table.clear(columns=True)
        ranked = [r for r, _ in sorted(self._ranks.items(), key=lambda kv: kv[1])]

        def cell(run_id: int, v: str) -> Text:
            b = cells.get((run_id, v))
            return right("—" if b is None or not b.total else f"{pct(b.accuracy, 0)} {b.correct}/{b.total}")

        if self.mode == "terminal":
            # a bidi terminal reorders whole rows: one (Persian) value per row, runs as columns
            table.add_column("value", key="value")
            table.add_column(right("questions"), key="n")
            for run_id in ranked:
                table.add_column(right(self.run_name(run_id, 18)), key=str(run_id))
            for v in values:
                table.add_row(bidi.display_line(v, VALUE_WIDTH, self.mode), right(totals[v]),
                              *(cell(r, v) for r in ranked), key=v)
        else:
            table.add_column("#", key="rank")
            table.add_column("run", key="run")
            for v in values:
                label = bidi.display_line(v, VALUE_WIDTH, self.mode) if bidi.has_rtl(v) else cut(v, VALUE_WIDTH)
                table.add_column(right(f"{label} ({totals[v]})"), key=v)
            for run_id in ranked:
                table.add_row(right(self._ranks[run_id]), self.run_name(run_id),
                              *(cell(run_id, v) for v in values), key=str(run_id))
        self.query_one("#bd-note", Static).update(f"  {len(values)} value(s)  (d: next dimension)")
        self.query_one("#bd-help", Static).update(BREAKDOWN_HELP[dim])

    # behaviour

    def _fill_behaviour_runs(self) -> None:
        select = self.query_one("#bh-run", Select)
        options = [(self.run_name(r, 40), r) for r, _ in sorted(self._ranks.items(), key=lambda kv: kv[1])]
        keep = self._behaviour_run if self._behaviour_run in self._ranks else (options[0][1] if options else None)
        with select.prevent(Select.Changed):
            select.set_options(options)
            if keep is not None:
                select.value = keep
        self._behaviour_run = keep

    @on(Select.Changed, "#bh-run")
    def _run_changed(self, event: Select.Changed) -> None:
        if isinstance(event.value, int):
            self._behaviour_run = event.value
            if self.report is not None:
                self._fill_behaviour()

    def _fill_behaviour(self) -> None:
        report = self.report
        run_id = self._behaviour_run
        pos = next((p for p in report.position if p.run_id == run_id), None)
        chart = self.query_one(PositionChart)
        if pos is None:
            chart.show([], [], "")
            note = ""
        else:
            chart.show(pos.chosen, pos.keys, f"positions chosen vs keys · χ² p = {p_value(pos.p)}")
            if pos.chi2 is None or pos.p is None:
                note = "  χ² undefined (too few valid answers)"
            else:
                verdict = ("prefers some positions more than the keys do" if pos.p < ALPHA
                           else "no evidence of a position preference")
                note = f"  against the keys: χ² = {pos.chi2:.2f}, p = {p_value(pos.p)}: {verdict}"
            if pos.p_uniform is not None:
                note += f"; against a uniform choice: p = {p_value(pos.p_uniform)}"
        self.query_one("#bh-note", Static).update(note)
        self._fill_confusion(run_id)
        self._fill_agreement()

    def _fill_confusion(self, run_id: int | None) -> None:
        table = self.query_one("#bh-confusion", DataTable)
        table.clear(columns=True)
        matrix = self.report.confusion.get(run_id)
        if matrix is None:
            return
        table.add_column("key", key="key")
        for j in range(len(matrix[0])):
            table.add_column(right(str(j + 1) if j < 4 else "invalid"), key=str(j))
        for i, row in enumerate(matrix):
            table.add_row(right(i + 1), *(Text(str(v), justify="right",
                                               style=f"bold {self._color('success')}" if i == j else "")
                                          for j, v in enumerate(row)))

    def _fill_agreement(self) -> None:
        table = self.query_one("#bh-agreement", DataTable)
        table.clear(columns=True)
        ids, matrix = self.report.agreement
        table.add_column("run", key="run")
        for r in ids:
            table.add_column(right(str(r)), key=str(r))
        for a, row in zip(ids, matrix):
            cells = [Text(f"{v:.2f}".removeprefix("0") if v < 1 else "1", justify="right",
                          style="dim" if a == b else "") for b, v in zip(ids, row)]
            table.add_row(self.run_name(a), *cells, key=str(a))
        self.query_one("#bh-agreement-note", Static).update(
            "Agreement between runs: the share of the shared questions on which both chose the same "
            "option (columns: run ids; the dim diagonal is the run's share of valid answers)")

    # hardest

    def _fill_hardest(self) -> None:
        table = self.query_one("#hard-table", DataTable)
        table.clear(columns=True)
        table.add_column("question", key="uid")
        table.add_column("source", key="source")
        table.add_column(right("solved"), key="solved")
        table.add_column(right("key"), key="key")
        table.add_column(right("common wrong"), key="wrong")
        table.add_column(right("chosen by"), key="share")
        table.add_column(right("first couplet"), key="text")
        for h in self.report.hardest:
            q = self.app.store.get_question(h.uid)
            wrong = "—" if h.common_wrong is None else str(h.common_wrong)
            unsolved = h.runs - h.solved
            share = f"{h.common_wrong_count} of {unsolved} wrong" if unsolved else "—"
            source = cut(q.source_id or "", 8) if q else ""
            first = next((o for o in q.options if o.position == 1), None) if q else None
            text = bidi.display_line(first.mesra1, 40, self.mode) if first else ""
            table.add_row(cut(h.uid, 16), source, right(f"{h.solved}/{h.runs}"),
                          right(q.key if q and q.key else "—"), right(wrong), right(share),
                          right(text), key=h.uid)
        self.query_one("#hard-note", Static).update(
            f"The {len(self.report.hardest)} question(s) the fewest runs solve, with the wrong option "
            f"chosen most often and by how many of the runs that got it wrong. Enter shows the question.")

    @on(DataTable.RowSelected, "#items-table")
    def _open_item(self, event: DataTable.RowSelected) -> None:
        uid = event.row_key.value if event.row_key else None
        question = self.app.store.get_question(uid) if uid else None
        if question is None:
            self.notify(f"question {uid} is no longer in the bank", severity="warning", timeout=3)
            return
        self.app.push_screen(HardQuestionScreen(question, item_note(self.report.items, uid) + "   (Escape: close)",
                                                self.mode))

    @on(DataTable.RowSelected, "#hard-table")
    def _open_hard(self, event: DataTable.RowSelected) -> None:
        uid = event.row_key.value if event.row_key else None
        question = self.app.store.get_question(uid) if uid else None
        if question is None:
            self.notify(f"question {uid} is no longer in the bank", severity="warning", timeout=3)
            return
        h = next((h for h in self.report.hardest if h.uid == uid), None)
        note = ""
        if h is not None:
            note = f"{uid}: solved by {h.solved} of {h.runs} run(s)"
            if h.common_wrong is not None:
                note += f"; {h.common_wrong_count} chose option {h.common_wrong}"
            note += f"; key {question.key}" if question.key else ""
        self.app.push_screen(HardQuestionScreen(question, note + "   (Escape: close)", self.mode))

    # human

    def _fill_human(self) -> None:
        table = self.query_one("#human-table", DataTable)
        table.clear(columns=True)
        human = list(self.report.human or [])
        note = self.query_one("#human-note", Static)
        if not human:
            note.update("No annotator labels on these questions yet: label some (l on the bank) to "
                        "see people's accuracy against the key beside the models.")
            return
        table.add_column("", key="kind")
        table.add_column("who", key="who")
        for label, key in (("accuracy", "accuracy"), ("correct", "correct"), ("Wilson 95 %", "wilson")):
            table.add_column(right(label), key=key)
        entries = [(h.accuracy or 0.0, 0, "annotator", h.annotator, h.accuracy, h.correct, h.total,
                    h.low, h.high) for h in human]
        entries += [(r.accuracy, 1, "run", self.run_name(r.run_id, 30), r.accuracy, r.correct, r.total,
                     r.wilson_low, r.wilson_high) for r in list(self.report.leaderboard)[:3]]
        entries.sort(key=lambda e: (-e[0], e[1], e[3]))
        for _, is_run, kind, name, acc, c, n, lo, hi in entries:
            shown = bidi.display_line(name, 30, self.mode) if bidi.has_rtl(name) else cut(name, 30)
            style = "dim" if is_run else ""
            table.add_row(Text(kind, style=style), Text(shown, style=style), right(pct(acc)),
                          right(f"{c}/{n}"), right(interval(lo, hi)))
        note.update(f"Annotators' accuracy against the key on the shared questions they labelled, "
                    f"beside the {min(3, len(self.report.leaderboard))} best run(s) (dim, on all "
                    f"{self.report.questions}); Wilson 95 %.")

    # ------------------------------------------------------------ keys

    def action_tab(self, number: int) -> None:
        tabs = self.query_one(TabbedContent)
        if 1 <= number <= len(TABS) and tabs.display:
            tabs.active = TABS[number - 1]

    @on(TabbedContent.TabActivated, "#report-tabs")
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        self._focus_tab(event.pane.id)

    def _focus_tab(self, pane: str | None) -> None:
        """Each tab's main widget takes the focus, so its keys work at once."""
        target = MAIN_WIDGET.get(pane or "")
        if target:
            self.query_one(target).focus()

    def action_cycle_dimension(self) -> None:
        select = self.query_one("#bd-dimension", Select)
        present = {b.dimension for b in self.report.breakdowns} if self.report else set()
        names = [v for i, (_, v) in enumerate(DIMENSIONS) if i < 4 or v in present or v == self.dimension]
        select.value = names[(names.index(self.dimension) + 1) % len(names)]

    def action_back(self) -> None:
        self.dismiss()

    def action_cycle_questions(self) -> None:
        i = QUESTION_SETS.index(self.questions) if self.questions in QUESTION_SETS else -1
        self.questions = QUESTION_SETS[(i + 1) % len(QUESTION_SETS)]
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
        if not table.row_count:
            return
        run_id = int(self._cursor_key(table))
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
        self.notify(f"writing the report to {self.export_dir}/ …", timeout=2)
        self._export(self.report, self.export_dir)

    @work(thread=True, exclusive=True, group="report-export", exit_on_error=False)
    def _export(self, report, directory: Path) -> None:
        """Markdown (with the PNG charts), CSV and JSON, as `persian-tui report -o DIR` writes them."""
        from ...io.report_files import FORMATS, write_report

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

    # ------------------------------------------------------------ helpers

    def _color(self, name: str) -> str:
        """A theme colour for a Rich style (Rich does not know Textual's $variables)."""
        return self.app.theme_variables.get(name, "green")

    @staticmethod
    def _cursor_key(table: DataTable) -> str | None:
        if not table.row_count:
            return None
        return table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value

    @staticmethod
    def _restore_cursor(table: DataTable, key: str | None) -> None:
        if key is None:
            return
        try:
            table.move_cursor(row=table.get_row_index(key), animate=False)
        except Exception:  # noqa: BLE001 -- that row is gone
            pass


SCOPES = {"all": "draft, ready and curated", "ready": "ready and curated", "curated": "curated only"}


def report_scope(questions: str) -> str:
    return f"{questions} ({SCOPES[questions]})" if questions in SCOPES else questions


def leader_note(report) -> str:
    """How many questions the runs are compared on, and how to read the intervals."""
    runs = len(report.run_ids)
    every = "the run" if runs == 1 else f"all {runs} runs"
    text = (f"Ranked by 'all answered': accuracy on every keyed question the run answered. The other "
            f"columns compare on the {report.questions} question(s) with a key that {every} answered, of "
            f"{report.keyed} keyed in set {report_scope(report.question_set)}.")
    most = max(report.answered.values(), default=0)
    short = [r for r in report.run_ids if report.answered.get(r, 0) < most]
    if short and runs > 1:
        names = ", ".join(f"#{r} ({report.answered.get(r, 0)})" for r in short[:6])
        text += (f" {len(short)} run(s) answered fewer than {most} and limit the shared set: {names}"
                 f"{' …' if len(short) > 6 else ''}; x on a run leaves it out.")
    text += (f" Wilson and bootstrap ({report.n_boot} resamples of these questions, seed {report.seed}) "
             "are 95 % intervals: the run's true accuracy is likely inside. Overlapping intervals do not "
             "mean equal runs: tab 2 tests each pair on the same questions. Chance is 25 %.")
    return text


def no_shared_message(report, questions: str, excluded: set[int]) -> str:
    runs = len(report.run_ids)
    if not report.keyed:
        return (f"The question set {report_scope(questions)} has no question with a key, so no run "
                "can be scored on it.\n\nc switches the question set"
                + (", a brings back the runs left out" if excluded else "")
                + "; keys are set when authoring (n / e on the bank).")
    return (f"These {runs} runs share no question: of the {report.keyed} keyed question(s) in the set "
            f"{report_scope(questions)}, none was answered by every run, so they cannot be compared "
            "on the same questions.\n\nx leaves the highlighted run out"
            + (", a brings back the runs left out" if excluded else "")
            + ", c switches the question set. How many keyed questions each run answered:")


def _points(diff: float | None) -> str:
    return "—" if diff is None else f"{100 * diff:+.1f}"
